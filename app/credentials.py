"""Secrets made on first run and kept in the data directory, never in the repository."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from memory.accounts import AccountStore

FIRST_USER = "admin"


def _write_private(path: Path, value: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.write(value + "\n")


def auth_secret(data_dir: Path) -> str:
    """The JWT secret Chainlit signs sessions with; generated once, stored 0600."""
    path = data_dir / ".auth_secret"
    if path.exists():
        return path.read_text().strip()
    value = secrets.token_urlsafe(48)
    _write_private(path, value)
    return value


def ensure_first_user(accounts: AccountStore, data_dir: Path) -> str | None:
    """On a fresh installation create `admin` with a random password.

    Returns:
        The password (also written to `<data_dir>/first-run-password.txt`), or None when
        accounts already exist.
    """
    if accounts.count() > 0:
        return None
    password = secrets.token_urlsafe(12)
    accounts.create(FIRST_USER, password)
    _write_private(data_dir / "first-run-password.txt", password)
    return password
