"""Proposals in the seed's format, built from the analysis and measured by simulation; the
approval workflow that turns an approved one into a limit override.

No evidence, no proposal: a maximum is proposed higher only when the log shows it hurting
(`dreaming.analysis.Harm`), and never from a model's degenerate or meaningless requests. A
minimum is never proposed lower from the log: a turn clamped up to it got more context than it
asked, which costs time but no answer. Every dimension that gets no proposal gets a sentence
saying why, for the dream report. A rejected proposal comes back only when the new window holds
more evidence than it had.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from capabilities.resources import Dimension, Limits, LimitsError, Number, format_number
from dreaming import policy
from dreaming.analysis import MIN_CLAMPED, ClampedTurn, DimensionStats, UsageAnalysis, percentile
from dreaming.simulation import SimulationResult, cost_lines
from memory.dreams import DreamStore, ProposalError, loads
from memory.models import LimitOverrideRow, ProposalRow, utcnow

MIN_EVIDENCE = MIN_CLAMPED
MAX_LINKS = 10
Bound = Literal["min", "max"]
# Simulate one candidate; dream.py binds the assembler, the rows and the memory limit.
Simulator = Callable[[list[ClampedTurn], Dimension, Number], SimulationResult]


@dataclass(frozen=True)
class Candidate:
    """A value worth simulating for one bound, and how many clamped requests it would satisfy."""

    value: Number
    covers: int


def _fit(dim: Dimension, value: float) -> Number:
    spec = dim.value
    value = max(value, spec.floor)
    if spec.ceiling is not None:
        value = min(value, spec.ceiling)
    return math.ceil(value) if spec.kind is int else round(value, 2)


def candidates(dim: Dimension, bound: Bound, current: Number, turns: list[ClampedTurn]) -> list[Candidate]:
    """The main candidate (covers three quarters of the clamped requests) and a cautious half step."""
    asked = [float(t.requested) for t in turns]
    target = percentile(asked, 75 if bound == "max" else 25)
    if target is None:
        return []
    main = _fit(dim, target)
    half = _fit(dim, (float(current) + float(main)) / 2)
    found: list[Candidate] = []
    for value in dict.fromkeys((main, half)):
        if value != current:
            covers = sum(1 for a in asked if (a <= value if bound == "max" else a >= value))
            found.append(Candidate(value, covers))
    return found


def _may_propose(dreams: DreamStore, dim: Dimension, bound: Bound, evidence: int) -> bool:
    if evidence < MIN_EVIDENCE:
        return False
    rejected = dreams.latest(dim.name, bound, "rejected")
    return rejected is None or evidence > rejected.evidence_count


def build_proposals(
    dreams: DreamStore, analysis: UsageAnalysis, limits: Limits, simulate: Simulator
) -> tuple[list[ProposalRow], list[str]]:
    """One unsaved proposal per dimension whose maximum the log shows hurting, and the findings: in
    plain words, why every other dimension got none."""
    if analysis.degenerate:
        return [], [
            f"Every one of the {analysis.rows} turns asked for the very same context ({analysis.degenerate}), "
            "whatever was said: the model is not choosing, so its requests are no evidence of need. Nothing proposed."
        ]
    made: list[ProposalRow] = []
    findings: list[str] = []
    for dim, stats in analysis.dimensions.items():
        current = limits[dim].max
        if stats.failures:
            findings.append(
                f"{dim.label.capitalize()}: {stats.failures} request(s) asked for a value that cannot mean anything "
                f"(outside {_domain(dim)}); counted as model failures, not as need."
            )
        if stats.at_min:
            findings.append(
                f"{dim.label.capitalize()}: {len(stats.at_min)} turn(s) asked for less than the minimum "
                f"{format_number(limits[dim].min)} and got it; more context than asked costs time, not answers."
            )
        harm = stats.harm("max")
        if not harm.clamped:
            continue
        if not harm.shown:
            findings.append(
                f"{dim.label.capitalize()} (at most {format_number(current)}): {harm.sentence()}. "
                "No evidence that the limit hurts, so no change."
            )
            continue
        if not _may_propose(dreams, dim, "max", harm.clamped):
            findings.append(f"{dim.label.capitalize()}: a change was rejected before, and there is no new evidence.")
            continue
        options = candidates(dim, "max", current, stats.at_max)
        if options:
            results = [(c, simulate(stats.at_max, dim, c.value)) for c in options]
            made.append(_proposal(dim, "max", current, stats, analysis, results))
    if not made and not findings:
        findings.append(f"No turn of {analysis.rows} asked past a limit, so there is nothing to change.")
    return made, findings


def _domain(dim: Dimension) -> str:
    spec = dim.value
    if spec.kind is float and spec.ceiling is not None:
        return f"between {format_number(spec.floor)} and {format_number(spec.ceiling)}, exclusive"
    return f"{format_number(spec.floor)}..{format_number(spec.ceiling)}" if spec.ceiling is not None else (
        f"at least {format_number(spec.floor)}")


def _proposal(
    dim: Dimension, bound: Bound, current: Number, stats: DimensionStats, analysis: UsageAnalysis,
    results: list[tuple[Candidate, SimulationResult]],
) -> ProposalRow:  # fmt: skip
    (main, sim), alt = results[0], (results[1] if len(results) > 1 else None)
    turns = stats.clamped(bound)
    evidence = _evidence(dim, bound, current, stats, analysis)
    alternative: dict[str, Any] = {}
    if alt is not None:
        alternative = {"value": alt[0].value, "covers": alt[0].covers, "of": len(turns), **alt[1].as_dict()}
    return ProposalRow.model_validate(
        {
            "created_at": utcnow(),
            "dimension": dim.name,
            "bound": bound,
            "current_value": float(current),
            "proposed_value": float(main.value),
            "rationale": _rationale(dim, bound, current, stats, analysis, main, len(turns)),
            "evidence": json.dumps(evidence),
            "evidence_count": len(turns),
            "simulation": json.dumps({**sim.as_dict(), "covers": main.covers, "of": len(turns)}),
            "risk": sim.risk,
            "alternative": json.dumps(alternative),
            "trial": _trial(dim, bound, main.value, stats, bound_rate=stats.followup_rate_clamped(bound)),
        }
    )


def _threads(turns: list[ClampedTurn], followed: bool = False) -> int:
    return len({(t.user_id, t.thread_id) for t in turns if t.followed_by_signal or not followed})


def _pct(rate: float | None) -> str:
    return "n/a" if rate is None else f"{rate * 100:.0f}%"


def _rationale(
    dim: Dimension, bound: Bound, current: Number, stats: DimensionStats, analysis: UsageAnalysis,
    main: Candidate, n: int,
) -> str:  # fmt: skip
    turns = stats.clamped(bound)
    name, cur = dim.env_name(bound), format_number(current)
    return (
        f"{_threads(turns)} of {analysis.threads} conversations hit the {name}={cur} limit ({n} turns); "
        f"in {_threads(turns, followed=True)} the user asked a follow-up that suggests missing context: "
        f"{stats.harm(bound).sentence()}. {format_number(main.value)} would have granted "
        f"{main.covers} of the {n} clamped requests."
    )


def _evidence(
    dim: Dimension, bound: Bound, current: Number, stats: DimensionStats, analysis: UsageAnalysis
) -> dict[str, Any]:
    turns = stats.clamped(bound)
    links = [
        {"thread_id": t.thread_id, "turn_id": t.turn_id, "usage_id": t.usage_id, "requested": t.requested,
         "followup": t.followed_by_signal, "excerpt": t.excerpt[:80]}
        for t in turns[-MAX_LINKS:]
    ]  # fmt: skip
    return {
        "clamped_turns": len(turns),
        "threads_hit": _threads(turns),
        "threads_total": analysis.threads,
        "threads_with_followup": _threads(turns, followed=True),
        "turns_total": stats.turns,
        "followup_rate_clamped": stats.followup_rate_clamped(bound),
        "followup_rate_unclamped": stats.followup_rate_unclamped,
        "p": round(stats.harm(bound).p, 4),
        "model_failures": stats.failures,
        "requested": {format_number(k): v for k, v in sorted(stats.requested.items())},
        "limit": current,
        "links": links,
        "percentiles": analysis.percentiles,
    }


def _trial(dim: Dimension, bound: Bound, value: Number, stats: DimensionStats, bound_rate: float | None) -> str:
    return (
        f"Apply {dim.env_name(bound)}={format_number(value)} for 7 days. The next dream compares the "
        f"follow-up rate after clamped turns (now {_pct(bound_rate)}) and p95 retrieval time and RSS "
        "with this window; if RSS nears the memory limit or nothing improves, revoke the override."
    )


def check_fits(limits: Limits, row: ProposalRow) -> None:
    """Raise ProposalError when the proposed value no longer fits the current limits (e.g. .env moved).
    A policy adjustment always fits: the policy fits its requests into whatever ranges are active."""
    if policy.is_policy(row):
        return
    dim = Dimension[row.dimension]
    value: Number = int(row.proposed_value) if dim.value.kind is int else row.proposed_value
    try:
        limits.with_override(dim, **{row.bound: value}, source=f"proposal #{row.id}")
    except LimitsError as exc:
        raise ProposalError(f"proposal #{row.id} no longer fits the limits: {exc}") from exc


def decide(
    dreams: DreamStore, limits: Limits, proposal_id: int, decision: Literal["approved", "rejected"],
    reason: str, decided_by: str,
) -> tuple[ProposalRow, LimitOverrideRow | None]:  # fmt: skip
    """Approve (the override applies from the next turn) or reject a pending proposal, with a reason.

    Raises:
        ProposalError: unknown or already decided proposal, empty reason, or a value that no longer fits.
    """
    row = dreams.proposal(proposal_id)
    if row is None:
        raise ProposalError(f"no proposal #{proposal_id}")
    if decision == "approved":
        check_fits(limits, row)
    return dreams.decide(proposal_id, decision, reason, decided_by)


def headline(row: ProposalRow) -> str:
    """One line: `#3 recent messages read: MAX_EPISODIC_CONTEXT_TURNS 20 → 30 (risk LOW, pending)`."""
    if policy.is_policy(row):
        return policy.headline(row)
    dim = Dimension[row.dimension]
    cur, new = (format_number(_typed(dim, v)) for v in (row.current_value, row.proposed_value))
    return f"#{row.id} {dim.label}: {dim.env_name(row.bound)} {cur} → {new} (risk {row.risk}, {row.status})"  # pyright: ignore[reportArgumentType]


def _typed(dim: Dimension, value: float) -> Number:
    return int(value) if dim.value.kind is int else value


def requested_chart(row: ProposalRow, width: int = 24) -> str:
    """A text bar chart of the requested values, with the current limit and the proposal marked."""
    if policy.is_policy(row):
        return "(a policy adjustment: no requested values to chart)"
    evidence = loads(row.evidence)
    counts: dict[str, int] = evidence.get("requested", {})
    if not counts:
        return "(no requested values recorded)"
    top = max(counts.values())
    label = max(len(k) for k in counts)
    cur, new = (format_number(_typed(Dimension[row.dimension], v)) for v in (row.current_value, row.proposed_value))
    lines = [f"{Dimension[row.dimension].label}, values requested (limit {cur}, proposed {new})"]
    for value, n in sorted(counts.items(), key=lambda kv: float(kv[0])):
        bar = "█" * max(1, round(n / top * width))
        mark = "  ← limit" if value == cur else "  ← proposed" if value == new else ""
        lines.append(f"{value:>{label}} │{bar} {n}{mark}")
    return "\n".join(lines)


def proposal_markdown(row: ProposalRow) -> str:
    """A proposal in the seed's format: resource, current → proposed, rationale, risk, evidence,
    alternative, trial (the requested values are charted beside it: `requested_chart` in the
    terminal, `dreaming.charts.requested_chart` in the browser). A policy proposal: `policy.markdown`."""
    if policy.is_policy(row):
        return policy.markdown(row)
    sim, alt, evidence = loads(row.simulation), loads(row.alternative), loads(row.evidence)
    lines = [
        f"### {headline(row)}",
        f"**Rationale**: {row.rationale}",
        *cost_lines(sim, f"replaying {sim.get('replays', '?')} recorded queries"),
    ]
    if alt:
        lines.append(
            f"**Alternative considered**: {alt.get('value')} — would grant {alt.get('covers')} of "
            f"{alt.get('of')} clamped requests, +{alt.get('extra_memory_mb')} MB, p95 "
            f"{alt.get('candidate_p95_ms')} ms, risk {alt.get('risk')}."
        )
    lines.append(f"**Proposed trial**: {row.trial}")
    links = [
        f"[thread {str(link.get('thread_id'))[:8]} turn {link.get('turn_id')}](/thread/{link.get('thread_id')})"
        f" asked {link.get('requested')}" + (" ↩ follow-up" if link.get("followup") else "")
        for link in evidence.get("links", [])
    ]
    if links:
        lines.append("**Evidence**: " + "; ".join(links))
    return "\n\n".join(lines)  # (the browser shows the requested values as a chart: dreaming.charts)
