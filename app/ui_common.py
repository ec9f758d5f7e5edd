"""What every Chainlit UI module shares: the runtime holder, the logged-in account, and the
registry of composer commands (`/memories`, `/dreams`, …) that feature modules add to.

Feature modules (`app/ui_*.py`) register their commands and action callbacks at import;
app/ui.py imports them, so adding a view never touches the core chat handlers.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import chainlit as cl
import chainlit.data as cl_data
from chainlit.data.sql_alchemy import SQLAlchemyDataLayer
from chainlit.types import ThreadDict
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import sessionmaker

from app.runtime import Runtime
from memory.store import ui_engine

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


PANEL = "panel"
"""Thread metadata of a chat that only ran commands (`/memories`, `/dreams`…): not in the history."""


class _DataLayer(SQLAlchemyDataLayer):
    """Chainlit's SQLAlchemy layer, whose history leaves out chats that only ran commands: a look at
    `/memories` is not a conversation, and fifteen "Untitled" threads hid the real ones."""

    async def get_all_user_threads(
        self, user_id: str | None = None, thread_id: str | None = None
    ) -> list[ThreadDict] | None:
        threads = await super().get_all_user_threads(user_id=user_id, thread_id=thread_id)
        if thread_id is not None or threads is None:  # one thread asked for by id: as it is
            return threads
        return [t for t in threads if not _metadata(t).get(PANEL)]


def _metadata(thread: ThreadDict) -> dict[str, object]:
    raw = thread.get("metadata") or {}
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


async def mark_panel(thread_id: str, panel: bool) -> None:
    """Say whether this chat only ran commands (see `_DataLayer`); a real message makes it a chat."""
    if bool(cl.user_session.get(PANEL)) == panel:
        return
    cl.user_session.set(PANEL, panel)
    layer = cl_data.get_data_layer()
    if layer is not None:
        await layer.update_thread(thread_id, metadata={PANEL: True if panel else None})


def data_layer(db_path: Path, database_url: str = "") -> SQLAlchemyDataLayer:
    """Chainlit's data layer on the app's SQLite file, or on the PostgreSQL server `database_url`
    names (REVERIE_DATABASE_URL); it touches only its own tables, which memory's migrations create.

    Its engine is replaced by `memory.store.ui_engine` (same SQLite library as the app, one
    connection per session); `memory.db.engine.async_engine` says what went wrong without it.
    """
    layer = _DataLayer(conninfo=f"sqlite+aiosqlite:///{db_path}")  # (lazy: never connects, replaced below)
    engine = ui_engine(db_path, database_url)
    layer.engine = engine
    layer.async_session = sessionmaker(bind=engine, expire_on_commit=False, class_=AsyncSession)  # pyright: ignore[reportAttributeAccessIssue, reportCallIssue, reportArgumentType]
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


async def ask_text(content: str, timeout: int) -> str:
    """What the person types in answer (stripped; "" when they do not answer in `timeout` seconds).

    For action callbacks (Edit, Approve, Reject): Chainlit 2.12 runs them with no task of their own,
    and its ask restarts the task it paused once the answer comes. Nothing would end it, and the
    composer stayed busy with its stop button until the person pressed it; so it is ended here.
    """
    try:
        answer = await cl.AskUserMessage(content=content, timeout=timeout).send()
    finally:
        await cl.context.emitter.task_end()
    return str((answer or {}).get("output", "")).strip()
