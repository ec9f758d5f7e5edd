"""The chat UI's own thread tables (Chainlit's `threads` and `steps`, created by `m001_core`).

Memory owns the file they live in, so a message posted outside a browser session (a reminder
coming due) is written here, not by the app.
"""

from __future__ import annotations

import json
import uuid

from sqlalchemy import Engine, text

from memory.models import utcnow


class ThreadLog:
    """Messages in the UI's threads."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def post(self, thread_id: str, content: str) -> None:
        """Add an assistant message to a thread, so it shows when the thread is opened (none if the
        thread does not exist)."""
        now = utcnow().strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        with self._engine.begin() as conn:
            if conn.execute(text('SELECT 1 FROM threads WHERE "id" = :t'), {"t": thread_id}).first() is None:
                return
            conn.execute(
                text(
                    'INSERT INTO steps ("id", "name", "type", "threadId", "streaming", "output", "createdAt", '
                    '"start", "end", "metadata", "generation") '
                    "VALUES (:id, 'Reverie', 'assistant_message', :t, false, :out, :now, :now, :now, :meta, '{}')"
                ),
                {"id": str(uuid.uuid4()), "t": thread_id, "out": content, "now": now, "meta": json.dumps({})},
            )
