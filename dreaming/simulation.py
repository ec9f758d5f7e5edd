"""Simulation, not guesses: replay recorded clamped queries through the real context assembly,
and the prompts they make through the configured model.

For a candidate value of one dimension, every replayed query is assembled twice against the
real stores — with the value the turn got and with the candidate — and the difference in
retrieval time (p50/p95), Python heap peak (tracemalloc) and process RSS is measured. Where the
cost really grows is the model: so, when the dream has one (the app's nightly job: the box is
idle), the newest MODEL_REPLAYS assemblies are handed to its meter, which rebuilds each turn's prompt
as the answer path builds it and runs it through the model (a few tokens each, each replay fresh
so llama.cpp's cache cannot hide the prompt's cost), measuring the prompt's tokens, the time to
the first token and the RSS of the app and its model child after it. The projected peak adds the
larger memory growth (retrieval's or the model's) to the peak RSS the usage log recorded.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import psutil

from capabilities.resources import Dimension, Number, format_number
from dreaming.analysis import ClampedTurn, percentile
from memory.assembly import AssembledContext, ContextRequest
from memory.models import UsageRow

Risk = Literal["LOW", "MEDIUM", "HIGH"]
# Replays are bounded: a dream shares one vCPU with anything the user does at night.
MAX_REPLAYS = 30
MODEL_REPLAYS = 3  # each is a real prompt through the model: seconds on one core
_MB = 1024 * 1024


@dataclass(frozen=True)
class ModelCost:
    """One rebuilt prompt through the configured model."""

    prompt_tokens: int
    first_token_s: float
    rss_mb: float  # the app and its model child right after it (the KV cache grown to fit the prompt)
    process_rss_mb: float = 0.0  # the model's own process (0: not the app's child, e.g. Ollama)


@dataclass(frozen=True)
class ReplayedTurn:
    """A recorded turn assembled again at one value: what the meter rebuilds that turn's prompt from,
    the way the answer path builds it (the recalled block, the history, the report before it)."""

    user_id: int
    thread_id: str
    usage_id: int
    question: str
    context: AssembledContext
    label: str  # the value it was assembled at ("granted", "30"): each replay's prompt starts fresh
    path: str = "model"  # "policy": the turn was answered by the grounded voice, not the answer loop


# Runs one replayed turn's prompt through the model (the app binds its backend and its prompt
# assembly; None: no model, e.g. `dream --now` with the app stopped).
ModelMeter = Callable[[ReplayedTurn], ModelCost]


class Assembler(Protocol):
    """The one method of memory.assembly.ContextAssembler a simulation needs."""

    def assemble(
        self, user_id: int, thread_id: str, message: str, req: ContextRequest, before_turn_id: int | None = None
    ) -> AssembledContext: ...


def crash_risk(projected_peak_mb: float, memory_limit_mb: float) -> Risk:
    """LOW below 70% of the memory limit, MEDIUM below 90%, HIGH from 90%."""
    share = projected_peak_mb / memory_limit_mb if memory_limit_mb > 0 else 1.0
    return "LOW" if share < 0.7 else "MEDIUM" if share < 0.9 else "HIGH"


@dataclass(frozen=True)
class SimulationResult:
    """Measured cost of one candidate value against the value the turns actually got."""

    dimension: str
    candidate: float
    replays: int
    baseline_p50_ms: float
    baseline_p95_ms: float
    candidate_p50_ms: float
    candidate_p95_ms: float
    extra_p95_ms: float
    heap_peak_baseline_mb: float
    heap_peak_candidate_mb: float
    rss_delta_mb: float
    extra_memory_mb: float
    log_peak_rss_mb: float
    projected_peak_mb: float
    memory_limit_mb: float
    risk: Risk
    baseline_tokens: float
    candidate_tokens: float
    model_replays: int = 0  # prompts run through the model for each value (0: not measured)
    model_baseline_prompt_tokens: float = 0.0
    model_candidate_prompt_tokens: float = 0.0
    model_baseline_first_token_s: float = 0.0
    model_candidate_first_token_s: float = 0.0
    model_baseline_rss_mb: float = 0.0
    model_candidate_rss_mb: float = 0.0
    model_baseline_process_rss_mb: float = 0.0  # the model's own process, peak over its replays
    model_candidate_process_rss_mb: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready numbers, rounded for display."""
        return {k: round(v, 2) if isinstance(v, float) else v for k, v in dataclasses.asdict(self).items()}


@dataclass
class _Pass:
    times_ms: list[float]
    heap_peak_mb: float
    tokens: list[int]
    model: list[ModelCost] = field(default_factory=list[ModelCost])


def _provided(row: UsageRow | None) -> dict[str, Number]:
    try:
        grants = json.loads(row.request) if row is not None else {}
    except ValueError:
        grants = {}
    out: dict[str, Number] = {}
    for dim in Dimension:
        grant = grants.get(dim.name) if isinstance(grants, dict) else None
        if isinstance(grant, dict) and isinstance(grant.get("provided"), int | float):
            out[dim.value.field] = grant["provided"]
    return out


def _request(values: dict[str, Number], budget_tokens: int) -> ContextRequest:
    # A usage row older than a dimension lacks it: the seed's default stands in.
    values = {d.value.field: d.value.seed.default for d in Dimension} | values
    fields: dict[str, Any] = {d.value.field: d.value.kind(values[d.value.field]) for d in Dimension}
    return ContextRequest(**fields, budget_tokens=budget_tokens)


# The values one replay of a turn asks for, from the turn and the values it was granted (by field).
Retarget = Callable[[ClampedTurn, dict[str, Number]], dict[str, Number]]


def _replay(
    assembler: Assembler, turns: Sequence[ClampedTurn], bases: dict[int, dict[str, Number]],
    retarget: Retarget, label: str, budget_tokens: int, meter: ModelMeter | None = None, path: str = "model",
) -> _Pass:  # fmt: skip
    """Assemble each turn's query once, at the values `retarget` makes of what it was given."""
    times: list[float] = []
    tokens: list[int] = []
    replayed: list[ReplayedTurn] = []
    gc.collect()
    tracemalloc.start()
    try:
        for i, t in enumerate(turns):
            req = _request(retarget(t, bases.get(t.usage_id, {})), budget_tokens)
            start = time.perf_counter()
            ctx = assembler.assemble(t.user_id, t.thread_id, t.excerpt, req, before_turn_id=t.turn_id)
            times.append((time.perf_counter() - start) * 1000)
            tokens.append(ctx.tokens + sum(h.tokens for h in ctx.history))
            # the newest turns: their threads' history is the nearest to the turns to come
            if meter is not None and i >= len(turns) - MODEL_REPLAYS:
                replayed.append(ReplayedTurn(t.user_id, t.thread_id, t.usage_id, t.excerpt, ctx, label, path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return _Pass(times, peak / _MB, tokens, [meter(r) for r in replayed] if meter is not None else [])


def simulate(
    assembler: Assembler,
    turns: Sequence[ClampedTurn],
    rows_by_id: dict[int, UsageRow],
    dim: Dimension,
    candidate: Number,
    *,
    memory_limit_mb: float,
    log_peak_rss_mb: float | None,
    budget_tokens: int = 1200,
    meter: ModelMeter | None = None,
) -> SimulationResult:
    """Replay up to MAX_REPLAYS clamped turns with their granted value and with `candidate`.

    Args:
        assembler: the real ContextAssembler (real SQLite, vectors, graph).
        turns: the clamped turns to replay (their message excerpts are the queries).
        rows_by_id: usage rows by id, for the other dimensions' provided values.
        dim: the dimension under study; candidate: its proposed value.
        memory_limit_mb: the budget the projected peak is judged against.
        log_peak_rss_mb: the highest RSS the usage log recorded (None: the current RSS).
        meter: runs a rebuilt prompt through the configured model (None: retrieval only).
    """
    field_ = dim.value.field

    def given(t: ClampedTurn, base: dict[str, Number]) -> dict[str, Number]:
        return base | {field_: t.provided}

    def proposed(_: ClampedTurn, base: dict[str, Number]) -> dict[str, Number]:
        return base | {field_: candidate}

    change = Change(dim.name, float(candidate), format_number(candidate), given, proposed)
    return simulate_change(assembler, turns, rows_by_id, change, memory_limit_mb=memory_limit_mb,
                           log_peak_rss_mb=log_peak_rss_mb, budget_tokens=budget_tokens, meter=meter)  # fmt: skip


@dataclass(frozen=True)
class Change:
    """What a simulation replays: a name and value for the result, and each turn's values before and after."""

    name: str  # a dimension's name, or a policy adjustment's (`policy:personal`)
    value: float
    label: str  # marks the candidate's replays ("30", "more")
    before: Retarget
    after: Retarget
    path: str = "model"  # which path answered the turns: what prompt the meter rebuilds


def simulate_change(
    assembler: Assembler, turns: Sequence[ClampedTurn], rows_by_id: dict[int, UsageRow], change: Change, *,
    memory_limit_mb: float, log_peak_rss_mb: float | None, budget_tokens: int = 1200, meter: ModelMeter | None = None,
) -> SimulationResult:  # fmt: skip
    """`simulate` for any change of the turns' requests (a limit's value, a policy adjustment):
    up to MAX_REPLAYS turns at `change.before` and at `change.after`, the same measures."""
    sample = [t for t in turns if t.excerpt.strip()][-MAX_REPLAYS:]
    bases = {t.usage_id: _provided(rows_by_id.get(t.usage_id)) for t in sample}
    proc = psutil.Process()
    baseline = _replay(assembler, sample, bases, change.before, "granted", budget_tokens, meter, change.path)
    rss_before = proc.memory_info().rss / _MB
    trial = _replay(assembler, sample, bases, change.after, change.label, budget_tokens, meter, change.path)
    rss_delta = max(0.0, proc.memory_info().rss / _MB - rss_before)
    peak_now = log_peak_rss_mb if log_peak_rss_mb is not None else rss_before
    return _result(change.name, change.value, len(sample), baseline, trial, rss_delta, peak_now, memory_limit_mb)


def _result(
    name: str, candidate: float, replays: int, baseline: _Pass, trial: _Pass, rss_delta: float,
    peak_now: float, memory_limit_mb: float,
) -> SimulationResult:  # fmt: skip
    # Python-heap growth misses native buffers and RSS misses reuse of freed pages: take the larger;
    # and the model's own growth with the longer prompt, where it was measured.
    model_rss = tuple(max((c.rss_mb for c in ps.model), default=0.0) for ps in (baseline, trial))
    extra = max(rss_delta, trial.heap_peak_mb - baseline.heap_peak_mb, model_rss[1] - model_rss[0], 0.0)
    projected = max(peak_now + extra, model_rss[1])  # never below what the candidate was measured at
    p = {name: percentile(ps.times_ms, q) or 0.0 for name, ps, q in _quantiles(baseline, trial)}
    return SimulationResult(
        dimension=name,
        candidate=candidate,
        replays=replays,
        baseline_p50_ms=p["b50"], baseline_p95_ms=p["b95"],
        candidate_p50_ms=p["c50"], candidate_p95_ms=p["c95"],
        extra_p95_ms=max(0.0, p["c95"] - p["b95"]),
        heap_peak_baseline_mb=baseline.heap_peak_mb,
        heap_peak_candidate_mb=trial.heap_peak_mb,
        rss_delta_mb=rss_delta,
        extra_memory_mb=extra,
        log_peak_rss_mb=peak_now,
        projected_peak_mb=projected,
        memory_limit_mb=memory_limit_mb,
        risk=crash_risk(projected, memory_limit_mb),
        baseline_tokens=_mean(baseline.tokens),
        candidate_tokens=_mean(trial.tokens),
        model_replays=len(trial.model),
        model_baseline_prompt_tokens=_mean([c.prompt_tokens for c in baseline.model]),
        model_candidate_prompt_tokens=_mean([c.prompt_tokens for c in trial.model]),
        model_baseline_first_token_s=_mean([c.first_token_s for c in baseline.model]),
        model_candidate_first_token_s=_mean([c.first_token_s for c in trial.model]),
        model_baseline_rss_mb=model_rss[0],
        model_candidate_rss_mb=model_rss[1],
        model_baseline_process_rss_mb=max((c.process_rss_mb for c in baseline.model), default=0.0),
        model_candidate_process_rss_mb=max((c.process_rss_mb for c in trial.model), default=0.0),
    )  # fmt: skip


def _quantiles(baseline: _Pass, trial: _Pass) -> list[tuple[str, _Pass, float]]:
    return [("b50", baseline, 50), ("b95", baseline, 95), ("c50", trial, 50), ("c95", trial, 95)]


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


class _Missing(dict[str, object]):
    def __missing__(self, key: str) -> str:
        return "?"


def cost_lines(sim: dict[str, Any], replayed: str) -> list[str]:
    """A simulation's figures as a proposal shows them (the seed's format): memory impact, performance
    impact, projected peak against the budget, crash risk; then the model's own, where it was measured.

    Args:
        sim: a SimulationResult's `as_dict()` as stored with the proposal.
        replayed: what was replayed, in words ("replaying 12 recorded queries").
    """
    lines = [
        f"**Risk assessment** (measured by {replayed}): memory impact "
        "+{extra_memory_mb} MB (heap peak {heap_peak_candidate_mb} MB vs {heap_peak_baseline_mb} MB); "
        "performance impact p95 retrieval {baseline_p95_ms} → {candidate_p95_ms} ms; projected peak "
        "{projected_peak_mb} MB of {memory_limit_mb} MB; crash risk **{risk}**.".format_map(_Missing(sim))
    ]
    if sim.get("model_replays"):
        lines.append(
            "**On the model** ({model_replays} recorded prompts rebuilt at each value and run through it): prompt "
            "{model_baseline_prompt_tokens:.0f} → {model_candidate_prompt_tokens:.0f} tokens; first token "
            "{model_baseline_first_token_s:.1f} → {model_candidate_first_token_s:.1f} s; app and model RSS "
            "{model_baseline_rss_mb:.0f} → {model_candidate_rss_mb:.0f} MB".format_map(sim)
            + (" (the model's own process {:.0f} → {:.0f} MB).".format(
                sim["model_baseline_process_rss_mb"], sim["model_candidate_process_rss_mb"])
               if sim.get("model_candidate_process_rss_mb") else ".")
        )  # fmt: skip
    else:
        lines.append("**On the model**: not measured (no model was running when this dream ran).")
    return lines
