"""Helpers for scripted models: the answer loop expects its JSON envelope, streamed in pieces."""

from __future__ import annotations

import json
from collections.abc import Iterator


def answer_chunks(
    content: str,
    confidence: str = "high",
    size: int = 8,
    sources: list[dict[str, object]] | None = None,
    follow_ups: tuple[str, ...] = (),
) -> Iterator[str]:
    """The JSON of an `Answer` reply, cut into small chunks as a streaming model sends it.

    `sources` is only part of the schema when the context holds refs: pass it only then.
    """
    data: dict[str, object] = {"content": content, "confidence": confidence, "follow_ups": list(follow_ups)}
    if sources is not None:
        data["sources"] = sources
    text = json.dumps({"result": {"kind": "Answer", "data": data}})
    for start in range(0, len(text), size):
        yield text[start : start + size]
