"""Episodic memory: every user and assistant turn, per user and thread."""

from __future__ import annotations

from typing import Literal

from sqlalchemy import Engine, func
from sqlmodel import Session, col, select

from memory.models import TurnRow, utcnow
from memory.tokens import estimate_tokens

MAX_MESSAGE_CHARS = 10_000
Role = Literal["user", "assistant"]


class InvalidMessage(ValueError):
    """A message the user cannot send as it is; the text is shown to them."""


def storable_text(text: str) -> str:
    """U+FFFD for what SQLite text cannot hold faithfully: lone surrogates (a socket's JSON, or a
    model's, may carry "\\ud800"; UTF-8 cannot encode them) and NUL (SQL `length()` and FTS stop
    at it). Every store that takes outside text applies it at its boundary."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace").replace("\x00", "\ufffd")


def validate_message(text: str) -> str:
    """Check a user's message once, at the boundary.

    Raises:
        InvalidMessage: empty, whitespace-only, or over 10,000 characters.
    """
    if not text or not text.strip():
        raise InvalidMessage("Your message is empty. Type something and send it again.")
    if len(text) > MAX_MESSAGE_CHARS:
        raise InvalidMessage(
            f"Your message is {len(text):,} characters; the limit is {MAX_MESSAGE_CHARS:,}. "
            "Shorten it, or ingest long text as a document."
        )
    return text


class TurnStore:
    """Append and read conversation turns; every query is filtered by user."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def add(self, user_id: int, thread_id: str, role: Role, content: str) -> TurnRow:
        """Persist one turn and return it with its id."""
        row = TurnRow.model_validate(
            {
                "user_id": user_id,
                "thread_id": thread_id,
                "role": role,
                "content": content,
                "created_at": utcnow(),
                "tokens": estimate_tokens(content),
            }
        )
        with Session(self._engine) as session:
            session.add(row)
            session.commit()
            session.refresh(row)
        return row

    def recent(self, user_id: int, thread_id: str, n: int, before_id: int | None = None) -> list[TurnRow]:
        """The last `n` turns of a thread, oldest first (optionally only those before a turn id)."""
        if n <= 0:
            return []
        query = select(TurnRow).where(TurnRow.user_id == user_id, TurnRow.thread_id == thread_id)
        if before_id is not None:
            query = query.where(col(TurnRow.id) < before_id)
        with Session(self._engine) as session:
            rows = list(session.exec(query.order_by(col(TurnRow.id).desc()).limit(n)))
        return rows[::-1]

    def get(self, user_id: int, turn_id: int) -> TurnRow | None:
        """One turn of this user's, or None."""
        with Session(self._engine) as session:
            row = session.get(TurnRow, turn_id)
        return row if row is not None and row.user_id == user_id else None

    def threads(self, user_id: int) -> list[str]:
        """Thread ids this user has turns in, most recent first."""
        with Session(self._engine) as session:
            rows = session.exec(
                select(TurnRow.thread_id)
                .where(TurnRow.user_id == user_id)
                .group_by(col(TurnRow.thread_id))
                # max(id), not a bare id: PostgreSQL refuses a column neither grouped nor aggregated
                # (SQLite took the group's last row scanned, the same newest turn)
                .order_by(func.max(TurnRow.id).desc())
            )
            return list(rows)
