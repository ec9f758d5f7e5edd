"""What the model replies each round: an `Answer`, or a request for more (`NeedsMoreInfo`).

Two layers of models. The canonical ones here (`Answer`, `Source`, `NeedsMoreInfo`) are what
the rest of the app handles. The per-round ones (`answer_model`, and `info.build_round` for
requests) are generated from the current context so that the JSON schema the model sees, and
the grammar llama.cpp enforces, list exactly the refs and ids it may use: a hallucinated ref
cannot even be decoded. llama.cpp does not enforce float ranges, so `relevance` is clamped
after parsing instead of being rejected.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator

Confidence = Literal["high", "medium", "low"]
MAX_CONTENT_CHARS = 600
MAX_SOURCES = 5
MAX_FOLLOW_UPS = 3
MAX_SHORT_CHARS = 80
MAX_REASON_CHARS = 100
NOT_VERIFIED = "I could not verify"


def clamp_relevance(value: float) -> float:
    """A relevance in 0..1 whatever the model wrote (NaN counts as 0)."""
    if math.isnan(value):
        return 0.0
    return min(1.0, max(0.0, value))


class Source(BaseModel):
    """One piece of context the answer relied on."""

    ref: str = Field(pattern=r"^[mer]\d+$", description="Context ref: m12 memory, e4 entity, r9 relation.")
    contribution: str = Field(default="", max_length=MAX_SHORT_CHARS, description="What it contributed.")
    relevance: float = Field(default=0.5, description="0 (barely) to 1 (decisive).")

    @field_validator("relevance")
    @classmethod
    def _clamp(cls, value: float) -> float:
        return clamp_relevance(value)


class Answer(BaseModel):
    """The reply to the user's question."""

    content: str = Field(min_length=1, max_length=MAX_CONTENT_CHARS)
    confidence: Confidence
    sources: list[Source] = Field(default_factory=list, max_length=MAX_SOURCES)
    follow_ups: list[str] = Field(default_factory=list, max_length=MAX_FOLLOW_UPS)

    @field_validator("follow_ups")
    @classmethod
    def _short_follow_ups(cls, value: list[str]) -> list[str]:
        return [f.strip()[:MAX_SHORT_CHARS] for f in value if f.strip()]

    @property
    def refs(self) -> list[str]:
        """The refs cited as sources, in order, without repeats."""
        return list(dict.fromkeys(s.ref for s in self.sources))


class NeedsMoreInfo(BaseModel):
    """A validated request for more context: which capability, with which arguments, and why."""

    capability: str
    args: dict[str, Any] = Field(default_factory=dict)
    reason: str = Field(default="", max_length=MAX_REASON_CHARS)


def str_enum(name: str, values: Sequence[str]) -> type[StrEnum]:
    """A string enum whose members are `values` (JSON Schema: an `enum` of them, shared via `$defs`)."""
    enum: Any = StrEnum(name, {v: v for v in dict.fromkeys(values)})
    return enum


def answer_model(refs: Sequence[str]) -> type[BaseModel]:
    """This round's `Answer` schema: `sources[].ref` is an enum of `refs` (the refs in context).

    With no refs there is nothing to cite and an empty enum is not valid JSON Schema, so the
    model then has no `sources` field at all.
    """
    fields: dict[str, Any] = {
        "content": (str, Field(min_length=1, max_length=MAX_CONTENT_CHARS)),
        "confidence": (Confidence, ...),
    }
    if refs:
        ref_enum = str_enum("SourceRef", refs)
        source = create_model(
            "Source",
            __config__=ConfigDict(extra="forbid"),
            ref=(ref_enum, ...),
            contribution=(str, Field(max_length=MAX_SHORT_CHARS)),
            relevance=(float, ...),
        )
        fields["sources"] = (list[source], Field(max_length=MAX_SOURCES))  # pyright: ignore[reportInvalidTypeForm]
    follow_up = Annotated[str, Field(max_length=MAX_SHORT_CHARS)]
    fields["follow_ups"] = (list[follow_up], Field(max_length=MAX_FOLLOW_UPS))
    return create_model("Answer", __config__=ConfigDict(extra="forbid"), **fields)


def _wordy(text: str) -> bool:
    """Whether a model-written string says anything (small models copy "..." or "<placeholder>")."""
    return sum(c.isalnum() for c in text) >= 3 and not (text.startswith("<") and text.endswith(">"))


def to_answer(output: BaseModel) -> Answer:
    """The canonical `Answer` for a per-round answer (enum refs become strings, relevance clamped,
    placeholder-like follow-ups and contributions dropped)."""
    data = output.model_dump(mode="json")
    data["follow_ups"] = [str(f)[:MAX_SHORT_CHARS] for f in data.get("follow_ups", []) if _wordy(str(f))]
    for source in data.get("sources", []):
        text = str(source.get("contribution", "")).strip()
        source["contribution"] = text[:MAX_SHORT_CHARS] if _wordy(text) else ""
    return Answer.model_validate(data)


def forced_answer(
    draft: Answer | None,
    unverified: Sequence[str],
    fallback: Sequence[tuple[str, str]] = (),
) -> Answer:
    """The answer given when the model could not ask for more (limit reached or a bad request).

    Confidence is always low and the content ends by saying what could not be verified.

    Args:
        draft: What the model answered when it had to answer, or None if it gave nothing usable.
        unverified: Short notes of what could not be checked, e.g. "who Ana's manager is".
        fallback: (ref, text) pairs from the context to quote when there is no draft.
    """
    notes = "; ".join(dict.fromkeys(u.strip() for u in unverified if u.strip())) or "the details asked about"
    tail = f" ({NOT_VERIFIED}: {notes}.)"
    if draft is not None:
        body, sources, follow_ups = draft.content.strip(), draft.sources, draft.follow_ups
    else:
        quoted = [(ref, text) for ref, text in fallback[:2] if text.strip()]
        body = "I could not find a reliable answer in what I remember."
        if quoted:
            body += " Closest notes: " + " | ".join(text.strip()[:150] for _, text in quoted)
        sources = [Source(ref=ref, contribution="closest note", relevance=0.3) for ref, _ in quoted]
        follow_ups = []
    room = MAX_CONTENT_CHARS - len(tail)
    if len(tail) > MAX_CONTENT_CHARS // 2:
        tail, room = tail[: MAX_CONTENT_CHARS // 2 - 2] + ".)", MAX_CONTENT_CHARS // 2
    content = (body[: room - 1] + "…" if len(body) > room else body) + tail
    return Answer(content=content.strip(), confidence="low", sources=list(sources), follow_ups=list(follow_ups))
