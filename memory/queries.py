"""The query lifecycle: each user question is a persisted query, pending → processing → completed | failed.

A query carries its config (max info requests, initial context size, include relationships,
temperature), the number of info requests made, timestamps, the error if it failed, and the
entity chosen whenever a name was ambiguous. Transitions are guarded: anything else raises
`InvalidTransition`, so a row can never go back to pending or finish twice.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from sqlalchemy import Connection, Engine, text
from sqlmodel import Session, col, select

from memory.models import QueryRow, utcnow
from memory.turns import validate_message

QueryStatus = Literal["pending", "processing", "completed", "failed"]
TRANSITIONS: dict[str, frozenset[str]] = {
    "pending": frozenset({"processing"}),
    "processing": frozenset({"completed", "failed"}),
    "completed": frozenset(),
    "failed": frozenset(),
}
MAX_ERROR_CHARS = 2000
_CHUNK = 500


def m005_queries(conn: Connection) -> None:
    """The queries table (one row per question through the answer loop)."""
    conn.execute(
        text(
            """
            CREATE TABLE queries (
                id INTEGER PRIMARY KEY,
                user_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                thread_id TEXT,
                turn_id INTEGER REFERENCES turns(id) ON DELETE SET NULL,
                text TEXT NOT NULL CHECK (length(text) BETWEEN 1 AND 10000),
                status TEXT NOT NULL DEFAULT 'pending'
                    CHECK (status IN ('pending', 'processing', 'completed', 'failed')),
                max_info_requests INTEGER NOT NULL DEFAULT 3,
                initial_context_size INTEGER NOT NULL DEFAULT 1200,
                include_relationships BOOLEAN NOT NULL DEFAULT 1,
                temperature REAL NOT NULL DEFAULT 0.0,
                info_requests INTEGER NOT NULL DEFAULT 0,
                confidence TEXT,
                forced BOOLEAN NOT NULL DEFAULT 0,
                choices TEXT NOT NULL DEFAULT '{}',
                error TEXT,
                created_at TEXT NOT NULL,
                started_at TEXT,
                finished_at TEXT
            )
            """
        )
    )
    conn.execute(text("CREATE INDEX ix_queries_user_created ON queries (user_id, id)"))


class InvalidTransition(ValueError):
    """A status change the lifecycle does not allow (e.g. completed → processing)."""


class QueryNotFound(LookupError):
    """No query with that id belongs to that user."""


@dataclass(frozen=True)
class QueryConfig:
    """How one question is answered.

    Attributes:
        max_info_requests: Rounds of asking for more before a forced answer (0-10).
        initial_context_size: Token budget of the context assembled before the first round.
        include_relationships: Whether relations are shown and relationship capabilities offered.
        temperature: Sampling temperature of the answer loop (0-2).
    """

    max_info_requests: int = 3
    initial_context_size: int = 1200
    include_relationships: bool = True
    temperature: float = 0.0

    def __post_init__(self) -> None:
        if not 0 <= self.max_info_requests <= 10:
            raise ValueError(f"max_info_requests must be 0..10, got {self.max_info_requests}")
        if self.initial_context_size < 0:
            raise ValueError(f"initial_context_size must be >= 0, got {self.initial_context_size}")
        if not 0.0 <= self.temperature <= 2.0:
            raise ValueError(f"temperature must be 0..2, got {self.temperature}")


class QueryStore:
    """Create, advance and read queries; every call is filtered by user."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def create(
        self,
        user_id: int,
        text: str,
        config: QueryConfig | None = None,
        *,
        thread_id: str | None = None,
        turn_id: int | None = None,
    ) -> QueryRow:
        """A new pending query.

        Raises:
            InvalidMessage: the text is empty or longer than 10,000 characters.
        """
        cfg = config or QueryConfig()
        row = QueryRow.model_validate(
            {
                "user_id": user_id,
                "thread_id": thread_id,
                "turn_id": turn_id,
                "text": validate_message(text),
                "status": "pending",
                "max_info_requests": cfg.max_info_requests,
                "initial_context_size": cfg.initial_context_size,
                "include_relationships": cfg.include_relationships,
                "temperature": cfg.temperature,
                "created_at": utcnow(),
            }
        )
        with Session(self._engine) as session:
            session.add(row)
            session.commit()
            session.refresh(row)
        return row

    def get(self, user_id: int, query_id: int) -> QueryRow | None:
        """One of this user's queries, or None."""
        with Session(self._engine) as session:
            row = session.get(QueryRow, query_id)
        return row if row is not None and row.user_id == user_id else None

    def recent(self, user_id: int, limit: int = 20) -> list[QueryRow]:
        """This user's latest queries, newest first."""
        query = select(QueryRow).where(QueryRow.user_id == user_id).order_by(col(QueryRow.id).desc()).limit(limit)
        with Session(self._engine) as session:
            return list(session.exec(query))

    def start(self, user_id: int, query_id: int) -> QueryRow:
        """pending → processing."""
        return self._move(user_id, query_id, "processing")

    def complete(self, user_id: int, query_id: int, confidence: str, forced: bool = False) -> QueryRow:
        """processing → completed, with the answer's confidence and whether it was forced."""
        return self._move(user_id, query_id, "completed", confidence=confidence, forced=forced)

    def fail(self, user_id: int, query_id: int, error: str) -> QueryRow:
        """processing → failed, keeping the error."""
        return self._move(user_id, query_id, "failed", error=error[:MAX_ERROR_CHARS] or "unknown error")

    def count_info_request(self, user_id: int, query_id: int) -> QueryRow:
        """One more info request made (only while processing).

        Raises:
            InvalidTransition: the query is not processing, or is already at its maximum.
        """
        with Session(self._engine) as session:
            row = self._owned(session, user_id, query_id)
            if row.status != "processing":
                raise InvalidTransition(f"query {query_id} is {row.status}: no info requests outside processing")
            if row.info_requests >= row.max_info_requests:
                raise InvalidTransition(f"query {query_id} already made {row.info_requests} info requests")
            row.info_requests += 1
            return self._save(session, row)

    def record_choice(
        self, user_id: int, query_id: int, name: str, candidates: Sequence[int], chosen: Sequence[int]
    ) -> QueryRow:
        """Record which of the entities sharing `name` the model chose (possibly several, or none)."""
        with Session(self._engine) as session:
            row = self._owned(session, user_id, query_id)
            choices = json.loads(row.choices or "{}")
            choices[name] = {"candidates": list(candidates), "chosen": list(chosen)}
            row.choices = json.dumps(choices)
            return self._save(session, row)

    def confidences(self, turn_ids: Iterable[int]) -> dict[int, str]:
        """How sure the answer to each of these user turns was (`high`, `medium`, `low`), every user's
        (the dream's read): the turn's latest completed query, since a retry answers it again."""
        wanted = sorted(set(turn_ids))
        found: dict[int, str] = {}
        with Session(self._engine) as session:
            for start in range(0, len(wanted), _CHUNK):  # bounded IN lists: a window may hold thousands
                query = select(QueryRow.turn_id, QueryRow.confidence).where(
                    col(QueryRow.turn_id).in_(wanted[start : start + _CHUNK]),
                    QueryRow.status == "completed",
                    col(QueryRow.confidence).is_not(None),
                )
                for turn_id, confidence in session.exec(query.order_by(col(QueryRow.id))):
                    if turn_id is not None and confidence is not None:
                        found[turn_id] = confidence
        return found

    def _move(self, user_id: int, query_id: int, to: QueryStatus, **fields: object) -> QueryRow:
        with Session(self._engine) as session:
            row = self._owned(session, user_id, query_id)
            if to not in TRANSITIONS[row.status]:
                raise InvalidTransition(f"query {query_id} cannot go from {row.status} to {to}")
            row.status = to
            now = utcnow()
            if to == "processing":
                row.started_at = now
            else:
                row.finished_at = now
            for name, value in fields.items():
                setattr(row, name, value)
            return self._save(session, row)

    @staticmethod
    def _owned(session: Session, user_id: int, query_id: int) -> QueryRow:
        row = session.get(QueryRow, query_id)
        if row is None or row.user_id != user_id:
            raise QueryNotFound(f"query {query_id} not found for user {user_id}")
        return row

    @staticmethod
    def _save(session: Session, row: QueryRow) -> QueryRow:
        session.add(row)
        session.commit()
        session.refresh(row)
        return row
