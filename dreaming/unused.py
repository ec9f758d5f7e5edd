"""Unused context: a kind of message whose turns load memories their answers never use.

Each turn logs what it loaded (its telemetry: every loaded item's ref, score and tokens) and, since
migration m017, what its answer cited (`used`). One of its turns would have lost nothing had it
asked for `LESS` fewer memories when every loaded memory its answer cited ranks (by score) within
that smaller request, the answer cited nothing the context had not loaded (a memory found by a
later search means the turn needed more, not less), and the person's next message was no sign of
missing context. A kind over-asks when, over at least MIN_TURNS such turns, nearly all
(SPARE_SHARE) would have lost nothing, a one-sided sign test says so (the chance of that many if
only half would: p ≤ SIGNIFICANCE), and what the smaller request leaves out cost something:
UNUSED_TOKENS of context a turn on average, assembled for nothing. A turn that loaded fewer
memories than the smaller request is unaffected by it and lost nothing; a kind that asks for
`LESS` or fewer can lose nothing it could give. Then the dream proposes that this kind ask for less
(`request_policy.LESS`), reviewed and tried like every other change (`dreaming.policy`).

Pure over rows, so it is tested on synthetic logs. Turns from before m017 (`used` unknown) and
turns not planned by the policy count for nothing either way.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from capabilities.request_policy import LESS, kind_of
from capabilities.situation import Kind
from dreaming.analysis import SIGNIFICANCE
from memory.models import UsageRow

MIN_TURNS = 10
SPARE_SHARE = 0.9
UNUSED_TOKENS = 40  # on average per turn: less is noise beside the rest of a prompt


@dataclass(frozen=True)
class Use:
    """What one turn loaded of memories and what its answer used of them."""

    row: UsageRow
    asked: int  # memories the turn was granted (VECTOR_LIMIT)
    loaded: int  # memories loaded
    deepest: int  # rank (1 = best score) of the lowest-ranked loaded memory the answer cited; 0: none
    outside: bool  # the answer cited a memory the context had not loaded
    saved_tokens: int  # tokens of the loaded memories ranked past `asked - LESS`: what asking less leaves out

    @property
    def spare(self) -> bool:
        """Whether `LESS` fewer memories would have lost nothing this answer used."""
        return (not self.outside and not self.row.followed_by_signal and self.asked > LESS
                and self.deepest <= self.asked - LESS)  # fmt: skip


def use_of(row: UsageRow) -> Use | None:
    """A turn's use of what it loaded, or None when its answer's sources were not recorded."""
    if row.used is None:
        return None
    try:
        used = json.loads(row.used)
        telemetry = json.loads(row.telemetry or "{}")
    except ValueError:
        return None
    cited = {str(ref) for ref in used if str(ref).startswith("m")} if isinstance(used, list) else set()
    entries: list[Any] = telemetry.get("loaded", []) if isinstance(telemetry, dict) else []
    memories = sorted(
        (e for e in entries if isinstance(e, dict) and str(e.get("ref", "")).startswith("m")),
        key=lambda e: -float(e.get("score") or 0.0),
    )
    refs = [str(e["ref"]) for e in memories]
    asked = _granted(row, len(refs))
    deepest = max((refs.index(r) + 1 for r in cited if r in refs), default=0)
    saved = sum(int(e.get("tokens") or 0) for e in memories[max(asked - LESS, 0) :])
    return Use(row, asked, len(refs), deepest, bool(cited - set(refs)), saved)


def _granted(row: UsageRow, loaded: int) -> int:
    """The memories the turn was granted (what the policy asked for, fitted into the range)."""
    try:
        grant = json.loads(row.request or "{}").get("VECTOR_LIMIT", {})
    except (ValueError, AttributeError):
        return loaded
    value = grant.get("provided") if isinstance(grant, dict) else None
    return int(value) if isinstance(value, int | float) else loaded


def sign_p(hits: int, n: int) -> float:
    """One-sided sign test: the chance of `hits` or more of `n` when each is a coin toss."""
    return sum(math.comb(n, x) for x in range(hits, n + 1)) / 2**n if n else 1.0


@dataclass(frozen=True)
class Unused:
    """One kind's turns whose use of their context is known."""

    kind: Kind
    uses: list[Use]

    @property
    def spare(self) -> list[Use]:
        return [u for u in self.uses if u.spare]

    @property
    def p(self) -> float:
        return sign_p(len(self.spare), len(self.uses))

    @property
    def unused_tokens(self) -> float:
        """Tokens a turn the smaller request would have left out, on average."""
        return sum(u.saved_tokens for u in self.uses) / len(self.uses) if self.uses else 0.0

    @property
    def shown(self) -> bool:
        """Enough turns, nearly all of which would have lost nothing, significantly, at a cost."""
        n = len(self.uses)
        return (n >= MIN_TURNS and len(self.spare) >= SPARE_SHARE * n and self.p <= SIGNIFICANCE
                and self.unused_tokens >= UNUSED_TOKENS)  # fmt: skip

    def sentence(self) -> str:
        """The counts in words."""
        loaded = sum(u.loaded for u in self.uses) / len(self.uses) if self.uses else 0.0
        return (
            f"{len(self.spare)} of {len(self.uses)} such turns would have lost nothing their answer used with "
            f"{LESS} fewer memories (they loaded about {loaded:.0f}; sign test p = {self.p:.3f}), and what those "
            f"{LESS} fewer leave out came to {self.unused_tokens:.0f} tokens a turn, loaded for nothing"
        )


def unused_stats(rows: Sequence[UsageRow]) -> dict[Kind, Unused]:
    """Per kind the policy planned, its turns whose answers' sources were recorded."""
    by_kind: dict[Kind, list[Use]] = {}
    for row in rows:
        if (kind := kind_of(row.reason)) is not None and (use := use_of(row)) is not None:
            by_kind.setdefault(kind, []).append(use)
    return {kind: Unused(kind, uses) for kind, uses in by_kind.items()}


def as_dict(stats: dict[Kind, Unused]) -> dict[str, Any]:
    """A JSON-ready summary per kind (kept in the dream report beside the under-asking figures)."""
    return {k: {"turns": len(u.uses), "spare": len(u.spare), "p": round(u.p, 4),
                "unused_tokens": round(u.unused_tokens, 1)} for k, u in stats.items()}  # fmt: skip
