"""Chainlit's data layer on the app's own SQLite file: its concurrent writes all land."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

from sqlalchemy import text

from app.ui_common import data_layer
from memory.db.engine import migrate, open_engine
from memory.db.migrations import MIGRATIONS

_INSERT_STEP = (
    'INSERT INTO steps ("id", "name", "type", "threadId", "streaming", "output", "createdAt") '
    "VALUES (:id, :name, 'user_message', :thread, 0, :output, :created)"
)


def test_concurrent_step_writes_all_persist_while_the_app_writes(tmp_path: Path) -> None:
    """Chainlit persists each step from its own fire-and-forget task, so writes overlap.

    Broke before: the engine URL did not name the file, SQLAlchemy shared one connection among
    all sessions, and a ROLLBACK on return silently discarded other sessions' INSERTs.
    """
    db_path = tmp_path / "reverie.db"
    engine = open_engine(db_path)
    migrate(engine, MIGRATIONS)
    thread = str(uuid.uuid4())
    ids = [str(uuid.uuid4()) for _ in range(60)]

    async def scenario() -> None:
        layer = data_layer(db_path)
        await layer.execute_sql(
            'INSERT INTO threads ("id", "createdAt", "name") VALUES (:id, :created, :name)',
            {"id": thread, "created": "2026-01-01T00:00:00Z", "name": "t"},
        )

        def app_writes() -> None:  # the app's own engine writes the same file meanwhile
            for i in range(20):
                with engine.begin() as conn:
                    conn.execute(text("INSERT INTO meta (key, value) VALUES (:k, 'v')"), {"k": f"k{i}"})

        await asyncio.gather(
            asyncio.to_thread(app_writes),
            *(
                layer.execute_sql(
                    _INSERT_STEP, {"id": i, "name": "u", "thread": thread, "output": i, "created": "2026-01-01"}
                )
                for i in ids
            ),
        )
        await layer.engine.dispose()

    asyncio.run(scenario())
    with engine.connect() as conn:
        stored = {r[0] for r in conn.execute(text('SELECT id FROM steps WHERE "threadId" = :t'), {"t": thread})}
        metas = conn.execute(text("SELECT count(*) FROM meta WHERE key LIKE 'k%'")).scalar_one()
    engine.dispose()
    assert stored == set(ids)
    assert metas == 20


def test_app_write_on_the_event_loop_never_waits_for_a_chainlit_transaction(tmp_path: Path) -> None:
    """Chainlit runs INSERT and COMMIT as two awaits; the app's sync writes run on the same loop.

    Broke before: the INSERT took SQLite's write lock and the COMMIT needed the loop, which the
    app's blocked write held, so the app failed with "database is locked" after busy_timeout and
    the turn was lost. Autocommit releases the lock inside the INSERT itself.
    """
    from sqlalchemy.ext.asyncio import AsyncSession

    db_path = tmp_path / "reverie.db"
    engine = open_engine(db_path)
    migrate(engine, MIGRATIONS)
    thread = str(uuid.uuid4())

    async def scenario() -> None:
        layer = data_layer(db_path)
        async with AsyncSession(layer.engine) as session:  # what execute_sql does, paused midway
            await session.begin()
            await session.execute(
                text('INSERT INTO threads ("id", "createdAt", "name") VALUES (:id, :created, :name)'),
                {"id": thread, "created": "2026-01-01T00:00:00Z", "name": "t"},
            )
            with engine.begin() as conn:  # the app writes from the loop before Chainlit commits
                conn.execute(text("INSERT INTO meta (key, value) VALUES ('mid', 'v')"))
            await session.commit()
        await layer.engine.dispose()

    asyncio.run(scenario())
    with engine.connect() as conn:
        threads = conn.execute(text("SELECT count(*) FROM threads WHERE id = :t"), {"t": thread}).scalar_one()
        metas = conn.execute(text("SELECT count(*) FROM meta WHERE key = 'mid'")).scalar_one()
    engine.dispose()
    assert (threads, metas) == (1, 1)
