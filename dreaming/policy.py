"""Proposals about the request policy: a kind of message whose context request asks too little.

The policy (`capabilities.request_policy`) plans each turn's context by the kind of message, and
its reason (`policy:<kind> — …`) is logged with the turn. A kind under-asks when its turns are
followed by a missing-context signal (a re-ask, "as I said", "you forgot") clearly more often than
the turns of the other kinds: the same one-sided Fisher test and minimums as the limit evidence
(`dreaming.analysis.Harm`). Then the dream proposes that this kind ask for more
(`request_policy.MORE`); the person approves or rejects it like a limit change, and an approved
one is on trial like a limit change (`dreaming.trials`, judged on that kind's turns).

Over-asking is not measured, on purpose. The log records what each turn loaded (telemetry refs)
and what that cost (retrieval time, context tokens), but not which of it the answer used: the
answer's cited sources are not logged. Unused context cannot be told from used, so the dream says
so in its findings instead of guessing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from capabilities.request_policy import LABEL, MORE_WORDS, REASON_PREFIX, adjustment_words, kind_of
from capabilities.situation import Kind
from dreaming.analysis import Harm, percentile
from memory.dreams import DreamStore, loads
from memory.models import LimitOverrideRow, ProposalRow, UsageRow, utcnow

EXAMPLES = 3  # turns quoted in the rationale
MAX_LINKS = 10
NOT_MEASURED = (
    "Asking for too much is not measured: the log records what each turn loaded and what it cost, but not "
    "which of it the answer used (its cited sources are not logged), so unused context cannot be told from used."
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
    dreams: DreamStore, stats: dict[Kind, KindStats], in_force: Sequence[LimitOverrideRow]
) -> tuple[list[ProposalRow], list[str]]:
    """One unsaved proposal per kind the log shows asking too little, and the findings: why every
    other kind got none, and that over-asking is not measured."""
    if not stats:
        return [], []  # no turn was planned by the policy: nothing to say about it
    adjusted = {k: o for o in in_force if (k := kind_of(o.dimension)) is not None}
    made: list[ProposalRow] = []
    findings: list[str] = []
    for kind, s in stats.items():
        label = LABEL[kind].capitalize()
        if (change := adjusted.get(kind)) is not None:
            findings.append(f"{label}: already asking for more (change #{change.id}); no further step proposed.")
        elif not s.harm.shown:
            findings.append(f"{label}: {s.sentence()}. No evidence that the policy asks too little, so no change.")
        elif (old := dreams.latest(f"{REASON_PREFIX}{kind}", "default", "rejected")) is not None and (
            s.harm.clamped_signals <= old.evidence_count
        ):
            findings.append(f"{label}: asking for more was rejected before, and there is no new evidence.")
        else:
            made.append(_proposal(s))
    findings.append(NOT_MEASURED)
    return made, findings


def _proposal(s: KindStats) -> ProposalRow:
    label = LABEL[s.kind]
    followed = [r for r in s.turns if r.followed_by_signal]
    examples = "; ".join(f"“{r.message_excerpt[:60]}”" for r in followed[:EXAMPLES])
    rationale = (
        f"{label.capitalize()} got too little context: {s.sentence()}. Turns followed by one: {examples}. "
        f"Proposed: ask for more on {label} ({MORE_WORDS})."
    )
    retrieval = [r.retrieval_ms for r in s.turns if r.retrieval_ms is not None]
    tokens = [r.context_tokens for r in s.turns if r.context_tokens is not None]
    evidence = {
        "kind": s.kind, "label": label, "turns": s.harm.clamped, "signals": s.harm.clamped_signals,
        "other_turns": s.harm.others, "other_signals": s.harm.other_signals, "p": round(s.harm.p, 4),
        "threads_hit": len({(r.user_id, r.thread_id) for r in followed}),
        "retrieval_p95_ms": percentile(retrieval, 95),
        "context_tokens_mean": round(sum(tokens) / len(tokens), 1) if tokens else None,
        "links": [{"thread_id": r.thread_id, "turn_id": r.turn_id, "usage_id": r.id, "followup": r.followed_by_signal,
                   "excerpt": r.message_excerpt[:80]} for r in followed[-MAX_LINKS:]],
    }  # fmt: skip
    trial = (
        f"Apply for 7 days. Each dream compares the turns of {label} during the trial with as long a window "
        f"before it (now {s.harm.clamped_signals} of {s.harm.clamped} followed by a sign of missing context): "
        "peak memory against the budget, p95 turn time and missing-context signals; a breach or a clear "
        "regression reverts it."
    )
    return ProposalRow.model_validate(
        {
            "created_at": utcnow(), "dimension": f"{REASON_PREFIX}{s.kind}", "bound": "default",
            "current_value": 0.0, "proposed_value": 1.0, "rationale": rationale, "evidence": json.dumps(evidence),
            "evidence_count": s.harm.clamped_signals, "risk": "unmeasured", "trial": trial,
        }
    )  # fmt: skip


def is_policy(row: ProposalRow) -> bool:
    """Whether a proposal is about the request policy rather than a limit."""
    return kind_of(row.dimension) is not None


def headline(row: ProposalRow) -> str:
    """One line: `#4 request policy, questions about you: ask for more (+4 recent messages, …) (pending)`."""
    kind = kind_of(row.dimension)
    what = adjustment_words(kind) if kind is not None else row.dimension
    return f"#{row.id} {what} ({row.status})"


def markdown(row: ProposalRow) -> str:
    """A policy proposal for `/dreams`: rationale, what those turns cost now, trial, evidence links."""
    evidence = loads(row.evidence)
    p95, tokens = evidence.get("retrieval_p95_ms"), evidence.get("context_tokens_mean")
    cost = (
        f"**Cost now**: these turns' p95 retrieval {f'{p95:.0f}' if p95 is not None else '?'} ms, "
        f"{f'{tokens:.0f}' if tokens is not None else '?'} context tokens on average. "
        "Not simulated at the new request: the trial watches memory and time and reverts on a breach."
    )
    lines = [f"### {headline(row)}", f"**Rationale**: {row.rationale}", cost, f"**Proposed trial**: {row.trial}"]
    links = [
        f"[thread {str(link.get('thread_id'))[:8]} turn {link.get('turn_id')}](/thread/{link.get('thread_id')})"
        " ↩ follow-up"
        for link in evidence.get("links", [])
    ]
    if links:
        lines.append("**Evidence**: " + "; ".join(links))
    return "\n\n".join(lines)
