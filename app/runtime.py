"""The composition root: builds every long-lived object once and closes it.

`open_storage` is the synchronous half the CLI needs; `open_runtime` adds the language model
(and, later, the scheduler) for the chat server.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from sqlalchemy import Engine

from app.llm import Backend, LLMConfig, open_backend
from app.settings import Settings
from capabilities.limits import apply_overrides
from capabilities.resources import Limits
from memory.accounts import AccountStore
from memory.assembly import ContextAssembler
from memory.db import migrate, open_engine
from memory.embedder import Embedder, check_index_meta, get_embedder
from memory.entities import EntityStore
from memory.graph import Graph
from memory.migrations import MIGRATIONS
from memory.turns import TurnStore
from memory.usage import OverrideStore, UsageLog
from memory.vectors import MemoryIndex


@dataclass
class Storage:
    """Everything stored, for one installation; every store filters by user."""

    engine: Engine
    graph: Graph
    embedder: Embedder
    accounts: AccountStore
    turns: TurnStore
    memories: MemoryIndex
    entities: EntityStore
    usage: UsageLog
    overrides: OverrideStore
    assembler: ContextAssembler

    def close(self) -> None:
        """Release the database and the graph."""
        self.graph.close()
        self.engine.dispose()


def open_storage(settings: Settings) -> Storage:
    """Open the data directory, apply migrations, check the index, and build the stores.

    Raises:
        StorageError, GraphLockedError, GraphCorruptError, EmbeddingIndexMismatch,
        EmbedderUnavailable: each message names the fix.
    """
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    engine = open_engine(settings.db_path)
    migrate(engine, MIGRATIONS)
    embedder = get_embedder()
    check_index_meta(engine, embedder)
    graph = Graph.open(settings.graph_dir)
    turns = TurnStore(engine)
    memories = MemoryIndex(engine, embedder)
    entities = EntityStore(engine, graph)
    entities.sync_graph()
    return Storage(
        engine=engine,
        graph=graph,
        embedder=embedder,
        accounts=AccountStore(engine),
        turns=turns,
        memories=memories,
        entities=entities,
        usage=UsageLog(engine),
        overrides=OverrideStore(engine),
        assembler=ContextAssembler(engine, turns, memories, entities),
    )


def base_limits(settings: Settings) -> Limits:
    """The `.env` ranges, validated (raises LimitsError naming the variable)."""
    values = {
        name.upper(): getattr(settings, name)
        for name in type(settings).model_fields
        if name.startswith(("min_", "max_", "default_"))
        and name.endswith(("context_turns", "search_limit", "threshold", "triple_depth"))
    }
    return Limits.from_values(values, source=".env")


def effective_limits(settings: Settings, store: Storage) -> Limits:
    """`.env` ranges with the approved overrides on top: read fresh every turn, so an approval
    takes effect for the next turn without a restart."""
    return apply_overrides(base_limits(settings), store.overrides.active())


def llm_config(settings: Settings) -> LLMConfig:
    """The plain values the LLM layer needs."""
    return LLMConfig(
        backend=settings.llm_backend,
        ollama_host=settings.ollama_host,
        ollama_model=settings.ollama_model,
        embedded_model_path=settings.embedded_model_path,
        embedded_threads=settings.embedded_threads,
        embedded_ctx=settings.embedded_ctx,
        timeout_s=settings.llm_timeout_s,
    )


@dataclass
class Runtime:
    """What a running chat server holds."""

    settings: Settings
    store: Storage
    backend: Backend


@asynccontextmanager
async def open_runtime(settings: Settings) -> AsyncIterator[Runtime]:
    """Build the storage and the model backend; close both on exit."""
    store = open_storage(settings)
    try:
        async with open_backend(llm_config(settings)) as backend:
            yield Runtime(settings=settings, store=store, backend=backend)
    finally:
        store.close()
