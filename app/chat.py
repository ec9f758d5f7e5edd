"""One chat turn as a stream of events, independent of any UI.

The Chainlit handlers only render these events; everything a turn does lives here, so the
same path serves the browser, the CLI and the tests.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx
from pydantic_ai.exceptions import AgentRunError

from app.agent import build_chat_agent, history_messages
from app.runtime import Runtime
from memory.turns import InvalidMessage, validate_message

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Rejected:
    """The message was not accepted (nothing was stored, nothing sent to the model)."""

    message: str


@dataclass(frozen=True)
class Token:
    """A new piece of the streamed reply."""

    text: str


@dataclass(frozen=True)
class Finished:
    """The reply is complete and stored."""

    reply: str
    turn_id: int


@dataclass(frozen=True)
class Failed:
    """The model failed; the user's turn is stored and a retry will work."""

    message: str
    user_turn_id: int


TurnEvent = Rejected | Token | Finished | Failed


def model_failure_message(exc: BaseException) -> str:
    """The one place a model or infrastructure failure becomes words for the user."""
    return (
        "The language model did not answer this time "
        f"({type(exc).__name__}: {str(exc)[:200] or 'no details'}). "
        "Your message is saved; send it again or press Retry."
    )


async def chat_turn(rt: Runtime, user_id: int, thread_id: str, text: str) -> AsyncIterator[TurnEvent]:
    """Validate and store the user's message, then stream and store the reply."""
    try:
        text = validate_message(text)
    except InvalidMessage as exc:
        yield Rejected(str(exc))
        return
    user_turn = rt.store.turns.add(user_id, thread_id, "user", text)
    async for event in reply_to(rt, user_id, thread_id, user_turn.id or 0):
        yield event


async def reply_to(rt: Runtime, user_id: int, thread_id: str, user_turn_id: int) -> AsyncIterator[TurnEvent]:
    """Stream the reply to a stored user turn (also the retry path: nothing is stored twice)."""
    user_turn = rt.store.turns.get(user_id, user_turn_id)
    if user_turn is None:
        yield Rejected("That message no longer exists.")
        return
    n_turns = rt.settings.default_episodic_context_turns
    history = rt.store.turns.recent(user_id, thread_id, n_turns, before_id=user_turn_id)
    agent = build_chat_agent(rt.backend.model)
    reply = ""
    try:
        async with agent.run_stream(user_turn.content, message_history=history_messages(history)) as result:
            async for delta in result.stream_text(delta=True, debounce_by=None):
                reply += delta
                yield Token(delta)
    except (AgentRunError, httpx.HTTPError, OSError, TimeoutError) as exc:
        log.warning("model failed on turn %s: %r", user_turn_id, exc)
        yield Failed(model_failure_message(exc), user_turn_id)
        return
    reply = reply.strip() or "(The model returned an empty reply. Please ask again.)"
    turn = rt.store.turns.add(user_id, thread_id, "assistant", reply)
    yield Finished(reply, turn.id or 0)
