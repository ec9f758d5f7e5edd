"""A misbehaving model never breaks a turn: it ends with a clear message or a degraded answer.

Timeouts come from a real loopback HTTP server that accepts and never answers; the other
faults are scripted with FunctionModel. Every turn runs under a hard time bound, the user's
message is always stored, and a failed turn can be retried.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import AsyncIterator, Iterator

import anyio
import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, DeltaToolCall, DeltaToolCalls, FunctionModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai_compatible import OpenAICompatibleProvider
from pydantic_ai.settings import ModelSettings

from app.chat import ContextPlanned, Failed, Finished, TurnEvent, chat_turn
from app.llm import Backend
from app.runtime import Runtime
from app.settings import Settings
from memory.store import MemoryStore

pytestmark = [pytest.mark.anyio, pytest.mark.both_backends]  # (backends: tests/conftest.py)
BOUND_S = 90  # generous: a shared CI core can be slow, but "never" must not pass
GOOD_REQUEST = '{"context_turns": 2, "vector_limit": 0, "similarity_threshold": 0.7, "triple_depth": 0, "reason": "x"}'


def _runtime(settings: Settings, storage: MemoryStore, model: Model) -> Runtime:
    return Runtime(settings=settings, store=storage, backend=Backend("embedded", "scripted", "", model))


def _uid(storage: MemoryStore) -> int:
    uid = storage.accounts.create("ana", "correct-horse").id
    assert uid is not None
    return uid


async def _turn(rt: Runtime, uid: int, text: str = "What is my dog called?") -> list[TurnEvent]:
    with anyio.fail_after(BOUND_S):
        return [e async for e in chat_turn(rt, uid, "t", text)]


def _assert_completed(events: list[TurnEvent], storage: MemoryStore, uid: int, text: str) -> TurnEvent:
    """The turn ended with words for the user, and the user's message is stored exactly once."""
    last = events[-1]
    assert isinstance(last, Finished | Failed), last
    if isinstance(last, Finished):
        assert last.reply.strip()
    else:
        assert "did not answer" in last.message or "try again" in last.message.lower()
    users = [t for t in storage.turns.recent(uid, "t", 50) if t.role == "user" and t.content == text]
    assert len(users) == 1
    return last


@pytest.fixture
def silent_server() -> Iterator[str]:
    """A loopback HTTP server that accepts connections and reads requests but never answers."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
                held.append(conn)
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}/v1"
    stop.set()
    thread.join(timeout=2)
    for conn in held:
        conn.close()
    server.close()


async def test_model_timeout_ends_turn_with_clear_message(
    settings: Settings, storage: MemoryStore, silent_server: str
) -> None:
    provider = OpenAICompatibleProvider("llama.cpp", base_url=silent_server, api_key="x")
    model = OpenAIChatModel("silent", provider=provider, settings=ModelSettings(timeout=1.0))
    uid = _uid(storage)
    async with model:
        rt = _runtime(settings, storage, model)
        events = await _turn(rt, uid)
    planned = next(e for e in events if isinstance(e, ContextPlanned))
    assert len(planned.provision.defaulted) == 4 and planned.notes  # the request step fell back to defaults
    last = _assert_completed(events, storage, uid, "What is my dog called?")
    assert isinstance(last, Failed) and "saved" in last.message


async def _empty_stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    yield ""  # FunctionModel needs one item; an empty and a blank chunk are the model saying nothing
    yield "   "


async def _empty(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart("")])


async def test_model_empty_replies_degrade_to_a_message(settings: Settings, storage: MemoryStore) -> None:
    uid = _uid(storage)
    rt = _runtime(settings, storage, FunctionModel(_empty, stream_function=_empty_stream))
    events = await _turn(rt, uid)
    _assert_completed(events, storage, uid, "What is my dog called?")


@pytest.mark.parametrize(
    "garbage",
    [
        "{not json",
        '{"context_turns": "lots", "vector_limit": [1], "similarity_threshold": "high", "triple_depth": null}',
        '{"context_turns": 1e308, "vector_limit": -99999, "similarity_threshold": 7, "triple_depth": 99}',
        '{"context_turns": 3, "unexpected": {"nested": ["x"]}, "reason": "' + "r" * 5000 + '"}',
        "[]",
        '"just a string"',
        "\x00\x01\x02",
        '{"context_turns": 3}' * 50,
    ],
)
async def test_model_invalid_request_output_falls_back(garbage: str, settings: Settings, storage: MemoryStore) -> None:
    async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(garbage)])

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        yield "An answer despite the garbage."

    uid = _uid(storage)
    rt = _runtime(settings, storage, FunctionModel(respond, stream_function=stream))
    events = await _turn(rt, uid)
    planned = next(e for e in events if isinstance(e, ContextPlanned))
    limits = settings.max_episodic_context_turns, settings.max_vector_search_limit, settings.max_triple_depth
    p = planned.provision.fields()
    assert 1 <= p["context_turns"] <= limits[0] and 0 <= p["vector_limit"] <= limits[1]
    assert 0 <= p["triple_depth"] <= limits[2] and 0.5 <= p["similarity_threshold"] <= 0.9
    _assert_completed(events, storage, uid, "What is my dog called?")


async def test_model_endless_tool_calls_are_cut_off(settings: Settings, storage: MemoryStore) -> None:
    calls = {"n": 0}

    async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        calls["n"] += 1
        return ModelResponse(parts=[ToolCallPart("search_memories", {"query": "again"}, tool_call_id=f"c{calls['n']}")])

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[DeltaToolCalls]:
        calls["n"] += 1
        yield {0: DeltaToolCall(name="search_memories", json_args='{"query": "again"}', tool_call_id=f"s{calls['n']}")}

    uid = _uid(storage)
    rt = _runtime(settings, storage, FunctionModel(respond, stream_function=stream))
    events = await _turn(rt, uid)
    _assert_completed(events, storage, uid, "What is my dog called?")
    assert calls["n"] < 50, "the loop must stop asking the model"


async def test_model_failure_then_retry_answers_the_same_turn(settings: Settings, storage: MemoryStore) -> None:
    from app.chat import reply_to

    uid = _uid(storage)
    broken = _runtime(settings, storage, FunctionModel(_empty, stream_function=_raising_stream))
    events = await _turn(broken, uid)
    last = _assert_completed(events, storage, uid, "What is my dog called?")
    assert isinstance(last, Failed)
    good = _runtime(settings, storage, FunctionModel(_good_request, stream_function=_good_stream))
    with anyio.fail_after(BOUND_S):
        retry = [e async for e in reply_to(good, uid, "t", last.user_turn_id)]
    assert isinstance(retry[-1], Finished)
    _assert_completed(retry, storage, uid, "What is my dog called?")


async def _raising_stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    yield "half a rep"
    raise TimeoutError("the model stalled mid-reply")


async def _good_request(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart(GOOD_REQUEST)])


async def _good_stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
    yield "Your dog is Pimenta."
