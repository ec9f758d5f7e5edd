"""The context request without a model: what each kind of message needs, adjusted only by approval.

The embedded 135M model asked for CONTEXT_TURNS 1, VECTOR_LIMIT 1, SIMILARITY_THRESHOLD 1.0,
TRIPLE_DEPTH 1 on every message. This policy reads the message (`capabilities.situation`) and
asks for what its kind needs, the seed's four situations among them:

- a thanks or greeting needs the last turn or two and no recall;
- a continuation ("and step 3?") needs the thread, little long-term memory;
- a question about the person's life needs a few precise memories and one graph hop;
- a broad recall ("what do I like?") needs many memories at a low threshold;
- relational reasoning ("how is Ana connected to Porto?") needs graph hops;
- a statement needs a few memories (to notice what it corrects).

Every value is then fitted into the active ranges, so it is never clamped. The policy does not
change itself: when the log shows one kind of message asking too little (its turns followed by
missing-context signals clearly more often than other kinds'), the nightly dream proposes an
adjustment (`dreaming.policy`), the person approves or rejects it, and only while an approved
adjustment is in force does that kind ask for `MORE` (stored as a change named `policy:<kind>`
beside the limit overrides, on trial like them; the request's reason says which change). When the
log shows a kind's turns leaving the last memories they loaded unused, time after time
(`dreaming.unused`), the adjustment proposed is `LESS` instead (the change's value is -1); when they
leave what their deepest graph hop loaded unused, it is `SHALLOWER`, one hop less (the value is -2).

The second look (`second_look`): the telemetry of an assembled context recommends a deeper hop
("ask TRIPLE_DEPTH 2 for Globex": something lies one step past the granted depth) or more memories
("ask VECTOR_SEARCH_LIMIT above 10": the limit left a memory above the threshold out). The model
path reads the recommendation in its next context; on the policy path, whose small model cannot
act on it, the policy takes the step itself when the evidence for the question is weak (no note
answers, or only with low confidence): one more assembly, one hop deeper and/or `MORE_MEMORIES`
more memories, within the active ranges. Never more than one, and the Context step says it was
taken and why (`Step.said`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from capabilities.evidence import Evidence
from capabilities.resources import Dimension, Limits, Number, ResourceRequest
from capabilities.situation import Kind, Situation, read
from memory.assembly import AssembledContext, ContextRequest, Skip
from memory.models import LimitOverrideRow

REASON_PREFIX = "policy:"  # also names an approved adjustment's change: `policy:<kind>`
MORE = (4, 4, -0.1)  # what an adjustment adds to a kind's request: turns, memories, threshold
MORE_WORDS = f"+{MORE[0]} recent messages, +{MORE[1]} memories, match threshold {-MORE[2]:g} lower"
# What an adjustment downwards takes from a kind's request: memories, the one part of the context
# whose use the log can tell (the answer cites memories; it never cites a recent message).
LESS = 4
LESS_WORDS = f"{LESS} fewer memories"
# What an adjustment to less depth takes from a kind's request: one graph hop, when the answers never
# cite what the deepest hop granted loaded (`dreaming.unused`: the telemetry names each item's hop).
SHALLOWER = 1
SHALLOWER_WORDS = f"{SHALLOWER} hop less between related facts"
# An adjustment's stored value (a proposal's `proposed_value`, a change's `default_value`) by direction.
MORE_STEP, LESS_STEP, SHALLOWER_STEP = 1.0, -1.0, -2.0

# What the policy decides, in the order of each kind's NEEDS; a dimension it does not decide is left
# to its default.
DECIDES = (Dimension.CONTEXT_TURNS, Dimension.VECTOR_LIMIT, Dimension.SIMILARITY_THRESHOLD, Dimension.TRIPLE_DEPTH)
# (turns, memories, threshold, depth) per kind; None = the range's max. Why each: module docstring.
NEEDS: dict[Kind, tuple[Number | None, Number | None, float, Number | None]] = {
    "ack": (2, 0, 0.8, 0),
    "summary": (None, 0, 0.8, 0),
    "continuation": (8, 2, 0.7, 1),
    "broad_recall": (3, None, 0.55, 1),
    "relational": (3, 8, 0.6, 2),
    "personal": (3, 10, 0.55, 1),
    "document": (2, 8, 0.6, 1),
    "statement": (4, 3, 0.7, 1),
    "general": (3, 2, 0.8, 0),
}
WHY: dict[Kind, str] = {
    "ack": "an acknowledgement: nothing to recall",
    "summary": "a summary of this thread: all its turns",
    "continuation": "continues this thread: its recent turns",
    "broad_recall": "broad recall: many memories, low threshold",
    "relational": "relations between things: graph hops",
    "personal": "a question about you: a few precise memories",
    "document": "a question about a document: several passages",
    "statement": "something you told me: check what it updates",
    "general": "general chat: little memory",
}
# Plain words for a kind in the dream's proposals and history (never the raw kind name).
LABEL: dict[Kind, str] = {
    "ack": "thanks and greetings",
    "summary": "requests to summarise the conversation",
    "continuation": "follow-ups within a conversation",
    "broad_recall": "broad questions about what you like or do",
    "relational": "questions about how people and things are connected",
    "personal": "questions about you",
    "document": "questions about a document",
    "statement": "things you tell me",
    "general": "general chat",
}


@dataclass(frozen=True)
class Adjustment:
    """An approved adjustment of one kind's request in force: which way, and the note for the reason."""

    more: bool
    note: str
    shallower: bool = False  # (when not `more`) one hop less instead of fewer memories


def shallower_of(value: float | None) -> bool:
    """Whether an adjustment's stored value asks for one hop less (-2) rather than fewer memories (-1)."""
    return value is not None and value <= SHALLOWER_STEP


def step_words(value: float | None) -> str:
    """An adjustment's direction as the person reads it: "ask for less (4 fewer memories)"."""
    if more_of(value):
        return f"ask for more ({MORE_WORDS})"
    return f"ask for less depth ({SHALLOWER_WORDS})" if shallower_of(value) else f"ask for less ({LESS_WORDS})"


def more_of(value: float | None) -> bool:
    """Whether an adjustment's stored value (a proposal's `proposed_value`, a change's `default_value`)
    asks for more (1) or for less (-1)."""
    return value is None or value >= 0


def asking(kind: Kind, more: bool = True) -> str:
    """ "asking for more on questions about you" (or "for less")."""
    return f"asking for {'more' if more else 'less'} on {LABEL[kind]}"


def adjustment_words(kind: Kind, value: float | None = MORE_STEP) -> str:
    """An adjustment (its stored value) as the person reads it: "request policy, questions about you:
    ask for more (+4 …)"."""
    return f"request policy, {LABEL[kind]}: {step_words(value)}"


def adjustments(changes: Iterable[LimitOverrideRow]) -> dict[Kind, Adjustment]:
    """The kinds with an approved adjustment in force, each with its direction and a note for the
    request's reason.

    Args:
        changes: The changes in force (`OverrideStore.active()`); limit overrides are ignored.
    """
    found: dict[Kind, Adjustment] = {}
    for row in changes:
        if (kind := kind_of(row.dimension)) is not None:
            trial = f", on trial until {row.trial_until:%Y-%m-%d}" if row.trial_until and not row.trial_outcome else ""
            note = f"change #{row.id} approved {row.created_at:%Y-%m-%d}{trial}"
            found[kind] = Adjustment(more_of(row.default_value), note, shallower_of(row.default_value))
    return found


def kind_of(reason: str) -> Kind | None:
    """The kind a policy reason was written for ("policy:personal …" → personal), or the kind an
    adjustment's change is named for ("policy:personal"); None for anything else."""
    if not reason.startswith(REASON_PREFIX):
        return None
    word = reason[len(REASON_PREFIX) :].split(" ", 1)[0]
    return word if word in NEEDS else None  # pyright: ignore[reportReturnType]


def _fit(limits: Limits, dim: Dimension, want: Number | None) -> Number:
    rng = limits[dim]
    value = rng.max if want is None else want
    value = min(max(value, rng.min), rng.max)
    return int(value) if dim.value.kind is int else round(float(value), 2)


def plan_request(
    message: str,
    history: Sequence[str],
    limits: Limits,
    adjusted: Mapping[Kind, Adjustment] | None = None,
    situation: Situation | None = None,
) -> ResourceRequest:
    """The context request for a message: what its kind needs, fitted into `limits`.

    Args:
        message: The person's message.
        history: Earlier messages of this thread, oldest first (may be empty).
        limits: The active ranges; every value is fitted inside them.
        adjusted: Kinds with an approved adjustment in force (`adjustments`): these ask for `MORE`, or
            for `LESS` memories.
        situation: The message already read (`capabilities.situation.read`), to read it once.
    """
    sit = situation or read(message, history)
    turns, memories, threshold, depth = NEEDS[sit.kind]
    if sit.kind == "continuation" and len(history) > 8:
        turns = None  # a long thread: the point referred to may be far back
    if sit.kind in ("personal", "relational") and sit.chain >= 2:
        depth = max(depth or 0, sit.chain)
    reason = f"{REASON_PREFIX}{sit.kind} — {WHY[sit.kind]}"
    adjustment = (adjusted or {}).get(sit.kind)
    if adjustment is not None and adjustment.more:
        more_turns, more_memories, lower = MORE
        turns = None if turns is None else turns + more_turns
        memories = None if memories is None else memories + more_memories
        threshold = threshold + lower
        reason += f"; asking for more ({adjustment.note})"
    elif adjustment is not None and adjustment.shallower:  # (after the chain: the kind's hops went unused)
        depth = (limits[Dimension.TRIPLE_DEPTH].max if depth is None else depth) - SHALLOWER
        reason += f"; asking for less depth ({adjustment.note})"
    elif adjustment is not None:
        memories = (limits[Dimension.VECTOR_LIMIT].max if memories is None else memories) - LESS
        reason += f"; asking for less ({adjustment.note})"
    values = dict(zip(DECIDES, (turns, memories, threshold, depth), strict=True))
    fitted = {dim.value.field: _fit(limits, dim, want) for dim, want in values.items()}
    return ResourceRequest.model_validate({**fitted, "reason": reason[:200]})


def adjusted_grant(granted: Mapping[Dimension, Number], limits: Limits, value: float) -> dict[Dimension, Number]:
    """A turn's granted request as its kind would ask with the adjustment in force (its stored value:
    `MORE`, `LESS` or `SHALLOWER`), fitted into `limits`: what the dream replays a policy proposal's turns
    at. Equal to `plan_request`'s adjusted request for that turn, since a grant is the kind's need already fitted."""
    step: dict[Dimension, Number] = {Dimension.VECTOR_LIMIT: -LESS}
    if more_of(value):
        step = dict(zip(DECIDES[:3], MORE, strict=True))
    elif shallower_of(value):
        step = {Dimension.TRIPLE_DEPTH: -SHALLOWER}
    return {dim: _fit(limits, dim, value + step[dim]) if dim in step else value for dim, value in granted.items()}


MORE_MEMORIES = 5
"""How many more memories the second look asks for when the limit left some out."""

_LC_ROOM_KINDS: frozenset[Kind] = frozenset({"personal", "relational"})
"""Kinds whose evidence can rank past the granted count: a question about the person's life, or about how
things of it connect, often needs a second memory from another conversation (LoCoMo's multi-hop evidence
the assembly missed ranked 11-21). Their context takes the next ranked memories, up to the active maximum,
while the budget has room for their text (`ContextRequest.more_memories`; docs/benchmarks.md,
"Twenty-fourth session … (issue 14, LoCoMo)")."""


def room_for_more(kind: Kind | None, granted: int, limits: Limits) -> int:
    """How many memories past the `granted` count a message of `kind` may take while the budget has room:
    up to the active VECTOR_SEARCH_LIMIT maximum for `_LC_ROOM_KINDS`, none for any other kind (a
    greeting, a statement or a follow-up asks for few on purpose)."""
    if kind not in _LC_ROOM_KINDS:
        return 0
    return max(0, int(limits[Dimension.VECTOR_LIMIT].max) - granted)


@dataclass(frozen=True)
class Step:
    """The one extra retrieval: the request to assemble again with, and the plain words for it."""

    request: ContextRequest
    said: str


def weak(evidence: Evidence) -> bool:
    """Whether the evidence leaves the question open: nothing answers, or only with low confidence."""
    return evidence.verdict != "answer" or evidence.confidence == "low"


def second_look(
    ctx: AssembledContext, req: ContextRequest, evidence: Evidence, max_depth: int, max_memories: int
) -> Step | None:
    """The step the telemetry recommends, when the evidence is weak and the ranges allow it; else None.

    Args:
        ctx: the context assembled for `req`, with its telemetry (what lay past the depth or limit).
        req: the request it was assembled for (already within the active ranges).
        evidence: the evidence policy's verdict on the notes `ctx` recalled.
        max_depth: the active TRIPLE_DEPTH maximum, e.g. 3.
        max_memories: the active VECTOR_SEARCH_LIMIT maximum, e.g. 15.
    """
    if not weak(evidence):
        return None
    left = {i.skip for i in ctx.skipped}
    depth = req.triple_depth + 1 if Skip.DEPTH in left and req.triple_depth < max_depth else req.triple_depth
    memories = req.vector_limit
    if Skip.LIMIT in left and req.vector_limit < max_memories:
        memories = min(max_memories, req.vector_limit + MORE_MEMORIES)
    taken = [f"TRIPLE_DEPTH {depth}"] if depth != req.triple_depth else []
    taken += [f"VECTOR_SEARCH_LIMIT {memories}"] if memories != req.vector_limit else []
    if not taken:
        return None
    said = f"took the recommended step itself: {' and '.join(taken)}, once (the evidence was weak: {evidence.reason})"
    room = max(0, req.vector_limit + req.more_memories - memories)  # never past what the budget could take before
    return Step(replace(req, triple_depth=depth, vector_limit=memories, more_memories=room), said)
