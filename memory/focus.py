"""A chat's retrieval focus (`/focus`): the graph domains a thread's recall is limited to.

Kept in `meta` per user and thread, so it survives a restart and needs no table of its own.
"""

from __future__ import annotations

import json

from sqlalchemy import Engine, text


def focus_key(user_id: int, thread_id: str) -> str:
    """The `meta` key of a thread's retrieval focus."""
    return f"focus:{user_id}:{thread_id}"


class FocusStore:
    """Each thread's focus, per user."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def get(self, user_id: int, thread_id: str) -> list[str] | None:
        """The graph domains a thread's retrieval is limited to ("personal", "doc:3"), or None for all."""
        with self._engine.connect() as conn:
            value = conn.execute(
                text("SELECT value FROM meta WHERE key = :k"), {"k": focus_key(user_id, thread_id)}
            ).first()
        return json.loads(value[0]) if value else None

    def set(self, user_id: int, thread_id: str, domains: list[str] | None) -> None:
        """Limit a thread's retrieval to these domains (None: everything again)."""
        with self._engine.begin() as conn:
            conn.execute(text("DELETE FROM meta WHERE key = :k"), {"k": focus_key(user_id, thread_id)})
            if domains is not None:
                conn.execute(
                    text("INSERT INTO meta (key, value) VALUES (:k, :v)"),
                    {"k": focus_key(user_id, thread_id), "v": json.dumps(domains)},
                )
