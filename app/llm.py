"""One entry point for the LLM: ``open_backend(cfg)`` yields a pydantic-ai model, Ollama or embedded.

Structured output works the same way on both backends::

    async with open_backend(cfg) as backend:
        agent = Agent(backend.model, output_type=output_spec(backend, Verdict))
        result = await agent.run(prompt, model_settings=backend.structured_settings(Verdict))

``output_spec`` is a ``PromptedOutput`` (the schema goes into the instructions, which a small
model needs), and ``structured_settings`` adds the backend's constrained decoding:

* embedded llama.cpp: an llguidance grammar in ``extra_body["grammar"]``. The model profile
  turns off ``json_object``, because llama.cpp lets ``response_format`` override a grammar.
* Ollama: ``extra_body["response_format"]`` with ``json_schema``, which Ollama's OpenAI layer
  maps to its native ``format`` (it would otherwise get pydantic-ai's ``json_object``).

The grammar schema is hardened (``grammar_schema``) so that a 135M model cannot ramble: no
extra keys, no free whitespace, bounded strings and arrays. It must describe exactly the JSON
pydantic-ai parses; for a union that is pydantic-ai's envelope
``{"result": {"kind": <class name>, "data": {...}}}`` (a unit test pins this contract).

Errors during a run: an unreachable or crashed server raises pydantic-ai's
``ModelConnectionError`` (a ``ModelAPIError``); an HTTP error from the server a
``ModelHTTPError`` (also ``ModelAPIError``); output that fails validation after retries
``UnexpectedModelBehavior``. Start-up raises ``EmbeddedModelMissingError``,
``EmbeddedServerError``, ``OllamaUnavailableError`` or ``OllamaModelMissingError``.
"""

from __future__ import annotations

import json
import logging
import types
import typing
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, TypeAdapter
from pydantic_ai import PromptedOutput
from pydantic_ai.models import Model
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.profiles.openai import OpenAIModelProfile
from pydantic_ai.providers.openai_compatible import OpenAICompatibleProvider
from pydantic_ai.settings import ModelSettings

from app import ollama_backend
from app.embedded_llm import DEFAULT_CACHE_MB, DEFAULT_CTX, EmbeddedServer, embedded_server

log = logging.getLogger(__name__)

BackendChoice = Literal["auto", "ollama", "embedded"]
MAX_STRING_LENGTH = 400  # bounds every free string: small models otherwise pad until max_tokens
MAX_ARRAY_ITEMS = 20
# llama.cpp: no json_object (it would override our grammar), structured output via the prompt,
# and `max_tokens` rather than OpenAI's newer `max_completion_tokens`.
EMBEDDED_PROFILE = OpenAIModelProfile(
    supports_json_object_output=False,
    supports_json_schema_output=False,
    default_structured_output_mode="prompted",
    openai_chat_supports_max_completion_tokens=False,
)


@dataclass(frozen=True)
class LLMConfig:
    """Plain values that pick and configure the LLM backend.

    Attributes:
        backend: ``auto`` (Ollama if it answers and has the model, else embedded), ``ollama`` or ``embedded``.
        ollama_host: Ollama root URL.
        ollama_model: Ollama model tag.
        embedded_model_path: GGUF for the embedded server; ``None`` = the packaged SmolLM2.
        embedded_threads: llama.cpp threads (1 is fastest on a busy 2-core box).
        embedded_ctx: Embedded context window in tokens.
        embedded_cache_mb: Host memory llama.cpp keeps earlier prompts' states in.
        timeout_s: Per-request timeout for chat calls.
        probe_timeout_s: How long ``auto`` waits for Ollama before choosing the embedded model.
        startup_timeout_s: How long to wait for the embedded server to come up.
        keep_free_port: The app's own web port, which the embedded server must not take.
    """

    backend: BackendChoice = "auto"
    ollama_host: str = ollama_backend.DEFAULT_OLLAMA_HOST
    ollama_model: str = ollama_backend.DEFAULT_OLLAMA_MODEL
    embedded_model_path: Path | None = None
    embedded_threads: int = 1
    embedded_ctx: int = DEFAULT_CTX
    embedded_cache_mb: int = DEFAULT_CACHE_MB
    timeout_s: float = 120.0
    probe_timeout_s: float = 1.0
    startup_timeout_s: float = 60.0
    keep_free_port: int | None = None


@dataclass(frozen=True)
class Backend:
    """An opened LLM backend.

    Attributes:
        name: ``ollama`` or ``embedded``.
        model_name: Model name sent in requests.
        base_url: OpenAI-compatible base URL (ends in ``/v1``).
        model: The pydantic-ai model to give to an ``Agent``.
        embedded: The child server when ``name == "embedded"`` (``is_running()`` tells if it crashed).
    """

    name: Literal["ollama", "embedded"]
    model_name: str
    base_url: str
    model: Model
    embedded: EmbeddedServer | None = None

    def structured_settings(self, output: type[BaseModel] | types.UnionType) -> ModelSettings:
        """Model settings that make this backend emit schema-valid JSON for ``output``.

        Args:
            output: A pydantic model, or a union of them (``Answer | NeedsMoreInfo``).
        """
        schema = grammar_schema(output)
        if self.name == "embedded":
            return ModelSettings(extra_body={"grammar": "%llguidance {}\nstart: %json " + json.dumps(schema)})
        schema.pop("x-guidance", None)  # llguidance-only keyword
        name = schema.get("title") or "output"
        fmt = {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}
        return ModelSettings(extra_body={"response_format": fmt})


def output_spec(backend: Backend, output: type[BaseModel] | types.UnionType) -> PromptedOutput[Any]:
    """What to pass as an Agent's ``output_type`` for ``output`` on ``backend``.

    Both backends use prompted output; ``backend`` is taken so that a backend with reliable
    native structured output can switch to ``NativeOutput`` here without touching callers.
    A union is passed as its members, so the run's output is the member instance itself.
    """
    del backend
    members = _members(output)
    return PromptedOutput(members[0] if len(members) == 1 else list(members))


def grammar_schema(
    output: type[BaseModel] | types.UnionType,
    *,
    max_string_length: int = MAX_STRING_LENGTH,
    max_items: int = MAX_ARRAY_ITEMS,
) -> dict[str, Any]:
    """The JSON schema a grammar should enforce so that pydantic-ai can parse the reply as ``output``.

    Every object gets ``additionalProperties: false``; every free string a ``maxLength``;
    every array a ``maxItems``; ``oneOf`` becomes ``anyOf`` (what llguidance implements);
    the top level gets ``"x-guidance": {"whitespace_flexible": false}``. Enums and consts
    (``Literal`` ids) are kept as lists of allowed values.

    Args:
        output: A pydantic model, or a union of them (each a pydantic model).
        max_string_length: Upper bound applied to strings that have none lower.
        max_items: Upper bound applied to arrays that have none lower.
    """
    members = _members(output)
    schema = TypeAdapter(members[0]).json_schema() if len(members) == 1 else _union_envelope(members)
    hardened = _harden(schema, max_string_length, max_items)
    hardened["x-guidance"] = {"whitespace_flexible": False}
    return hardened


@asynccontextmanager
async def open_backend(cfg: LLMConfig) -> AsyncIterator[Backend]:
    """Open the configured backend and close whatever it started on exit.

    Raises:
        OllamaUnavailableError: backend ``ollama`` and Ollama does not answer.
        OllamaModelMissingError: backend ``ollama`` and the model is not pulled.
        EmbeddedModelMissingError: the embedded GGUF is missing.
        EmbeddedServerError: the embedded server did not start.
    """
    async with AsyncExitStack() as stack:
        if await _use_ollama(cfg):
            model = ollama_backend.ollama_chat_model(cfg.ollama_host, cfg.ollama_model, cfg.timeout_s)
            base_url = f"{ollama_backend.normalize_host(cfg.ollama_host)}/v1"
            backend = Backend("ollama", cfg.ollama_model, base_url, model)
        else:
            backend = await _open_embedded(cfg, stack)
        await stack.enter_async_context(backend.model)  # closes the provider's HTTP client on exit
        log.info("LLM backend: %s (%s at %s)", backend.name, backend.model_name, backend.base_url)
        yield backend


async def _use_ollama(cfg: LLMConfig) -> bool:
    """Whether to use Ollama: ``ollama`` insists (raising with the fix), ``auto`` falls back quietly."""
    if cfg.backend == "embedded":
        return False
    try:
        await _check_ollama(cfg)
    except ollama_backend.OllamaError as exc:
        if cfg.backend == "ollama":
            raise
        if isinstance(exc, ollama_backend.OllamaUnavailableError):
            # The normal case on a box without Ollama: nothing to fix, so no warning.
            log.info("Ollama is not running at %s; using the embedded model.", cfg.ollama_host)
        else:
            log.warning("%s Using the embedded model meanwhile.", exc)
        return False
    return True


async def _check_ollama(cfg: LLMConfig) -> None:
    host = cfg.ollama_host
    if not await ollama_backend.is_reachable(host, cfg.probe_timeout_s):
        raise ollama_backend.OllamaUnavailableError(
            f"Ollama is not reachable at {host}. Fix: start it (`ollama serve`) or use the 'auto' backend."
        )
    models = await ollama_backend.list_models(host, timeout_s=max(cfg.probe_timeout_s, 5.0))
    if not ollama_backend.has_model(models, cfg.ollama_model):
        raise ollama_backend.OllamaModelMissingError(
            f"Ollama at {host} does not have {cfg.ollama_model!r}. Fix: {ollama_backend.PULL_FIX}"
        )


async def _open_embedded(cfg: LLMConfig, stack: AsyncExitStack) -> Backend:
    server = await stack.enter_async_context(
        embedded_server(
            cfg.embedded_model_path,
            n_threads=cfg.embedded_threads,
            n_ctx=cfg.embedded_ctx,
            cache_mb=cfg.embedded_cache_mb,
            startup_timeout_s=cfg.startup_timeout_s,
            keep_free=cfg.keep_free_port,
        )
    )
    base_url = f"{server.base_url}/v1"
    provider = OpenAICompatibleProvider("llama.cpp", base_url=base_url, profile=EMBEDDED_PROFILE)
    # max_retries=0: if the child died, retrying only delays the error the UI must show.
    settings = ModelSettings(timeout=cfg.timeout_s, max_retries=0)
    model = OpenAIChatModel(server.model_name, provider=provider, settings=settings)
    return Backend("embedded", server.model_name, base_url, model, server)


def _members(output: Any) -> tuple[type[BaseModel], ...]:
    """The pydantic models making up ``output`` (one class, or the members of a union)."""
    if typing.get_origin(output) is typing.Annotated:
        output = typing.get_args(output)[0]
    is_union = typing.get_origin(output) in (typing.Union, types.UnionType)
    members = typing.get_args(output) if is_union else (output,)
    for member in members:
        if not (isinstance(member, type) and issubclass(member, BaseModel)):
            raise TypeError(f"structured output must be pydantic models, got {member!r}")
    return members


def _union_envelope(members: Sequence[type[BaseModel]]) -> dict[str, Any]:
    """pydantic-ai's JSON shape for a union output: ``{"result": {"kind": <title>, "data": {...}}}``."""
    branches: list[dict[str, Any]] = []
    defs: dict[str, Any] = {}
    for member in members:
        schema = TypeAdapter(member).json_schema()
        for name, definition in schema.pop("$defs", {}).items():
            if defs.setdefault(name, definition) != definition:
                raise ValueError(f"two union members define different schemas named {name!r}")
        kind = {"type": "string", "const": schema.get("title", member.__name__)}
        properties = {"kind": kind, "data": schema}
        branches.append({"type": "object", "properties": properties, "required": ["kind", "data"]})
    envelope: dict[str, Any] = {
        "type": "object",
        "properties": {"result": {"anyOf": branches}},
        "required": ["result"],
    }
    if defs:
        envelope["$defs"] = defs
    return envelope


_SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")
_SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SCHEMA_VALUES = ("items", "additionalProperties", "not", "contains", "propertyNames", "if", "then", "else")


def _harden(node: dict[str, Any], max_len: int, max_items: int) -> dict[str, Any]:
    """Tighten one JSON schema node and its sub-schemas (see ``grammar_schema``).

    Only schema-valued keywords are walked: ``enum``, ``const`` and ``default`` hold data, and
    ``properties`` maps field names (which may well be ``"type"``) to schemas.
    """
    out = dict(node)
    for key in _SCHEMA_MAPS:
        if isinstance(out.get(key), dict):
            out[key] = {name: _harden(sub, max_len, max_items) for name, sub in out[key].items()}
    for key in _SCHEMA_LISTS:
        if isinstance(out.get(key), list):
            out[key] = [_harden(sub, max_len, max_items) for sub in out[key]]
    for key in _SCHEMA_VALUES:
        if isinstance(out.get(key), dict):
            out[key] = _harden(out[key], max_len, max_items)
    if "oneOf" in out:
        # Discriminated unions: the branches' distinct `kind` consts make anyOf equivalent.
        out["anyOf"] = out.pop("oneOf")
    out.pop("discriminator", None)  # OpenAPI keyword, not JSON Schema: llguidance would reject it
    declared = out.get("type")
    types_ = set(declared) if isinstance(declared, list) else {declared}
    if "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    if "string" in types_ and not ({"enum", "const", "format", "pattern"} & out.keys()):
        out["maxLength"] = min(out.get("maxLength", max_len), max_len)
    if "array" in types_:
        out["maxItems"] = min(out.get("maxItems", max_items), max_items)
    return out
