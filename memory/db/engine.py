"""The one SQLite file: an engine that loads sqlite-vec, WAL mode, and named migrations.

The stdlib `sqlite3` of many CPython builds (pyenv, macOS) cannot load extensions, so the
engine runs on `sqlean.py`, a drop-in DB-API driver that can, on every CPython.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlean
import sqlite_vec
from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.exc import DatabaseError as SADatabaseError
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

Migration = Callable[[Connection], None]


class StorageError(RuntimeError):
    """The database cannot be used as it is; the message names the fix."""


def _on_connect(dbapi_conn: Any, _record: Any) -> None:
    dbapi_conn.enable_load_extension(True)
    sqlite_vec.load(dbapi_conn)
    dbapi_conn.enable_load_extension(False)
    cur = dbapi_conn.cursor()
    try:
        _pragmas(cur)
    finally:
        cur.close()


# WAL lets Chainlit's async data layer read while the app writes; busy_timeout makes a briefly locked
# file wait instead of failing; mmap halves KNN time (STACK-NOTES).
_PRAGMAS = (
    "PRAGMA busy_timeout=5000",
    "PRAGMA journal_mode=WAL",
    "PRAGMA synchronous=NORMAL",
    "PRAGMA foreign_keys=ON",
    "PRAGMA mmap_size=268435456",
)
PRAGMA_WAIT_S = 10.0
"""How long a new connection retries its pragmas on a locked file. Switching to WAL can fail at once with
"database is locked", busy timeout or not, while another process creates or migrates the same file (CI,
2026-11-29: two processes started together on one new file)."""


def _pragmas(cur: Any, wait_s: float = PRAGMA_WAIT_S) -> None:
    deadline = time.monotonic() + wait_s
    for pragma in _PRAGMAS:
        while True:
            try:
                cur.execute(pragma)
                break
            except sqlean.dbapi2.OperationalError as exc:  # pyright: ignore[reportAttributeAccessIssue]
                if "locked" not in str(exc).lower() or time.monotonic() >= deadline:
                    raise
                time.sleep(0.05)


def open_engine(path: Path) -> Engine:
    """Open (creating if needed) the SQLite file at `path` with sqlite-vec loaded.

    Raises:
        StorageError: the directory is not writable, or the file is not a SQLite database.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(
        f"sqlite:///{path}",
        module=sqlean,
        connect_args={"check_same_thread": False, "timeout": 5.0},
    )
    event.listen(engine, "connect", _on_connect)
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT count(*) FROM sqlite_master")).scalar_one()
    except (SADatabaseError, OperationalError, sqlite3.Error) as exc:
        engine.dispose()
        raise StorageError(_explain(path, exc)) from exc
    return engine


def _explain(path: Path, exc: Exception) -> str:
    msg = str(exc).lower()
    if "not a database" in msg or "malformed" in msg:
        return (
            f"{path} is not a readable SQLite database ({exc}). Restore it from a backup, or move it "
            "aside to start fresh: nothing has been deleted."
        )
    if "disk is full" in msg or "disk i/o" in msg:
        return (
            f"the disk holding {path.parent} is full or failing ({exc}). Free some space (or move "
            "REVERIE_DATA_DIR to a larger disk) and start again: nothing has been deleted."
        )
    if "locked" in msg or "busy" in msg:
        return f"{path} is locked by another process ({exc}). Stop the other Reverie process and retry."
    if "readonly" in msg or "unable to open" in msg:
        return f"cannot write {path} ({exc}). Check the permissions of REVERIE_DATA_DIR ({path.parent})."
    return f"cannot open {path}: {exc}"


def migrate(engine: Engine, migrations: list[tuple[str, Migration]]) -> list[str]:
    """Apply, in order, each named migration not yet recorded; each in its own transaction.

    Each runs under SQLite's write lock (BEGIN IMMEDIATE) and reads what is done inside it: two
    processes opening a new file together (the browser and `reverie chat`) would otherwise both
    see m001 missing and the second fail on "table accounts already exists". The explicit BEGIN
    also makes a migration of DDL alone atomic: the driver opens no transaction before DDL.

    Returns:
        The names applied by this call.
    """
    applied: list[str] = []
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT)"))
        done = {row[0] for row in conn.execute(text("SELECT name FROM _migrations"))}
    for name, fn in migrations:
        if name in done:  # (the usual open: nothing to do, and no write lock taken)
            continue
        with engine.begin() as conn:
            conn.exec_driver_sql("BEGIN IMMEDIATE")
            if conn.execute(text("SELECT 1 FROM _migrations WHERE name = :n"), {"n": name}).first():
                continue
            fn(conn)
            conn.execute(
                text("INSERT INTO _migrations (name, applied_at) VALUES (:n, :t)"),
                {"n": name, "t": datetime.now(UTC).isoformat()},
            )
        applied.append(name)
    return applied


def async_engine(path: Path) -> AsyncEngine:
    """The async engine Chainlit's data layer uses on the same file, opened through sqlean.

    Two traps, both seen as silently lost writes in the browser tests:
    - Left to itself, aiosqlite opens the file with the stdlib `sqlite3`, a second copy of
      SQLite in the same process. SQLite's POSIX locks are per process, so one copy closing the
      file drops the other's locks (sqlite.org/howtocorrupt.html, "multiple copies of SQLite"):
      a document row committed by the app vanished while Chainlit wrote its steps.
    - The URL must name the file. A bare `sqlite+aiosqlite://` means `:memory:` to SQLAlchemy,
      which then shares ONE connection among all sessions (StaticPool); Chainlit writes its
      steps from concurrent fire-and-forget tasks, and one session's reset-on-return ROLLBACK
      discarded another's half-done INSERT, so user messages disappeared from resumed threads.
    - Autocommit. Chainlit runs each statement as INSERT then COMMIT, two awaits; the app's sync
      writes run on the same event loop. A transaction left open between the awaits held SQLite's
      write lock while the loop was blocked in the app's write waiting for that very lock:
      "database is locked" after busy_timeout, and the turn was lost. Every statement Chainlit's
      layer issues stands alone (one statement per session), so autocommit loses no atomicity.
    """
    import aiosqlite

    def connector() -> Any:
        conn = sqlean.connect(str(path), check_same_thread=False, timeout=5.0)  # pyright: ignore[reportAttributeAccessIssue]
        conn.execute("PRAGMA busy_timeout=5000")
        return conn

    async def create() -> Any:
        return await aiosqlite.Connection(connector, 64)

    return create_async_engine(f"sqlite+aiosqlite:///{path}", async_creator=create, isolation_level="AUTOCOMMIT")


def in_clause(column: str, values: Sequence[Any] | None, params: dict[str, Any]) -> str:
    """` AND column IN (:p0, :p1, ...)` with the values bound as parameters ('' for None)."""
    if values is None:
        return ""
    names = []
    for value in values:
        name = f"p{len(params)}"
        params[name] = value
        names.append(f":{name}")
    return f" AND {column} IN ({', '.join(names) or 'NULL'})"


def ids_clause(bind: Engine | Connection, column: str, ids: Sequence[int], params: dict[str, Any]) -> str:
    """` AND column IN (…)` for a long list of integer ids, bound as one parameter: PostgreSQL's
    `= ANY` of an array, SQLite's `json_each`. With `in_clause`'s parameter per id, the 1,500
    relations of a depth-3 expansion cost ~30 ms on PostgreSQL (psycopg binds client-side, so a
    16 KB statement is parsed on both sides) and ~20 ms on SQLite; one parameter 1-4 ms."""
    name = f"p{len(params)}"
    if bind.dialect.name == "postgresql":
        params[name] = [int(i) for i in ids]
        return f" AND {column} = ANY(CAST(:{name} AS BIGINT[]))"
    params[name] = json.dumps([int(i) for i in ids])
    return f" AND {column} IN (SELECT value FROM json_each(:{name}))"


def versions(engine: Engine) -> dict[str, str]:
    """The SQLite and sqlite-vec versions this engine runs (for `reverie doctor`)."""
    with engine.connect() as conn:
        sqlite_v, vec_v = conn.execute(text("SELECT sqlite_version(), vec_version()")).one()
    return {"sqlite": str(sqlite_v), "sqlite-vec": str(vec_v)}
