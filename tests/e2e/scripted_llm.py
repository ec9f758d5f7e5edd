"""A scripted language model on 127.0.0.1 that speaks Ollama's discovery routes and the
OpenAI-compatible chat API (streaming too), so the REAL server can be driven deterministically.

Used where the test needs a specific behaviour the 135M model will not reliably choose (an
info round, cited sources, follow-ups); the real embedded model is exercised by the other
browser tests.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "qwen2.5:0.5b"
Script = Callable[[dict[str, Any]], str]


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_GET(self) -> None:
        """Discovery: version and the model list (the configured tag is "pulled")."""
        if self.path == "/api/version":
            self._json({"version": "0.0.0-scripted"})
        else:
            self._json({"models": [{"name": MODEL, "model": MODEL, "size": 398_000_000}]})

    def do_POST(self) -> None:
        """Chat completions: the script decides the content; streamed as SSE when asked."""
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        content = self.server.script(body)
        if body.get("stream"):
            self._sse(content)
            return
        message = {"role": "assistant", "content": content}
        self._json({"id": "c1", "object": "chat.completion", "created": 0, "model": MODEL,
                    "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})  # fmt: skip

    def _sse(self, content: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        pieces = [content[i : i + 12] for i in range(0, len(content), 12)]
        for n, piece in enumerate([*pieces, None]):
            delta = {"role": "assistant", "content": piece} if piece is not None else {}
            chunk = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": MODEL,
                     "choices": [{"index": 0, "delta": delta, "finish_reason": None if piece else "stop"}]}  # fmt: skip
            if n == len(pieces):
                chunk["usage"] = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
            self.wfile.flush()
            time.sleep(self.server.delay)
        self.wfile.write(b"data: [DONE]\n\n")

    def _json(self, data: dict[str, Any]) -> None:
        payload = json.dumps(data).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, script: Script, delay: float) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script = script
        self.delay = delay


@contextmanager
def scripted_llm(script: Script, delay: float = 0.0) -> Iterator[str]:
    """Serve `script` on a free loopback port; yields the root URL (use it as OLLAMA_HOST).

    `delay` seconds pass after each streamed piece (a slow model, to act mid-stream).
    """
    server = _Server(script, delay)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def last_user_text(body: dict[str, Any]) -> str:
    """The text of the last user message in a chat request."""
    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    content = users[-1]["content"] if users else ""
    return content if isinstance(content, str) else json.dumps(content)
