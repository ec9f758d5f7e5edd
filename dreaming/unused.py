"""Unused context: a kind of message whose turns load memories, or a graph hop, their answers never use.

Each turn logs what it loaded (its telemetry: every loaded item's ref, score, tokens and the reason it
was loaded, "2 hops out, relevance 0.41" for a graph item) and, since migration m017, what its answer
cited (`used`). Two parts of the context can be asked for less of, each by its own `Use`:

- memories (`memories_use`): a turn would have lost nothing had it asked for `LESS` fewer when every
  loaded memory its answer cited ranks (by score) within that smaller request;
- depth (`depth_use`): a turn granted TRIPLE_DEPTH d would have lost nothing at d - `SHALLOWER` when
  its answer cited no entity or link the d-th hop loaded (their reason names the hop).

Either way the answer must have cited nothing the context had not loaded (something found by a later
search means the turn needed more, not less), and the person's next message must be no sign of
missing context. A kind over-asks when, over at least MIN_TURNS such turns, nearly all (SPARE_SHARE)
would have lost nothing, a one-sided sign test says so (the chance of that many if only half would:
p ≤ SIGNIFICANCE), and what the smaller request leaves out cost something: UNUSED_TOKENS of context
a turn on average, assembled for nothing. A turn that loaded less than the smaller request is
unaffected by it and lost nothing; a kind already at the bottom (`LESS` memories or fewer, depth 0)
can lose nothing it could give. Then the dream proposes that this kind ask for less
(`request_policy.LESS` or `SHALLOWER`), reviewed and tried like every other change (`dreaming.policy`).

Recent messages get no such test, by decision: an answer cites memories, entities and links, never a
recent message, so nothing in the log tells a message the answer used from one it did not; a guess
would be no evidence. Too few recent messages still shows, as re-asks (`dreaming.policy`'s MORE).

Pure over rows, so it is tested on synthetic logs. Turns from before m017 (`used` unknown) and
turns not planned by the policy count for nothing either way.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from capabilities.request_policy import LESS, LESS_WORDS, SHALLOWER, SHALLOWER_WORDS, kind_of
from capabilities.resources import Dimension
from capabilities.situation import Kind
from dreaming.analysis import SIGNIFICANCE
from memory.models import UsageRow

MIN_TURNS = 10
SPARE_SHARE = 0.9
UNUSED_TOKENS = 40  # on average per turn: less is noise beside the rest of a prompt
HOP = re.compile(r"(\d+) hops? out")  # memory.attention's reason for a graph item past the named ones
Part = Literal["memories", "depth"]


@dataclass(frozen=True)
class Use:
    """What one turn loaded of one part of its context, and whether the smaller request loses any of
    what its answer used."""

    row: UsageRow
    loaded: int  # items of this part loaded (memories; for depth, the items of the deepest hop granted)
    needed: bool  # the answer cited something the smaller request leaves out (or the kind is at the bottom)
    outside: bool  # the answer cited something the context had not loaded
    saved_tokens: int  # tokens of what the smaller request leaves out

    @property
    def spare(self) -> bool:
        """Whether the smaller request would have lost nothing this answer used."""
        return not self.outside and not self.row.followed_by_signal and not self.needed


def _read(row: UsageRow) -> tuple[set[str], list[dict[str, Any]]] | None:
    """The refs a turn's answer cited and the telemetry's loaded entries; None when not recorded."""
    if row.used is None:
        return None
    try:
        used, telemetry = json.loads(row.used), json.loads(row.telemetry or "{}")
    except ValueError:
        return None
    cited = {str(ref) for ref in used} if isinstance(used, list) else set()
    entries: list[Any] = telemetry.get("loaded", []) if isinstance(telemetry, dict) else []
    return cited, [e for e in entries if isinstance(e, dict) and "ref" in e]


def memories_use(row: UsageRow) -> Use | None:
    """A turn's use of the memories it loaded, or None when its answer's sources were not recorded."""
    if (read := _read(row)) is None:
        return None
    cited, entries = read
    cited = {r for r in cited if r.startswith("m")}
    memories = sorted((e for e in entries if str(e["ref"]).startswith("m")), key=lambda e: -float(e.get("score") or 0))
    refs = [str(e["ref"]) for e in memories]
    asked = _granted(row, Dimension.VECTOR_LIMIT, len(refs))
    deepest = max((refs.index(r) + 1 for r in cited if r in refs), default=0)
    saved = sum(int(e.get("tokens") or 0) for e in memories[max(asked - LESS, 0) :])
    return Use(row, len(refs), asked <= LESS or deepest > asked - LESS, bool(cited - set(refs)), saved)


def depth_use(row: UsageRow) -> Use | None:
    """A turn's use of its deepest graph hop, or None when its answer's sources were not recorded.
    At depth 1 a link between a named entity and one a hop out reads "link of a named entity" (no hop
    named): it counts as the deepest hop's when cited (so such a turn is never taken for spare), not
    in the tokens saved."""
    if (read := _read(row)) is None:
        return None
    cited, entries = read
    depth = _granted(row, Dimension.TRIPLE_DEPTH, 0)
    deepest = [e for e in entries if (m := HOP.search(str(e.get("reason") or ""))) and int(m[1]) >= depth > 0]
    maybe = [e for e in entries if depth == 1 and str(e.get("reason") or "").startswith("link of a named")]
    lost = {str(e["ref"]) for e in deepest + maybe}
    outside = bool({r for r in cited if r[:1] in "mer"} - {str(e["ref"]) for e in entries})
    saved = sum(int(e.get("tokens") or 0) for e in deepest)
    return Use(row, len(deepest), depth < SHALLOWER or bool(cited & lost), outside, saved)


def _granted(row: UsageRow, dim: Dimension, otherwise: int) -> int:
    """What the turn was granted of `dim` (what the policy asked for, fitted into the range)."""
    try:
        grant = json.loads(row.request or "{}").get(dim.name, {})
    except (ValueError, AttributeError):
        return otherwise
    value = grant.get("provided") if isinstance(grant, dict) else None
    return int(value) if isinstance(value, int | float) else otherwise


def sign_p(hits: int, n: int) -> float:
    """One-sided sign test: the chance of `hits` or more of `n` when each is a coin toss."""
    return sum(math.comb(n, x) for x in range(hits, n + 1)) / 2**n if n else 1.0


@dataclass(frozen=True)
class Unused:
    """One kind's turns whose use of one part of their context is known."""

    kind: Kind
    uses: list[Use]
    part: Part = "memories"

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
        smaller, what, left = (LESS_WORDS, "", f"those {LESS} fewer leave")
        if self.part == "depth":
            smaller, what, left = (SHALLOWER_WORDS, " entities and links at their deepest hop", "that hop left")
        return (
            f"{len(self.spare)} of {len(self.uses)} such turns would have lost nothing their answer used with "
            f"{smaller} (they loaded about {loaded:.0f}{what}; sign test p = {self.p:.3f}), and what {left} "
            f"out came to {self.unused_tokens:.0f} tokens a turn, loaded for nothing"
        )


USES: dict[Part, Callable[[UsageRow], Use | None]] = {"memories": memories_use, "depth": depth_use}


def unused_stats(rows: Sequence[UsageRow], part: Part = "memories") -> dict[Kind, Unused]:
    """Per kind the policy planned, its turns whose answers' sources were recorded."""
    by_kind: dict[Kind, list[Use]] = {}
    for row in rows:
        if (kind := kind_of(row.reason)) is not None and (use := USES[part](row)) is not None:
            by_kind.setdefault(kind, []).append(use)
    return {kind: Unused(kind, uses, part) for kind, uses in by_kind.items()}


def as_dict(stats: dict[Kind, Unused]) -> dict[str, Any]:
    """A JSON-ready summary per kind (kept in the dream report beside the under-asking figures)."""
    return {k: {"turns": len(u.uses), "spare": len(u.spare), "p": round(u.p, 4),
                "unused_tokens": round(u.unused_tokens, 1)} for k, u in stats.items()}  # fmt: skip
