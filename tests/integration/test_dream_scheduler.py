"""Scheduler wiring without waiting for 03:00: the job, its settings, misfire catch-up, dream --now."""

from __future__ import annotations

import asyncio
import contextlib
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from pathlib import Path

import pytest
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger
from sqlalchemy import create_engine, text

from app.scheduler import (
    DREAM_JOB_ID,
    TICK_JOB_ID,
    next_dream_at,
    night_of,
    parse_dream_time,
    request_dream_now,
    start_scheduler,
    stop_scheduler,
)
from memory.store import job_store_url

pytestmark = pytest.mark.anyio


class Calls:
    """Counts calls of the two callables the app registers."""

    def __init__(self) -> None:
        self.at = ""
        self.dreams = 0
        self.nights: list[str] = []
        self.ticks = 0
        self.dreamt = asyncio.Event()

    async def run_dream(self, night: str) -> None:
        self.dreams += 1
        self.nights.append(night)
        self.dreamt.set()

    async def send_due(self) -> None:
        self.ticks += 1


def _start(
    data_dir: Path, calls: Calls, tick_seconds: int = 60, dream_time: str = "03:00", grace_h: float = 6, url: str = ""
) -> AsyncIOScheduler:
    return start_scheduler(
        data_dir=data_dir, dream_time=dream_time, run_dream=calls.run_dream, send_due_reminders=calls.send_due,
        tick_seconds=tick_seconds, misfire_grace_s=int(grace_h * 3600), job_store_url=url,
    )  # fmt: skip


async def test_dream_scheduler_registers_nightly_job_persistently(tmp_path: Path) -> None:
    calls = Calls()
    sched = _start(tmp_path, calls, dream_time="03:30")
    try:
        job = sched.get_job(DREAM_JOB_ID, jobstore="persistent")
        assert job is not None and isinstance(job.trigger, CronTrigger)
        assert str(job.trigger) == "cron[hour='3', minute='30']"
        assert (job.coalesce, job.max_instances, job.misfire_grace_time) == (True, 1, 6 * 3600)
        assert sched.get_job(TICK_JOB_ID) is not None
        when = next_dream_at(sched)
        assert when is not None and (when.hour, when.minute) == (3, 30)
    finally:
        stop_scheduler(sched)
    assert (tmp_path / "scheduler.db").exists()
    calls2 = Calls()
    sched = _start(tmp_path, calls2, dream_time="04:15")  # a new time replaces the stored job
    try:
        job = sched.get_job(DREAM_JOB_ID, jobstore="persistent")
        assert job is not None and str(job.trigger) == "cron[hour='4', minute='15']"
        assert len(sched.get_jobs(jobstore="persistent")) == 1
    finally:
        stop_scheduler(sched)


async def _missed_by(tmp_path: Path, late: timedelta, grace_h: float, url: str = "") -> Calls:
    """Store a nightly job that should have run `late` ago (the laptop slept), then start again.

    The dream time is 12 h away, so no other scheduled time falls inside the missed window.
    """
    at = f"{(datetime.now() + timedelta(hours=12)):%H:%M}"
    sched = _start(tmp_path, Calls(), dream_time=at, grace_h=grace_h, url=url)
    sched.pause()  # as if the process stopped: nothing runs until the next start
    sched.modify_job(DREAM_JOB_ID, jobstore="persistent", next_run_time=datetime.now(sched.timezone) - late)
    stop_scheduler(sched)
    calls = Calls()
    calls.at = at
    sched = _start(tmp_path / "another-process", calls, dream_time=at, grace_h=grace_h, url=url) if url else (
        _start(tmp_path, calls, dream_time=at, grace_h=grace_h))
    try:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(calls.dreamt.wait(), timeout=5)
        await asyncio.sleep(0.5)  # a second (wrong) run would show up here
        job = sched.get_job(DREAM_JOB_ID, jobstore="persistent")
        assert job is not None and job.next_run_time > datetime.now(sched.timezone)
    finally:
        stop_scheduler(sched)
    return calls


async def test_dream_scheduler_catches_up_once_within_grace(tmp_path: Path) -> None:
    calls = await _missed_by(tmp_path, timedelta(hours=2), grace_h=6)
    assert calls.dreams == 1
    # Named by its scheduled time, as every process on the database names it (12 h ago, local).
    assert calls.nights == [night_of(datetime.now().astimezone(), parse_dream_time(calls.at), _local())]


async def test_dream_scheduler_keeps_its_jobs_on_postgresql(tmp_path: Path, pg_url: str) -> None:
    """With REVERIE_DATABASE_URL the job store is the server, shared by every process: a job stored by
    one process (its data dir elsewhere) is the one another finds due, and nothing is in scheduler.db."""
    url = job_store_url(tmp_path / "scheduler.db", pg_url)
    calls = await _missed_by(tmp_path, timedelta(hours=2), grace_h=6, url=url)
    assert calls.dreams == 1
    assert not (tmp_path / "scheduler.db").exists() and not (tmp_path / "another-process" / "scheduler.db").exists()
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            assert [r[0] for r in conn.execute(text("SELECT id FROM apscheduler_jobs"))] == [DREAM_JOB_ID]
    finally:
        engine.dispose()


def _local() -> tzinfo:
    zone = datetime.now().astimezone().tzinfo
    assert zone is not None
    return zone


def test_dream_scheduler_names_the_night_by_its_latest_scheduled_time() -> None:
    zone = timezone(timedelta(hours=1))
    assert night_of(datetime(2026, 11, 28, 2, 59, tzinfo=zone), (3, 0), zone) == "2026-11-27 03:00"
    assert night_of(datetime(2026, 11, 28, 3, 0, tzinfo=zone), (3, 0), zone) == "2026-11-28 03:00"
    assert night_of(datetime(2026, 11, 28, 8, 30, tzinfo=zone), (3, 0), zone) == "2026-11-28 03:00"
    # the same instant seen from UTC is the same night in the installation's zone
    assert night_of(datetime(2026, 11, 28, 1, 30, tzinfo=UTC), (3, 0), zone) == "2026-11-27 03:00"


async def test_dream_scheduler_skips_a_run_missed_beyond_grace(tmp_path: Path) -> None:
    assert (await _missed_by(tmp_path, timedelta(hours=2), grace_h=1)).dreams == 0


async def test_dream_scheduler_runs_on_dream_now_request_and_ticks(tmp_path: Path) -> None:
    calls = Calls()
    sched = _start(tmp_path, calls, tick_seconds=1)
    try:
        request_dream_now(tmp_path)
        await asyncio.wait_for(calls.dreamt.wait(), timeout=10)
        assert calls.dreams == 1 and calls.ticks >= 1
        assert calls.nights == [""]  # asked for, not a night's: another process's night does not stop it
        assert not (tmp_path / "dream-now.request").exists()
    finally:
        stop_scheduler(sched)


def test_dream_scheduler_rejects_a_bad_dream_time() -> None:
    assert parse_dream_time("03:00") == (3, 0)
    for bad in ("3am", "24:00", "12:60", ""):
        with pytest.raises(ValueError, match="REVERIE_DREAM_TIME"):
            parse_dream_time(bad)


def test_the_job_store_starts_when_another_process_created_its_table_at_the_same_moment(tmp_path: Path) -> None:
    """Two `reverie run` on one PostgreSQL: the loser's CREATE TABLE fails on the catalogue; it looks again."""
    from sqlalchemy import Engine
    from sqlalchemy.exc import IntegrityError

    from app.scheduler import _SharedJobStore  # pyright: ignore[reportPrivateUsage]

    store = _SharedJobStore(url=f"sqlite:///{tmp_path / 'jobs.db'}")
    create, calls = store.jobs_t.create, []

    def raced(bind: Engine, checkfirst: bool = False) -> None:
        calls.append(checkfirst)
        if len(calls) == 1:
            create(bind, checkfirst)  # the other process's table is there now…
            raise IntegrityError("CREATE TABLE", {}, Exception("duplicate key value violates unique constraint"))
        create(bind, checkfirst)

    store.jobs_t.create = raced  # type: ignore[method-assign]
    store.start(AsyncIOScheduler(), "persistent")
    assert len(calls) == 2 and store.get_all_jobs() == []


async def test_a_wakeup_run_after_the_scheduler_stopped_is_harmless(tmp_path: Path) -> None:
    """A wakeup the loop ran after the shutdown it was queued before (APScheduler 3.11 queues both on the loop):
    it must set no timer on the gone loop, not raise into the app's."""
    sched = _start(tmp_path, Calls())
    stop_scheduler(sched)
    await asyncio.sleep(0.05)  # the queued shutdown runs: the scheduler has no loop now
    sched._start_timer(16_000.0)  # what the late wakeup does  # pyright: ignore[reportPrivateUsage]
