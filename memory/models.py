"""SQLModel table rows. Tables are created by named migrations (memory/migrations.py), not here.

A `table=True` model does not validate on `__init__`: build rows with `Row.model_validate(...)`.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    """Aware UTC now: SQLModel stores aware datetimes (and refuses naive ones)."""
    return datetime.now(UTC)


class AccountRow(SQLModel, table=True):
    """A person who can log in; every stored thing is scoped by this id."""

    __tablename__ = "accounts"  # pyright: ignore[reportAssignmentType]
    id: int | None = Field(default=None, primary_key=True)
    name: str
    password_hash: str
    created_at: datetime


class TurnRow(SQLModel, table=True):
    """One message of a conversation, as the episodic memory keeps it."""

    __tablename__ = "turns"  # pyright: ignore[reportAssignmentType]
    id: int | None = Field(default=None, primary_key=True)
    user_id: int
    thread_id: str
    role: str
    content: str
    created_at: datetime
    tokens: int


class MetaRow(SQLModel, table=True):
    """Installation facts checked at start-up (embedding model name and dimension, …)."""

    __tablename__ = "meta"  # pyright: ignore[reportAssignmentType]
    key: str = Field(primary_key=True)
    value: str
