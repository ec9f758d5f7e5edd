"""One dream per night across processes: the lease in the database decides (memory/leases.py).

The lease on both backends; two dreamers at once in one process on a real PostgreSQL; and two real
app processes (this file run as `python -m tests.integration.test_dream_lease URL DATA GO`), each
with its own scheduler that finds the night's dream due in the job store they share on one
PostgreSQL database: one dreams.
"""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
import threading
from dataclasses import replace
from datetime import datetime, timedelta
from functools import partial
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from sqlalchemy import Engine, text

from app.llm import Backend
from app.runtime import dream_config, dream_job, open_storage
from app.scheduler import DREAM_JOB_ID, start_scheduler, stop_scheduler
from app.settings import Settings
from dreaming.dream import DREAM_LEASE, DreamSkipped, run_dream
from memory.leases import LeaseStore
from memory.store import MemoryStore, job_store_url

ROOT = Path(__file__).resolve().parents[2]
TTL = timedelta(minutes=5)


def test_lease_is_held_by_one_until_released_or_expired(both_engines: Engine) -> None:
    leases = LeaseStore(both_engines)
    start = datetime.now().astimezone()
    assert leases.take("job", "a", TTL, start)
    assert leases.take("job", "a", TTL, start)  # its own: extended
    assert not leases.take("job", "b", TTL, start + timedelta(minutes=4))
    assert leases.take("job", "b", TTL, start + timedelta(minutes=6))  # a's hold expired: a died
    assert not leases.renew("job", "a", TTL)  # a cannot come back to it
    assert leases.holder("job") == "b"
    leases.release("job", "b")
    assert leases.take("job", "a", TTL, start + timedelta(minutes=7))
    assert not leases.take("job", "b", TTL, start + timedelta(minutes=8))
    assert leases.take("job", "b", TTL, start + timedelta(minutes=8), steal=True)


def test_lease_once_done_is_never_taken_again(both_engines: Engine) -> None:
    leases = LeaseStore(both_engines)
    assert not leases.done("night") and leases.holder("night") is None
    leases.finish("night", "a")
    assert leases.done("night") and leases.holder("night") == "a"
    far = datetime.now().astimezone() + timedelta(days=30)
    assert not leases.take("night", "b", TTL, far) and not leases.take("night", "b", TTL, far, steal=True)


def _pg_settings(data: Path, url: str) -> Settings:
    return Settings(_env_file=None, data_dir=data, llm_backend="embedded", database_url=url)  # pyright: ignore[reportCallIssue]


def test_dream_lease_lets_one_of_two_dreamers_run_on_postgresql(tmp_path: Path, pg_url: str) -> None:
    settings = _pg_settings(tmp_path / "data", pg_url)
    store = open_storage(settings)
    inside, go_on = threading.Event(), threading.Event()

    def hold(phase: str) -> None:
        if phase == "analysis":  # the first dreamer stays mid-dream while the second tries
            inside.set()
            go_on.wait(60)

    config = dream_config(settings, store, "test")
    first = threading.Thread(target=run_dream, args=(store, replace(config, holder="p1")), kwargs={"checkpoint": hold})
    try:
        first.start()
        assert inside.wait(60)
        with pytest.raises(DreamSkipped, match="another process is dreaming"):
            run_dream(store, replace(config, holder="p2"))
        go_on.set()
        first.join(60)
        assert [r.status for r in store.dreams.runs()] == ["completed"]
        assert store.leases.holder(DREAM_LEASE) == "p1"
    finally:
        go_on.set()
        store.close()


# -- two app processes on one database ------------------------------------------------------------


def _scripted() -> Backend:
    async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart("ok")])

    return Backend("embedded", "scripted", "", FunctionModel(respond))


async def _app_process(url: str, data: Path, go: Path) -> None:
    """What `reverie run` starts for the night (storage, scheduler, dream job) on a missed 03:00."""
    at = f"{(datetime.now() + timedelta(hours=12)):%H:%M}"  # the missed run below is its only one due
    settings = _pg_settings(data, url)
    store = open_storage(settings)
    dreamt = asyncio.Event()

    async def dream(night: str) -> None:
        await dream_job(settings, store, _scripted(), night)
        dreamt.set()

    start = partial(
        start_scheduler, data_dir=data, dream_time=at, run_dream=dream, send_due_reminders=_nothing,
        job_store_url=job_store_url(data / "scheduler.db", url),  # one schedule on the server for both
    )  # fmt: skip
    sched = start()
    sched.pause()  # the app was down when the dream was due: it is due now, within the grace
    missed = datetime.now(sched.timezone) - timedelta(hours=1)
    sched.modify_job(DREAM_JOB_ID, jobstore="persistent", next_run_time=missed)
    stop_scheduler(sched)
    print("READY", flush=True)
    while not go.exists():  # both processes start their schedulers together
        await asyncio.sleep(0.01)
    sched = start()
    try:
        # One schedule on the server: both schedulers may run the missed job (one dreams, the other is
        # told why not), or the first to wake moves it to tomorrow and the other never runs it. Either
        # way this process is done once the night is.
        for _ in range(600):
            if dreamt.is_set() or _store_rows(store, _NIGHT_DONE):
                break
            await asyncio.sleep(0.1)
        await asyncio.sleep(1)
    finally:
        stop_scheduler(sched)
        store.close()
    print("DONE", flush=True)


async def _nothing() -> None:
    return None


_NIGHT_DONE = "SELECT name FROM leases WHERE name LIKE 'dream-night:%' AND done_at IS NOT NULL"


def _store_rows(store: MemoryStore, sql: str) -> list[tuple[object, ...]]:
    with store.engine.connect() as conn:
        return [tuple(r) for r in conn.execute(text(sql))]


def test_dream_runs_once_with_two_app_processes_on_one_postgresql(tmp_path: Path, pg_url: str) -> None:
    go = tmp_path / "go"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    driver = [sys.executable, "-m", "tests.integration.test_dream_lease", pg_url]
    procs = [
        subprocess.Popen([*driver, str(tmp_path / f"app{i}"), str(go)], cwd=ROOT, env=env, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for i in (1, 2)
    ]
    try:
        for proc in procs:
            assert proc.stdout is not None and proc.stderr is not None
            ready = proc.stdout.readline().strip()
            assert ready == "READY", proc.stderr.read()[-2000:]  # (read once it ended: it printed nothing)
        go.touch()
        outputs = [proc.communicate(timeout=120) for proc in procs]
    finally:
        for proc in procs:
            proc.kill()
    for (out, err), proc in zip(outputs, procs, strict=True):
        assert proc.returncode == 0 and out.strip() == "DONE", err[-2000:]
    store = open_storage(_pg_settings(tmp_path / "check", pg_url))
    try:
        assert [r.status for r in store.dreams.runs()] == ["completed"]  # one dream, not two
        nights = _store_rows(store, "SELECT name, done_at IS NOT NULL FROM leases WHERE name LIKE 'dream-night:%'")
        assert len(nights) == 1 and nights[0][1]
        assert _store_rows(store, "SELECT id FROM apscheduler_jobs") == [(DREAM_JOB_ID,)]
    finally:
        store.close()
    ran = [err for _, err in outputs if 'Running job "nightly_dream' in err]
    assert ran and (len(ran) == 1 or "no dream here" in "".join(ran))  # the other, if it ran it, was told why not


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    asyncio.run(_app_process(sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])))
