"""What every Chainlit UI module shares: the runtime holder, the logged-in account, and the
registry of composer commands (`/memories`, `/dreams`, …) that feature modules add to.

Feature modules (`app/ui_*.py`) register their commands and action callbacks at import;
app/ui.py imports them, so adding a view never touches the core chat handlers.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import chainlit as cl

from app.runtime import Runtime

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
