"""Ollama path against a fake Ollama on 127.0.0.1 (and a live one when OLLAMA_HOST answers)."""

from __future__ import annotations

import json
import os
import time
from typing import Literal

import pytest
from pydantic import BaseModel, Field
from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelAPIError

from app import ollama_backend as ob
from app.llm import LLMConfig, open_backend, output_spec
from tests.integration.ollama_fake import FakeOllamaState, fake_ollama, free_port_url

pytestmark = pytest.mark.no_backend  # the model and its server, no store: nothing to run on PostgreSQL

MODEL = ob.DEFAULT_OLLAMA_MODEL


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Verdict(BaseModel):
    score: int = Field(ge=1, le=5)
    label: Literal["good", "bad"]
    reason: str


@pytest.mark.anyio
async def test_ollama_health_check_reports_up_and_down_quickly() -> None:
    with fake_ollama() as fake:
        assert await ob.ollama_version(fake.host) == "0.0.0-fake"
        assert await ob.is_reachable(fake.host)
    started = time.monotonic()
    assert not await ob.is_reachable(free_port_url(), timeout_s=0.5)
    assert time.monotonic() - started < 2.0


@pytest.mark.anyio
async def test_ollama_list_models_returns_tags_and_sizes() -> None:
    with fake_ollama(FakeOllamaState(models=[MODEL, "llama3.2:1b"])) as fake:
        models = await ob.list_models(fake.host)
    assert [m.name for m in models] == [MODEL, "llama3.2:1b"]
    assert models[0].size_bytes == 398_000_000
    assert ob.has_model(models, MODEL) and not ob.has_model(models, "qwen2.5:1.5b")


@pytest.mark.anyio
async def test_ollama_list_models_unreachable_raises_with_fix() -> None:
    with pytest.raises(ob.OllamaUnavailableError, match="ollama serve"):
        await ob.list_models(free_port_url())


@pytest.mark.anyio
async def test_ollama_pull_reports_progress_in_order() -> None:
    events: list[ob.PullProgress] = []
    with fake_ollama(FakeOllamaState(pullable={MODEL})) as fake:
        await ob.pull_model(fake.host, MODEL, events.append)
        assert fake.state.requests[-1] == ("/api/pull", {"model": MODEL, "insecure": False, "stream": True})
        assert ob.has_model(await ob.list_models(fake.host), MODEL)
    assert events[0].status == "pulling manifest"
    assert [e.fraction for e in events if e.total] == [0.0, 1 / 3, 1.0]
    assert events[-1].status == "success"


@pytest.mark.anyio
async def test_ollama_pull_unknown_model_raises_pull_error() -> None:
    with fake_ollama() as fake, pytest.raises(ob.OllamaPullError, match="does not exist"):
        await ob.pull_model(fake.host, "no-such-model:1b")


@pytest.mark.anyio
async def test_ollama_pull_unreachable_raises_unavailable() -> None:
    with pytest.raises(ob.OllamaUnavailableError):
        await ob.pull_model(free_port_url(), MODEL)


@pytest.mark.anyio
async def test_open_backend_auto_picks_ollama_when_up_with_model() -> None:
    with fake_ollama(FakeOllamaState(models=[MODEL])) as fake:
        async with open_backend(LLMConfig(ollama_host=fake.host)) as backend:
            picked = (backend.name, backend.model_name, backend.base_url)
    assert picked == ("ollama", MODEL, f"{fake.host}/v1")


@pytest.mark.anyio
async def test_open_backend_auto_falls_back_to_embedded_when_nothing_listens() -> None:
    async with open_backend(LLMConfig(ollama_host=free_port_url(), probe_timeout_s=0.5)) as backend:
        assert backend.name == "embedded"
        assert backend.base_url.startswith("http://127.0.0.1:")


@pytest.mark.anyio
async def test_open_backend_auto_falls_back_to_embedded_when_model_not_pulled(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with fake_ollama(FakeOllamaState(models=["llama3.2:1b"])) as fake:
        async with open_backend(LLMConfig(ollama_host=fake.host)) as backend:
            assert backend.name == "embedded"
    assert "reverie models pull" in caplog.text


@pytest.mark.anyio
async def test_open_backend_explicit_ollama_errors_name_the_fix() -> None:
    nobody = LLMConfig(backend="ollama", ollama_host=free_port_url(), probe_timeout_s=0.5)
    with pytest.raises(ob.OllamaUnavailableError, match="ollama serve"):
        async with open_backend(nobody):
            pass
    with fake_ollama() as fake, pytest.raises(ob.OllamaModelMissingError, match="reverie models pull"):
        async with open_backend(LLMConfig(backend="ollama", ollama_host=fake.host)):
            pass


@pytest.mark.anyio
async def test_ollama_structured_request_sends_json_schema_response_format() -> None:
    state = FakeOllamaState(models=[MODEL], chat_reply='{"score":4,"label":"good","reason":"fine"}')
    with fake_ollama(state) as fake:
        async with open_backend(LLMConfig(backend="ollama", ollama_host=fake.host)) as backend:
            agent = Agent(backend.model, output_type=output_spec(backend, Verdict))
            result = await agent.run("Judge it.", model_settings=backend.structured_settings(Verdict))
    assert result.output == Verdict(score=4, label="good", reason="fine")
    path, body = state.requests[-1]
    assert path == "/v1/chat/completions" and body["model"] == MODEL
    fmt = body["response_format"]
    assert fmt["type"] == "json_schema"
    schema = fmt["json_schema"]["schema"]
    assert schema["properties"]["score"] == {"maximum": 5, "minimum": 1, "title": "Score", "type": "integer"}
    assert schema["additionalProperties"] is False and "x-guidance" not in schema
    assert "grammar" not in body
    assert "score" in json.dumps(body["messages"])  # prompted output: the schema is in the instructions


@pytest.mark.anyio
async def test_ollama_chat_failure_surfaces_as_model_api_error() -> None:
    with fake_ollama(FakeOllamaState(models=[MODEL], chat_status=500)) as fake:
        async with open_backend(LLMConfig(backend="ollama", ollama_host=fake.host)) as backend:
            with pytest.raises(ModelAPIError, match="unexpectedly stopped"):
                await Agent(backend.model).run("Hello?")


@pytest.mark.ollama
@pytest.mark.anyio
async def test_ollama_live_server_answers_structured_output() -> None:
    host = os.environ.get("OLLAMA_HOST", "")
    if not host or not await ob.is_reachable(host):
        pytest.skip("no live Ollama at OLLAMA_HOST")
    if not ob.has_model(await ob.list_models(host), MODEL):
        pytest.skip(f"{MODEL} is not pulled on the live Ollama")
    async with open_backend(LLMConfig(backend="ollama", ollama_host=host)) as backend:
        agent = Agent(backend.model, output_type=output_spec(backend, Verdict))
        settings = backend.structured_settings(Verdict)
        result = await agent.run("Rate the movie Titanic.", model_settings=settings)
    assert 1 <= result.output.score <= 5
