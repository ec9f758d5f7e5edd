"""How well three deciders choose a turn's context, scored on labelled situations.

    OMP_NUM_THREADS=1 .venv/bin/python -m bench.context_policy [--situations FILE] [--no-model]

Each situation of `bench/context_situations.json` (a message, the earlier messages of its thread and,
per dimension, the range a reasonable engineer would accept) is decided by: the defaults of
`Limits.from_values()`, the model-free policy `capabilities.request_policy.plan_request` (when it
exists), and the embedded SmolLM2 through the real request step (which sees the message only, as in
a chat's first turn; `--no-model` skips it, it takes minutes on one core). The requested value,
before clamping, is scored: a missing one counts as the default the system then provides (and is
counted as "defaulted"); one outside the dimension's meaningful domain is wrong and counted as a
failure. Score = share of dimension decisions inside the accepted range; "all 4 right" counts the
situations whose four decisions all are. The situations were written for this check; per-situation
results go to a JSON file under /tmp.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

import anyio

from app.llm import LLMConfig, open_backend
from app.request_step import request_resources
from bench.machine import load_average, print_machine
from capabilities.resources import TRIPLE_DEPTH_CEILING, Dimension, Limits, Number, ResourceRequest

SITUATIONS = Path(__file__).with_name("context_situations.json")
HARDWARE = "2 GB RAM / 1 vCPU"
# Counts beyond this mean nothing to a person's memory store: a sign the decider broke, not a choice.
MAX_MEANINGFUL_COUNT = 50
_EPS = 1e-9

Verdict = Literal["ok", "wrong", "failure"]


@dataclass(frozen=True)
class Situation:
    """One labelled case: what was said, and the accepted range of every dimension."""

    id: str
    kind: str
    history: tuple[str, ...]
    message: str
    accept: Mapping[Dimension, tuple[float, float]]


@dataclass(frozen=True)
class Decision:
    """What a decider requested for one situation (None: nothing usable) and how long it took."""

    requested: Mapping[Dimension, Number | None]
    ms: float


Decider = Callable[[Situation], Awaitable[ResourceRequest]]


def load_situations(path: Path) -> list[Situation]:
    """Read the labelled situations file."""
    raw = json.loads(path.read_text(encoding="utf-8"))["situations"]
    return [
        Situation(
            s["id"],
            s["kind"],
            tuple(s["history"]),
            s["message"],
            {Dimension[name]: (lo, hi) for name, (lo, hi) in s["accept"].items()},
        )
        for s in raw
    ]


def meaningful(dim: Dimension, value: Number) -> bool:
    """Whether a value means anything for the dimension at all, in range or not."""
    if value < 0:
        return False
    if dim is Dimension.SIMILARITY_THRESHOLD:
        return value < 1  # 1.0 would only match the message itself
    if dim is Dimension.TRIPLE_DEPTH:
        return value <= TRIPLE_DEPTH_CEILING
    return value <= MAX_MEANINGFUL_COUNT


def judge(dim: Dimension, requested: Number | None, default: Number, accept: tuple[float, float]) -> Verdict:
    """Score one requested value; a missing one is judged as the default the system provides."""
    value = default if requested is None else requested
    if not meaningful(dim, value):
        return "failure"
    lo, hi = accept
    return "ok" if lo - _EPS <= value <= hi + _EPS else "wrong"


def defaults_decider(limits: Limits) -> Decider:
    """Always the default of every range."""
    request = ResourceRequest.model_validate({d.value.field: limits[d].default for d in Dimension})

    async def decide(_: Situation) -> ResourceRequest:
        return request

    return decide


def policy_decider(limits: Limits) -> Decider | None:
    """The shipped model-free policy, or None when the project has none yet."""
    try:
        from capabilities.request_policy import plan_request  # imported late: it may not exist yet
    except ModuleNotFoundError as exc:
        if exc.name != "capabilities.request_policy":
            raise
        return None

    async def decide(s: Situation) -> ResourceRequest:
        return plan_request(s.message, s.history, limits)

    return decide


async def decide_all(decider: Decider, situations: Sequence[Situation]) -> list[Decision]:
    """Run one decider over every situation, timing each decision (after one untimed warm-up)."""
    await decider(situations[0])  # a first call may load a model or fill a cache
    decisions: list[Decision] = []
    for s in situations:
        started = time.perf_counter()
        request = await decider(s)
        ms = (time.perf_counter() - started) * 1000
        decisions.append(Decision({d: request.value(d) for d in Dimension}, ms))
    return decisions


async def run_deciders(situations: Sequence[Situation], use_model: bool) -> dict[str, list[Decision] | str]:
    """Every decider's decisions, or why it did not run."""
    limits = Limits.from_values()
    results: dict[str, list[Decision] | str] = {"defaults": await decide_all(defaults_decider(limits), situations)}
    policy = policy_decider(limits)
    results["policy"] = (
        "not available (no capabilities.request_policy)" if policy is None else await decide_all(policy, situations)
    )
    if not use_model:
        results["model"] = "skipped (--no-model)"
        return results
    async with open_backend(LLMConfig(backend="embedded")) as backend:

        async def ask_model(s: Situation) -> ResourceRequest:
            request, _, _ = await request_resources(backend, limits, HARDWARE, s.message, "")
            return request

        results["model"] = await decide_all(ask_model, situations)
    return results


def _share(verdicts: Sequence[Verdict]) -> str:
    return f"{100 * verdicts.count('ok') / len(verdicts):.0f}%" if verdicts else "-"


def verdicts_of(situations: Sequence[Situation], decisions: Sequence[Decision]) -> list[dict[Dimension, Verdict]]:
    """Every situation's verdict per dimension."""
    defaults = Limits.from_values()
    return [
        {d: judge(d, dec.requested[d], defaults[d].default, s.accept[d]) for d in Dimension}
        for s, dec in zip(situations, decisions, strict=True)
    ]


def summary_row(name: str, situations: Sequence[Situation], decisions: Sequence[Decision]) -> str:
    """One decider's line of the main table."""
    verdicts = verdicts_of(situations, decisions)
    flat: list[Verdict] = [v for per in verdicts for v in per.values()]
    per_dim = [_share([per[d] for per in verdicts]) for d in Dimension]
    defaulted = sum(v is None for dec in decisions for v in dec.requested.values())
    distinct = len({tuple(dec.requested.values()) for dec in decisions})
    mean_ms = sum(dec.ms for dec in decisions) / len(decisions)
    whole = sum(all(v == "ok" for v in per.values()) for per in verdicts)
    cells = [name, _share(flat), f"{whole}/{len(verdicts)}", *per_dim, str(defaulted), str(flat.count("failure"))]
    cells.append(str(distinct))
    return "| " + " | ".join([*cells, f"{mean_ms:.2f}"]) + " |"


def kind_table(situations: Sequence[Situation], ran: Mapping[str, list[Decision]]) -> list[str]:
    """Score per kind of situation, one column per decider that ran."""
    verdicts = {name: verdicts_of(situations, decisions) for name, decisions in ran.items()}
    lines = ["| kind (situations) | " + " | ".join(ran) + " |", "|---|" + "---|" * len(ran)]
    for kind in dict.fromkeys(s.kind for s in situations):
        idx = [i for i, s in enumerate(situations) if s.kind == kind]
        cells = [_share([v for i in idx for v in per[i].values()]) for per in verdicts.values()]
        lines.append(f"| {kind} ({len(idx)}) | " + " | ".join(cells) + " |")
    return lines


def write_json(situations: Sequence[Situation], ran: Mapping[str, list[Decision]], machine_line: str) -> Path:
    """Per-situation requests and verdicts, for a closer look."""
    rows = []
    for i, s in enumerate(situations):
        accept = {d.name: list(r) for d, r in s.accept.items()}
        row = {"id": s.id, "kind": s.kind, "message": s.message, "accept": accept, "decisions": {}}
        for name, decisions in ran.items():
            dec = decisions[i]
            verdicts = verdicts_of([s], [dec])[0]
            row["decisions"][name] = {
                "requested": {d.name: v for d, v in dec.requested.items()},
                "verdicts": {d.name: v for d, v in verdicts.items()},
                "ms": round(dec.ms, 2),
            }
        rows.append(row)
    path = Path(tempfile.gettempdir()) / f"context_policy-{datetime.now():%Y%m%d-%H%M%S}.json"
    path.write_text(json.dumps({"machine": machine_line, "results": rows}, indent=1), encoding="utf-8")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__ and __doc__.splitlines()[0])
    parser.add_argument("--situations", type=Path, default=SITUATIONS)
    parser.add_argument("--no-model", action="store_true", help="skip the embedded model (minutes on one core)")
    args = parser.parse_args()
    machine = print_machine()
    situations = load_situations(args.situations)
    results = anyio.run(run_deciders, situations, not args.no_model)
    ran = {name: r for name, r in results.items() if not isinstance(r, str)}
    dims = " | ".join(d.name for d in Dimension)
    print(f"\n{len(situations)} situations x 4 dimensions, from {args.situations}\n")
    print(f"| decider | score | all 4 right | {dims} | defaulted | failures | distinct requests | mean ms |")
    print("|---|" + "---|" * 10)
    for name, r in results.items():
        row = f"| {name} | {r} |" + " |" * 9 if isinstance(r, str) else summary_row(name, situations, r)
        print(row)
    print("\n" + "\n".join(kind_table(situations, ran)))
    print(f"\nload average at the end: {load_average()}")
    print(f"per-situation results: {write_json(situations, ran, machine.line())}")


if __name__ == "__main__":
    main()
