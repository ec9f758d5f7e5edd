"""The real embedded llama.cpp server (SmolLM2-135M) through open_backend and pydantic-ai."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator
from typing import Literal

import httpx
import psutil
import pytest
from pydantic import BaseModel, Field
from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelAPIError

from app.embedded_llm import DEFAULT_ALIAS, embedded_server, start_embedded_server
from app.llm import Backend, LLMConfig, open_backend, output_spec

pytestmark = pytest.mark.no_backend  # the model and its server, no store: nothing to run on PostgreSQL

STRUCTURED_RUNS = 5


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def backend() -> AsyncIterator[Backend]:
    """One embedded server for the module: start-up costs ~1.3 s."""
    async with open_backend(LLMConfig(backend="embedded")) as opened:
        yield opened


class Review(BaseModel):
    stars: int = Field(ge=1, le=5)
    confidence: float = Field(ge=0.0, le=1.0)
    mood: Literal["happy", "sad", "neutral"]
    summary: str = Field(max_length=60)


class Answer(BaseModel):
    kind: Literal["answer"] = "answer"
    text: str = Field(max_length=50)


class NeedsMoreInfo(BaseModel):
    kind: Literal["needs_more_info"] = "needs_more_info"
    question: str = Field(max_length=50)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped by its parent) counts as gone.
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().split(") ")[1][0] != "Z"


@pytest.mark.anyio
async def test_embedded_server_listens_on_loopback_and_answers_chat(backend: Backend) -> None:
    assert backend.name == "embedded" and backend.base_url.startswith("http://127.0.0.1:")
    async with httpx.AsyncClient(base_url=backend.base_url, timeout=60) as client:
        models = (await client.get("/models")).json()
        assert [m["id"] for m in models["data"]] == [DEFAULT_ALIAS]
        assert models["data"][0]["meta"]["n_ctx_train"] >= 4096
        body = {"model": backend.model_name, "messages": [{"role": "user", "content": "Say hello."}]}
        reply = (await client.post("/chat/completions", json={**body, "max_tokens": 16})).json()
    assert reply["choices"][0]["message"]["content"].strip()
    assert reply["usage"]["completion_tokens"] > 0


@pytest.mark.anyio
async def test_embedded_agent_streams_text_in_several_chunks(backend: Backend) -> None:
    agent = Agent(backend.model, instructions="You are a storyteller.")
    async with agent.run_stream("Tell a short story about a cat.", model_settings={"max_tokens": 40}) as run:
        chunks = [chunk async for chunk in run.stream_text(delta=True, debounce_by=None)]
    assert len(chunks) > 5
    assert "".join(chunks).strip()


@pytest.mark.anyio
async def test_embedded_structured_output_is_schema_valid_every_time(backend: Backend) -> None:
    agent = Agent(backend.model, output_type=output_spec(backend, Review))
    settings = {**backend.structured_settings(Review), "max_tokens": 120}
    prompts = ["Titanic", "a rainy Monday", "pizza", "the ocean", "a broken phone"]
    for subject in prompts[:STRUCTURED_RUNS]:
        result = await agent.run(f"Review {subject}.", model_settings=settings)
        review = result.output
        assert isinstance(review, Review)  # pydantic validated bounds, enum and length
        assert 1 <= review.stars <= 5 and 0.0 <= review.confidence <= 1.0


@pytest.mark.anyio
async def test_embedded_structured_output_handles_discriminated_union(backend: Backend) -> None:
    output = Answer | NeedsMoreInfo
    agent = Agent(backend.model, output_type=output_spec(backend, output))
    settings = {**backend.structured_settings(output), "max_tokens": 120}
    result = await agent.run("What is the capital of France?", model_settings=settings)
    assert isinstance(result.output, Answer | NeedsMoreInfo)


@pytest.mark.anyio
async def test_embedded_server_stops_without_leaking_the_process() -> None:
    server = await start_embedded_server()
    assert _pid_alive(server.pid)
    await server.stop()
    assert server.process.returncode == 0  # graceful: stdin closed, llama.cpp shut down
    assert not _pid_alive(server.pid)


@pytest.mark.anyio
async def test_embedded_crash_surfaces_as_model_api_error() -> None:
    async with open_backend(LLMConfig(backend="embedded")) as opened:
        assert opened.embedded is not None
        os.kill(opened.embedded.pid, signal.SIGKILL)  # what a llama.cpp abort looks like from outside
        with pytest.raises(ModelAPIError):
            await Agent(opened.model).run("Hello?")
        # the request can fail (its socket closed) a moment before the killed child is reaped: wait for it
        opened.embedded.process.wait(timeout=30)
        assert not opened.embedded.is_running()


def test_embedded_server_dies_with_its_parent() -> None:
    """The parent is SIGKILLed (no cleanup runs): the child must exit by itself."""
    script = textwrap.dedent(
        """
        import anyio, os, sys
        from app.embedded_llm import start_embedded_server
        async def main():
            server = await start_embedded_server()
            print(server.pid, flush=True)
            await anyio.sleep(60)
        anyio.run(main)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, cwd=os.getcwd())
    assert parent.stdout is not None
    child_pid = int(parent.stdout.readline())
    parent.kill()
    parent.wait()
    parent.stdout.close()
    deadline = time.monotonic() + 5
    while _pid_alive(child_pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _pid_alive(child_pid)


async def _model_rss_growth(cache_mb: int, prompts: int) -> float:
    """MB the model process grew by over `prompts` distinct ~450-token prompts (each moves the one
    slot away from the last, whose state llama.cpp then keeps in host memory, up to `cache_mb`)."""
    async with embedded_server(cache_mb=cache_mb) as server, httpx.AsyncClient(timeout=300) as client:
        url, rss = f"{server.base_url}/v1/chat/completions", psutil.Process(server.pid).memory_info
        await client.post(url, json={"model": server.model_name, "max_tokens": 1, "messages": [
            {"role": "user", "content": "Hello."}]})  # fmt: skip
        start = rss().rss
        for i in range(prompts):
            text = f"Note {i}: " + " ".join(f"bed {j} of plot {i} has plant {j * i}" for j in range(60))
            reply = await client.post(url, json={"model": server.model_name, "max_tokens": 1,
                                                 "messages": [{"role": "user", "content": text}]})  # fmt: skip
            assert reply.status_code == 200
        return (rss().rss - start) / 2**20


@pytest.mark.anyio
async def test_embedded_model_memory_stays_bounded_however_many_prompts_it_saw() -> None:
    """The prompt states llama.cpp keeps are bounded by REVERIE_EMBEDDED_CACHE_MB: with its own 8 GB
    default the model's RSS grew ~32 MB with every new 1,400-token prompt (docs/benchmarks.md, issue 15)."""
    bounded = await _model_rss_growth(cache_mb=8, prompts=10)
    assert bounded < 40, f"grew {bounded:.0f} MB: more than the working KV cache and an 8 MB prompt cache"
