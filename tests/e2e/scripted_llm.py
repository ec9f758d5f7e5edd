"""A scripted language model on 127.0.0.1 (the fake Ollama of tests/integration/ollama_fake.py
with a script), so the REAL server can be driven deterministically.

Used where the test needs a specific behaviour the 135M model will not reliably choose (an
info round, cited sources, follow-ups); the real embedded model is exercised by the other
browser tests.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from tests.integration.ollama_fake import FakeOllamaState, fake_ollama

MODEL = "qwen2.5:0.5b"
Script = Callable[[dict[str, Any]], str]


@contextmanager
def scripted_llm(script: Script, delay: float = 0.0) -> Iterator[dict[str, str]]:
    """Serve `script` on a free loopback port; yields the server environment that points
    Reverie's Ollama backend at it (pass it as `running_server(..., env=...)`).

    `delay` seconds pass after each streamed piece (a slow model, to act mid-stream).
    """
    with fake_ollama(FakeOllamaState(models=[MODEL], script=script, delay=delay)) as fake:
        # A script writes the model-driven path's JSON (request, Answer | NeedsMoreInfo): that path is
        # forced rather than measured (the probe would send a script's fixed replies to the policies).
        yield {"OLLAMA_HOST": fake.host, "REVERIE_OLLAMA_MODEL": MODEL, "REVERIE_JUDGEMENT": "model"}


def last_user_text(body: dict[str, Any]) -> str:
    """The text of the last user message in a chat request."""
    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    content = users[-1]["content"] if users else ""
    return content if isinstance(content, str) else json.dumps(content)
