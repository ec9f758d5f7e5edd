"""`kill -9` during a streamed reply, during memory formation and during a dream (real processes).

A driver subprocess (this file run as `python -m tests.reliability.test_kill MODE DATA_DIR`)
opens the real storage and does the work with a scripted model; it prints a line when it has
reached the point to be killed at, and the test SIGKILLs it there. Then the test reopens the
data directory: acknowledged user turns are all there, nothing is half-written, the database
is intact, and the interrupted work resumes and completes.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from sqlalchemy import text

from app.llm import Backend
from app.runtime import Runtime, open_storage
from app.settings import Settings
from memory.store import MemoryStore
from tests.scripted import answer_chunks

REQUEST = '{"context_turns": 4, "vector_limit": 0, "similarity_threshold": 0.7, "triple_depth": 0, "reason": "x"}'
ROOT = Path(__file__).resolve().parents[2]


def _settings(data: Path) -> Settings:
    return Settings(_env_file=None, data_dir=data, llm_backend="embedded")  # pyright: ignore[reportCallIssue]


def _runtime(store: MemoryStore, data: Path, delay: float, words: int) -> Runtime:
    async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(REQUEST)])

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        for chunk in answer_chunks("word " * words):
            await asyncio.sleep(delay)
            yield chunk

    model = FunctionModel(respond, stream_function=stream)
    return Runtime(settings=_settings(data), store=store, backend=Backend("embedded", "scripted", "", model))


# -- the driver (runs in the subprocess) ---------------------------------------------------------


async def _drive_chat(store: MemoryStore, data: Path, mode: str) -> None:
    from app.chat import ContextPlanned, Token, chat_turn

    uid = store.accounts.create("ana", "correct-horse").id or 0
    rt = _runtime(store, data, 0.02 if mode == "stream" else 0.0, 2000 if mode == "stream" else 3)
    for i in range(10_000):
        streaming = False
        async for event in chat_turn(rt, uid, "t", f"message {i}"):
            if isinstance(event, ContextPlanned):  # the user turn is committed before this event
                turn = store.turns.recent(uid, "t", 1)[0]
                print(f"ACK {turn.id} {turn.content}", flush=True)
            elif isinstance(event, Token) and not streaming:
                streaming = True
                print("STREAMING", flush=True)


class _Stuck:
    """An extractor that announces itself and never returns (the process is killed meanwhile)."""

    def extract(self, text_: str, speaker: str, when: datetime) -> None:
        print("FORMING", flush=True)
        time.sleep(600)


async def _drive_turns(store: MemoryStore, data: Path, name: str, slow: bool, count: int) -> None:
    """`count` turns of one person (`slow`: long streamed replies, to be killed in one), then DONE."""
    from app.chat import ContextPlanned, Token, chat_turn

    uid = store.accounts.create(name, "correct-horse").id or 0
    rt = _runtime(store, data, 0.02 if slow else 0.0, 2000 if slow else 3)
    for i in range(count):
        streaming = False
        async for event in chat_turn(rt, uid, f"{name}-t", f"{name} message {i}"):
            if isinstance(event, ContextPlanned):
                print(f"ACK {store.turns.recent(uid, f'{name}-t', 1)[0].id}", flush=True)
            elif isinstance(event, Token) and not streaming:
                streaming = True
                print("STREAMING", flush=True)
    print("DONE", flush=True)


def _drive(mode: str, data: Path, *extra: str) -> None:
    store = open_storage(_settings(data))  # (REVERIE_DATABASE_URL in the environment: on that server)
    if mode == "turns":
        asyncio.run(_drive_turns(store, data, extra[0], extra[1] == "slow", int(extra[2])))
    elif mode in ("stream", "writes"):
        asyncio.run(_drive_chat(store, data, mode))
    elif mode == "form":
        from memory.formation.queue import FormationQueue, run_pending

        uid = store.accounts.create("ana", "correct-horse").id or 0
        turn = store.turns.add(uid, "t", "user", "My sister Rita lives in Braga.")
        FormationQueue(store.engine).enqueue(uid, turn.id or 0)
        run_pending(store, _Stuck(), 1)  # pyright: ignore[reportArgumentType]
    elif mode == "dream":
        from app.runtime import dream_config
        from dreaming.dream import run_dream

        def checkpoint(phase: str) -> None:
            if phase == "commit":  # inside the dream's one write transaction
                print("DREAM_COMMITTING", flush=True)
                time.sleep(600)

        run_dream(store, dream_config(_settings(data), store, "test"), checkpoint=checkpoint)


# -- the tests ----------------------------------------------------------------------------------


def _start(mode: str, data: Path, *extra: str, url: str = "") -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "REVERIE_DATABASE_URL": url}
    cmd = [sys.executable, "-m", "tests.reliability.test_kill", mode, str(data), *extra]
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True, start_new_session=True)


def _read_until(proc: subprocess.Popen[str], marker: str, count: int = 1) -> list[str]:
    """The driver's lines up to the `count`-th that starts with `marker`."""
    lines: list[str] = []
    deadline = time.monotonic() + 180
    assert proc.stdout is not None
    while sum(line.startswith(marker) for line in lines) < count:
        line = proc.stdout.readline()
        assert line and time.monotonic() < deadline, f"driver ended early: {lines[-5:]}"
        lines.append(line.strip())
    return lines


def _kill(proc: subprocess.Popen[str]) -> None:
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL


def _run_until(mode: str, data: Path, marker: str, count: int = 1) -> list[str]:
    """Start the driver, SIGKILL it once `marker` has been printed `count` times; return its lines."""
    proc = _start(mode, data)
    try:
        return _read_until(proc, marker, count)
    finally:
        _kill(proc)


def _intact(store: MemoryStore) -> None:
    with store.engine.connect() as conn:
        assert conn.execute(text("PRAGMA integrity_check")).scalar_one() == "ok"
        orphans = conn.execute(
            text("SELECT count(*) FROM usage_log u LEFT JOIN turns t ON t.id = u.turn_id WHERE t.id IS NULL")
        ).scalar_one()
    assert orphans == 0, "a usage row points at no turn"


def test_kill_during_streamed_reply_keeps_the_turn_and_retries(tmp_path: Path) -> None:
    from app.chat import Finished, reply_to

    data = tmp_path / "data"
    lines = _run_until("stream", data, "STREAMING")
    acked = [int(line.split()[1]) for line in lines if line.startswith("ACK")]
    store = open_storage(_settings(data))
    try:
        _intact(store)
        uid = store.accounts.get("ana").id or 0  # pyright: ignore[reportOptionalMemberAccess]
        turns = store.turns.recent(uid, "t", 10)
        assert [t.id for t in turns] == acked and [t.role for t in turns] == ["user"], "no half-written reply"
        assert store.usage.recent(uid) == []  # the row is written with the reply, never before
        events = asyncio.run(_collect(reply_to(_runtime(store, data, 0.0, 3), uid, "t", acked[0])))
        assert isinstance(events[-1], Finished)
        assert [t.role for t in store.turns.recent(uid, "t", 10)] == ["user", "assistant"]
        assert len(store.usage.recent(uid)) == 1
    finally:
        store.close()


def test_kill_during_rapid_writes_loses_no_acknowledged_turn(tmp_path: Path) -> None:
    data = tmp_path / "data"
    lines = _run_until("writes", data, "ACK", count=25)
    acked = {int(line.split()[1]): line.split(maxsplit=2)[2] for line in lines if line.startswith("ACK")}
    store = open_storage(_settings(data))
    try:
        _intact(store)
        uid = store.accounts.get("ana").id or 0  # pyright: ignore[reportOptionalMemberAccess]
        stored = {t.id: t for t in store.turns.recent(uid, "t", 1000)}
        for turn_id, content in acked.items():
            assert turn_id in stored and stored[turn_id].content == content
        roles = [t.role for t in sorted(stored.values(), key=lambda t: t.id or 0)]
        assert "assistant assistant" not in " ".join(roles), "an assistant turn without its user turn"
        answered = [
            t
            for t in stored.values()
            if t.role == "user" and any(u.turn_id == t.id for u in store.usage.recent(uid, 1000))
        ]
        assert len(answered) == roles.count("assistant"), "usage rows and replies disagree"
    finally:
        store.close()


def test_kill_during_memory_formation_requeues_the_job(tmp_path: Path) -> None:
    queue_module = pytest.importorskip("memory.formation.queue")
    from memory.formation.patterns import PatternExtractor

    data = tmp_path / "data"
    _run_until("form", data, "FORMING")
    store = open_storage(_settings(data))
    try:
        _intact(store)
        queue = queue_module.FormationQueue(store.engine)
        uid = store.accounts.get("ana").id or 0  # pyright: ignore[reportOptionalMemberAccess]
        turn = store.turns.recent(uid, "t", 1)[0]
        assert queue.status(turn.id) == "running"  # left by the dead process
        assert queue.requeue_stale() == 1 and queue.status(turn.id) == "pending"
        queue_module.run_pending(store, PatternExtractor(), 5)
        assert queue.status(turn.id) not in ("pending", "running")
    finally:
        store.close()


def test_kill_during_dream_commit_changes_nothing_and_resumes(tmp_path: Path) -> None:
    dream = pytest.importorskip("dreaming.dream")
    from app.runtime import dream_config
    from memory.dreams import DreamStore

    data = tmp_path / "data"
    _run_until("dream", data, "DREAM_COMMITTING")
    store = open_storage(_settings(data))
    try:
        _intact(store)
        runs = DreamStore(store.engine).runs()
        assert runs and runs[0].status == "running"  # the commit never happened
        assert DreamStore(store.engine).last_committed() is None
        dream.run_dream(store, dream_config(_settings(data), store, "test"))
        old, new = sorted(DreamStore(store.engine).runs(), key=lambda r: r.id or 0)
        assert old.status == "failed" and new.status != "failed"  # the interrupted run is closed
        assert DreamStore(store.engine).last_committed() is not None  # and the new one committed
    finally:
        store.close()


async def _collect(stream: AsyncIterator[object]) -> list[object]:
    return [e async for e in stream]


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_kill_of_one_of_two_processes_mid_turn_loses_nothing(tmp_path: Path, backend: str,
                                                            request: pytest.FixtureRequest) -> None:  # fmt: skip
    """Two processes on one database (the file, or one PostgreSQL server): one is SIGKILLed while it
    streams a reply; the other goes on, and every turn either acknowledged is there."""
    url = str(request.getfixturevalue("pg_url")) if backend == "postgresql" else ""
    # one data dir for the file; on a server each process may have its own (as on two machines)
    dirs = (tmp_path / "a", tmp_path / "b") if url else (tmp_path / "data", tmp_path / "data")
    slow = _start("turns", dirs[0], "ana", "slow", "5", url=url)
    fast = _start("turns", dirs[1], "ben", "fast", "30", url=url)
    try:
        acked = [line for line in _read_until(slow, "STREAMING") if line.startswith("ACK")]
        _kill(slow)  # mid-turn: the reply half streamed, never stored
        done = _read_until(fast, "DONE")
    finally:
        for proc in (slow, fast):
            if proc.poll() is None:
                _kill(proc)
    settings = _settings(dirs[0]).model_copy(update={"database_url": url})
    store = open_storage(settings)
    try:
        if backend == "sqlite":
            _intact(store)
        ana, ben = (store.accounts.get(n) for n in ("ana", "ben"))
        assert ana is not None and ben is not None and ana.id and ben.id
        ana_turns = store.turns.recent(ana.id, "ana-t", 100)
        assert [t.id for t in ana_turns] == [int(a.split()[1]) for a in acked] and ana_turns[-1].role == "user"
        ben_turns = store.turns.recent(ben.id, "ben-t", 100)
        assert [t.role for t in ben_turns] == ["user", "assistant"] * 30  # the other process lost nothing
        assert {t.id for t in ben_turns if t.role == "user"} == {int(a.split()[1]) for a in done if a.startswith("ACK")}
        assert len(store.usage.recent(ben.id, 100)) == 30 and store.usage.recent(ana.id) == []
    finally:
        store.close()


if __name__ == "__main__":
    _drive(sys.argv[1], Path(sys.argv[2]), *sys.argv[3:])
