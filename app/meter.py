"""The dream's model meter: a recorded turn's prompt rebuilt as the answer path builds it, run through
the configured model.

Only the model path's turns are ever clamped (the request policy fits its requests inside the
ranges), so a limit proposal is always about turns the answer loop answered: the meter rebuilds
that loop's first round exactly (`answer_loop.round_call`: its instructions, the previous turn's
execution report, the recalled block, the capabilities offered, today's date and the question,
with the thread's history as messages and the grammar as settings) and stops after a few tokens.
A prompt of the recalled block alone under the voice's one-line instructions measured 2.4 times
fewer tokens than the turns it stood for (docs/benchmarks.md, issue 15).

Each replay's instructions end with a mark of their own, so llama.cpp's prompt cache reuses at
most the instructions, as it does for a real turn whose history window has moved on.
"""

from __future__ import annotations

import asyncio
import time

from pydantic_ai.exceptions import UnexpectedModelBehavior
from pydantic_ai.settings import ModelSettings

from app.agent import history_messages
from app.answer_loop import LOOP_INSTRUCTIONS, round_call
from app.llm import Backend
from app.metrics import rss_mb
from capabilities.context import TwoLevelContext
from dreaming.simulation import ModelCost, ModelMeter, ReplayedTurn
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

    def measure(turn: ReplayedTurn) -> ModelCost:
        job = _measure(backend, store, turn, include_report, max_info_requests > 0)
        return asyncio.run_coroutine_threadsafe(job, loop).result(timeout_s)

    return measure


async def _measure(
    backend: Backend, store: MemoryStore, turn: ReplayedTurn, include_report: bool, can_ask: bool
) -> ModelCost:
    previous = store.usage.before(turn.user_id, turn.thread_id, turn.usage_id)
    preamble = previous.report if previous is not None and include_report else ""
    query = QueryConfig()
    call = round_call(
        backend, TwoLevelContext.from_assembled(turn.context), store.entities.types(turn.user_id), turn.question,
        preamble, can_ask=can_ask, include_relationships=query.include_relationships, temperature=query.temperature,
        instructions=f"{LOOP_INSTRUCTIONS}\n(dream measurement: {turn.label}, turn {turn.usage_id})",
    )  # fmt: skip
    settings = ModelSettings(**call.settings)
    settings["max_tokens"] = MEASURED_TOKENS
    history = history_messages(turn.context.history)
    started = time.perf_counter()
    first: float | None = None
    async with call.agent.run_stream(call.prompt, message_history=history, model_settings=settings) as run:
        try:
            async for _ in run.stream_response(debounce_by=None):
                first = first or time.perf_counter()
        except UnexpectedModelBehavior:  # a few tokens of JSON are no reply; the prompt's cost is known by then
            pass
        tokens = run.usage.input_tokens or 0
    return ModelCost(tokens, (first or time.perf_counter()) - started, rss_mb())
