"""The context request without a model: what each kind of message needs, learned from feedback.

The embedded 135M model asked for CONTEXT_TURNS 1, VECTOR_LIMIT 1, SIMILARITY_THRESHOLD 1.0,
TRIPLE_DEPTH 1 on every message. This policy reads the message (`capabilities.situation`) and
asks for what its kind needs, the seed's four situations among them:

- a thanks or greeting needs the last turn or two and no recall;
- a continuation ("and step 3?") needs the thread, little long-term memory;
- a question about the person's life needs a few precise memories and one graph hop;
- a broad recall ("what do I like?") needs many memories at a low threshold;
- relational reasoning ("how is Ana connected to Porto?") needs graph hops;
- a statement needs a few memories (to notice what it corrects).

Every value is then fitted into the active ranges, so it is never clamped. The policy learns
from its own log: when turns of one kind were followed by a missing-context signal ("I told
you…", a repeated question) at least `LEARN_MIN_MISSES` times and in at least `LEARN_MIN_RATE`
of them, that kind asks for more from then on, and the reason says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from capabilities.resources import Dimension, Limits, Number, ResourceRequest
from capabilities.situation import Kind, Situation, read

REASON_PREFIX = "policy:"
LEARN_MIN_MISSES = 2
LEARN_MIN_RATE = 0.25

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


@dataclass(frozen=True)
class Learned:
    """What the log taught the policy about one kind of message."""

    kind: Kind
    turns: int
    misses: int

    @property
    def active(self) -> bool:
        """Whether the misses are frequent enough to ask for more."""
        return self.misses >= LEARN_MIN_MISSES and self.misses >= LEARN_MIN_RATE * self.turns

    def note(self) -> str:
        """How the lesson reads in the request's reason."""
        return f"learned: asking for more, {self.misses} of {self.turns} such turns were followed by 'you forgot'"


def learn(rows: Iterable[tuple[str, str | None]]) -> dict[Kind, Learned]:
    """Per kind, how many logged turns the policy planned and how many were followed by a
    missing-context signal.

    Args:
        rows: (reason, followed_by_signal) of logged turns; reasons not written by this policy are ignored.
    """
    counts: dict[Kind, list[int]] = {}
    for reason, signal in rows:
        kind = kind_of(reason)
        if kind is not None:
            seen = counts.setdefault(kind, [0, 0])
            seen[0] += 1
            seen[1] += 1 if signal else 0
    return {k: Learned(k, n, m) for k, (n, m) in counts.items()}


def kind_of(reason: str) -> Kind | None:
    """The kind a policy reason was written for ("policy:personal …" → personal)."""
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
    learned: dict[Kind, Learned] | None = None,
    situation: Situation | None = None,
) -> ResourceRequest:
    """The context request for a message: what its kind needs, fitted into `limits`.

    Args:
        message: The person's message.
        history: Earlier messages of this thread, oldest first (may be empty).
        limits: The active ranges; every value is fitted inside them.
        learned: Lessons from the usage log (`learn`); an active lesson asks for more.
        situation: The message already read (`capabilities.situation.read`), to read it once.
    """
    sit = situation or read(message, history)
    turns, memories, threshold, depth = NEEDS[sit.kind]
    if sit.kind == "continuation" and len(history) > 8:
        turns = None  # a long thread: the point referred to may be far back
    if sit.kind in ("personal", "relational") and sit.chain >= 2:
        depth = max(depth or 0, sit.chain)
    reason = f"{REASON_PREFIX}{sit.kind} — {WHY[sit.kind]}"
    lesson = (learned or {}).get(sit.kind)
    if lesson is not None and lesson.active:
        turns = None if turns is None else turns + 4
        memories = None if memories is None else memories + 4
        threshold = threshold - 0.1
        reason += f"; {lesson.note()}"
    values = dict(zip(Dimension, (turns, memories, threshold, depth), strict=True))
    fitted = {dim.value.field: _fit(limits, dim, want) for dim, want in values.items()}
    return ResourceRequest.model_validate({**fitted, "reason": reason[:200]})
