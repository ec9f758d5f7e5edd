"""Proactive follow-ups: reminders the user asks for, listing them, and delivering them into their thread.

The time comes from the person's own words ("remind me tomorrow at 9 to …", app/reminder_time.py)
in their time zone (REVERIE_TIMEZONE); when no time is given the failsafe
`DEFAULT_PROACTIVE_INTERVAL_MINUTES` applies (memory/reminders.py). Reading the request here,
not asking the 135M model for a timestamp, is deliberate: a tiny model invents times, a grammar
does not. For the same reason the reply to a reminder request is written here, not by the model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from app.reminder_time import read_when, said_when
from memory.models import ReminderRow, utcnow
from memory.reminders import PastDue, ReminderStore
from memory.threads import ThreadLog
from memory.turns import TurnStore

_ASK = re.compile(r"\bremind me\b(?P<rest>.*)", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class ReminderAsk:
    """What the user asked to be reminded of, and when (None: no time given, the failsafe applies)."""

    text: str
    due: datetime | None


# "Remind me, what…", "remind me of my physio's name?", "remind me again where…": the person asks to be
# told something remembered, now.
_RECALL = re.compile(r"^\s*[,:]?\s*(?:again\s*,?\s*)?(?:what|who|whom|whose|where|when|which|why|how|of|if|whether)\b",
                     re.IGNORECASE)


def parse_reminder(message: str, now: datetime, zone: ZoneInfo) -> ReminderAsk | None:
    """A reminder request in the message, if any ("remind me tomorrow at 9 to call the vet").

    Only the words after "remind me" are read for the time: what comes before is not part of the ask.
    """
    found = _ASK.search(message)
    if not found:
        return None
    rest, due = found.group("rest"), None
    words = read_when(rest, now, zone)
    if words is None and _RECALL.match(rest):  # "remind me, what does Priya do?": a question, not a reminder
        return None
    if words is not None:
        rest, due = words.rest, words.due
    what = re.sub(r"^\s*(to|that|about)\b", "", rest.strip(" .!?,:")).strip(" .!?,:")
    return ReminderAsk(what or message.strip()[:200], due)


@dataclass(frozen=True)
class ReminderReply:
    """A reminder request handled: the notice for the agent and the reply for the person."""

    notice: str
    reply: str


def set_reminder(
    reminders: ReminderStore, user_id: int, thread_id: str, message: str, now: datetime, zone: ZoneInfo
) -> ReminderReply | None:
    """Store the reminder the message asks for (None: it asks for none), or say why it was not.

    A time that has passed is not stored and the reply asks for another one: moving it to now,
    or to tomorrow, would be a time the person did not say.
    """
    ask = parse_reminder(message, now, zone)
    if ask is None:
        return None
    try:
        row = reminders.add(user_id, thread_id, ask.text, due_at=ask.due, now=now)
    except PastDue:
        when = said_when(ask.due or now, now, zone)
        return ReminderReply(
            f"REMINDER_NOT_SET: “{ask.text}” was asked for {when}, which has already passed.",
            f"{when[:1].upper()}{when[1:]} has already passed, so I have not set that reminder. Ask again "
            "with a time still ahead, e.g. “remind me tomorrow at 9 to …”.",
        )
    when, what = said_when(row.due_at, now, zone), _short(row.text)
    default = f"the default {reminders.default_minutes} minutes"
    why, aside = ("as you asked", "") if ask.due else (f"no time given: {default}", f" (you gave no time: {default})")
    return ReminderReply(
        f"REMINDER_SET: “{row.text}” set for {when} ({why}); it will appear in this thread.",
        f"Reminder set for {when}{aside}: {what}. Type /reminders to see or cancel it.",
    )


def _short(text: str, limit: int = 200) -> str:
    """The reminder's text as the reply quotes it (a reply has room for 600 characters in all)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def reminder_line(row: ReminderRow, now: datetime, zone: ZoneInfo) -> str:
    """One pending reminder as a line: id, local due time, text (the CLI's and the browser's list)."""
    return f"#{row.id}\t{said_when(row.due_at, now, zone)}\t{' '.join(row.text.split())}"


def deliver_due(turns: TurnStore, threads: ThreadLog, reminders: ReminderStore) -> list[ReminderRow]:
    """Post every due reminder into its thread (episodic turn + Chainlit message), then mark it sent.

    At-least-once: marked after posting, so a crash in between re-posts rather than drops.
    """
    sent = []
    for row in reminders.due(utcnow()):
        content = f"⏰ Reminder: {row.text}"
        turns.add(row.user_id, row.thread_id, "assistant", content)
        threads.post(row.thread_id, content)
        if row.id is not None:
            reminders.mark_sent(row.id)
        sent.append(row)
    return sent
