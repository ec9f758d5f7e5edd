"""A proposal's risk as the dream measured it on the model, beside what the turns cost once it applied.

    OMP_NUM_THREADS=1 .venv/bin/python -m bench.dream_model [--turns 3] [--cache-mb 128]

In a fresh data directory, issue 15's case (a) through the real chat: a garden thread of fourteen
notes, then four turns asking for 30 recent messages (clamped at MAX_EPISODIC_CONTEXT_TURNS=20),
each followed by "As I said…" (the requests come from a scripted model: the embedded model cannot
be made to ask). Then `--turns` real turns at 20 answered by the embedded SmolLM2-135M (each also
clamped and re-asked). The dream then runs with the app's model meter: the newest recorded turns
(these very three) rebuilt at 20 and at 30 as the answer loop builds them (app/meter.py) and run
through the model. The proposal approved, as many real turns at 30. Reported like for like: each
turn's first round (the call the meter rebuilds: prompt tokens, time to its first token), the turn's
first answer text and rounds, the peak RSS of app and model (the usage log's) and of the model's
process alone, and observed / measured. `--cache-mb`: llama.cpp's host prompt cache (8192 is its
own default, what the app ran with before). Tens of minutes on one busy core.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import psutil

os.environ.setdefault("OMP_NUM_THREADS", "1")

from pydantic_ai.messages import ModelMessage, ModelResponse, PartDeltaEvent, PartStartEvent, TextPart, TextPartDelta
from pydantic_ai.models import Model
from pydantic_ai.models.function import AgentInfo, FunctionModel

from app.chat import Finished, chat_turn
from app.embedded_llm import DEFAULT_CACHE_MB
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


@dataclass
class Call:
    """One model call of an observed turn: its prompt tokens, first streamed event and end (s from its start)."""

    prompt_tokens: int
    first_s: float
    total_s: float


def asking(request: str, answerer: Model | None, prompts: list[Call] | None = None) -> Backend:
    """A backend whose resource request is `request`; the reply is "noted." or, with `answerer`, the
    embedded model's own (what a turn costs is the model's), each reply's prompt tokens added to `prompts`."""

    async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(request)])

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        if answerer is None:
            yield "noted."
            return
        started, first = time.perf_counter(), 0.0
        async with answerer.request_stream(messages, info.model_settings, info.model_request_parameters) as reply:
            async for event in reply:
                first = first or time.perf_counter() - started
                if isinstance(event, PartStartEvent) and isinstance(event.part, TextPart):
                    yield event.part.content
                elif isinstance(event, PartDeltaEvent) and isinstance(event.delta, TextPartDelta):
                    yield event.delta.content_delta
            if prompts is not None:
                prompts.append(Call(reply.usage.input_tokens, first, time.perf_counter() - started))

    return Backend("embedded", "scripted", "", FunctionModel(respond, stream_function=stream))


async def say(rt: Runtime, uid: int, text: str) -> Finished | None:
    return next((e for e in [e async for e in chat_turn(rt, uid, "garden", text)] if isinstance(e, Finished)), None)


async def observed(
    rt: Runtime, uid: int, n: int, topic: str, prompts: list[Call], model_pid: int, reask: Runtime
) -> dict[str, float]:
    """`n` greedy turns answered by the model. Like for like with the dream's meter: each turn's first
    round (the call the meter rebuilds): its prompt tokens and time to first token; then the turn's
    first answer text (from its start: every round the model spent asking first), rounds, reply time,
    and the peak RSS of app and model (the usage log's) and of the model's process alone."""
    seen: dict[str, list[float]] = {k: [] for k in ("prompt_tokens", "first_token_s", "answer_first_s", "rounds",
                                                    "reply_s", "rss_mb", "model_mb")}  # fmt: skip
    prompts.clear()
    for bed in BEDS[:n]:
        start = len(prompts)
        done = await say(rt, uid, f"{topic}: what went in the {bed} bed again?")
        row = rt.store.usage.last(uid, "garden")
        if done is None or row is None or len(prompts) == start:
            continue
        calls = prompts[start:]
        figures = (calls[0].prompt_tokens, calls[0].first_s, done.timings_ms.get("first_token", 0.0) / 1000,
                   len(calls), (row.generation_ms or 0.0) / 1000, row.rss_mb or 0.0,
                   psutil.Process(model_pid).memory_info().rss / 2**20)  # fmt: skip
        for key, value in zip(seen, figures, strict=True):
            seen[key].append(value)
        await say(reask, uid, f"As I said before, I told you about the {bed} one ({topic})")
        said = ", ".join(
            f"{c.prompt_tokens} tokens, first token {c.first_s:.1f} s, done {c.total_s:.1f} s" for c in calls
        )
        print(f"  {topic} {bed}: rounds [{said}]; app+model {row.rss_mb or 0:.0f} MB, model {figures[-1]:.0f} MB",
              flush=True)  # fmt: skip
    return {k: (max(v) if k in ("rss_mb", "model_mb") else statistics.mean(v)) for k, v in seen.items()}


async def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--turns", type=int, default=3, help="real turns at each limit")
    parser.add_argument(
        "--cache-mb",
        type=int,
        default=DEFAULT_CACHE_MB,
        help="llama.cpp's host prompt cache (8192: its own default, unbounded in effect)",
    )
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
            async with open_backend(LLMConfig(backend="embedded", embedded_cache_mb=args.cache_mb)) as backend:
                prompts: list[Call] = []
                real = Runtime(settings=settings, store=store, backend=asking(GREEDY, backend.model, prompts))
                pid = backend.embedded.pid if backend.embedded else 0
                # the observed turns at 20 are clamped too: the dream's meter replays these very turns
                before = await observed(real, uid, args.turns, "at 20", prompts, pid, modest)
                meter = model_meter(backend, store, asyncio.get_running_loop())
                config = DreamConfig(limits=effective_limits(settings, store), meter=meter)
                report = await asyncio.to_thread(run_dream, store, config)
                proposal = report.proposals[0]
                sim = loads(proposal.simulation)
                proposals.decide(store.dreams, effective_limits(settings, store), proposal.id or 0, "approved",
                                 "bench", "bench")  # fmt: skip
                after = await observed(real, uid, args.turns, "at 30", prompts, pid, modest)
        finally:
            store.close()
    print(f"proposal: {proposals.headline(proposal)}")
    print(
        "\n| | prompt tokens (1st round) | first token s (1st round) | first answer text s (rounds) | "
        "RSS MB app + model | RSS MB model process |"
    )
    print("|---|---|---|---|---|---|")
    for label, key in (("dream's measure at 20", "baseline"), ("dream's measure at 30", "candidate")):
        print(f"| {label} ({sim['model_replays']} prompts) | {sim[f'model_{key}_prompt_tokens']:.0f} | "
              f"{sim[f'model_{key}_first_token_s']:.1f} | – | {sim[f'model_{key}_rss_mb']:.0f} | "
              f"{sim[f'model_{key}_process_rss_mb']:.0f} |")  # fmt: skip
    for label, seen in (("observed at 20", before), ("observed at 30, applied", after)):
        print(f"| {label} ({args.turns} turns) | {seen['prompt_tokens']:.0f} | {seen['first_token_s']:.1f} | "
              f"{seen['answer_first_s']:.1f} ({seen['rounds']:.1f}) | {seen['rss_mb']:.0f} (peak) | "
              f"{seen['model_mb']:.0f} (peak) |")  # fmt: skip
    for label, key, seen in (("at 20", "baseline", before), ("at 30", "candidate", after)):
        ratios = [seen[o] / sim[f"model_{key}_{m}"] if sim[f"model_{key}_{m}"] else float("nan")
                  for o, m in (("prompt_tokens", "prompt_tokens"), ("first_token_s", "first_token_s"),
                               ("rss_mb", "rss_mb"), ("model_mb", "process_rss_mb"))]  # fmt: skip
        print(f"observed / measured {label}: prompt tokens {ratios[0]:.2f}, first token {ratios[1]:.2f}, "
              f"RSS app+model {ratios[2]:.2f}, model process {ratios[3]:.2f}")  # fmt: skip
    print(f"projected peak {sim['projected_peak_mb']} MB of {sim['memory_limit_mb']} MB, risk {proposal.risk}")


if __name__ == "__main__":
    asyncio.run(main())
