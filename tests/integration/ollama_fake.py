"""A small fake Ollama on 127.0.0.1 speaking the documented HTTP API (stdlib only).

Routes: ``GET /api/version``, ``GET /api/tags``, ``POST /api/pull`` (NDJSON progress stream),
``POST /api/embed`` (vectors from the test's ``embed`` function),
``POST /v1/chat/completions`` (OpenAI shape, streamed as SSE when asked). Every request body is
recorded so tests can check what the client sent; a `script` can choose each reply's content
(tests/e2e/scripted_llm.py drives the real server with it).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

LAYER = "sha256:" + "ab" * 32
LAYER_SIZE = 3000
_USAGE = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}


@dataclass
class FakeOllamaState:
    """What the fake knows and what it was sent.

    Attributes:
        models: Tags ``/api/tags`` lists; a successful pull adds to it.
        pullable: Tags ``/api/pull`` accepts; others get an error line, as Ollama does.
        chat_reply: Content returned by ``/v1/chat/completions``.
        chat_status: HTTP status of chat replies; not 200 sends Ollama's error shape.
        requests: ``(path, body)`` of every POST, in order.
        script: When set, the content of each chat reply is ``script(body)`` instead of ``chat_reply``.
        delay: Seconds slept after each streamed piece (a slow model, to act mid-stream).
        embed: The vectors ``/api/embed`` returns for a list of texts, for any model in ``models``;
            another model gets Ollama's 404 "not found, try pulling it first".
    """

    models: list[str] = field(default_factory=list)
    pullable: set[str] = field(default_factory=set)
    chat_reply: str = "Hello from the fake."
    chat_status: int = 200
    requests: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    script: Callable[[dict[str, Any]], str] | None = None
    delay: float = 0.0
    embed: Callable[[list[str]], list[list[float]]] | None = None


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output quiet."""

    def do_GET(self) -> None:
        """Serve the read-only routes."""
        if self.path == "/api/version":
            self._json({"version": "0.0.0-fake"})
        elif self.path == "/api/tags":
            tags = self.server.state.models
            self._json({"models": [{"name": m, "model": m, "size": 398_000_000} for m in tags]})
        else:
            self._json({"error": "not found"}, status=404)

    def do_POST(self) -> None:
        """Serve pull and chat, recording the body."""
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        self.server.state.requests.append((self.path, body))
        if self.path == "/api/pull":
            self._pull(body)
        elif self.path == "/v1/chat/completions":
            self._chat(body)
        elif self.path == "/api/embed":
            self._embed(body)
        else:
            self._json({"error": "not found"}, status=404)

    def _pull(self, body: dict[str, Any]) -> None:
        model = body.get("model", "")
        lines: list[dict[str, Any]] = [{"status": "pulling manifest"}]
        if model not in self.server.state.pullable:
            lines.append({"error": "pull model manifest: file does not exist"})
        else:
            layer = {"status": f"pulling {LAYER[7:19]}", "digest": LAYER, "total": LAYER_SIZE}
            lines += [{**layer, "completed": done} for done in (0, 1000, 3000)]
            lines += [{"status": s} for s in ("verifying sha256 digest", "writing manifest", "success")]
            self.server.state.models.append(model)
        payload = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _chat(self, body: dict[str, Any]) -> None:
        state = self.server.state
        if state.chat_status != 200:
            error = {"message": "model runner has unexpectedly stopped", "type": "api_error", "param": None}
            self._json({"error": error}, status=state.chat_status)
            return
        content = state.script(body) if state.script else state.chat_reply
        if body.get("stream"):
            self._sse(content, body.get("model"))
            return
        message = {"role": "assistant", "content": content}
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        self._json({"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": body.get("model"),
                    "system_fingerprint": "fp_ollama", "choices": [choice], "usage": _USAGE})  # fmt: skip

    def _sse(self, content: str, model: Any) -> None:
        """Stream `content` in 12-character pieces as OpenAI chat-completion chunks."""
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        pieces = [content[i : i + 12] for i in range(0, len(content), 12)]
        for n, piece in enumerate([*pieces, None]):
            delta = {"role": "assistant", "content": piece} if piece is not None else {}
            chunk: dict[str, Any] = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0,
                                     "model": model, "choices": [{"index": 0, "delta": delta,
                                     "finish_reason": None if piece else "stop"}]}  # fmt: skip
            if n == len(pieces):
                chunk["usage"] = _USAGE
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()
            time.sleep(self.server.state.delay)
        self.wfile.write(b"data: [DONE]\n\n")

    def _embed(self, body: dict[str, Any]) -> None:
        state, model = self.server.state, body.get("model", "")
        if state.embed is None or model not in state.models:
            self._json({"error": f'model "{model}" not found, try pulling it first'}, status=404)
            return
        texts = body.get("input", [])
        self._json({"model": model, "embeddings": state.embed([texts] if isinstance(texts, str) else texts)})

    def _json(self, data: dict[str, Any], status: int = 200) -> None:
        payload = json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, state: FakeOllamaState) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.state = state


@dataclass(frozen=True)
class FakeOllama:
    """A running fake: ``host`` is its root URL, ``state`` its data."""

    host: str
    state: FakeOllamaState


@contextmanager
def fake_ollama(state: FakeOllamaState | None = None) -> Iterator[FakeOllama]:
    """Serve a fake Ollama on a free loopback port for the duration of the block."""
    server = _Server(state or FakeOllamaState())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield FakeOllama(f"http://127.0.0.1:{server.server_address[1]}", server.state)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def free_port_url() -> str:
    """A loopback URL where nothing listens (the port was free a moment ago)."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"
