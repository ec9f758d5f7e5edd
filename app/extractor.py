"""Memory formation at the app edge: the language-model extractor and the background worker.

`LLMExtractor` asks the backend for an `ExtractionOut` under a grammar (schema-constrained
JSON; a 135M model cannot be trusted with free-form JSON). Any model failure, invalid output
or timeout returns None; memory/formation/plan.py runs its pattern extractor first and keeps only what
the model adds beyond it, grounded in the message (memory/formation/grounding.py) before anything is stored.

The stores are synchronous, so formation runs in a worker thread (`anyio.to_thread`); the
extractor's sync `extract` hops back to the event loop for the model call
(`anyio.from_thread.run`). Start one `formation_worker(rt)` task at app start-up and call
`enqueue_formation(rt, user_id, user_turn_id)` after each reply: the reply never waits.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from datetime import datetime
from typing import Annotated, Literal

import anyio
import anyio.from_thread
import anyio.to_thread
import httpx
from pydantic import BaseModel, Field
from pydantic_ai import Agent, PromptedOutput
from pydantic_ai.exceptions import ModelAPIError, UnexpectedModelBehavior
from pydantic_ai.models import Model
from pydantic_ai.settings import ModelSettings

from app.llm import Backend, output_spec
from app.runtime import Runtime
from memory.formation.patterns import Extraction, Triple
from memory.formation.plan import FormationResult
from memory.formation.queue import STALE_AFTER, FormationQueue, run_pending
from memory.models import utcnow

log = logging.getLogger(__name__)

EntityType = Literal["Person", "Organization", "Location", "Product", "Concept", "Event", "Role"]
EXTRACTION_TIMEOUT_S = 60.0
MAX_TOKENS = 300
INSTRUCTIONS = """\
You read one message the user wrote and list what it says about the user and the people,
places and things in their life. Reply with JSON only.
facts: short statements in the third person, e.g. "The user's sister Ana lives in Porto."
triples: subject, predicate, object. The user is "User". Predicates in UPPER_SNAKE_CASE,
e.g. LIVES_IN, WORKS_AT, IS_ALLERGIC_TO, HAS_SISTER, LIKES.
Only what the message says; if it says nothing about the user, give empty lists."""


class TripleOut(BaseModel):
    """One relation the message states."""

    # min_length: unbounded below, the grammar let SmolLM2 return "" as a subject or object.
    subject: str = Field(min_length=1, max_length=40, description='Who or what; "User" for the user.')
    predicate: str = Field(min_length=1, max_length=30, description="UPPER_SNAKE_CASE, e.g. LIVES_IN.")
    object: str = Field(min_length=1, max_length=40)
    subject_type: EntityType
    object_type: EntityType


class ExtractionOut(BaseModel):
    """What the model may answer: at most five facts and five triples, every string bounded."""

    facts: list[Annotated[str, Field(max_length=120)]] = Field(max_length=5)
    triples: list[TripleOut] = Field(max_length=5)


class LLMExtractor:
    """The model `Extractor` (memory.formation.patterns.Extractor)."""

    def __init__(
        self,
        model: Model,
        settings: ModelSettings | None = None,
        output: PromptedOutput[ExtractionOut] | None = None,
        timeout_s: float = EXTRACTION_TIMEOUT_S,
    ) -> None:
        # No output retries: a small model that failed the schema once rarely fixes it, and
        # the pattern fallback is cheaper than a second generation on one vCPU.
        self._agent: Agent[None, ExtractionOut] = Agent(
            model, output_type=output or PromptedOutput(ExtractionOut), instructions=INSTRUCTIONS, retries=0
        )
        self._settings = settings
        self._timeout_s = timeout_s

    @classmethod
    def for_backend(cls, backend: Backend, timeout_s: float = EXTRACTION_TIMEOUT_S) -> LLMExtractor:
        """An extractor with the backend's constrained decoding for `ExtractionOut`."""
        settings = backend.structured_settings(ExtractionOut)
        settings["max_tokens"] = MAX_TOKENS
        return cls(backend.model, settings, output_spec(backend, ExtractionOut), timeout_s)

    async def extract_async(self, text: str, speaker: str, when: datetime) -> Extraction | None:
        """Ask the model; None on any model failure, invalid output or timeout."""
        prompt = f"Message from the {speaker}, {when:%Y-%m-%d}:\n<message>\n{text}\n</message>"
        try:
            with anyio.fail_after(self._timeout_s):
                result = await self._agent.run(prompt, model_settings=self._settings)
        except (UnexpectedModelBehavior, ModelAPIError, TimeoutError, httpx.HTTPError) as exc:
            log.info("extraction model failed (%s); the pattern extractor takes over", type(exc).__name__)
            return None
        out = result.output
        triples = (Triple(t.subject, t.predicate, t.object, t.subject_type, t.object_type) for t in out.triples)
        return Extraction(tuple(out.facts), tuple(triples))

    def extract(self, text: str, speaker: str, when: datetime) -> Extraction | None:
        """The sync `Extractor` call; only from a thread started by `anyio.to_thread.run_sync`."""
        return anyio.from_thread.run(self.extract_async, text, speaker, when)


def enqueue_formation(rt: Runtime, user_id: int, user_turn_id: int) -> bool:
    """Queue a stored user turn for formation (one small insert; safe to call twice)."""
    return rt.store.formation.enqueue(user_id, user_turn_id)


def _extractor(rt: Runtime) -> LLMExtractor | None:
    """The model extractor, only for a model that may judge (app/judgement.py).

    What to remember is a judgement too: on the policy path the patterns and the stored turn
    decide. The 135M model's extraction was used in 2-3 of 60 plans (bench/formation_quality.py)
    and each call held the one-core model for seconds, delaying the person's next reply.
    """
    if rt.path == "policy":
        return None
    return LLMExtractor.for_backend(rt.backend, min(rt.settings.llm_timeout_s, EXTRACTION_TIMEOUT_S))


async def form_memories(rt: Runtime, user_id: int, turn_id: int) -> list[FormationResult]:
    """Queue one turn and drain the queue until it is formed (what a test or a command awaits)."""
    queue = rt.store.formation
    await anyio.to_thread.run_sync(queue.enqueue, user_id, turn_id)
    extractor = _extractor(rt)
    formed: list[FormationResult] = []
    while queue.status(turn_id) in ("pending", "running"):
        batch = await anyio.to_thread.run_sync(run_pending, rt.store, extractor, 4)
        if not batch and queue.status(turn_id) == "running":
            break  # another worker holds it
        formed += batch
    return formed


WAITING_MOST = 10  # turns formed before an answer at most (~0.1-0.4 s each on the policy path)


async def form_waiting(rt: Runtime, user_id: int) -> int:
    """Form the person's own queued turns now, before a question of theirs is answered from memory;
    returns how many.

    Someone who says "My brother Diego lives in Madrid with his wife Carmen." and asks at once
    "What's my brother's wife called?" must not hear that it was never said. The worker forms a turn
    within its poll (2 s), and `reverie chat` reads piped lines faster than that: measured, a question
    right after four tellings in one thread found no note at all. A job of theirs the worker holds is
    waited for (`run_pending` forms one job at a time). Only on the policy path: there forming is
    model-free (35-370 ms a turn measured), while the model path's extractor holds the one-core model
    for seconds, and that path's agent reads the thread in its history anyway.
    """
    if rt.path != "policy":
        return 0
    formed = await anyio.to_thread.run_sync(run_pending, rt.store, _extractor(rt), WAITING_MOST, None, user_id)
    return len(formed)


def _requeue_stale(rt: Runtime, queue: FormationQueue) -> int:
    """Jobs a crashed process left running, back to pending: those claimed before this process started
    (not its own: `reverie chat` cancels its worker with a job still forming in a thread, then drains,
    and the job was formed twice), and when another process is open only those claimed long ago (the
    app may be forming one while `reverie chat` starts)."""
    cutoff = rt.started if rt.store.alone() else min(rt.started, utcnow() - STALE_AFTER)
    return queue.requeue_stale(cutoff)


async def drain_formation(rt: Runtime, batch: int = 4) -> int:
    """Form every queued turn now (what `reverie chat` does before it exits); returns how many."""
    queue = rt.store.formation
    await anyio.to_thread.run_sync(_requeue_stale, rt, queue)
    extractor = _extractor(rt)
    done = 0
    while formed := await anyio.to_thread.run_sync(run_pending, rt.store, extractor, batch):
        done += len(formed)
    return done


async def formation_worker(rt: Runtime, poll_s: float = 2.0, batch: int = 4) -> None:
    """Form queued turns forever (start once at app start-up; cancel at shutdown, which lets the
    job in hand finish first).

    Jobs a crashed process left running are requeued first. The worker polls the durable
    queue, so nothing needs to be told about new turns beyond `enqueue_formation`.
    """
    queue = rt.store.formation
    requeued = await anyio.to_thread.run_sync(_requeue_stale, rt, queue)
    if requeued:
        log.info("formation: %d interrupted job(s) requeued", requeued)
    extractor = _extractor(rt)
    while True:
        # A cancel (the app or `reverie chat` closing) waits for the job in hand: cancelled, the await
        # would return at once while its thread went on forming beside `drain_formation` and after
        # the stores closed. `stop` keeps the thread from claiming the rest of its batch.
        stop = threading.Event()
        in_flight = asyncio.ensure_future(anyio.to_thread.run_sync(run_pending, rt.store, extractor, batch, stop))
        try:
            formed = await asyncio.shield(in_flight)
        except asyncio.CancelledError:
            stop.set()
            await asyncio.wait([in_flight])
            raise
        if len(formed) < batch:
            await anyio.sleep(poll_s)
