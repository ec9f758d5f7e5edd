"""Answer, Source and the forced-answer builder; the per-round Answer schema (no model, no store)."""

from __future__ import annotations

import json
import math

import pytest
from pydantic import ValidationError

from app.llm import grammar_schema
from capabilities.answer import (
    MAX_CONTENT_CHARS,
    NOT_VERIFIED,
    Answer,
    Source,
    answer_model,
    clamp_relevance,
    forced_answer,
    to_answer,
)

pytestmark = pytest.mark.no_backend  # schemas only, no store: nothing to run on PostgreSQL


@pytest.mark.parametrize(("raw", "clamped"), [(1.7, 1.0), (-0.2, 0.0), (0.4, 0.4), (math.nan, 0.0)])
def test_answer_relevance_is_clamped_not_rejected(raw: float, clamped: float) -> None:
    assert clamp_relevance(raw) == clamped
    assert Source(ref="m3", relevance=raw).relevance == clamped


def test_answer_rejects_bad_refs_and_overlong_content() -> None:
    with pytest.raises(ValidationError):
        Source(ref="memory 3")
    with pytest.raises(ValidationError):
        Answer(content="x" * (MAX_CONTENT_CHARS + 1), confidence="high")
    with pytest.raises(ValidationError):
        Answer(content="ok", confidence="certain")  # pyright: ignore[reportArgumentType]


def test_answer_model_schema_carries_the_refs_in_context_as_an_enum() -> None:
    model = answer_model(["m3", "e4", "r9"])
    schema = grammar_schema(model)
    assert schema["$defs"]["SourceRef"]["enum"] == ["m3", "e4", "r9"]
    assert schema["properties"]["sources"]["maxItems"] == 5
    assert schema["properties"]["follow_ups"]["items"]["maxLength"] == 80
    with pytest.raises(ValidationError):
        model.model_validate({"content": "x", "confidence": "high", "sources": [{"ref": "m99", "contribution": "",
                              "relevance": 1}], "follow_ups": []})  # fmt: skip


def test_answer_model_without_refs_has_no_sources_field() -> None:
    schema = grammar_schema(answer_model([]))
    assert "sources" not in schema["properties"]
    assert "[]" not in json.dumps(schema)  # no empty enum anywhere


def test_answer_to_answer_clamps_and_drops_placeholders() -> None:
    model = answer_model(["m3"])
    raw = {
        "content": "Porto.",
        "confidence": "medium",
        "sources": [{"ref": "m3", "contribution": "<what it told you>", "relevance": 3.0}],
        "follow_ups": ["<a next question>", "...", "Where in Porto?"],
    }
    answer = to_answer(model.model_validate(raw))
    assert answer.sources == [Source(ref="m3", contribution="", relevance=1.0)]
    assert answer.follow_ups == ["Where in Porto?"] and answer.refs == ["m3"]


def test_answer_forced_from_a_draft_is_low_confidence_and_says_what_is_unverified() -> None:
    draft = Answer(content="Ana lives in Porto.", confidence="high", sources=[Source(ref="m3")])
    forced = forced_answer(draft, ["Ana's street", "Ana's street"])
    assert forced.confidence == "low" and forced.sources == draft.sources
    assert forced.content == f"Ana lives in Porto. ({NOT_VERIFIED}: Ana's street.)"


def test_answer_forced_without_draft_quotes_the_context_and_stays_bounded() -> None:
    forced = forced_answer(None, ["x" * 900], [("m3", "Ana lives in Porto."), ("m5", "  ")])
    assert forced.confidence == "low" and len(forced.content) <= MAX_CONTENT_CHARS
    assert "Ana lives in Porto." in forced.content and NOT_VERIFIED in forced.content
    assert [s.ref for s in forced.sources] == ["m3"]
    long_draft = Answer(content="y" * MAX_CONTENT_CHARS, confidence="high")
    assert len(forced_answer(long_draft, ["z"]).content) <= MAX_CONTENT_CHARS
