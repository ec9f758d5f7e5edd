"""What every Chainlit UI module shares: the runtime holder, the logged-in account, and the
registry of composer commands (`/memories`, `/dreams`, …) that feature modules add to.

Feature modules (`app/ui_*.py`) register their commands and action callbacks at import;
app/ui.py imports them, so adding a view never touches the core chat handlers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import chainlit as cl
from chainlit.data.sql_alchemy import SQLAlchemyDataLayer
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import sessionmaker

from app.runtime import Runtime
from memory.db import async_engine

# rt, account id, thread id, the text typed after the command
CommandHandler = Callable[[Runtime, int, str, str], Awaitable[None]]


@dataclass(frozen=True)
class Command:
    """A composer command shown in Chainlit's command menu."""

    id: str
    description: str
    icon: str
    handler: CommandHandler


COMMANDS: dict[str, Command] = {}


def data_layer(db_path: Path) -> SQLAlchemyDataLayer:
    """Chainlit's data layer on the app's SQLite file; it touches only its own tables.

    Its engine is replaced by `memory.db.async_engine` (same SQLite library as the app, one
    connection per session); the docstring there says what went wrong without it.
    """
    layer = SQLAlchemyDataLayer(conninfo=f"sqlite+aiosqlite:///{db_path}")
    layer.engine = async_engine(db_path)
    layer.async_session = sessionmaker(bind=layer.engine, expire_on_commit=False, class_=AsyncSession)  # pyright: ignore[reportAttributeAccessIssue, reportCallIssue, reportArgumentType]
    return layer


class _Holder:
    runtime: Runtime | None = None


HOLDER = _Holder()


def runtime() -> Runtime:
    """The running app's runtime (set at start-up)."""
    if HOLDER.runtime is None:
        raise RuntimeError("Reverie is still starting; try again in a moment.")
    return HOLDER.runtime


def command(id: str, description: str, icon: str = "sparkles") -> Callable[[CommandHandler], CommandHandler]:
    """Register a composer command (the icon is a lucide icon name)."""

    def register(handler: CommandHandler) -> CommandHandler:
        COMMANDS[id] = Command(id, description, icon, handler)
        return handler

    return register


def account_id() -> int:
    """The logged-in person's account id (every query is scoped by it)."""
    user = cl.user_session.get("user")
    if user is None:
        raise PermissionError("not logged in")
    account = runtime().store.accounts.get(user.identifier)
    if account is None or account.id is None:
        raise PermissionError(f"account {user.identifier!r} no longer exists")
    return account.id
