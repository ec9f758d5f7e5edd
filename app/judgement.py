"""Who judges: the model-free policies, or the model itself — decided by measuring the model.

A short competence probe runs once per model (and is cached in the data directory): can the
model (1) ask for different, meaningful context for a "thanks" and for a broad recall, (2)
answer a fact from notes, and (3) say it does not know when the notes do not say? A model that
passes all three keeps the model-driven path (`app.answer_loop`, the structured request step);
any other gets the policies (`capabilities.request_policy`, `app.grounded`) with the model as a
voice. Never by the model's name: SmolLM2-135M fails (1) and (3) (STACK-NOTES), a capable
Ollama model passes. `REVERIE_JUDGEMENT=policy|model` overrides the probe.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import httpx
from pydantic_ai.exceptions import AgentRunError

from app.llm import Backend
from app.request_step import request_resources
from app.voice import GROUNDED_SYSTEM, say
from capabilities.resources import Dimension, Limits, ResourceRequest

log = logging.getLogger(__name__)

JudgementPath = Literal["policy", "model"]
PROBE_FILE = "judgement.json"
_NOTES = "Notes:\n(2026-01-10) My sister Ana lives in Porto.\n(2026-01-12) My cat is called Miso.\n\nQuestion: "
_DONT_KNOW = re.compile(r"\b(?:don'?t know|do not know|not sure|no information|doesn'?t say|do not say)\b", re.I)


@dataclass(frozen=True)
class Probe:
    """The probe's outcome for one model."""

    model: str
    path: JudgementPath
    request_ok: bool
    answer_ok: bool
    abstain_ok: bool
    measured_at: str
    detail: str = ""


def _meaningful(request: ResourceRequest, limits: Limits) -> bool:
    """Every dimension given and inside its range (a threshold of 1.0 is a failure, not a request)."""
    for dim in Dimension:
        value, rng = request.value(dim), limits[dim]
        if value is None or not rng.min <= value <= rng.max:
            return False
    return True


async def probe(backend: Backend) -> Probe:
    """Run the three checks on the backend's model (a few seconds on the embedded model)."""
    limits = Limits.from_values()
    thanks, notes_a, _ = await request_resources(backend, limits, "probe", "thanks!", "")
    broad, notes_b, _ = await request_resources(backend, limits, "probe", "What are all my hobbies and interests?", "")
    request_ok = (
        not notes_a and not notes_b and _meaningful(thanks, limits) and _meaningful(broad, limits)
        and (broad.value(Dimension.VECTOR_LIMIT) or 0) > (thanks.value(Dimension.VECTOR_LIMIT) or 0)
    )  # fmt: skip
    cat = await say(backend, GROUNDED_SYSTEM, _NOTES + "What is my cat called?", 40)
    brother = await say(backend, GROUNDED_SYSTEM, _NOTES + "What is my brother's name?", 40)
    answer_ok = "miso" in cat.casefold()
    abstain_ok = bool(_DONT_KNOW.search(brother)) and "ana" not in brother.casefold()
    path: JudgementPath = "model" if request_ok and answer_ok and abstain_ok else "policy"
    detail = f"request {thanks.model_dump()} / {broad.model_dump()}; answer {cat[:60]!r}; abstain {brother[:60]!r}"
    return Probe(_key(backend), path, request_ok, answer_ok, abstain_ok, datetime.now(UTC).isoformat(), detail[:600])


def _key(backend: Backend) -> str:
    """Which model was measured: backend, name and (embedded) the weights file's size."""
    size = ""
    if backend.embedded is not None and backend.embedded.model_path.exists():
        size = f":{backend.embedded.model_path.stat().st_size}"
    return f"{backend.name}:{backend.model_name}{size}"


async def choose_path(setting: str, backend: Backend, data_dir: Path) -> tuple[JudgementPath, str]:
    """The path for this model and why: the setting when it names one, else the cached or a new probe."""
    if setting in ("policy", "model"):
        return setting, f"REVERIE_JUDGEMENT={setting}"  # pyright: ignore[reportReturnType]
    cache = data_dir / PROBE_FILE
    key = _key(backend)
    known: dict[str, dict[str, object]] = {}
    try:
        known = json.loads(cache.read_text())
    except (OSError, ValueError):
        known = {}
    if key in known and known[key].get("path") in ("policy", "model"):
        return known[key]["path"], f"probe of {known[key].get('measured_at', '?')} (cached)"  # pyright: ignore[reportReturnType]
    try:
        result = await probe(backend)
    except (AgentRunError, httpx.HTTPError, OSError, TimeoutError) as exc:
        log.warning("competence probe failed (%r): the policies judge", exc)
        return "policy", f"probe failed ({type(exc).__name__})"
    known[key] = asdict(result)
    cache.write_text(json.dumps(known, indent=1))
    log.info("competence probe of %s: %s (%s)", key, result.path, result.detail)
    return result.path, f"probe: request {result.request_ok}, answer {result.answer_ok}, abstain {result.abstain_ok}"
