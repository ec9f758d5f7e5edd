"""Proactive follow-ups: reminders the user asks for, and delivering them into their thread.

The agent's time comes from the user's own words ("remind me in 2 hours to …"); when no time
is given the failsafe `DEFAULT_PROACTIVE_INTERVAL_MINUTES` applies (dreaming/reminders.py).
Parsing the request here, not asking the 135M model for a timestamp, is deliberate: a tiny
model invents times, a pattern does not.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import dataclass

from sqlalchemy import Engine, text

from dreaming.reminders import ReminderStore
from memory.models import ReminderRow, utcnow
from memory.turns import TurnStore

_ASK = re.compile(r"\bremind me\b(?P<rest>.*)", re.IGNORECASE | re.DOTALL)
_IN = re.compile(r"\bin\s+(?P<n>\d{1,4}|an?|one)\s+(?P<unit>minute|min|hour|hr|day)s?\b", re.IGNORECASE)
_UNIT_MINUTES = {"minute": 1, "min": 1, "hour": 60, "hr": 60, "day": 1440}


@dataclass(frozen=True)
class ReminderAsk:
    """What the user asked to be reminded of, and after how many minutes (None: failsafe)."""

    text: str
    minutes: int | None


def parse_reminder(message: str) -> ReminderAsk | None:
    """A reminder request in the message, if any ("remind me in 2 hours to call Ana")."""
    found = _ASK.search(message)
    if not found:
        return None
    rest = found.group("rest")
    when = _IN.search(rest)
    minutes = None
    if when:
        n = when.group("n").lower()
        count = 1 if n in ("a", "an", "one") else int(n)
        minutes = count * _UNIT_MINUTES[when.group("unit").lower()]
        rest = rest[: when.start()] + rest[when.end() :]
    what = re.sub(r"^\s*(to|that|about)\b", "", rest.strip(" .!?,:")).strip(" .!?,:")
    return ReminderAsk(what or message.strip()[:200], minutes)


def post_to_thread(engine: Engine, thread_id: str, content: str) -> None:
    """Add an assistant message to a Chainlit thread, so it shows when the thread is opened."""
    now = utcnow().strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    with engine.begin() as conn:
        if conn.execute(text('SELECT 1 FROM threads WHERE "id" = :t'), {"t": thread_id}).first() is None:
            return
        conn.execute(
            text(
                'INSERT INTO steps ("id", "name", "type", "threadId", "streaming", "output", "createdAt", '
                '"start", "end", "metadata", "generation") '
                "VALUES (:id, 'Reverie', 'assistant_message', :t, 0, :out, :now, :now, :now, :meta, '{}')"
            ),
            {"id": str(uuid.uuid4()), "t": thread_id, "out": content, "now": now, "meta": json.dumps({})},
        )


def deliver_due(engine: Engine, turns: TurnStore, reminders: ReminderStore) -> list[ReminderRow]:
    """Post every due reminder into its thread (episodic turn + Chainlit message), then mark it sent.

    At-least-once: marked after posting, so a crash in between re-posts rather than drops.
    """
    sent = []
    for row in reminders.due(utcnow()):
        content = f"⏰ Reminder: {row.text}"
        turns.add(row.user_id, row.thread_id, "assistant", content)
        post_to_thread(engine, row.thread_id, content)
        if row.id is not None:
            reminders.mark_sent(row.id)
        sent.append(row)
    return sent
