"""grammar_schema, structured_settings and output_spec, without any server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from enum import StrEnum
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, Field, ValidationError
from pydantic_ai import Agent, PromptedOutput, models
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

from app.extractor import ExtractionOut, TripleOut
from app.llm import MAX_STRING_LENGTH, Backend, LLMConfig, grammar_schema, output_spec


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def no_real_model_requests() -> Iterator[None]:
    """Block real model requests here, then restore: integration modules in the same run need them."""
    previous, models.ALLOW_MODEL_REQUESTS = models.ALLOW_MODEL_REQUESTS, False
    try:
        yield
    finally:
        models.ALLOW_MODEL_REQUESTS = previous


class Color(StrEnum):
    RED = "red"
    BLUE = "blue"


class Inner(BaseModel):
    note: str


class Sample(BaseModel):
    score: int = Field(ge=1, le=5)
    ratio: float
    mood: Literal["happy", "sad"]
    color: Color
    text: str = Field(max_length=30)
    tags: list[str]
    inner: Inner
    type: str  # a field named like a JSON Schema keyword


class Answer(BaseModel):
    kind: Literal["answer"] = "answer"
    text: str


class NeedsMoreInfo(BaseModel):
    kind: Literal["needs_more_info"] = "needs_more_info"
    question: str


class Holder(BaseModel):
    reply: Annotated[Answer | NeedsMoreInfo, Field(discriminator="kind")]


def _backend(name: Literal["ollama", "embedded"]) -> Backend:
    return Backend(name, "m", "http://127.0.0.1:1/v1", TestModel())


def test_grammar_schema_closes_objects_and_bounds_strings_and_arrays() -> None:
    schema = grammar_schema(Sample)
    props = schema["properties"]
    assert schema["additionalProperties"] is False
    assert schema["$defs"]["Inner"]["additionalProperties"] is False
    assert schema["$defs"]["Inner"]["properties"]["note"]["maxLength"] == MAX_STRING_LENGTH
    assert schema["x-guidance"] == {"whitespace_flexible": False}
    assert props["score"] == {"maximum": 5, "minimum": 1, "title": "Score", "type": "integer"}
    assert props["text"]["maxLength"] == 30  # a tighter bound of the model's own wins
    assert props["tags"]["maxItems"] == 20 and props["tags"]["items"]["maxLength"] == MAX_STRING_LENGTH
    assert props["type"]["maxLength"] == MAX_STRING_LENGTH


def test_grammar_schema_keeps_enums_and_literals_as_allowed_lists() -> None:
    schema = grammar_schema(Sample)
    assert schema["properties"]["mood"] == {"enum": ["happy", "sad"], "title": "Mood", "type": "string"}
    assert schema["$defs"]["Color"]["enum"] == ["red", "blue"]
    assert "maxLength" not in schema["$defs"]["Color"]


def test_grammar_schema_turns_discriminated_field_into_anyof() -> None:
    reply = grammar_schema(Holder)["properties"]["reply"]
    assert "oneOf" not in reply and "discriminator" not in reply
    assert len(reply["anyOf"]) == 2


def test_grammar_schema_union_uses_pydantic_ai_envelope() -> None:
    schema = grammar_schema(Answer | NeedsMoreInfo)
    branches = schema["properties"]["result"]["anyOf"]
    assert [b["properties"]["kind"]["const"] for b in branches] == ["Answer", "NeedsMoreInfo"]
    assert all(b["additionalProperties"] is False and b["required"] == ["kind", "data"] for b in branches)
    assert branches[0]["properties"]["data"]["properties"]["kind"]["const"] == "answer"


def test_grammar_schema_rejects_non_models() -> None:
    with pytest.raises(TypeError, match="pydantic models"):
        grammar_schema(int)  # pyright: ignore[reportArgumentType]


@pytest.mark.anyio
async def test_output_spec_union_parses_grammar_shaped_json() -> None:
    """Contract: JSON shaped like grammar_schema(A | B) is what pydantic-ai parses into A or B."""
    seen: list[dict[str, Any]] = []

    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        assert info.model_request_parameters.output_object is not None
        seen.append(info.model_request_parameters.output_object.json_schema)
        member = {"kind": "needs_more_info", "question": "Which?"}
        data = {"result": {"kind": "NeedsMoreInfo", "data": member}}
        return ModelResponse(parts=[TextPart(json.dumps(data))])

    backend = Backend("embedded", "m", "u", FunctionModel(reply))
    result = await Agent(backend.model, output_type=output_spec(backend, Answer | NeedsMoreInfo)).run("?")
    assert result.output == NeedsMoreInfo(question="Which?")
    advertised = seen[0]["properties"]["result"]["anyOf"]
    ours = grammar_schema(Answer | NeedsMoreInfo)["properties"]["result"]["anyOf"]
    assert [b["properties"]["kind"]["const"] for b in advertised] == [
        b["properties"]["kind"]["const"] for b in ours
    ]


def test_output_spec_single_model_is_prompted_output() -> None:
    spec = output_spec(_backend("embedded"), Sample)
    assert isinstance(spec, PromptedOutput) and spec.outputs is Sample


def test_structured_settings_embedded_sends_llguidance_grammar() -> None:
    extra = _backend("embedded").structured_settings(Sample)["extra_body"]
    assert isinstance(extra, dict)
    prefix = "%llguidance {}\nstart: %json "
    assert extra["grammar"].startswith(prefix)
    assert json.loads(extra["grammar"][len(prefix) :]) == grammar_schema(Sample)


def test_structured_settings_ollama_sends_json_schema_response_format() -> None:
    extra = _backend("ollama").structured_settings(Sample)["extra_body"]
    assert isinstance(extra, dict)
    fmt = extra["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "Sample"
    expected = grammar_schema(Sample)
    del expected["x-guidance"]
    assert fmt["json_schema"]["schema"] == expected


def test_llm_config_defaults_are_plain_and_frozen() -> None:
    cfg = LLMConfig()
    assert (cfg.backend, cfg.ollama_host) == ("auto", "http://127.0.0.1:11434")
    assert cfg.ollama_model == "qwen2.5:0.5b"
    assert (cfg.embedded_model_path, cfg.embedded_threads, cfg.embedded_ctx) == (None, 1, 4096)
    with pytest.raises(AttributeError):
        cfg.backend = "ollama"  # pyright: ignore[reportAttributeAccessIssue]


def test_extraction_grammar_forbids_empty_triple_ends() -> None:
    # Unbounded below, SmolLM2 filled a triple's subject and object with "" (a flaky real-model test).
    triple = grammar_schema(ExtractionOut)["$defs"]["TripleOut"]["properties"]
    assert all(triple[f]["minLength"] == 1 for f in ("subject", "predicate", "object"))
    with pytest.raises(ValidationError):
        TripleOut(subject="", predicate="LIKES", object="tea", subject_type="Person", object_type="Concept")
