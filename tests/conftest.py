"""Shared fixtures: real SQLite files in tmp_path, settings that read no .env."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from memory.store import MemoryStore

pytest_plugins = ["tests.postgres"]  # the `pg_server` / `pg_url` fixtures: a real PostgreSQL + pgvector

# One thread for BLAS/tokenizers, as the app runs (set before numpy loads anywhere).
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from app.runtime import open_storage  # noqa: E402
from app.settings import Settings  # noqa: E402


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# `REVERIE_TEST_BACKEND=postgresql pytest …` runs every test that opens its stores through `settings`
# on a fresh PostgreSQL database instead of the SQLite file (docs/postgres.md lists what passes so far).
ON_POSTGRES = os.environ.get("REVERIE_TEST_BACKEND", "sqlite") == "postgresql"
BACKENDS = ("sqlite", "postgresql")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A module marked `both_backends` runs each of its tests that opens stores through `settings`
    (or `storage`) once on the SQLite file and once on a fresh PostgreSQL database; a test of it
    marked `one_backend` (what it tests is the language model, minutes of it) runs once. A test that
    never opens a database (the model, the embedder, schemas) says so with `no_backend`."""
    marked = metafunc.definition.get_closest_marker
    if "backend" in metafunc.fixturenames and marked("both_backends") and not marked("one_backend"):
        metafunc.parametrize("backend", BACKENDS, indirect=True)


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    """Which database holds the stores: the parameter `both_backends` gives, else REVERIE_TEST_BACKEND."""
    return str(getattr(request, "param", "postgresql" if ON_POSTGRES else "sqlite"))


@pytest.fixture
def settings(tmp_path: Path, request: pytest.FixtureRequest, backend: str) -> Settings:
    """Defaults, everything under tmp_path, the embedded backend (no Ollama probing)."""
    url = request.getfixturevalue("pg_url") if backend == "postgresql" else ""
    return Settings(_env_file=None, data_dir=tmp_path / "data", llm_backend="embedded", database_url=url)  # pyright: ignore[reportCallIssue]


@pytest.fixture
def storage(settings: Settings) -> Iterator[MemoryStore]:
    """A migrated SQLite file with its stores."""
    store = open_storage(settings)
    yield store
    store.close()
