"""Proactive follow-ups: things the user asked to be reminded of, and when to bring them up.

The person's words say when (an exact time or an interval, read by app/reminder_time.py); when
they give none, the failsafe `DEFAULT_PROACTIVE_INTERVAL_MINUTES` applies, so a reminder is never
silently lost. A time that has passed is refused (`PastDue`), never moved to now: the person is
asked again. The app's minute job asks `due(now)`, posts each one into its thread, then calls
`mark_sent(id)`: a crash between the two re-posts rather than drops (at-least-once). A cancelled
reminder keeps its row (status `cancelled`) and is never due again.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from memory.models import ReminderRow, utcnow

MAX_TEXT = 500


class ReminderError(ValueError):
    """A reminder that cannot be stored (empty text, a time in the past, a non-positive interval)."""


class PastDue(ReminderError):
    """The time asked for has already passed; nothing was stored."""


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def due_time(
    now: datetime, default_interval_minutes: int, *, due_at: datetime | None = None, interval_minutes: int | None = None
) -> tuple[datetime, str]:
    """When to follow up, and who decided: the agent's time, the agent's interval, or the failsafe.

    Raises:
        PastDue: `due_at` is not after `now`.
        ReminderError: the interval is not positive.
    """
    if due_at is not None:
        if _aware(due_at) <= now:
            raise PastDue(f"{_aware(due_at):%Y-%m-%d %H:%M} UTC has already passed")
        return _aware(due_at), "agent_time"
    if interval_minutes is not None:
        if interval_minutes <= 0:
            raise ReminderError(f"a follow-up interval must be positive, got {interval_minutes} minutes")
        return now + timedelta(minutes=interval_minutes), "agent_interval"
    return now + timedelta(minutes=default_interval_minutes), "failsafe"


class ReminderStore:
    """Reminders of every user; each is posted into the thread it was asked in."""

    def __init__(self, engine: Engine, default_interval_minutes: int = 120) -> None:
        self._engine = engine
        self._default = default_interval_minutes

    @property
    def default_minutes(self) -> int:
        """The failsafe interval of a reminder asked for without a time."""
        return self._default

    def add(
        self,
        user_id: int,
        thread_id: str,
        text: str,
        *,
        due_at: datetime | None = None,
        interval_minutes: int | None = None,
        now: datetime | None = None,
    ) -> ReminderRow:
        """Store a reminder; with neither `due_at` nor `interval_minutes`, the failsafe interval applies.

        Raises:
            PastDue: `due_at` has passed.
            ReminderError: empty text or a non-positive interval.
        """
        clean = " ".join(text.split())[:MAX_TEXT]
        if not clean:
            raise ReminderError("a reminder needs some text")
        now = now or utcnow()
        when, source = due_time(now, self._default, due_at=due_at, interval_minutes=interval_minutes)
        row = ReminderRow.model_validate(
            {"user_id": user_id, "thread_id": thread_id, "text": clean, "created_at": now, "due_at": when,
             "interval_source": source}
        )  # fmt: skip
        with Session(self._engine) as s:
            s.add(row)
            s.commit()
            s.refresh(row)
        return row

    def reschedule(self, reminder_id: int, *, due_at: datetime | None = None, interval_minutes: int | None = None,
                   now: datetime | None = None) -> ReminderRow:  # fmt: skip
        """The agent changes when to follow up on a pending reminder."""
        now = now or utcnow()
        with Session(self._engine) as s:
            row = s.get(ReminderRow, reminder_id)
            if row is None or row.status != "pending":
                raise ReminderError(f"no pending reminder #{reminder_id}")
            row.due_at, row.interval_source = due_time(
                now, self._default, due_at=due_at, interval_minutes=interval_minutes
            )
            s.add(row)
            s.commit()
            s.refresh(row)
        return row

    def due(self, now: datetime | None = None) -> list[ReminderRow]:
        """Pending reminders whose time has come, oldest due first."""
        now = now or utcnow()
        query = select(ReminderRow).where(ReminderRow.status == "pending", col(ReminderRow.due_at) <= now)
        with Session(self._engine) as s:
            return list(s.exec(query.order_by(col(ReminderRow.due_at))))

    def pending(self, user_id: int) -> list[ReminderRow]:
        """A user's reminders not yet sent."""
        query = select(ReminderRow).where(ReminderRow.user_id == user_id, ReminderRow.status == "pending")
        with Session(self._engine) as s:
            return list(s.exec(query.order_by(col(ReminderRow.due_at))))

    def _set(self, reminder_id: int, status: str) -> None:
        with Session(self._engine) as s:
            row = s.get(ReminderRow, reminder_id)
            if row is not None and row.status == "pending":
                row.status = status
                row.sent_at = utcnow() if status == "sent" else None
                s.add(row)
                s.commit()

    def mark_sent(self, reminder_id: int) -> None:
        """Record that the follow-up was posted into its thread."""
        self._set(reminder_id, "sent")

    def cancel(self, user_id: int, reminder_id: int) -> ReminderRow | None:
        """Cancel one of this user's pending reminders (kept, marked cancelled; `due` never returns it).

        Returns the cancelled row, or None when the user has no pending reminder of that id
        (another user's, already sent or cancelled, or none at all: the caller cannot tell which).
        """
        with Session(self._engine) as s:
            row = s.get(ReminderRow, reminder_id)
            if row is None or row.user_id != user_id or row.status != "pending":
                return None
            row.status = "cancelled"
            s.add(row)
            s.commit()
            s.refresh(row)
            return row
