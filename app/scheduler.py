"""The in-process scheduler (the only module that imports APScheduler).

The dream runs inside the app process because Kuzu lets one process open the graph. Two jobs:
- "nightly-dream": cron at the configured local time, in a persistent SQLAlchemy job store
  (`data/scheduler.db`), coalesced, one instance at a time, with a 6-hour misfire grace so a
  laptop that slept through 03:00 (or an app restarted at 07:00) catches up exactly once.
- "minute-tick": every minute (memory store: nothing to remember across restarts), posts due
  reminders and honours a `reverie dream --now` request left in the data directory.

Why a separate `scheduler.db`: APScheduler's job store opens its own engine with the stdlib
sqlite3 driver and pickles jobs; keeping it out of `reverie.db` means that driver never
touches a file with vec0 tables, never competes for the WAL write lock during a turn, and
the schedule can be reset by deleting one file without touching any memory. With
REVERIE_DATABASE_URL the job store is on that PostgreSQL server instead (its own
`apscheduler_jobs` table): a server has no write lock to contend for, and every process sees one
schedule (APScheduler 3 does not coordinate schedulers sharing a store, so each may fire a job:
the dream's lease is what makes that harmless).

Stored jobs refer to module-level coroutine functions by name (a closure cannot be pickled);
those look up the callables the app registered at start-up.

Several app processes on one PostgreSQL database each run this scheduler, and each fires the
nightly dream: the dream itself then decides, by a lease in the database, that one process dreams
that night (dreaming/dream.py). The scheduler's part is to name the night the same way in every
process: the latest scheduled time at or before now ("2026-11-28 03:00", local), so a catch-up at
07:00 and the 03:00 run are the same night and a `dream --now` request is no night at all.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from pathlib import Path

from apscheduler.jobstores.memory import MemoryJobStore
from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger
from sqlalchemy.exc import IntegrityError, ProgrammingError

log = logging.getLogger(__name__)
DREAM_JOB_ID = "nightly-dream"
TICK_JOB_ID = "minute-tick"
DREAM_REQUEST_FILE = "dream-now.request"
SCHEDULER_DB = "scheduler.db"
MISFIRE_GRACE_S = 6 * 3600
AsyncJob = Callable[[], Awaitable[object]]
DreamJob = Callable[[str], Awaitable[object]]  # called with the night ("" for a `dream --now` request)


@dataclass
class _Registered:
    run_dream: DreamJob | None = None
    send_due_reminders: AsyncJob | None = None
    data_dir: Path | None = None
    scheduler: AsyncIOScheduler | None = None
    dream_at: tuple[int, int] = (3, 0)
    asked_now: bool = False  # the next dream job is a `dream --now` request's, not a night's


_REGISTERED = _Registered()


def parse_dream_time(value: str) -> tuple[int, int]:
    """Parse "03:00" into (3, 0).

    Raises:
        ValueError: not HH:MM in 00:00..23:59 (the message names REVERIE_DREAM_TIME).
    """
    try:
        hour, minute = (int(part) for part in value.strip().split(":"))
    except ValueError:
        raise ValueError(f"REVERIE_DREAM_TIME={value!r} must be HH:MM, e.g. 03:00") from None
    if not (0 <= hour < 24 and 0 <= minute < 60):
        raise ValueError(f"REVERIE_DREAM_TIME={value!r} must be between 00:00 and 23:59")
    return hour, minute


def request_path(data_dir: Path) -> Path:
    """Where `reverie dream --now` leaves its request for the running app."""
    return data_dir / DREAM_REQUEST_FILE


def request_dream_now(data_dir: Path) -> Path:
    """Ask the running app to dream at its next minute tick (used by the CLI)."""
    path = request_path(data_dir)
    path.write_text(datetime.now().isoformat())
    return path


def night_of(now: datetime, dream_at: tuple[int, int], zone: tzinfo) -> str:
    """The night a dream at `now` belongs to: the latest `dream_at` (local to `zone`) at or before it."""
    local = now.astimezone(zone)
    slot = local.replace(hour=dream_at[0], minute=dream_at[1], second=0, microsecond=0)
    if slot > local:
        slot -= timedelta(days=1)
    return f"{slot:%Y-%m-%d %H:%M}"


async def nightly_dream() -> None:
    """The stored job: run the dream the app registered, for tonight (or for a `dream --now` request)."""
    if _REGISTERED.run_dream is None:
        log.warning("nightly dream fired before the app registered it; skipped")
        return
    asked, _REGISTERED.asked_now = _REGISTERED.asked_now, False
    scheduler = _REGISTERED.scheduler
    zone = scheduler.timezone if scheduler is not None else None
    night = "" if asked or zone is None else night_of(datetime.now(zone), _REGISTERED.dream_at, zone)
    await _REGISTERED.run_dream(night)


async def minute_tick() -> None:
    """Honour a pending `dream --now` request, then post due reminders."""
    data_dir, scheduler = _REGISTERED.data_dir, _REGISTERED.scheduler
    if data_dir is not None and scheduler is not None and request_path(data_dir).exists():
        request_path(data_dir).unlink(missing_ok=True)
        _REGISTERED.asked_now = True
        # Through the dream job itself, so "one instance at a time" still holds.
        scheduler.modify_job(DREAM_JOB_ID, jobstore="persistent", next_run_time=datetime.now(scheduler.timezone))
    if _REGISTERED.send_due_reminders is not None:
        await _REGISTERED.send_due_reminders()


class _SharedJobStore(SQLAlchemyJobStore):
    """The job store several processes share on one PostgreSQL: two starting at once both create its
    table, and only one CREATE TABLE wins (the other fails on the catalogue's unique index, or finds
    the relation already there); the loser starts again and finds the winner's table."""

    def start(self, scheduler: object, alias: str) -> None:
        for attempt in range(5):
            try:
                super().start(scheduler, alias)  # pyright: ignore[reportUnknownMemberType]
                return
            except (IntegrityError, ProgrammingError):
                if attempt == 4:
                    raise
                time.sleep(0.2)


class _Scheduler(AsyncIOScheduler):
    """APScheduler 3.11's asyncio scheduler, but a wakeup queued on the loop before a shutdown and run after it
    (the loop is then gone) sets no timer: upstream it raised AttributeError into the app's loop (seen once in
    the suite under load, after a dream's job finished as the scheduler stopped)."""

    def _start_timer(self, wait_seconds: float | None) -> None:
        if self._eventloop is not None:
            super()._start_timer(wait_seconds)


def _scheduler(job_store_url: str, misfire_grace_s: int) -> AsyncIOScheduler:
    return _Scheduler(
        jobstores={"default": MemoryJobStore(), "persistent": _SharedJobStore(url=job_store_url)},
        job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": misfire_grace_s},
    )


def _ensure_dream_job(scheduler: AsyncIOScheduler, trigger: CronTrigger, misfire_grace_s: int) -> None:
    # Replaced only when its schedule changed, so a stored, missed run time survives the restart.
    stored = scheduler.get_job(DREAM_JOB_ID, jobstore="persistent")
    if stored is None or str(stored.trigger) != str(trigger) or stored.misfire_grace_time != misfire_grace_s:
        scheduler.add_job(
            nightly_dream, trigger, id=DREAM_JOB_ID, jobstore="persistent", replace_existing=True,
            coalesce=True, max_instances=1, misfire_grace_time=misfire_grace_s,
        )  # fmt: skip


def start_scheduler(
    *,
    data_dir: Path,
    dream_time: str,
    run_dream: DreamJob,
    send_due_reminders: AsyncJob,
    misfire_grace_s: int = MISFIRE_GRACE_S,
    tick_seconds: int = 60,
    job_store_url: str = "",
) -> AsyncIOScheduler:
    """Start both jobs on the running event loop and return the scheduler (stop it with `stop_scheduler`).

    Args:
        data_dir: where `scheduler.db` and the dream-now request live.
        dream_time: local "HH:MM" of the nightly dream (REVERIE_DREAM_TIME).
        run_dream: coroutine function running one dream for the night it is given ("" when asked
            by `dream --now`); offload the CPU work to a thread.
        send_due_reminders: coroutine function posting due reminders into their threads.
        misfire_grace_s: how late a missed dream may still run (once: jobs are coalesced).
        tick_seconds: period of the reminder/request tick (tests shorten it).
        job_store_url: the SQLAlchemy URL of the persistent job store (default: `scheduler.db` in
            `data_dir`); with REVERIE_DATABASE_URL, the PostgreSQL server every process shares.

    Raises:
        ValueError: `dream_time` is not HH:MM.
    """
    hour, minute = parse_dream_time(dream_time)
    data_dir.mkdir(parents=True, exist_ok=True)
    scheduler = _scheduler(job_store_url or f"sqlite:///{data_dir / SCHEDULER_DB}", misfire_grace_s)
    _REGISTERED.run_dream, _REGISTERED.send_due_reminders = run_dream, send_due_reminders
    _REGISTERED.data_dir, _REGISTERED.scheduler = data_dir, scheduler
    _REGISTERED.dream_at, _REGISTERED.asked_now = (hour, minute), False
    # Paused start: the stored job keeps its stored next run time (a missed 03:00 is still due);
    # re-adding it unconditionally would recompute that time and silently skip the catch-up.
    scheduler.start(paused=True)
    _ensure_dream_job(scheduler, CronTrigger(hour=hour, minute=minute, timezone=scheduler.timezone), misfire_grace_s)
    scheduler.add_job(
        minute_tick, IntervalTrigger(seconds=tick_seconds), id=TICK_JOB_ID, jobstore="default",
        replace_existing=True, coalesce=True, max_instances=1, misfire_grace_time=tick_seconds,
    )  # fmt: skip
    scheduler.resume()
    return scheduler


def stop_scheduler(scheduler: AsyncIOScheduler) -> None:
    """Stop without waiting for a running dream (its run row is closed as interrupted next time)."""
    if scheduler.running:
        scheduler.shutdown(wait=False)
    if _REGISTERED.scheduler is scheduler:
        _REGISTERED.run_dream = _REGISTERED.send_due_reminders = None
        _REGISTERED.scheduler = _REGISTERED.data_dir = None


def next_dream_at(scheduler: AsyncIOScheduler) -> datetime | None:
    """When the nightly dream runs next (for `reverie doctor` and the dream view)."""
    job = scheduler.get_job(DREAM_JOB_ID, jobstore="persistent")
    return job.next_run_time if job is not None else None
