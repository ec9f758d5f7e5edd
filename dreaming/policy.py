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
dream proposes that it ask for less (`request_policy.LESS`), on the same terms. Asking too little
is looked at first: a kind that shows it is never proposed less.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from capabilities.request_policy import (
    LABEL,
    LESS_WORDS,
    MORE_WORDS,
    REASON_PREFIX,
    adjustment_words,
    kind_of,
    more_of,
)
from capabilities.situation import Kind
from dreaming.analysis import Harm, percentile
from dreaming.unused import Unused
from memory.dreams import DreamStore, loads
from memory.models import LimitOverrideRow, ProposalRow, UsageRow, utcnow

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
    unused: dict[Kind, Unused] | None = None,
) -> tuple[list[ProposalRow], list[str]]:  # fmt: skip
    """One unsaved proposal per kind the log shows asking too little (or else too much), and the
    findings: why every other kind got none."""
    if not stats:
        return [], []  # no turn was planned by the policy: nothing to say about it
    unused = unused or {}
    adjusted = {k: o for o in in_force if (k := kind_of(o.dimension)) is not None}
    made: list[ProposalRow] = []
    findings: list[str] = []
    for kind, s in stats.items():
        label, u = LABEL[kind].capitalize(), unused.get(kind)
        if (change := adjusted.get(kind)) is not None:
            findings.append(f"{label}: already adjusted (change #{change.id}); no further step proposed.")
        elif s.harm.shown:
            made += [] if _rejected_before(dreams, kind, True, s.harm.clamped_signals, findings) else [_proposal(s)]
        elif u is not None and u.shown:
            made += [] if _rejected_before(dreams, kind, False, len(u.spare), findings) else [_fewer(s, u)]
        else:
            findings.append(f"{label}: {s.sentence()}. No evidence that the policy asks too little, so no change.")
            if u is not None and u.uses:
                findings.append(f"{label}: {u.sentence()}. Not enough to ask for less, so no change.")
    if not unused:
        findings.append(NOT_MEASURED)
    return made, findings


def _rejected_before(dreams: DreamStore, kind: Kind, more: bool, count: int, findings: list[str]) -> bool:
    """Whether the same step for this kind was rejected before on as much evidence (then a finding says so)."""
    old = dreams.latest(f"{REASON_PREFIX}{kind}", "default", "rejected")
    if old is None or more_of(old.proposed_value) != more or count > old.evidence_count:
        return False
    step = "more" if more else "less"
    findings.append(f"{LABEL[kind].capitalize()}: asking for {step} was rejected before, and there is no new evidence.")
    return True


def _proposal(s: KindStats) -> ProposalRow:
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
    return _policy_row(s, 1.0, rationale, evidence, s.harm.clamped_signals, trial)


def _fewer(s: KindStats, u: Unused) -> ProposalRow:
    label = LABEL[s.kind]
    spare = [x.row for x in u.spare]
    examples = "; ".join(f"“{r.message_excerpt[:60]}”" for r in spare[:EXAMPLES])
    rationale = (
        f"{label.capitalize()} asked for more context than they used: {u.sentence()}; "
        f"{s.sentence()}. Turns that used little: {examples}. Proposed: ask for less on {label} ({LESS_WORDS})."
    )
    evidence = {
        "kind": s.kind, "label": label, "direction": "less", "turns": len(u.uses), "spare": len(u.spare),
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
    return _policy_row(s, -1.0, rationale, evidence, len(u.spare), trial)


def _costs(s: KindStats) -> dict[str, float | None]:
    """What a kind's turns cost, for a proposal's evidence: retrieval p95 and context tokens on average."""
    retrieval = [r.retrieval_ms for r in s.turns if r.retrieval_ms is not None]
    tokens = [r.context_tokens for r in s.turns if r.context_tokens is not None]
    return {
        "retrieval_p95_ms": percentile(retrieval, 95),
        "context_tokens_mean": round(sum(tokens) / len(tokens), 1) if tokens else None,
    }


def _policy_row(
    s: KindStats, proposed: float, rationale: str, evidence: dict[str, object], count: int, trial: str
) -> ProposalRow:
    """A proposal to adjust the request policy for a kind (`proposed`: 1 asks for more, -1 for less)."""
    return ProposalRow.model_validate(
        {
            "created_at": utcnow(), "dimension": f"{REASON_PREFIX}{s.kind}", "bound": "default",
            "current_value": 0.0, "proposed_value": proposed, "rationale": rationale, "evidence": json.dumps(evidence),
            "evidence_count": count, "risk": "unmeasured", "trial": trial,
        }
    )  # fmt: skip


def is_policy(row: ProposalRow) -> bool:
    """Whether a proposal is about the request policy rather than a limit."""
    return kind_of(row.dimension) is not None


def headline(row: ProposalRow) -> str:
    """One line: `#4 request policy, questions about you: ask for more (+4 recent messages, …) (pending)`."""
    kind = kind_of(row.dimension)
    what = adjustment_words(kind, more_of(row.proposed_value)) if kind is not None else row.dimension
    return f"#{row.id} {what} ({row.status})"


def markdown(row: ProposalRow) -> str:
    """A policy proposal for `/dreams`: rationale, what those turns cost now, trial, evidence links."""
    evidence = loads(row.evidence)
    p95, tokens = evidence.get("retrieval_p95_ms"), evidence.get("context_tokens_mean")
    unused, more = evidence.get("unused_tokens_mean"), more_of(row.proposed_value)
    cost = (
        f"**Cost now**: these turns' p95 retrieval {f'{p95:.0f}' if p95 is not None else '?'} ms, "
        f"{f'{tokens:.0f}' if tokens is not None else '?'} context tokens on average"
        + (f", {unused:.0f} of them memories the answer did not use" if unused is not None else "") + ". "
        + ("Not simulated at the new request: the trial watches memory and time and reverts on a breach."
           if more else "Not simulated at the new request: the trial watches missing context and unsure replies "
           "and reverts on a regression.")
    )  # fmt: skip
    lines = [f"### {headline(row)}", f"**Rationale**: {row.rationale}", cost, f"**Proposed trial**: {row.trial}"]
    links = [
        f"[thread {str(link.get('thread_id'))[:8]} turn {link.get('turn_id')}](/thread/{link.get('thread_id')})"
        + (" ↩ follow-up" if more else " (used little)")
        for link in evidence.get("links", [])
    ]
    if links:
        lines.append("**Evidence**: " + "; ".join(links))
    return "\n\n".join(lines)
