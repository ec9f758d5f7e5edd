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
from memory.accounts import AccountStore
from memory.db import migrate, open_engine
from memory.migrations import MIGRATIONS
from memory.turns import TurnStore


@dataclass
class Storage:
    """Everything stored, for one installation."""

    engine: Engine
    accounts: AccountStore
    turns: TurnStore

    def close(self) -> None:
        """Release the database."""
        self.engine.dispose()


def open_storage(settings: Settings) -> Storage:
    """Open the data directory, apply migrations, and build the stores."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    engine = open_engine(settings.db_path)
    migrate(engine, MIGRATIONS)
    return Storage(engine=engine, accounts=AccountStore(engine), turns=TurnStore(engine))


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
