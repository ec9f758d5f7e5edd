"""Concurrency: users chatting at once (plus a dream), and 20 sessions for a bounded time.

In-process asyncio tasks with a scripted model that yields between tokens, so turns really
interleave on the event loop; the dream runs in a worker thread against the same SQLite file.
Afterwards every acknowledged turn is stored once, in order, and each reply names only its own
user's message (no cross-talk).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator

import anyio
import pytest
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from app.chat import Finished, chat_turn
from app.llm import Backend
from app.runtime import Runtime
from app.settings import Settings
from memory.store import MemoryStore
from tests.scripted import answer_chunks

pytestmark = [pytest.mark.anyio, pytest.mark.both_backends]  # (backends: tests/conftest.py)
REQUEST = '{"context_turns": 6, "vector_limit": 0, "similarity_threshold": 0.5, "triple_depth": 0, "reason": "x"}'


def _runtime(settings: Settings, storage: MemoryStore) -> Runtime:
    async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        await asyncio.sleep(0)
        return ModelResponse(parts=[TextPart(REQUEST)])

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        prompt = "".join(str(p.content) for p in last.parts if isinstance(p, UserPromptPart))
        tag = prompt[prompt.rfind("[[") : prompt.rfind("]]") + 2]  # the message's own marker
        for chunk in answer_chunks(f"echo {tag} done"):
            await asyncio.sleep(0.001)
            yield chunk

    model = FunctionModel(respond, stream_function=stream)
    return Runtime(settings=settings, store=storage, backend=Backend("embedded", "scripted", "", model))


async def _session(rt: Runtime, uid: int, name: str, thread: str, turns: int, acked: list[str]) -> None:
    for i in range(turns):
        marker = f"[[{name}:{thread}:{i}]]"
        events = [e async for e in chat_turn(rt, uid, thread, f"Message {i} from {name} {marker}")]
        final = events[-1]
        assert isinstance(final, Finished), final
        assert marker in final.reply, (marker, final.reply)
        acked.append(marker)


def _check(storage: MemoryStore, uid: int, name: str, threads: list[str], turns: int) -> None:
    for thread in threads:
        rows = storage.turns.recent(uid, thread, 10 * turns)
        assert [r.role for r in rows] == ["user", "assistant"] * turns
        for i in range(turns):
            marker = f"[[{name}:{thread}:{i}]]"
            assert marker in rows[2 * i].content and marker in rows[2 * i + 1].content
        assert all(f"[[{name}:" in r.content for r in rows), "another user's text reached this thread"
    assert len(storage.usage.recent(uid, 1000)) == len(threads) * turns


def _user(storage: MemoryStore, name: str) -> int:
    uid = storage.accounts.create(name, "correct-horse-battery").id
    assert uid is not None
    return uid


async def test_concurrency_two_users_and_a_dream(settings: Settings, storage: MemoryStore) -> None:
    dream = pytest.importorskip("dreaming.dream")
    from app.runtime import dream_config

    rt = _runtime(settings, storage)
    ana, bob = _user(storage, "ana"), _user(storage, "bob")
    storage.memories.add(ana, "fact", "Ana's secret: the key is under the red pot")
    storage.memories.add(bob, "fact", "Bob's secret: the key is under the blue stone")
    acked: list[str] = []
    errors: list[BaseException] = []

    def dreaming() -> None:
        try:
            for _ in range(2):
                dream.run_dream(storage, dream_config(settings, storage, "test"))
        except BaseException as exc:  # reported below: a thread's exception would vanish
            errors.append(exc)

    worker = threading.Thread(target=dreaming)
    with anyio.fail_after(180):
        worker.start()
        await asyncio.gather(
            _session(rt, ana, "ana", "a1", 8, acked),
            _session(rt, bob, "bob", "b1", 8, acked),
        )
        await anyio.to_thread.run_sync(worker.join)
    assert not errors, errors
    assert len(acked) == 16
    _check(storage, ana, "ana", ["a1"], 8)
    _check(storage, bob, "bob", ["b1"], 8)
    for uid, other in ((ana, "blue stone"), (bob, "red pot")):
        assert all(other not in t.content for t in storage.turns.recent(uid, "a1" if uid == ana else "b1", 50))


async def test_concurrency_twenty_sessions_bounded(settings: Settings, storage: MemoryStore) -> None:
    rt = _runtime(settings, storage)
    users = {f"u{i}": _user(storage, f"u{i}") for i in range(10)}
    acked: list[str] = []
    with anyio.fail_after(180):  # bounded: 20 sessions x 4 turns, or the test fails
        await asyncio.gather(
            *(_session(rt, uid, name, f"{name}-t{k}", 4, acked) for name, uid in users.items() for k in range(2))
        )
    assert len(acked) == 20 * 4 and len(set(acked)) == len(acked)
    for name, uid in users.items():
        _check(storage, uid, name, [f"{name}-t0", f"{name}-t1"], 4)
