"""Chainlit's data layer on the app's own SQLite file (its concurrent writes all land), and on PostgreSQL."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

from sqlalchemy import Engine, text

from app.ui_common import data_layer
from memory.db.engine import migrate, open_engine
from memory.db.migrations import MIGRATIONS
from memory.threads import ThreadLog

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


def _layer_target(engine: Engine) -> tuple[Path, str]:
    """(SQLite file, PostgreSQL URL) for `data_layer`, from a migrated engine of either backend."""
    if engine.dialect.name == "postgresql":
        return Path("unused.db"), engine.url.render_as_string(hide_password=False)
    return Path(str(engine.url.database)), ""


def test_chainlit_layer_keeps_users_threads_and_steps_on_both_backends(both_engines: Engine) -> None:
    """Chainlit's own SQLAlchemy data layer on the tables memory's migrations made, on the SQLite file
    and on PostgreSQL (REVERIE_DATABASE_URL): a user, a thread with its messages (Chainlit's and one the
    app posted, a reminder), the history listing and the panel filter all come back."""
    from chainlit.data.sql_alchemy import SQLAlchemyDataLayer
    from chainlit.types import Pagination, ThreadFilter
    from chainlit.user import User

    db_path, url = _layer_target(both_engines)
    thread, panel = str(uuid.uuid4()), str(uuid.uuid4())
    create_step = SQLAlchemyDataLayer.create_step.__wrapped__  # (outside a websocket session: no queueing)

    async def scenario() -> tuple[object, ...]:
        layer = data_layer(db_path, url)
        try:
            user = await layer.create_user(User(identifier="ana", metadata={"account_id": 1}))
            assert user is not None
            await layer.update_thread(thread, name="Lisbon", user_id=user.id)
            for i, (kind, words) in enumerate([("user_message", "I live in Lisbon"), ("assistant_message", "Noted")]):
                step = {"id": str(uuid.uuid4()), "name": "ana", "type": kind, "threadId": thread, "output": words}
                await create_step(layer, {**step, "streaming": False, "createdAt": f"2026-01-01T00:00:0{i}Z"})
            ThreadLog(both_engines).post(thread, "Reminder: call Rita")
            await layer.update_thread(panel, name="/memories", user_id=user.id, metadata={"panel": True})
            got = await layer.get_thread(thread)
            listed = await layer.list_threads(Pagination(first=10), ThreadFilter(userId=user.id))
            again = await layer.get_user("ana")
            return got, [t["id"] for t in listed.data], again
        finally:
            await layer.engine.dispose()

    got, listed, again = asyncio.run(scenario())
    assert got is not None and got["name"] == "Lisbon"  # pyright: ignore[reportIndexIssue, reportOptionalSubscript]
    outputs = [s["output"] for s in got["steps"]]  # pyright: ignore[reportIndexIssue, reportOptionalSubscript]
    assert outputs == ["I live in Lisbon", "Noted", "Reminder: call Rita"]
    assert listed == [thread]  # the chat that only ran /memories stays out of the history
    assert again is not None and again.metadata == {"account_id": 1}  # pyright: ignore[reportAttributeAccessIssue]
