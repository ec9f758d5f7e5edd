"""`reverie reminders [--user NAME] list|cancel ID` (registered into the main parser by app/cli.py).

Scoped to one user, as `reverie memories` is: `--user NAME`, or the only account. Both actions touch
SQLite only, so they work while the app runs; its minute job reads each reminder's status when it
is due, so one cancelled here is never posted. Times are shown in REVERIE_TIMEZONE (by default the
machine's zone), as the person said them.
"""

from __future__ import annotations

import argparse
import sys

from app.proactive import reminder_line
from app.runtime import open_records
from app.settings import Settings
from memory.models import utcnow
from memory.reminders import ReminderStore
from memory.store import StorageError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:  # pyright: ignore[reportPrivateUsage]
    """Add this area's subcommands; each sets `func(settings, args) -> int`."""
    # --user before or after the action: the action's copy sets nothing unless it is given there
    after = argparse.ArgumentParser(add_help=False)
    after.add_argument("--user", default=argparse.SUPPRESS, help="whose reminders (default: the only account)")
    parser = sub.add_parser("reminders", help="list or cancel your pending reminders")
    parser.add_argument("--user", help="whose reminders (default: the only account)")
    actions = parser.add_subparsers(dest="action", required=True)
    actions.add_parser("list", parents=[after], help="pending reminders, soonest first, in local time")
    cancel = actions.add_parser("cancel", parents=[after], help="cancel a pending reminder: it is never delivered")
    cancel.add_argument("id", type=int)
    parser.set_defaults(func=cmd_reminders)


def cmd_reminders(settings: Settings, args: argparse.Namespace) -> int:
    """Run one `reverie reminders` action for one user."""
    try:
        store = open_records(settings)
    except StorageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        user_id = store.accounts.resolve(args.user)
        reminders = store.reminders
        if args.action == "list":
            return _list(reminders, user_id, settings)
        return _cancel(reminders, user_id, args.id, settings)
    except LookupError as exc:  # unknown user, or several and no --user
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        store.close()


def _list(reminders: ReminderStore, user_id: int, settings: Settings) -> int:
    rows = reminders.pending(user_id)
    if not rows:
        print("no pending reminders", file=sys.stderr)
    now = utcnow()
    for row in rows:
        print(reminder_line(row, now, settings.zone))
    return 0


def _cancel(reminders: ReminderStore, user_id: int, reminder_id: int, settings: Settings) -> int:
    row = reminders.cancel(user_id, reminder_id)
    if row is None:
        print(f"error: no pending reminder #{reminder_id} of yours (see `reverie reminders list`)", file=sys.stderr)
        return 1
    print(f"cancelled {reminder_line(row, utcnow(), settings.zone)}")
    return 0
