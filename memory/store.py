"""memory/'s front door: every store, built once over one SQLite file (and the Kuzu graph).

The other boxes open memory here and use its stores; the SQLAlchemy engine stays inside memory/
(tests/test_architecture.py checks it). Two openers, for two kinds of caller:

- `open_records`: the SQLite stores that need neither the embedding model nor the graph. Any
  number of processes may hold them while the app runs (WAL), so CLI reads never wait.
- `open_memory`: everything (the app, `reverie chat`, the dream, commands that change memories).

Both take the SQLite file's path, or a `database_url` naming a PostgreSQL server (with pgvector)
to hold the same tables instead (docs/postgres.md says what works there so far).
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.ext.asyncio import AsyncEngine

from memory.accounts import AccountStore
from memory.assembly import ContextAssembler
from memory.db.engine import StorageError, async_engine, migrate, open_engine, versions
from memory.db.migrations import MIGRATIONS, PG_VARIANTS
from memory.db.postgres import async_pg_engine, driver_url, migrate_pg, open_pg_engine
from memory.db.postgres import versions as pg_versions
from memory.documents.store import DocumentStore
from memory.dreams import DreamStore
from memory.focus import FocusStore
from memory.formation.queue import FormationQueue
from memory.graph.backend import GraphBackend
from memory.graph.entities import EntityStore
from memory.graph.entity_vectors import EntityVectors
from memory.graph.kuzu_graph import Graph
from memory.graph.sql_graph import SqlGraph
from memory.leases import LeaseStore
from memory.queries import QueryStore
from memory.recall.embedder import Embedder
from memory.recall.pg_index import PgMemoryIndex
from memory.recall.reindex import check_index_meta, rebuild_index
from memory.recall.vectors import MemoryIndex
from memory.reminders import ReminderStore
from memory.threads import ThreadLog
from memory.transfer import BATCH, Progress, Verification, copy_installation, verify
from memory.turns import TurnStore
from memory.usage import OverrideStore, UsageLog

__all__ = [
    "MemoryStore",
    "Records",
    "StorageError",
    "database_versions",
    "job_store_url",
    "migrate_to",
    "open_memory",
    "open_records",
    "reembed",
    "ui_engine",
]


@dataclass(kw_only=True)
class Records:
    """The SQLite file's stores that need no model and no graph; every store filters by user."""

    engine: Engine  # memory/'s own: the boxes above go through the stores
    accounts: AccountStore
    turns: TurnStore
    usage: UsageLog
    overrides: OverrideStore
    queries: QueryStore
    dreams: DreamStore
    reminders: ReminderStore
    formation: FormationQueue
    focus: FocusStore
    threads: ThreadLog
    leases: LeaseStore  # which process dreams tonight (several processes on one database)

    def recall(self, embedder: Embedder) -> MemoryIndex:
        """The memories and their vectors, embedded by `embedder` (checked against the stored index).

        Raises:
            EmbeddingIndexMismatch: the stored vectors were built with another model or dimension.
        """
        check_index_meta(self.engine, embedder)
        return _memory_index(self.engine, embedder)

    def close(self) -> None:
        """Release the database."""
        self.engine.dispose()


@dataclass(kw_only=True)
class MemoryStore(Records):
    """Everything stored, for one installation: the records, the memory index and the graph."""

    embedder: Embedder
    memories: MemoryIndex
    graph: GraphBackend  # Kuzu's projection, or on PostgreSQL the tables themselves (sql_graph.py)
    entities: EntityStore
    documents: DocumentStore
    assembler: ContextAssembler
    presence: int = -1  # a shared flock the caller took to say this process has the stores open

    @property
    def vectors(self) -> EntityVectors:
        """Entity vectors (relevance in assembly, SEARCH_ENTITIES): one cache for both."""
        return self.assembler.vectors

    def alone(self) -> bool:
        """Whether no other Reverie process has the stores open: then a formation job left `running`
        is a dead process's, not one another process is forming right now."""
        if self.presence < 0:
            return True
        try:
            fcntl.flock(self.presence, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False
        finally:  # (a failed conversion may have dropped the shared lock: take it again either way)
            fcntl.flock(self.presence, fcntl.LOCK_SH)

    def alone_everywhere(self) -> bool:
        """Whether no other process anywhere has the stores open. Only the SQLite file can say: its
        processes are all on this machine (`alone`); a PostgreSQL server's may be on others."""
        return self.engine.dialect.name != "postgresql" and self.alone()

    def close(self) -> None:
        """Release the database, the graph and the presence lock."""
        self.graph.close()
        super().close()
        if self.presence >= 0:
            os.close(self.presence)
            self.presence = -1


def _open_engine(db_path: Path, database_url: str = "") -> Engine:
    engine = open_pg_engine(database_url) if database_url else open_engine(db_path)
    try:
        if database_url:
            migrate_pg(engine, MIGRATIONS, PG_VARIANTS)
        else:
            migrate(engine, MIGRATIONS)
    except BaseException:
        engine.dispose()
        raise
    return engine


def _memory_index(engine: Engine, embedder: Embedder) -> MemoryIndex:
    return PgMemoryIndex(engine, embedder) if engine.dialect.name == "postgresql" else MemoryIndex(engine, embedder)


def _records(engine: Engine, reminder_interval_minutes: int) -> Records:
    return Records(
        engine=engine,
        accounts=AccountStore(engine),
        turns=TurnStore(engine),
        usage=UsageLog(engine),
        overrides=OverrideStore(engine),
        queries=QueryStore(engine),
        dreams=DreamStore(engine),
        reminders=ReminderStore(engine, reminder_interval_minutes),
        formation=FormationQueue(engine),
        focus=FocusStore(engine),
        threads=ThreadLog(engine),
        leases=LeaseStore(engine),
    )


def open_records(db_path: Path, *, reminder_interval_minutes: int = 120, database_url: str = "") -> Records:
    """Open (creating and migrating) the SQLite file, without the embedder or the graph.

    `database_url` (`postgresql://…`), when given, names the server that holds the tables instead.

    Raises:
        StorageError: the file or server cannot be used; the message names the fix.
    """
    return _records(_open_engine(db_path, database_url), reminder_interval_minutes)


def open_memory(
    db_path: Path,
    graph_dir: Path,
    embedder: Embedder,
    *,
    reminder_interval_minutes: int = 120,
    presence: int = -1,
    database_url: str = "",
) -> MemoryStore:
    """Open (creating and migrating) the SQLite file and the graph, check the index, build every store.

    `presence` is a shared lock the caller holds for as long as the stores are open; closing the
    store releases it. `database_url` (`postgresql://…`), when given, names the server that holds
    the tables instead of the file; there the graph is asked of the tables with recursive SQL,
    and `graph_dir` is not used.

    Raises:
        StorageError, GraphLockedError, GraphCorruptError, EmbeddingIndexMismatch: each message names the fix.
    """
    engine = _open_engine(db_path, database_url)
    try:
        check_index_meta(engine, embedder)
        graph: GraphBackend = SqlGraph(engine) if database_url else Graph.open(graph_dir)
    except BaseException:
        engine.dispose()
        raise
    records = _records(engine, reminder_interval_minutes)
    memories = _memory_index(engine, embedder)
    entities = EntityStore(engine, graph)
    entities.sync_graph()
    shared: dict[str, Any] = {f.name: getattr(records, f.name) for f in fields(Records)}
    return MemoryStore(
        **shared,
        embedder=embedder,
        memories=memories,
        graph=graph,
        entities=entities,
        documents=DocumentStore(engine, entities),
        assembler=ContextAssembler(engine, records.turns, memories, entities, EntityVectors(engine, embedder)),
        presence=presence,
    )


def reembed(
    db_path: Path, embedder: Embedder, progress: Callable[[int, int], None] | None = None, *, database_url: str = ""
) -> int:
    """Re-embed every memory with `embedder` (`reverie reindex`); the caller makes sure it runs alone.

    Returns:
        How many memories were re-embedded.

    Raises:
        StorageError: the file cannot be used; the message names the fix.
    """
    engine = _open_engine(db_path, database_url)
    try:
        return rebuild_index(engine, embedder, progress=progress)
    finally:
        engine.dispose()


def database_versions(db_path: Path, database_url: str = "") -> dict[str, str]:
    """The SQLite and sqlite-vec versions the file opens with, or the PostgreSQL and pgvector versions
    of the server `database_url` names (for `reverie doctor`; nothing migrated).

    Raises:
        StorageError: the file or server cannot be used; the message names the fix.
    """
    engine = open_pg_engine(database_url) if database_url else open_engine(db_path)
    try:
        return pg_versions(engine) if database_url else versions(engine)
    finally:
        engine.dispose()


def migrate_to(
    db_path: Path,
    database_url: str,
    embedder: Embedder,
    progress: Progress | None = None,
    per_user: int = 10,
    batch: int = BATCH,
) -> tuple[dict[str, int], Verification]:
    """Copy the SQLite file's installation into the PostgreSQL server `database_url` (resuming a copy
    that stopped), then verify it: counts per table and recall on both (memory/transfer.py). The
    caller makes sure nothing writes the file meanwhile.

    Returns:
        Rows copied per table by this call, and what the verification found.

    Raises:
        StorageError: either database cannot be used, or the target holds other data.
        EmbeddingIndexMismatch: `embedder` is not the one the file's vectors were built with.
    """
    src = _open_engine(db_path)
    try:
        check_index_meta(src, embedder)
        dst = _open_engine(db_path, database_url)
        try:
            copied = copy_installation(src, dst, str(db_path.resolve()), progress, batch)
            check_index_meta(dst, embedder)
            found = verify(src, dst, (_memory_index(src, embedder), _memory_index(dst, embedder)), per_user)
        finally:
            dst.dispose()
    finally:
        src.dispose()
    return copied, found


def ui_engine(db_path: Path, database_url: str = "") -> AsyncEngine:
    """The async engine for the chat UI's data layer on the same file (memory.db.engine.async_engine says
    why), or on the PostgreSQL server `database_url` names, whose migrations made Chainlit's tables too."""
    return async_pg_engine(database_url) if database_url else async_engine(db_path)


def job_store_url(scheduler_db: Path, database_url: str = "") -> str:
    """Where the scheduler keeps its jobs: its own SQLite file beside the data (app/scheduler.py says
    why), or the PostgreSQL server `database_url` names, shared by every process on it."""
    return driver_url(database_url) if database_url else f"sqlite:///{scheduler_db}"
