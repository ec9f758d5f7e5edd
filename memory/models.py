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


# -- knowledge graph records (memory/entities.py owns their DDL and writes) -------------------
from sqlmodel import JSON  # noqa: E402  (appended section: keeps the shared header untouched)


class EntityRow(SQLModel, table=True):
    """A person, place, thing or idea the user talks about; a node of the knowledge graph.

    `type` is one of memory.entity_names.ENTITY_TYPES; `domain` is 'personal' or 'doc:<id>';
    a merged entity keeps its row (`status='merged'`, `merged_into` the survivor).
    """

    __tablename__ = "entities"  # pyright: ignore[reportAssignmentType]
    id: int | None = Field(default=None, primary_key=True)
    user_id: int
    name: str
    type: str
    aliases: list[str] = Field(default_factory=list, sa_type=JSON)
    summary: str | None = None
    mention_count: int = 1
    domain: str = "personal"
    created_at: datetime
    updated_at: datetime
    status: str = "active"
    merged_into: int | None = None


class RelationRow(SQLModel, table=True):
    """A (subject, PREDICATE, object) triple; `valid_to` set means superseded, kept as history."""

    __tablename__ = "relations"  # pyright: ignore[reportAssignmentType]
    id: int | None = Field(default=None, primary_key=True)
    user_id: int
    subject_id: int
    predicate: str
    object_id: int
    weight: float = 1.0
    source_turn_id: int | None = None
    source_memory_id: int | None = None
    document_id: int | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    created_at: datetime
