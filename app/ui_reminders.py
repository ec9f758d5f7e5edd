"""The reminders panel: `/reminders` lists the person's pending reminders, soonest first, at their
local time (REVERIE_TIMEZONE), each with Cancel. A cancelled card is struck through in place.

Reminder text is the person's own words, shown escaped as memory cards are. Cancel re-checks
ownership: the id in an action's payload is cancelled under the logged-in account only.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from zoneinfo import ZoneInfo

import chainlit as cl

from app.reminder_time import said_when
from app.runtime import Runtime
from app.turn_view import escape
from app.ui_common import account_id, command, runtime
from memory.models import ReminderRow, utcnow

NONE_PENDING = 'No pending reminders. Ask "remind me tomorrow at 9 to call the vet" to set one.'


def card(row: ReminderRow, now: datetime, zone: ZoneInfo) -> str:
    """One pending reminder as markdown: id, when it is due in the person's words, the escaped text."""
    return f"**#{row.id}** · {said_when(row.due_at, now, zone)}\n\n> {escape(row.text)}"


def _cancel(reminder_id: int | None) -> cl.Action:
    return cl.Action(id=f"reminder-cancel-{reminder_id}", name="reminder_cancel",
                     payload={"reminder_id": reminder_id}, label="Cancel", icon="bell-off")  # fmt: skip


@command("reminders", "Your pending reminders and when they are due; cancel one", icon="alarm-clock")
async def reminders_command(rt: Runtime, user_id: int, thread_id: str, text: str) -> None:
    """Show this person's pending reminders, each with a Cancel button."""
    del thread_id, text
    rows = await asyncio.to_thread(rt.reminders.pending, user_id)
    if not rows:
        await cl.Message(content=NONE_PENDING).send()
        return
    now, zone = utcnow(), rt.settings.zone
    count = "1 pending reminder" if len(rows) == 1 else f"{len(rows)} pending reminders"
    await cl.Message(content=f"Your {count}, soonest first ({zone.key} time):").send()
    for row in rows:
        await cl.Message(content=card(row, now, zone), actions=[_cancel(row.id)]).send()


@cl.action_callback("reminder_cancel")
async def _on_cancel(action: cl.Action) -> None:
    rt, user_id = runtime(), account_id()
    reminder_id = int(action.payload["reminder_id"])
    row = await asyncio.to_thread(rt.reminders.cancel, user_id, reminder_id)
    await action.remove()
    if row is None:
        await cl.Message(content=f"Reminder #{reminder_id} is no longer pending (delivered or cancelled).").send()
        return
    if action.forId:
        await cl.Message(id=action.forId, content=f"~~#{reminder_id} · {escape(row.text)}~~ · cancelled").update()
    await cl.Message(content=f"Cancelled reminder #{reminder_id}: it will not be delivered.").send()
