"""Context assembly: exactly what the agent was granted, scored and packed under a token budget.

Inputs are plain, already-clamped values (memory/ knows nothing of the clamping): the last
`context_turns` turns, the top `vector_limit` memories at or above `similarity_threshold`,
and a graph expansion to `triple_depth` hops from the entities named in the message and
those linked to the recalled memories. Every candidate gets an attention score (semantic
relevance, graph centrality, recency, kind); the packer loads full text first and a one-line
summary when the budget is short, and lists what it left out ("related but not loaded").
"""

from __future__ import annotations

import logging
import math
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import Engine, text

from memory.db.engine import in_clause
from memory.graph.cypher import Subgraph
from memory.graph.entities import EntityStore
from memory.graph.kuzu_graph import GraphLockedError
from memory.models import EntityRow, TurnRow, utcnow
from memory.recall.hybrid import MemoryHit
from memory.recall.vectors import MemoryIndex
from memory.tokens import estimate_tokens
from memory.turns import TurnStore

log = logging.getLogger(__name__)

Level = Literal["full", "summary"]
# How much each kind of memory is worth before relevance: a distilled fact beats a raw turn.
KIND_WEIGHT = {"fact": 1.0, "summary": 0.85, "chunk": 0.75, "turn": 0.6}
RECENCY_HALF_LIFE_DAYS = 30.0
MAX_SEEDS = 8
# Skipped items the telemetry names (best first); the count is always whole. Naming every one
# wrote ~250 KB into each usage row for a depth-3 request on a 10k-entity graph (~3,000 skipped).
TELEMETRY_SKIPPED = 50
_CAPITALIZED = re.compile(r"\b[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,3}")
_WORD = re.compile(r"[A-Za-zÀ-ÿ][\w'’-]{2,}")
_DELIMITER = re.compile(r"<\s*/?\s*recalled_context\s*>", re.IGNORECASE)


@dataclass(frozen=True)
class ContextRequest:
    """The provided (clamped) values of the four dimensions plus the packing budget."""

    context_turns: int
    vector_limit: int
    similarity_threshold: float
    triple_depth: int
    budget_tokens: int = 1200
    document_ids: Sequence[int] | None = None
    domains: Sequence[str] | None = None  # graph domains to keep ("personal", "doc:3"); None = all


@dataclass
class ContextItem:
    """One candidate piece of recalled context."""

    ref: str  # "m12" memory, "e4" entity, "r9" relation
    kind: str  # memory kind, "entity" or "relation"
    full: str
    summary: str
    score: float
    created_at: datetime | None = None
    group: str = ""  # entity type, for grouping in the block
    level: Level | None = None
    reason: str = ""

    def cost(self, level: Level) -> int:
        """Token cost of this item at a level."""
        return estimate_tokens(self.full if level == "full" else self.summary) + 2


@dataclass
class AssembledContext:
    """What one turn's context holds, and the telemetry of how it was chosen."""

    history: list[TurnRow]
    loaded: list[ContextItem]
    skipped: list[ContextItem]
    hits: list[MemoryHit]
    entities: dict[int, EntityRow]
    subgraph: Subgraph
    timings_ms: dict[str, float] = field(default_factory=dict)

    @property
    def retrieval_ms(self) -> float:
        """Total time spent retrieving and packing."""
        return sum(self.timings_ms.values())

    @property
    def tokens(self) -> int:
        """Estimated tokens of the recalled block (history not included)."""
        return sum(i.cost(i.level or "full") for i in self.loaded)

    def telemetry(self) -> dict[str, Any]:
        """What was loaded at which level, what was skipped and why, and the coverage."""
        total = len(self.loaded) + len(self.skipped)
        return {
            "history_turns": len(self.history),
            "history_tokens": sum(t.tokens for t in self.history),
            "loaded": [{"ref": i.ref, "level": i.level, "score": round(i.score, 3)} for i in self.loaded],
            "skipped": [
                {"ref": i.ref, "label": i.summary[:60], "reason": i.reason} for i in self.skipped[:TELEMETRY_SKIPPED]
            ],
            "skipped_total": len(self.skipped),
            "coverage": round(len(self.loaded) / total, 3) if total else 1.0,
            "context_tokens": self.tokens,
            "timings_ms": {k: round(v, 2) for k, v in self.timings_ms.items()},
        }


def escape_delimiters(text: str) -> str:
    """Recalled text with its delimiter defused: it must not close (or reopen) the block and so
    pass for the person's own words. The one renderer of recalled context
    (`capabilities.context.TwoLevelContext.block`) and the policy path's notes use this."""
    return _DELIMITER.sub(lambda m: m.group(0).replace("<", "‹"), text)


def recency(created_at: datetime | None, now: datetime) -> float:
    """1.0 for now, halving every RECENCY_HALF_LIFE_DAYS."""
    if created_at is None:
        return 0.5
    age_days = max(0.0, (now - created_at).total_seconds() / 86400)
    return math.pow(0.5, age_days / RECENCY_HALF_LIFE_DAYS)


def pack(items: list[ContextItem], budget_tokens: int) -> tuple[list[ContextItem], list[ContextItem]]:
    """Best-scored first: full text if it fits, else the summary, else skipped for budget."""
    loaded: list[ContextItem] = []
    skipped: list[ContextItem] = []
    left = budget_tokens
    for item in sorted(items, key=lambda i: -i.score):
        for level in ("full", "summary"):
            if item.cost(level) <= left:
                item.level, left = level, left - item.cost(level)
                loaded.append(item)
                break
        else:
            item.reason = "token budget"
            skipped.append(item)
    return loaded, skipped


class ContextAssembler:
    """Builds a turn's context from the episodic, semantic and graph stores."""

    def __init__(self, engine: Engine, turns: TurnStore, memories: MemoryIndex, entities: EntityStore) -> None:
        self._engine = engine
        self._turns = turns
        self._memories = memories
        self._entities = entities

    def assemble(
        self, user_id: int, thread_id: str, message: str, req: ContextRequest, before_turn_id: int | None = None
    ) -> AssembledContext:
        """Assemble exactly what `req` grants for `message`."""
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        history = self._turns.recent(user_id, thread_id, req.context_turns, before_id=before_turn_id)
        timings["turns"] = _ms(t0)
        t0 = time.perf_counter()
        # A turn already in the history (or the message itself) is not recalled twice.
        in_history = {t.id for t in history if t.id is not None} | ({before_turn_id} if before_turn_id else set())
        hits = [
            h
            for h in self._memories.search(
                user_id, message, req.vector_limit, req.similarity_threshold, document_ids=req.document_ids
            )
            if (h.memory.source_turn_id is None or h.memory.source_turn_id not in in_history)
            and _in_focus(h.memory.document_id, req.domains)
        ]
        timings["vector"] = _ms(t0)
        t0 = time.perf_counter()
        entities, subgraph, seeds = self._graph(user_id, message, hits, req.triple_depth, req.domains)
        timings["graph"] = _ms(t0)
        t0 = time.perf_counter()
        now = utcnow()
        items = [_memory_item(h, now) for h in hits] + _graph_items(entities, subgraph, seeds, now)
        loaded, skipped = pack(items, req.budget_tokens)
        timings["pack"] = _ms(t0)
        return AssembledContext(history, loaded, skipped, hits, entities, subgraph, timings)

    def _graph(
        self, user_id: int, message: str, hits: list[MemoryHit], depth: int, domains: Sequence[str] | None
    ) -> tuple[dict[int, EntityRow], Subgraph, set[int]]:
        if depth <= 0:  # TRIPLE_DEPTH 0: no graph at all
            return {}, Subgraph(), set()
        seeds = self.seeds(user_id, message, [h.memory.id for h in hits if h.memory.id is not None])
        if domains is not None:
            known = self._entities.get_many(user_id, seeds)
            seeds = [i for i in seeds if i in known and known[i].domain in domains]
        if not seeds:
            return {}, Subgraph(), set()
        try:
            subgraph = _in_domains(self._entities.expand(user_id, seeds, depth), domains)
        except GraphLockedError as exc:  # another process kept the graph past its wait: answer without it
            log.warning("no graph context this turn: %s", exc)
            return {}, Subgraph(), set()
        rows = self._entities.get_many(user_id, sorted(subgraph.node_ids | set(seeds)))
        return rows, subgraph, set(seeds)

    def seeds(self, user_id: int, message: str, memory_ids: Sequence[int]) -> list[int]:
        """Entities named in the message (exact name or alias), then those the recalled memories mention."""
        found = self._entities.named(user_id, _candidate_names(message), per_name=5)
        found += [i for i in self._linked_entities(user_id, memory_ids) if i not in found]
        return found[:MAX_SEEDS]

    def _linked_entities(self, user_id: int, memory_ids: Sequence[int]) -> list[int]:
        if not memory_ids:
            return []
        params: dict[str, Any] = {"u": user_id}
        sql = (
            "SELECT subject_id, object_id FROM relations WHERE user_id = :u AND valid_to IS NULL"
            f"{in_clause('source_memory_id', memory_ids, params)} ORDER BY weight DESC LIMIT 20"
        )
        with self._engine.connect() as conn:
            rows = conn.execute(text(sql), params).all()
        return list(dict.fromkeys(i for row in rows for i in row))


def _in_focus(document_id: int | None, domains: Sequence[str] | None) -> bool:
    """Whether a memory belongs to the domains in focus (personal memories have no document)."""
    if domains is None:
        return True
    return ("personal" if document_id is None else f"doc:{document_id}") in domains


def _in_domains(subgraph: Subgraph, domains: Sequence[str] | None) -> Subgraph:
    """Only the nodes of these domains, and the edges between them (None keeps everything)."""
    if domains is None:
        return subgraph
    nodes = tuple(n for n in subgraph.nodes if n.domain in domains)
    kept = {n.id for n in nodes}
    edges = tuple(e for e in subgraph.edges if e.subject_id in kept and e.object_id in kept)
    return Subgraph(nodes, edges)


def _candidate_names(message: str) -> list[str]:
    """Phrases that may name an entity: capitalized runs first, then the longer plain words."""
    phrases = [m.group(0) for m in _CAPITALIZED.finditer(message)]
    phrases += [w for w in _WORD.findall(message) if len(w) >= 4]
    return list(dict.fromkeys(p.strip() for p in phrases))[:24]


def _memory_item(hit: MemoryHit, now: datetime) -> ContextItem:
    row = hit.memory
    date = f"{row.created_at:%Y-%m-%d}" if row.created_at else "undated"
    full = f"({date}, {row.kind}) {row.content}"
    summary = f"({date}, {row.kind}) {row.content[:120]}" + ("…" if len(row.content) > 120 else "")
    score = 0.6 * hit.relevance + 0.2 * recency(row.created_at, now) + 0.2 * KIND_WEIGHT.get(row.kind, 0.5)
    return ContextItem(f"m{row.id}", row.kind, full, summary, score, row.created_at)


def _graph_items(
    entities: dict[int, EntityRow], subgraph: Subgraph, seeds: set[int], now: datetime
) -> list[ContextItem]:
    degree: dict[int, int] = {}
    for e in subgraph.edges:
        degree[e.subject_id] = degree.get(e.subject_id, 0) + 1
        degree[e.object_id] = degree.get(e.object_id, 0) + 1
    top = max(degree.values(), default=1)
    items: list[ContextItem] = []
    for eid, row in entities.items():
        centrality = degree.get(eid, 0) / top
        score = 0.5 * (1.0 if eid in seeds else 0.6) + 0.3 * centrality + 0.2 * recency(row.updated_at, now)
        about = f" — {row.summary}" if row.summary else ""
        aliases = f" (also: {', '.join(row.aliases[:3])})" if row.aliases else ""
        full = f"{row.name}{aliases}{about}"
        items.append(ContextItem(f"e{eid}", "entity", full, row.name, score, row.updated_at, row.type))
    for e in subgraph.edges:
        subj, obj = entities.get(e.subject_id), entities.get(e.object_id)
        if subj is None or obj is None:
            continue
        touches = 1.0 if {e.subject_id, e.object_id} & seeds else 0.5
        score = 0.5 * touches + 0.3 * min(1.0, e.weight / 3) + 0.2
        line = f"{subj.name} {e.predicate} {obj.name}"
        items.append(ContextItem(f"r{e.relation_id}", "relation", line, line, score))
    return items


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000
