"""The Ollama path: health check, model listing, pulling, and the pydantic-ai model.

Default model: ``qwen2.5:0.5b``. The box has 2 GB of RAM and 1 vCPU, and the app itself takes
~300 MB. The Ollama library lists ``qwen2.5:0.5b`` at 398 MB (Q4_K_M, 494M parameters, 32k
context). Resident memory is roughly the weights plus the KV cache (24 layers x 2 KV heads x 64
dims x 2 (K and V) x 2 bytes = ~12 KB per token: ~50 MB at 4096 tokens) plus the Ollama server
and runner (~100-150 MB), so ~0.6 GB, leaving ~1 GB of headroom for the OS, page cache and the
embedder. The next size up, ``qwen2.5:1.5b`` (986 MB), would need ~1.3 GB on its own: too tight
next to the app. ``llama3.2:1b`` (1.3 GB) likewise. Qwen 2.5 follows JSON schemas and system
prompts markedly better than SmolLM2 at the same budget. These are published sizes: no Ollama
binary was available to measure RSS here.

Structured output on Ollama: its OpenAI-compatible endpoint translates
``response_format={"type": "json_schema", "json_schema": {"schema": ...}}`` into its native
JSON-schema ``format`` (``openai/openai.go``, ``FromChatRequest``); an extra ``format`` field in
the body is silently ignored. ``app.llm`` builds that ``response_format``.

Errors: ``OllamaUnavailableError`` (not reachable), ``OllamaModelMissingError`` (model not
pulled), ``OllamaPullError`` (pull failed); all subclass ``OllamaError``. Failures during a chat
go through pydantic-ai and surface as ``ModelAPIError`` subclasses.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import httpx
import ollama
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.ollama import OllamaProvider
from pydantic_ai.settings import ModelSettings

DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"
DEFAULT_OLLAMA_MODEL = "qwen2.5:0.5b"
PULL_FIX = "run: reverie models pull"


class OllamaError(RuntimeError):
    """Base class for Ollama failures outside a chat request."""


class OllamaUnavailableError(OllamaError):
    """Ollama did not answer at the configured host."""


class OllamaModelMissingError(OllamaError):
    """Ollama is up but the configured model has not been pulled."""


class OllamaPullError(OllamaError):
    """Pulling a model failed."""


@dataclass(frozen=True)
class OllamaModelInfo:
    """A model Ollama has locally.

    Attributes:
        name: Tag as Ollama reports it, e.g. ``qwen2.5:0.5b``.
        size_bytes: Size on disk.
    """

    name: str
    size_bytes: int


@dataclass(frozen=True)
class PullProgress:
    """One progress event of a pull (``/api/pull`` streams one per line).

    Attributes:
        status: Ollama's phase text, e.g. ``pulling manifest``, ``downloading``, ``success``.
        completed: Bytes done for the current layer, when known.
        total: Bytes of the current layer, when known.
        digest: Layer digest, when the event is about a layer.
    """

    status: str
    completed: int | None = None
    total: int | None = None
    digest: str | None = None

    @property
    def fraction(self) -> float | None:
        """Completed share of the current layer (0..1), or ``None`` when unknown."""
        if not self.total or self.completed is None:
            return None
        return min(1.0, self.completed / self.total)


def normalize_host(host: str) -> str:
    """Return ``host`` with a scheme and without a trailing slash (``127.0.0.1:11434`` -> ``http://...``)."""
    host = host.strip().rstrip("/")
    return host if "://" in host else f"http://{host}"


async def ollama_version(host: str, timeout_s: float = 1.0) -> str | None:
    """Ask Ollama for its version; ``None`` if nothing answers in ``timeout_s``.

    Args:
        host: Ollama root URL, e.g. ``http://127.0.0.1:11434``.
        timeout_s: Whole-request budget; keep it short, this runs at start-up.
    """
    try:
        async with httpx.AsyncClient(timeout=timeout_s) as client:
            response = await client.get(f"{normalize_host(host)}/api/version")
            response.raise_for_status()
            return str(response.json().get("version", "unknown"))
    except (httpx.HTTPError, ValueError):
        return None


async def is_reachable(host: str, timeout_s: float = 1.0) -> bool:
    """Whether an Ollama server answers at ``host`` within ``timeout_s``."""
    return await ollama_version(host, timeout_s) is not None


async def list_models(host: str, timeout_s: float = 5.0) -> list[OllamaModelInfo]:
    """List the models Ollama has pulled.

    Raises:
        OllamaUnavailableError: Ollama is not reachable.
    """
    try:
        async with ollama.AsyncClient(normalize_host(host), timeout=timeout_s) as client:
            listed = await client.list()
    except (ConnectionError, httpx.HTTPError, ollama.ResponseError) as exc:
        raise _unavailable(host) from exc
    return [OllamaModelInfo(m.model or "", int(m.size or 0)) for m in listed.models]


def has_model(models: list[OllamaModelInfo], model: str) -> bool:
    """Whether ``model`` is among ``models`` (a tag without ``:`` means ``:latest``, as Ollama does)."""
    wanted = model if ":" in model else f"{model}:latest"
    return any(m.name in (model, wanted) for m in models)


async def pull_model(
    host: str, model: str, on_progress: Callable[[PullProgress], None] | None = None
) -> None:
    """Pull ``model`` into Ollama, reporting each streamed progress event.

    Args:
        host: Ollama root URL, e.g. ``http://127.0.0.1:11434``.
        model: Tag to pull, e.g. ``qwen2.5:0.5b``.
        on_progress: Called for every event, in order; the last one has status ``success``.

    Raises:
        OllamaUnavailableError: Ollama is not reachable.
        OllamaPullError: Ollama reported an error (unknown model, disk full, network).
    """
    # A pull downloads hundreds of MB: no read timeout, but fail fast if nobody listens.
    timeout = httpx.Timeout(None, connect=5.0)
    last_status = ""
    try:
        async with ollama.AsyncClient(normalize_host(host), timeout=timeout) as client:
            async for event in await client.pull(model, stream=True):
                last_status = event.status or ""
                if on_progress is not None:
                    on_progress(PullProgress(last_status, event.completed, event.total, event.digest))
    except (ConnectionError, httpx.ConnectError) as exc:
        raise _unavailable(host) from exc
    except (ollama.ResponseError, httpx.HTTPError) as exc:
        raise OllamaPullError(f"Pulling {model!r} from Ollama at {host} failed: {exc}") from exc
    if last_status != "success":
        raise OllamaPullError(f"Pulling {model!r} ended without success (last status: {last_status!r}).")


def ollama_chat_model(host: str, model: str, timeout_s: float) -> OpenAIChatModel:
    """The pydantic-ai model for ``model`` on Ollama's OpenAI-compatible endpoint.

    Enter it (``async with``) to close its HTTP client when done.

    Args:
        host: Ollama root URL.
        model: Pulled model tag.
        timeout_s: Per-request timeout.
    """
    provider = OllamaProvider(base_url=f"{normalize_host(host)}/v1")
    # max_retries=0: a local server that failed will fail again; the UI reports it at once.
    return OpenAIChatModel(model, provider=provider, settings=ModelSettings(timeout=timeout_s, max_retries=0))


def _unavailable(host: str) -> OllamaUnavailableError:
    return OllamaUnavailableError(
        f"Ollama is not reachable at {host}. Fix: start it (`ollama serve`), check the host setting, "
        "or use the 'auto'/'embedded' backend."
    )
