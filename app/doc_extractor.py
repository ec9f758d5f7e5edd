"""The model-backed document extractor: grammar-constrained JSON from the LLM backend.

It implements memory.documents.extraction.EntityExtractor. The ingestion pipeline is synchronous
and runs in a worker thread; each call here is submitted to the event loop that owns the
backend (`run_coroutine_threadsafe`) and waited for, so at most one model call is in flight
(one vCPU: concurrency only slows every call down). Any model failure returns None, and the
pipeline runs the pattern fallback for that batch instead.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError, create_model
from pydantic_ai import Agent
from pydantic_ai.exceptions import ModelAPIError, UnexpectedModelBehavior

from app.llm import Backend, output_spec
from memory.documents.chunking import Chunk
from memory.documents.extraction import Mention, Triple

log = logging.getLogger(__name__)

EntityType = Literal["Person", "Organization", "Location", "Product", "Concept", "Event", "Role"]
MAX_NAMES_PER_CALL = 12
_ENTITY_PROMPT = (
    "List the named entities in the text: people, places, organizations, ships and things with a name. "
    "Write each name exactly as it appears in the text. Give its type, a description of at most ten "
    "words, and salience from 1 (passing mention) to 5 (central to the text).\n\nText:\n"
)
_RELATION_PROMPT = (
    "Which of these entities are related in the text, and how? Use only these names: {names}. "
    "The relation type is UPPER_SNAKE_CASE, for example TRAVELS_TO, LIVES_IN, MARRIED_TO, WORKS_FOR.\n\nText:\n"
)


class EntityItem(BaseModel):
    """One entity as the model reports it."""

    name: str = Field(min_length=1, max_length=60)
    type: EntityType
    description: str = Field(max_length=100)
    salience: int = Field(ge=1, le=5)


class EntityList(BaseModel):
    """The entities of a batch of text."""

    entities: list[EntityItem] = Field(max_length=10)


def relation_model(names: Sequence[str]) -> type[BaseModel]:
    """A schema whose subjects and objects can only be the given names (enforced by the grammar)."""
    allowed: Any = Literal[tuple(names)]  # pyright: ignore[reportInvalidTypeForm] - built at run time
    item = create_model(
        "RelationItem",
        subject=(allowed, ...),
        predicate=(str, Field(pattern=r"^[A-Z][A-Z_]{1,29}$")),
        object=(allowed, ...),
    )
    return create_model("RelationList", relations=(list[item], Field(max_length=6)))  # pyright: ignore[reportInvalidTypeForm]


class LLMExtractor:
    """Entities and relations from the LLM backend, one call per batch, None on any failure."""

    name = "llm"

    def __init__(
        self,
        backend: Backend,
        loop: asyncio.AbstractEventLoop,
        *,
        timeout_s: float = 120.0,
        max_tokens: int = 400,
        seconds_per_chunk: float = 2.5,
    ) -> None:
        self._backend, self._loop = backend, loop
        self._timeout, self._max_tokens = timeout_s, max_tokens
        self.seconds_per_chunk = seconds_per_chunk
        self.failures = 0
        self._entity_agent = Agent(backend.model, output_type=output_spec(backend, EntityList))

    def _settings(self, output: type[BaseModel]) -> Any:
        return {**self._backend.structured_settings(output), "max_tokens": self._max_tokens, "temperature": 0.0}

    def _call(self, coro: Coroutine[Any, Any, Any]) -> Any | None:
        """Run a coroutine on the backend's loop from this worker thread; None on failure."""
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result(self._timeout)
        except (ModelAPIError, UnexpectedModelBehavior, ValidationError, TimeoutError) as exc:
            future.cancel()
            self.failures += 1
            log.warning("LLM extraction failed, using the pattern fallback for this batch: %s", exc)
            return None

    def entities(self, batch: Sequence[Chunk]) -> list[list[Mention]] | None:
        """One model call for the batch; every chunk gets the list (the pipeline grounds it per chunk)."""
        text = "\n".join(c.text[c.fresh_from :] for c in batch)
        coro = self._entity_agent.run(_ENTITY_PROMPT + text, model_settings=self._settings(EntityList))
        result = self._call(coro)
        if result is None:
            return None
        found = [Mention(e.name, e.type, e.description, e.salience, 1) for e in result.output.entities]
        return [found for _ in batch]

    def relations(self, batch: Sequence[Chunk], names: Mapping[str, Sequence[str]]) -> list[Triple] | None:
        """One model call for the batch, restricted by the grammar to the given names."""
        text = "\n".join(c.text for c in batch)
        chosen = sorted(names, key=lambda n: -text.count(n))[:MAX_NAMES_PER_CALL]
        output = relation_model(chosen)
        agent = Agent(self._backend.model, output_type=output_spec(self._backend, output))
        prompt = _RELATION_PROMPT.format(names=", ".join(chosen)) + text
        result = self._call(agent.run(prompt, model_settings=self._settings(output)))
        if result is None:
            return None
        triples: list[Triple] = []
        for rel in result.output.relations:
            seq = next((c.seq for c in batch if rel.subject in c.text and rel.object in c.text), batch[0].seq)
            triples.append(Triple(rel.subject, rel.predicate, rel.object, seq))
        return triples
