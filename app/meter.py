"""The dream's model meter: a recorded turn's prompt rebuilt as its path builds it, run through the
configured model.

A model-path turn (the only kind a limit ever clamps: the request policy fits its requests inside
the ranges) is answered by the answer loop, so the meter rebuilds that loop's first round exactly
(`answer_loop.round_call`: its instructions, the previous turn's execution report, the recalled
block, the capabilities offered, today's date and the question, with the thread's history as
messages and the grammar as settings). A policy-path turn (a policy proposal's) is answered by the
grounded voice from the evidence the policy chose among what the context recalled
(`grounded.first_evidence`): the meter sends that prompt, and nothing when the voice would not be
called (no evidence: "I don't know", no model). Either stops after a few tokens.

Each replay's instructions end with a mark of their own, so llama.cpp's prompt cache reuses at
most the instructions, as it does for a real turn whose history window has moved on.

RSS: the app and its children after each prompt, and the model's own process alone (the embedded
server's child; 0 on Ollama, whose server is not ours). The model's RSS grows with every new prompt
by the state llama.cpp keeps of the one before, up to REVERIE_EMBEDDED_CACHE_MB
(app/embedded_llm.py): after a few replays the meter sees it as full as a day of chat leaves it.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import psutil
from pydantic_ai import Agent
from pydantic_ai.exceptions import UnexpectedModelBehavior
from pydantic_ai.messages import ModelMessage
from pydantic_ai.settings import ModelSettings

from app.agent import history_messages
from app.answer_loop import LOOP_INSTRUCTIONS, round_call
from app.grounded import first_evidence
from app.llm import Backend
from app.metrics import rss_mb
from app.voice import GROUNDED_SYSTEM, grounded_prompt, model_settings, system_text
from capabilities.context import TwoLevelContext
from capabilities.situation import read
from dreaming.simulation import ModelCost, ModelMeter, ReplayedTurn
from memory.models import utcnow
from memory.queries import QueryConfig
from memory.store import MemoryStore

MEASURED_TOKENS = 4  # enough for the first token; the rest of a reply costs the same at any limit


def model_meter(
    backend: Backend,
    store: MemoryStore,
    loop: asyncio.AbstractEventLoop,
    *,
    include_report: bool = True,
    max_info_requests: int = 3,
    timeout_s: float = 300.0,
) -> ModelMeter:
    """A dream's way to run a replayed turn's prompt through the configured model from its worker
    thread (the backend lives on the app's loop): prompt tokens, time to first token, RSS after it.

    Args:
        backend: the app's backend. store: for the report before the turn and the entity types offered.
        loop: the app's event loop. include_report: INCLUDE_EXECUTION_REPORT (the report is in the prompt).
        max_info_requests: the app's setting (0: the first round offers no capabilities).
    """
    pid = backend.embedded.pid if backend.embedded is not None else None

    def measure(turn: ReplayedTurn) -> ModelCost:
        if turn.path == "policy":
            job = _measure_grounded(backend, store, turn, pid)
        else:
            job = _measure(backend, store, turn, include_report, max_info_requests > 0, pid)
        return asyncio.run_coroutine_threadsafe(job, loop).result(timeout_s)

    return measure


def _mark(turn: ReplayedTurn) -> str:
    return f"\n(dream measurement: {turn.label}, turn {turn.usage_id})"


async def _measure(
    backend: Backend, store: MemoryStore, turn: ReplayedTurn, include_report: bool, can_ask: bool, pid: int | None
) -> ModelCost:
    previous = store.usage.before(turn.user_id, turn.thread_id, turn.usage_id)
    preamble = previous.report if previous is not None and include_report else ""
    query = QueryConfig()
    call = round_call(
        backend, TwoLevelContext.from_assembled(turn.context), store.entities.types(turn.user_id), turn.question,
        preamble, can_ask=can_ask, include_relationships=query.include_relationships, temperature=query.temperature,
        instructions=LOOP_INSTRUCTIONS + _mark(turn),
    )  # fmt: skip
    settings = ModelSettings(**call.settings)
    settings["max_tokens"] = MEASURED_TOKENS
    return await _timed(call.agent, call.prompt, history_messages(turn.context.history), settings, pid)


async def _measure_grounded(backend: Backend, store: MemoryStore, turn: ReplayedTurn, pid: int | None) -> ModelCost:
    """The grounded voice's prompt for the evidence the policy chooses from this context (no call: none)."""
    earlier = [h.content for h in turn.context.history]
    evidence = first_evidence(store, turn.user_id, read(turn.question, earlier), turn.context.hits)
    if evidence is None or evidence.verdict == "unknown" or not evidence.notes:
        return ModelCost(0, 0.0, rss_mb(), _process_mb(pid))  # the voice is not called for this turn
    agent = Agent(backend.model, instructions=system_text(GROUNDED_SYSTEM, utcnow().date()) + _mark(turn))
    prompt = grounded_prompt(evidence.notes, turn.question)
    return await _timed(agent, prompt, [], model_settings(backend, MEASURED_TOKENS), pid)


async def _timed(
    agent: Agent[None, Any], prompt: str, history: list[ModelMessage], settings: ModelSettings, pid: int | None
) -> ModelCost:
    started = time.perf_counter()
    first: float | None = None
    async with agent.run_stream(prompt, message_history=history, model_settings=settings) as run:
        try:
            async for _ in run.stream_response(debounce_by=None):
                first = first or time.perf_counter()
        except UnexpectedModelBehavior:  # a few tokens of JSON are no reply; the prompt's cost is known by then
            pass
        tokens = run.usage.input_tokens or 0
    return ModelCost(tokens, (first or time.perf_counter()) - started, rss_mb(), _process_mb(pid))


def _process_mb(pid: int | None) -> float:
    """The model process's own RSS (0: not ours to read, or gone)."""
    if pid is None:
        return 0.0
    try:
        return psutil.Process(pid).memory_info().rss / (1024 * 1024)
    except psutil.Error:
        return 0.0
