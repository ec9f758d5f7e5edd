"""A chat turn on real storage: bad input, model down, failure mid-stream, retry, history.

The model is scripted with pydantic-ai's FunctionModel (deterministic agent logic); the real
embedded model is exercised end to end in tests/e2e.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, DeltaToolCalls, FunctionModel
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai_compatible import OpenAICompatibleProvider
from pydantic_ai.settings import ModelSettings

from app.chat import ContextPlanned, Failed, Finished, Rejected, Token, TurnEvent, chat_turn, reply_to, unanswered_turn
from app.llm import Backend
from app.runtime import Runtime
from app.settings import Settings
from memory.store import MemoryStore
from tests.e2e.server import free_port
from tests.scripted import answer_chunks

pytestmark = [pytest.mark.anyio, pytest.mark.both_backends]  # (backends: tests/conftest.py)


def _runtime(settings: Settings, storage: MemoryStore, model: Model) -> Runtime:
    return Runtime(settings=settings, store=storage, backend=Backend("embedded", "scripted", "", model))


def _user(storage: MemoryStore) -> int:
    row = storage.accounts.create("ana", "correct-horse")
    assert row.id is not None
    return row.id


async def _events(stream: AsyncIterator[TurnEvent]) -> list[TurnEvent]:
    return [event async for event in stream]


REQUEST_JSON = '{"context_turns": 4, "vector_limit": 2, "similarity_threshold": 0.6, "triple_depth": 1, "reason": "t"}'


def _request(reply: str = REQUEST_JSON) -> Callable[[list[ModelMessage], AgentInfo], Awaitable[ModelResponse]]:
    """The non-streamed call is the resource-request step: answer it with fixed JSON."""

    async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(reply)])

    return respond


def _echo_history() -> FunctionModel:
    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
        prompts = [
            p.content for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, UserPromptPart)
        ]
        for chunk in answer_chunks(f"I have seen {len(prompts)} user messages"):
            yield chunk

    return FunctionModel(_request(), stream_function=stream)


async def test_chat_turn_streams_tokens_and_stores_both_turns(settings: Settings, storage: MemoryStore) -> None:
    uid = _user(storage)
    rt = _runtime(settings, storage, _echo_history())
    first = await _events(chat_turn(rt, uid, "t", "hello there"))
    assert sum(isinstance(e, Token) for e in first) > 3
    assert isinstance(first[-1], Finished)
    second = await _events(chat_turn(rt, uid, "t", "and again"))
    final = second[-1]
    assert isinstance(final, Finished) and final.reply.startswith("I have seen 2 user messages")
    assert final.confidence == "high" and not final.forced
    assert [t.role for t in storage.turns.recent(uid, "t", 10)] == ["user", "assistant"] * 2


@pytest.mark.parametrize("text", ["", "   \n\t ", "x" * 10_001])
async def test_chat_turn_rejects_bad_input_and_stores_nothing(
    settings: Settings, storage: MemoryStore, text: str
) -> None:
    uid = _user(storage)
    events = await _events(chat_turn(_runtime(settings, storage, _echo_history()), uid, "t", text))
    assert len(events) == 1 and isinstance(events[0], Rejected)
    assert "empty" in events[0].message or "10,000" in events[0].message
    assert storage.turns.recent(uid, "t", 10) == []


async def test_chat_turn_accepts_exactly_the_limit(settings: Settings, storage: MemoryStore) -> None:
    uid = _user(storage)
    events = await _events(chat_turn(_runtime(settings, storage, _echo_history()), uid, "t", "y" * 10_000))
    assert isinstance(events[-1], Finished)


async def test_chat_turn_model_down_keeps_user_turn_and_retry_works(settings: Settings, storage: MemoryStore) -> None:
    uid = _user(storage)
    # A real OpenAI-compatible client pointed at a loopback port where nothing listens.
    provider = OpenAICompatibleProvider("down", base_url=f"http://127.0.0.1:{free_port()}/v1")
    down = OpenAIChatModel("nothing", provider=provider, settings=ModelSettings(max_retries=0, timeout=5))
    events = await _events(chat_turn(_runtime(settings, storage, down), uid, "t", "are you there?"))
    failure = events[-1]
    assert isinstance(failure, Failed) and "Your message is saved" in failure.message
    stored = storage.turns.recent(uid, "t", 10)
    assert [(t.role, t.content) for t in stored] == [("user", "are you there?")]
    rt = _runtime(settings, storage, _echo_history())
    assert unanswered_turn(rt, uid, "t") == failure.user_turn_id  # a reopened thread offers Retry
    retried = await _events(reply_to(rt, uid, "t", failure.user_turn_id))
    assert isinstance(retried[-1], Finished)
    assert [t.role for t in storage.turns.recent(uid, "t", 10)] == ["user", "assistant"]
    assert unanswered_turn(rt, uid, "t") is None and unanswered_turn(rt, uid, "empty") is None


async def test_chat_turn_failure_mid_stream_stores_no_partial_reply(settings: Settings, storage: MemoryStore) -> None:
    uid = _user(storage)

    async def breaks(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        for chunk in list(answer_chunks("half an answer that never ends"))[:7]:
            yield chunk
        raise ConnectionResetError("server went away")

    events = await _events(
        chat_turn(_runtime(settings, storage, FunctionModel(_request(), stream_function=breaks)), uid, "t", "hi")
    )
    assert isinstance(events[0], ContextPlanned) and isinstance(events[-1], Failed)
    assert any(isinstance(e, Token) for e in events), "part of the reply had streamed before the failure"
    assert [t.role for t in storage.turns.recent(uid, "t", 10)] == ["user"]


async def test_chat_turn_empty_model_reply_is_explained(settings: Settings, storage: MemoryStore) -> None:
    uid = _user(storage)

    async def silent(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        yield "  "

    events = await _events(
        chat_turn(_runtime(settings, storage, FunctionModel(_request(), stream_function=silent)), uid, "t", "hi")
    )
    final = events[-1]
    # Nothing usable from the model: a forced, low-confidence answer that says so, never a crash.
    assert isinstance(final, Finished) and final.forced and final.confidence == "low" and final.reply


def test_history_messages_alternate_roles() -> None:
    from app.agent import history_messages
    from memory.models import TurnRow, utcnow

    rows = [
        TurnRow.model_validate(
            {"user_id": 1, "thread_id": "t", "role": r, "content": c, "created_at": utcnow(), "tokens": 1}
        )
        for r, c in [("user", "a"), ("assistant", "b")]
    ]
    messages = history_messages(rows)
    assert isinstance(messages[0], ModelRequest) and isinstance(messages[1], ModelResponse)
