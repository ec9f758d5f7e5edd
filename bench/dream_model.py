"""A proposal's risk as the dream measured it on the model, beside what the turns cost once it applied.

    OMP_NUM_THREADS=1 .venv/bin/python -m bench.dream_model [--turns 3]

In a fresh data directory, issue 15's case (a) through the real chat: a garden thread of fourteen
notes, then four turns asking for 30 recent messages (clamped at MAX_EPISODIC_CONTEXT_TURNS=20),
each followed by "As I said…" (the requests come from a scripted model: the embedded model cannot
be made to ask). The dream then runs with the app's model meter on the embedded SmolLM2-135M: the
recorded turns' prompts rebuilt at 20 and at 30 as the answer loop builds them (app/meter.py) and
run through it (prompt tokens, time to first token, RSS of the app and the model). Then `--turns`
real turns at 20, the proposal approved, and as many at 30 — each answered by the embedded model —
and their observed prompt tokens (each turn's first round: the call the meter rebuilds), first
token, reply time and RSS (the usage log and the turn's timings), and observed / measured.
Several minutes on one core.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

from pydantic_ai.messages import ModelMessage, ModelResponse, PartDeltaEvent, PartStartEvent, TextPart, TextPartDelta
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel

from app.chat import Finished, chat_turn
from app.llm import Backend, LLMConfig, open_backend
from app.meter import model_meter
from app.runtime import Runtime, effective_limits, open_storage
from app.settings import Settings
from bench.machine import print_machine
from dreaming import proposals
from dreaming.dream import DreamConfig, run_dream
from memory.dreams import loads

GREEDY = '{"context_turns": 30, "vector_limit": 5, "similarity_threshold": 0.6, "triple_depth": 1, "reason": "deep"}'
MODEST = '{"context_turns": 5, "vector_limit": 5, "similarity_threshold": 0.6, "triple_depth": 1, "reason": "short"}'
BEDS = ("north", "south", "east", "west", "corner", "pond", "fence", "shed", "path", "gate", "porch", "wall", "hedge",
        "orchard")  # fmt: skip
PLANTS = ("tomatoes", "basil", "beans", "kale", "leeks", "onions", "garlic", "mint", "sage", "thyme", "chard", "peas",
          "squash", "radish")  # fmt: skip


def asking(request: str, answerer: Model | None, prompts: list[int] | None = None) -> Backend:
    """A backend whose resource request is `request`; the reply is "noted." or, with `answerer`, the
    embedded model's own (what a turn costs is the model's), each reply's prompt tokens added to `prompts`."""

    async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(request)])

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        if answerer is None:
            yield "noted."
            return
        async with answerer.request_stream(messages, info.model_settings, info.model_request_parameters) as reply:
            async for event in reply:
                if isinstance(event, PartStartEvent) and isinstance(event.part, TextPart):
                    yield event.part.content
                elif isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta):
                    yield event.delta.content_delta
            if prompts is not None:
                prompts.append(reply.usage.input_tokens)

    return Backend("embedded", "scripted", "", FunctionModel(respond, stream_function=stream))


async def say(rt: Runtime, uid: int, text: str) -> Finished | None:
    return next((e for e in [e async for e in chat_turn(rt, uid, "garden", text)] if isinstance(e, Finished)), None)


async def observed(rt: Runtime, uid: int, n: int, topic: str, prompts: list[int]) -> dict[str, float]:
    """`n` greedy turns answered by the model: mean prompt tokens of each turn's first round (the call
    the dream's meter rebuilds), first token (from the turn's start), reply time; peak RSS."""
    first: list[float] = []
    total: list[float] = []
    rss: list[float] = []
    firsts: list[int] = []
    prompts.clear()
    for bed in BEDS[:n]:
        start = len(prompts)
        done = await say(rt, uid, f"{topic}: what went in the {bed} bed again?")
        row = rt.store.usage.last(uid, "garden")
        if done is None or row is None or len(prompts) == start:
            continue
        firsts.append(prompts[start])
        first.append(done.timings_ms.get("first_token", 0.0) / 1000)
        total.append((row.generation_ms or 0.0) / 1000)
        rss.append(row.rss_mb or 0.0)
    mean = statistics.mean
    return {"prompt_tokens": mean(firsts), "first_token_s": mean(first), "reply_s": mean(total), "rss_mb": max(rss)}


async def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--turns", type=int, default=3, help="real turns at each limit")
    args = parser.parse_args()
    print_machine()
    with tempfile.TemporaryDirectory(prefix="dream-model-") as home:
        settings = Settings(_env_file=None, data_dir=Path(home) / "data")  # pyright: ignore[reportCallIssue]
        store = open_storage(settings)
        try:
            uid = store.accounts.create("ana", "bench-only-password").id or 0
            modest = Runtime(settings=settings, store=store, backend=asking(MODEST, None))
            greedy = Runtime(settings=settings, store=store, backend=asking(GREEDY, None))
            for bed, plant in zip(BEDS, PLANTS, strict=True):
                await say(modest, uid, f"Note: the {bed} bed gets {plant}.")
            for bed in BEDS[:4]:
                await say(greedy, uid, f"plant: what went in the {bed} bed?")
                await say(modest, uid, f"As I said before, I told you about the {bed} one")
            async with open_backend(LLMConfig(backend="embedded")) as backend:
                meter = model_meter(backend, store, asyncio.get_running_loop())
                config = DreamConfig(limits=effective_limits(settings, store), meter=meter)
                report = await asyncio.to_thread(run_dream, store, config)
                proposal = report.proposals[0]
                sim = loads(proposal.simulation)
                prompts: list[int] = []
                real = Runtime(settings=settings, store=store, backend=asking(GREEDY, backend.model, prompts))
                before = await observed(real, uid, args.turns, "at 20", prompts)
                proposals.decide(store.dreams, effective_limits(settings, store), proposal.id or 0, "approved",
                                 "bench", "bench")  # fmt: skip
                after = await observed(real, uid, args.turns, "at 30", prompts)
        finally:
            store.close()
    print(f"proposal: {proposals.headline(proposal)}")
    print("\n| | prompt tokens | first token s | reply s | RSS MB (app + model) |")
    print("|---|---|---|---|---|")
    for label, key in (("dream's measure at 20", "baseline"), ("dream's measure at 30", "candidate")):
        print(f"| {label} ({sim['model_replays']} prompts) | {sim[f'model_{key}_prompt_tokens']:.0f} | "
              f"{sim[f'model_{key}_first_token_s']:.1f} | – | {sim[f'model_{key}_rss_mb']:.0f} |")  # fmt: skip
    for label, seen in (("observed at 20", before), ("observed at 30, applied", after)):
        print(f"| {label} ({args.turns} turns) | {seen['prompt_tokens']:.0f} | {seen['first_token_s']:.1f} | "
              f"{seen['reply_s']:.1f} | {seen['rss_mb']:.0f} (peak) |")  # fmt: skip
    for label, key, seen in (("at 20", "baseline", before), ("at 30", "candidate", after)):
        tokens, first = sim[f"model_{key}_prompt_tokens"], sim[f"model_{key}_first_token_s"]
        print(
            f"observed / measured {label}: prompt tokens {seen['prompt_tokens'] / tokens:.2f}, "
            f"first token {seen['first_token_s'] / first:.2f}, RSS {seen['rss_mb'] / sim[f'model_{key}_rss_mb']:.2f}"
        )
    print(f"projected peak {sim['projected_peak_mb']} MB of {sim['memory_limit_mb']} MB, risk {proposal.risk}")


if __name__ == "__main__":
    asyncio.run(main())
