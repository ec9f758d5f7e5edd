"""Proposals about the request policy: a kind of message whose context request asks too little, or
too much.

The policy (`capabilities.request_policy`) plans each turn's context by the kind of message, and
its reason (`policy:<kind> — …`) is logged with the turn. A kind under-asks when its turns are
followed by a missing-context signal (a re-ask, "as I said", "you forgot") clearly more often than
the turns of the other kinds: the same one-sided Fisher test and minimums as the limit evidence
(`dreaming.analysis.Harm`). Then the dream proposes that this kind ask for more
(`request_policy.MORE`); the person approves or rejects it like a limit change, and an approved
one is on trial like a limit change (`dreaming.trials`, judged on that kind's turns).

A kind over-asks when its turns, time after time, leave the last memories they loaded unused
(`dreaming.unused`: the answer's cited sources are logged with each turn since m017); then the
dream proposes that it ask for less (`request_policy.LESS`), on the same terms; when they leave
everything their deepest graph hop loaded unused, one hop less (`request_policy.SHALLOWER`). Asking
too little is looked at first: a kind that shows it is never proposed less; then fewer memories, then
less depth (one change per kind at a time).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from capabilities.request_policy import (
    LABEL,
    LESS_STEP,
    LESS_WORDS,
    MORE_STEP,
    MORE_WORDS,
    REASON_PREFIX,
    SHALLOWER_STEP,
    SHALLOWER_WORDS,
    adjusted_grant,
    adjustment_words,
    kind_of,
    more_of,
    step_words,
)
from capabilities.resources import Dimension, Limits, Number
from capabilities.situation import Kind
from dreaming.analysis import ClampedTurn, Harm, percentile
from dreaming.simulation import Change, SimulationResult, cost_lines
from dreaming.unused import Unused
from memory.dreams import DreamStore, loads
from memory.models import LimitOverrideRow, ProposalRow, UsageRow, utcnow

# Replays a kind's turns at their granted requests and as the adjustment would ask (its stored value);
# dream.py binds the assembler, the limits and the model meter (None: the rows were not measured).
PolicySimulator = Callable[[Sequence[UsageRow], float], SimulationResult]
EXAMPLES = 3  # turns quoted in the rationale
MAX_LINKS = 10
NOT_MEASURED = (
    "Asking for too much is not measured in this window: no turn the policy planned recorded which of its "
    "context the answer used (turns logged before migration m017 did not)."
)


@dataclass(frozen=True)
class KindStats:
    """One kind's turns in the window, and how often they were followed by a missing-context signal
    against the other kinds' turns (Harm's "clamped" side is this kind's turns)."""

    kind: Kind
    turns: list[UsageRow]
    harm: Harm

    def sentence(self) -> str:
        """The counts and p in words."""
        return self.harm.sentence("such turns", "turns of other kinds")


def kind_stats(rows: Sequence[UsageRow]) -> dict[Kind, KindStats]:
    """Per kind the policy planned in the window: its turns against all the other kinds' turns.
    Turns the policy did not plan (the model path's) are no evidence either way."""
    by_kind: dict[Kind, list[UsageRow]] = {}
    for row in rows:
        if (kind := kind_of(row.reason)) is not None:
            by_kind.setdefault(kind, []).append(row)
    total = sum(len(turns) for turns in by_kind.values())
    signals = sum(1 for turns in by_kind.values() for r in turns if r.followed_by_signal)
    stats: dict[Kind, KindStats] = {}
    for kind, turns in by_kind.items():
        hits = sum(1 for r in turns if r.followed_by_signal)
        stats[kind] = KindStats(kind, turns, Harm(len(turns), hits, total - len(turns), signals - hits))
    return stats


def as_dict(stats: dict[Kind, KindStats]) -> dict[str, Any]:
    """A JSON-ready summary per kind (kept in the dream report beside the limits' analysis)."""
    return {k: {"turns": s.harm.clamped, "signals": s.harm.clamped_signals, "p": round(s.harm.p, 4)}
            for k, s in stats.items()}  # fmt: skip


def build_policy_proposals(
    dreams: DreamStore, stats: dict[Kind, KindStats], in_force: Sequence[LimitOverrideRow],
    unused: dict[Kind, Unused] | None = None, simulate: PolicySimulator | None = None,
    deep: dict[Kind, Unused] | None = None,
) -> tuple[list[ProposalRow], list[str]]:  # fmt: skip
    """One unsaved proposal per kind the log shows asking too little (or else too much), and the
    findings: why every other kind got none. `unused` and `deep`: each kind's use of its memories and of
    its deepest hop (`dreaming.unused`). `simulate` measures each proposal's cost as a limit's is
    (retrieval and, with the app's meter, the model at the adjusted request)."""
    if not stats:
        return [], []  # no turn was planned by the policy: nothing to say about it
    unused, deep = unused or {}, deep or {}
    adjusted = {k: o for o in in_force if (k := kind_of(o.dimension)) is not None}
    made: list[ProposalRow] = []
    findings: list[str] = []
    for kind, s in stats.items():
        label = LABEL[kind].capitalize()
        shown = [u for u in (unused.get(kind), deep.get(kind)) if u is not None and u.shown]
        if (change := adjusted.get(kind)) is not None:
            findings.append(f"{label}: already adjusted (change #{change.id}); no further step proposed.")
        elif s.harm.shown:
            if not _rejected_before(dreams, kind, MORE_STEP, s.harm.clamped_signals, findings):
                made.append(_proposal(s, simulate))
        elif shown:  # fewer memories before less depth: one change per kind at a time
            if not _rejected_before(dreams, kind, _step(shown[0]), len(shown[0].spare), findings):
                made.append(_fewer(s, shown[0], simulate))
        else:
            findings.append(f"{label}: {s.sentence()}. No evidence that the policy asks too little, so no change.")
            findings += [f"{label}: {u.sentence()}. Not enough to ask for less, so no change."
                         for u in (unused.get(kind), deep.get(kind)) if u is not None and u.uses]  # fmt: skip
    if not unused:
        findings.append(NOT_MEASURED)
    return made, findings


def _step(u: Unused) -> float:
    """The adjustment that asks for less of what `u` found unused."""
    return SHALLOWER_STEP if u.part == "depth" else LESS_STEP


def _rejected_before(dreams: DreamStore, kind: Kind, step: float, count: int, findings: list[str]) -> bool:
    """Whether the same step for this kind was rejected before on as much evidence (then a finding says so)."""
    old = dreams.latest(f"{REASON_PREFIX}{kind}", "default", "rejected")
    if old is None or old.proposed_value != step or count > old.evidence_count:
        return False
    findings.append(f"{LABEL[kind].capitalize()}: to {step_words(step)} was rejected before, and there is no new "
                    "evidence.")  # fmt: skip
    return True


def _proposal(s: KindStats, simulate: PolicySimulator | None) -> ProposalRow:
    label = LABEL[s.kind]
    followed = [r for r in s.turns if r.followed_by_signal]
    examples = "; ".join(f"“{r.message_excerpt[:60]}”" for r in followed[:EXAMPLES])
    rationale = (
        f"{label.capitalize()} got too little context: {s.sentence()}. Turns followed by one: {examples}. "
        f"Proposed: ask for more on {label} ({MORE_WORDS})."
    )
    evidence = {
        "kind": s.kind, "label": label, "turns": s.harm.clamped, "signals": s.harm.clamped_signals,
        "other_turns": s.harm.others, "other_signals": s.harm.other_signals, "p": round(s.harm.p, 4),
        "threads_hit": len({(r.user_id, r.thread_id) for r in followed}),
        **_costs(s),
        "links": [{"thread_id": r.thread_id, "turn_id": r.turn_id, "usage_id": r.id, "followup": r.followed_by_signal,
                   "excerpt": r.message_excerpt[:80]} for r in followed[-MAX_LINKS:]],
    }  # fmt: skip
    trial = (
        f"Apply for 7 days. Each dream compares the turns of {label} during the trial with as long a window "
        f"before it (now {s.harm.clamped_signals} of {s.harm.clamped} followed by a sign of missing context): "
        "peak memory against the budget, p95 turn time and missing-context signals; a breach or a clear "
        "regression reverts it."
    )
    sim = simulate(s.turns, MORE_STEP) if simulate is not None else None
    return _policy_row(s, MORE_STEP, rationale, evidence, s.harm.clamped_signals, trial, sim)


def _fewer(s: KindStats, u: Unused, simulate: PolicySimulator | None) -> ProposalRow:
    label, step = LABEL[s.kind], _step(u)
    spare = [x.row for x in u.spare]
    examples = "; ".join(f"“{r.message_excerpt[:60]}”" for r in spare[:EXAMPLES])
    less = f"less depth on {label} ({SHALLOWER_WORDS})" if u.part == "depth" else f"less on {label} ({LESS_WORDS})"
    rationale = (
        f"{label.capitalize()} asked for more context than they used: {u.sentence()}; "
        f"{s.sentence()}. Turns that used little: {examples}. Proposed: ask for {less}."
    )
    evidence = {
        "kind": s.kind, "label": label, "direction": "shallower" if u.part == "depth" else "less",
        "turns": len(u.uses), "spare": len(u.spare),
        "p": round(u.p, 4), "unused_tokens_mean": round(u.unused_tokens, 1),
        "signals": s.harm.clamped_signals, "other_turns": s.harm.others, "other_signals": s.harm.other_signals,
        **_costs(s),
        "links": [{"thread_id": r.thread_id, "turn_id": r.turn_id, "usage_id": r.id, "excerpt": r.message_excerpt[:80]}
                  for r in spare[-MAX_LINKS:]],
    }  # fmt: skip
    trial = (
        f"Apply for 7 days. Each dream compares the turns of {label} during the trial with as long a window "
        f"before it (now {s.harm.clamped_signals} of {s.harm.clamped} followed by a sign of missing context): "
        "peak memory against the budget, p95 turn time, missing-context signals and replies I was unsure of; "
        "a clear regression reverts it."
    )
    sim = simulate(s.turns, step) if simulate is not None else None
    return _policy_row(s, step, rationale, evidence, len(u.spare), trial, sim)


def _costs(s: KindStats) -> dict[str, float | None]:
    """What a kind's turns cost, for a proposal's evidence: retrieval p95 and context tokens on average."""
    retrieval = [r.retrieval_ms for r in s.turns if r.retrieval_ms is not None]
    tokens = [r.context_tokens for r in s.turns if r.context_tokens is not None]
    return {
        "retrieval_p95_ms": percentile(retrieval, 95),
        "context_tokens_mean": round(sum(tokens) / len(tokens), 1) if tokens else None,
    }


def _policy_row(
    s: KindStats, proposed: float, rationale: str, evidence: dict[str, object], count: int, trial: str,
    sim: SimulationResult | None,
) -> ProposalRow:  # fmt: skip
    """A proposal to adjust the request policy for a kind (`proposed`: 1 asks for more, -1 for fewer
    memories, -2 for one hop less)."""
    return ProposalRow.model_validate(
        {
            "created_at": utcnow(), "dimension": f"{REASON_PREFIX}{s.kind}", "bound": "default",
            "current_value": 0.0, "proposed_value": proposed, "rationale": rationale, "evidence": json.dumps(evidence),
            "evidence_count": count, "risk": sim.risk if sim is not None else "unmeasured", "trial": trial,
            "simulation": json.dumps(sim.as_dict() if sim is not None else {}),
        }
    )  # fmt: skip


def replay_change(limits: Limits, step: float) -> Change:
    """A kind's adjustment as the simulation replays it: each turn's grant, then as the kind would ask."""

    def given(_: ClampedTurn, base: dict[str, Number]) -> dict[str, Number]:
        return base

    def asked(_: ClampedTurn, base: dict[str, Number]) -> dict[str, Number]:
        dims = {d: base[d.value.field] for d in Dimension if d.value.field in base}
        return base | {d.value.field: v for d, v in adjusted_grant(dims, limits, step).items()}

    return Change("policy", step, "more" if more_of(step) else "less", given, asked, "policy")


def replayed(rows: Sequence[UsageRow]) -> list[ClampedTurn]:
    """A kind's turns in the form the simulation replays (none was clamped: the policy fits its requests)."""
    return [
        ClampedTurn(r.id, r.user_id, r.thread_id, r.turn_id, 0, 0, r.followed_by_signal, r.message_excerpt)
        for r in rows if r.id is not None
    ]  # fmt: skip


def is_policy(row: ProposalRow) -> bool:
    """Whether a proposal is about the request policy rather than a limit."""
    return kind_of(row.dimension) is not None


def headline(row: ProposalRow) -> str:
    """One line: `#4 request policy, questions about you: ask for more (+4 recent messages, …) (risk LOW, pending)`."""
    kind = kind_of(row.dimension)
    what = adjustment_words(kind, row.proposed_value) if kind is not None else row.dimension
    risk = f"risk {row.risk}, " if row.risk != "unmeasured" else ""
    return f"#{row.id} {what} ({risk}{row.status})"


def _unused_words(evidence: dict[str, Any]) -> str:
    return "entities and links of the deepest hop" if evidence.get("direction") == "shallower" else "memories"


def markdown(row: ProposalRow) -> str:
    """A policy proposal for `/dreams`: rationale, what those turns cost now, trial, evidence links."""
    evidence = loads(row.evidence)
    p95, tokens = evidence.get("retrieval_p95_ms"), evidence.get("context_tokens_mean")
    unused, more = evidence.get("unused_tokens_mean"), more_of(row.proposed_value)
    cost = (
        f"**Cost now**: these turns' p95 retrieval {f'{p95:.0f}' if p95 is not None else '?'} ms, "
        f"{f'{tokens:.0f}' if tokens is not None else '?'} context tokens on average"
        + (f", {unused:.0f} of them {_unused_words(evidence)} the answer did not use" if unused is not None else "")
        + "."
    )  # fmt: skip
    sim = loads(row.simulation)
    replays = f"replaying {sim.get('replays', '?')} of these turns' queries as granted and as the adjustment asks"
    measured = cost_lines(sim, replays) if sim else ["**Risk assessment**: not measured (an older proposal)."]
    lines = [f"### {headline(row)}", f"**Rationale**: {row.rationale}", cost, *measured]
    lines.append(f"**Proposed trial**: {row.trial}")
    links = [
        f"[thread {str(link.get('thread_id'))[:8]} turn {link.get('turn_id')}](/thread/{link.get('thread_id')})"
        + (" ↩ follow-up" if more else " (used little)")
        for link in evidence.get("links", [])
    ]
    if links:
        lines.append("**Evidence**: " + "; ".join(links))
    return "\n\n".join(lines)
