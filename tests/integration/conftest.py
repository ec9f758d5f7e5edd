"""Integration fixtures: a migrated SQLite file (or PostgreSQL database) with two accounts, and the real embedder."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from app.runtime import open_storage
from app.settings import Settings
from memory.db.engine import migrate, open_engine
from memory.db.migrations import MIGRATIONS, PG_VARIANTS
from memory.db.postgres import migrate_pg, open_pg_engine
from memory.graph.backend import GraphBackend
from memory.graph.entities import EntityStore
from memory.graph.kuzu_graph import Graph
from memory.graph.sql_graph import SqlGraph
from memory.recall.embedder import Embedder, get_embedder
from memory.store import MemoryStore


def make_engine(path: Path) -> Engine:
    """The SQLite file at `path`, migrated, with accounts 1 and 2 (a second engine on the same file
    finds them there)."""
    engine = open_engine(path)
    migrate(engine, MIGRATIONS)
    with engine.begin() as conn:
        for uid in (1, 2):
            conn.execute(
                text(
                    "INSERT OR IGNORE INTO accounts (id, name, password_hash, created_at) VALUES (:i, :n, '-', 'now')"
                ),
                {"i": uid, "n": f"user{uid}"},
            )
    return engine


def make_pg_engine(url: str) -> Engine:
    """The PostgreSQL database at `url` (tests/postgres.py's `pg_url`), migrated, with accounts 1 and 2."""
    engine = open_pg_engine(url)
    migrate_pg(engine, MIGRATIONS, PG_VARIANTS)
    with engine.begin() as conn:
        for uid in (1, 2):
            conn.execute(
                text(
                    "INSERT INTO accounts (id, name, password_hash, created_at) VALUES (:i, :n, '-', now()) "
                    "ON CONFLICT DO NOTHING"
                ),
                {"i": uid, "n": f"user{uid}"},
            )
    return engine


@pytest.fixture(params=["sqlite", "postgresql"])
def both_engines(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """`engine` on each backend in turn: the SQLite file, then a fresh PostgreSQL database (a module
    runs its tests on both by naming this as its `engine`)."""
    if request.param == "sqlite":
        engine = make_engine(tmp_path / "reverie.db")
    else:
        engine = make_pg_engine(request.getfixturevalue("pg_url"))
    yield engine
    engine.dispose()


@pytest.fixture(params=["kuzu", "postgresql"])
def both_graphs(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[EntityStore]:
    """An EntityStore on each graph in turn: the Kuzu projection beside the SQLite file, then
    recursive SQL on a fresh PostgreSQL database (a module asks both by naming this as its `store`)."""
    graph: GraphBackend
    if request.param == "kuzu":
        engine = make_engine(tmp_path / "reverie.db")
        graph = Graph.open(tmp_path / "graph")
    else:
        engine = make_pg_engine(request.getfixturevalue("pg_url"))
        graph = SqlGraph(engine)
    yield EntityStore(engine, graph)
    graph.close()
    engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def both_storages(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[MemoryStore]:
    """Every store through the front door on each backend in turn: the SQLite file (with Kuzu), then a
    fresh PostgreSQL database (a test asks both by naming this instead of `storage`)."""
    url = request.getfixturevalue("pg_url") if request.param == "postgresql" else ""
    settings = Settings(_env_file=None, data_dir=tmp_path / "data", llm_backend="embedded", database_url=url)  # pyright: ignore[reportCallIssue]
    store = open_storage(settings)
    yield store
    store.close()


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    """The real MiniLM embedder (loaded once per test run)."""
    return get_embedder()


@pytest.fixture
def engine(tmp_path: Path) -> Iterator[Engine]:
    """`make_engine` on tmp_path/reverie.db."""
    engine = make_engine(tmp_path / "reverie.db")
    yield engine
    engine.dispose()
