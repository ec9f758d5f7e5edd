"""Context assembly: exactly what the agent was granted, scored and packed under a token budget.

Inputs are plain, already-clamped values (memory/ knows nothing of the clamping): the last
`context_turns` turns, the top `vector_limit` memories at or above `similarity_threshold`,
and a graph expansion to `triple_depth` hops from the entities named in the message and
those linked to the recalled memories. Every candidate gets an attention score (semantic
relevance, the question's domain, graph centrality, recency, kind; memory/attention.py); the packer loads full text
first and a one-line summary when the budget is short; with budget left, a loaded turn memory is
shown with the turns said next to it in its thread as its own lines (`_surround`: the chosen memories
are still the granted count, a neighbour line is context of its memory; a ranked turn next to a chosen
one is shown as its line and leaves its place to the next memory ranked, `_places`). Everything
related that was not loaded is kept with its reason (relevance below the cut, token budget, one hop
past the depth, one memory past the limit, outside the focus, superseded), and the telemetry turns
the best of it into plain recommendations.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Mapping, Sequence, Set
from copy import copy
from dataclasses import dataclass, field, replace
from datetime import datetime
from itertools import islice
from typing import Any

from sqlalchemy import Engine, text

from memory.attention import (
    GRAPH_WEIGHTS,
    ContextItem,
    GraphFacts,
    Skip,
    Weights,
    domain_shares,
    graph_items,
    hops,
    recency,
)
from memory.db.engine import ids_clause, in_clause
from memory.documents.joins import (
    REACH,
    STEM,
    Join,
    asked_sentences,
    evidence_sentences,
    joining_sentence,
    runs_on,
    stems,
)
from memory.graph.cypher import MAX_DEPTH, GraphNode, Subgraph
from memory.graph.entities import EntityStore
from memory.graph.entity_vectors import EntityVectors
from memory.graph.kuzu_graph import GraphLockedError
from memory.models import EntityRow, MemoryRow, TurnRow, utcnow
from memory.recall.hybrid import CANDIDATES, MemoryHit
from memory.recall.vectors import MemoryIndex
from memory.tokens import estimate_tokens, query_terms
from memory.turns import TurnStore

log = logging.getLogger(__name__)

__all__ = ["AssembledContext", "ContextAssembler", "ContextItem", "ContextRequest", "Skip", "pack"]

# How much each kind of memory is worth before relevance: a distilled fact beats a raw turn.
KIND_WEIGHT = {"fact": 1.0, "summary": 0.85, "chunk": 0.75, "turn": 0.6}
MAX_SEEDS = 8
BEYOND_FROM = 40
"""The depth-limit look one hop past the granted depth starts from at most this many of the
farthest nodes (the best by score): a bounded query, whatever the size of the frontier."""
JOIN_SOURCES = 3
"""A document relation's joining sentence is looked for in its best-supporting chunks, at most this many."""
FILL = 8
"""When the question names no entity, graph mode fills its budget from up to this many more
document chunks (the granted memories come first; issue 14: half the budget went unused)."""
AROUND = ("after", "before")
"""The turns shown around a loaded turn memory, in the order the budget goes to them (`_surround`)."""
RINGS = 2
"""How far a loaded turn memory's neighbouring lines reach: 1, the turns said just before and after
it; 2, also the turns next to those (with the budget left once every memory had its first ring)."""
FOLD = 3
"""How far down the ranking (this many times the granted memories) a ranked turn said just before or
after a chosen one is shown as that one's neighbouring line instead of taking a memory's place
(`_places`, only when the granted count and not the budget is the limit; 0: every ranked memory takes
a place, as before the seventeenth session)."""
RELATED_SHOWN = 8
"""Unloaded items named on the block's "Related but not loaded" pointer line."""
RELATED_HEAD = "Related but not loaded (EXPAND_ENTITY can load an entity): "
RELATED_MEMORIES = "Related but not loaded: "
"""The pointer line's head when it names no entity (only memories: EXPAND_ENTITY has nothing to load)."""
FRAME_TOKENS = 40
"""The rendered block's delimiters and section headers (capabilities/context.py: about 30 tokens
with every section; the rest is the line ends): counted in the budget, with the pointer line. A block
of memories only (no entity, so no ambiguity section either) counts its own two delimiters and one
header instead (`frame_base`: 13 tokens; twenty-fifth session)."""
BLOCK_OPEN, BLOCK_CLOSE, MEMORIES_HEAD = "<recalled_context>\n", "\n</recalled_context>", "Memories:"
EXCERPTS = 10
"""Graph mode reads this many document chunks past the granted memories for sentences holding the
question's words beside a name it does not say (issue 14: the names no core entity holds)."""
FRAME_SHARE = 8
"""The frame (headers, pointer line, recommendations) takes at most 1/FRAME_SHARE of the budget:
fewer pointers, not less evidence (a quarter lost two of the Dracula questions' names)."""
BEST_UNLOADED = 5
"""Unloaded items the telemetry names as the best (with why) for the agent and the Context step."""
# Skipped items the telemetry names (best first); the count is always whole. Naming every one
# wrote ~250 KB into each usage row for a depth-3 request on a 10k-entity graph (~3,000 skipped).
TELEMETRY_SKIPPED = 50
_CAPITALIZED = re.compile(r"\b[A-ZÀ-ÞĀ-Ž][\w'’-]*(?:\s+[A-ZÀ-ÞĀ-Ž][\w'’-]*){0,3}")
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
    more_memories: int = 0
    """Memories past `vector_limit` the budget may still take: the next ranked, in order, while their texts
    fit what the granted memories leave, before any neighbouring line (`_places`; only when the granted
    count, not the budget, is the limit). 0: exactly `vector_limit`, as before the twenty-fourth session."""


@dataclass
class AssembledContext:
    """What one turn's context holds, and the telemetry of how it was chosen.

    `skipped` holds everything related that was not loaded, each with its `skip` kind and reason,
    best score first; `depth` is the depth granted and `depth_reached` the deepest hop the
    expansion found anything at; `vector_limit` the memories granted.
    """

    history: list[TurnRow]
    loaded: list[ContextItem]
    skipped: list[ContextItem]
    hits: list[MemoryHit]
    entities: dict[int, EntityRow]
    subgraph: Subgraph
    timings_ms: dict[str, float] = field(default_factory=dict)
    depth: int = 0
    depth_reached: int = 0
    vector_limit: int = 0
    related_shown: int = RELATED_SHOWN
    """Unloaded items the rendered block names (fewer when the budget is short; 0: no pointer line
    and no recommendations), counted in the budget with the block's headers (`frame_tokens`)."""

    @property
    def retrieval_ms(self) -> float:
        """Total time spent retrieving and packing."""
        return sum(self.timings_ms.values())

    @property
    def tokens(self) -> int:
        """Estimated tokens of the recalled block (history not included)."""
        return sum(i.cost(i.level or "full") for i in self.loaded)

    def best_unloaded(self, n: int = BEST_UNLOADED) -> list[ContextItem]:
        """The best of what was left out that could still be had (superseded items cannot)."""
        return [i for i in self.skipped if i.skip is not Skip.SUPERSEDED][:n]

    def recommendations(self) -> list[str]:
        """One or two plain next steps for what was left out, most useful first."""
        return recommend(self.skipped, self.depth, self.vector_limit)

    def telemetry(self) -> dict[str, Any]:
        """What was loaded at which level and why, what was skipped and why, the depth reached,
        the best unloaded items, recommendations, and the coverage."""
        total = len(self.loaded) + len(self.skipped)
        kinds = {k.value: sum(1 for i in self.skipped if i.skip is k) for k in Skip}
        return {
            "history_turns": len(self.history),
            "history_tokens": sum(t.tokens for t in self.history),
            "loaded": [
                {
                    "ref": i.ref,
                    "label": i.summary[:60],
                    "level": i.level,
                    "score": round(i.score, 3),
                    "reason": i.reason,
                    "tokens": i.cost(i.level) if i.level else 0,
                    **({"around": [f"m{m}" for m in i.around]} if i.around else {}),
                }
                for i in self.loaded
            ],
            "neighbour_lines": sum(len(i.around) for i in self.loaded),
            "skipped": [_skip_entry(i) for i in self.skipped[:TELEMETRY_SKIPPED]],
            "skipped_total": len(self.skipped),
            "skipped_by_kind": {k: n for k, n in kinds.items() if n},
            "depth": self.depth,
            "depth_reached": self.depth_reached,
            "best_unloaded": [_skip_entry(i) for i in self.best_unloaded()],
            "recommendations": self.recommendations(),
            "coverage": round(len(self.loaded) / total, 3) if total else 1.0,
            "context_tokens": self.tokens,
            "timings_ms": {k: round(v, 2) for k, v in self.timings_ms.items()},
        }


def recommend(skipped: Sequence[ContextItem], depth: int, vector_limit: int) -> list[str]:
    """One or two plain next steps for what was left out (`skipped`, best first), most useful first."""
    by_kind: dict[Skip, list[ContextItem]] = {}
    for item in skipped:
        by_kind.setdefault(item.skip or Skip.BUDGET, []).append(item)
    out: list[str] = []
    if deeper := _entities(by_kind.get(Skip.DEPTH, [])):
        out.append(f"ask TRIPLE_DEPTH {depth + 1} for {_names(deeper)}")
    if more := by_kind.get(Skip.LIMIT, []):
        like = _label(more[0], 40)
        out.append(f"ask VECTOR_SEARCH_LIMIT above {vector_limit} for more memories like “{like}”")
    if crowded := _entities(by_kind.get(Skip.BUDGET, [])):
        refs = ", ".join(f"{_label(i, 40)} [{i.ref}]" for i in crowded[:3])
        out.append(f"ask EXPAND_ENTITY for {refs} (left out for the token budget)")
    if outside := by_kind.get(Skip.FOCUS, []):
        out.append(f"set /focus all to include {_names(outside)} (outside this chat's focus)")
    return out[:2]


def frame_tokens(
    skipped: Sequence[ContextItem],
    depth: int,
    vector_limit: int,
    shown: int = RELATED_SHOWN,
    loaded: Sequence[ContextItem] | None = None,
) -> int:
    """What the rendered block spends beyond its items: the delimiters and section headers (of the
    sections `loaded` fills, `frame_base`), the pointer line naming the best `shown` unloaded items,
    and the recommendations (none without it)."""
    return frame_costs(skipped, depth, vector_limit, shown, loaded)[-1]


def frame_base(loaded: Sequence[ContextItem] | None = None) -> int:
    """The block's delimiters and section headers: a block of memories only counts its own
    (~13 tokens, where FRAME_TOKENS kept ~27 more for sections it did not have); any other item,
    or none known (`loaded` None), keeps FRAME_TOKENS (the entity sections, and an ambiguity
    section only entities bring)."""
    if loaded is None or any(not i.ref.startswith("m") for i in loaded):
        return FRAME_TOKENS
    return estimate_tokens(BLOCK_OPEN + (MEMORIES_HEAD + "\n" if loaded else "") + BLOCK_CLOSE)


def related_head(named: Sequence[ContextItem]) -> str:
    """The pointer line's head: EXPAND_ENTITY is offered only when the line names an entity."""
    return RELATED_HEAD if any(i.kind == "entity" for i in named) else RELATED_MEMORIES


def frame_costs(
    skipped: Sequence[ContextItem],
    depth: int,
    vector_limit: int,
    most: int = RELATED_SHOWN,
    loaded: Sequence[ContextItem] | None = None,
) -> list[int]:
    """`frame_tokens` naming 0, 1, … `most` unloaded items, the skipped items read and the
    recommendations made once for all of them (a depth-3 request on a large graph skips thousands)."""
    base = frame_base(loaded)
    named = list(islice((i for i in skipped if i.skip is not Skip.SUPERSEDED), most))
    if not named:
        return [base] * (most + 1)
    advice = sum(estimate_tokens(f"Recommendation: {r}") + 1 for r in recommend(skipped, depth, vector_limit))
    lines = [unloaded_line(i) for i in named]
    pointers = [estimate_tokens(related_head(named[:n]) + "; ".join(lines[:n])) + 1 for n in range(1, most + 1)]
    return [base, *(base + p + advice for p in pointers)]


def _skip_entry(item: ContextItem) -> dict[str, Any]:
    return {"ref": item.ref, "label": _label(item), "reason": item.reason, "kind": str(item.skip or "")}


def _label(item: ContextItem, chars: int = 60) -> str:
    """An item's summary on one line (a document chunk's has line breaks), cut to `chars`."""
    return " ".join(item.summary.split())[:chars]


def _entities(items: list[ContextItem]) -> list[ContextItem]:
    return [i for i in items if i.kind == "entity"]


def _names(items: list[ContextItem]) -> str:
    return ", ".join(_label(i, 40) for i in items[:3]) + (f" and {len(items) - 3} more" if len(items) > 3 else "")


def escape_delimiters(text: str) -> str:
    """Recalled text with its delimiter defused: it must not close (or reopen) the block and so
    pass for the person's own words. The one renderer of recalled context
    (`capabilities.context.TwoLevelContext.block`) and the policy path's notes use this."""
    return _DELIMITER.sub(lambda m: m.group(0).replace("<", "‹"), text)


def unloaded_line(item: ContextItem) -> str:
    """`Lucy [e12] (token budget)`: an unloaded item as the agent and the person read it."""
    return f"{_label(item, 40)} [{item.ref}] ({item.reason})"


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
            skipped.append(item.skipped(Skip.BUDGET, "token budget"))
    for item in loaded:
        if item.level == "summary":
            item.reason += (", " if item.reason else "") + "summary only (token budget)"
    return loaded, skipped


def _fit(
    items: list[ContextItem], others: list[ContextItem], req: ContextRequest
) -> tuple[list[ContextItem], list[ContextItem], int]:
    """`pack` within what the rendered block leaves for items: the budget less its frame, whose
    pointer line depends on what the packing left out, so packed again (on fresh copies) until
    the frame fits (a longer frame leaves more out, rarely a longer line: three rounds). The frame
    takes at most 1/FRAME_SHARE of the budget (evidence first): fewer pointers when it would take
    more. Returns what loaded, what did not, and how many pointers the block names."""
    reserve, loaded, skipped, shown = frame_base(items), [], list(others), RELATED_SHOWN
    for _ in range(3):
        loaded, left_out = pack([copy(i) for i in items], req.budget_tokens - reserve)
        skipped = sorted(left_out + others, key=lambda i: -i.score)
        frames = frame_costs(skipped, req.triple_depth, req.vector_limit, loaded=items)
        shown = max((n for n, t in enumerate(frames) if t <= req.budget_tokens // FRAME_SHARE), default=0)
        need = frames[shown]
        if need <= reserve:
            break
        reserve = need
    return loaded, skipped, shown


def _left(loaded: list[ContextItem], skipped: list[ContextItem], req: ContextRequest, shown: int) -> int:
    """The budget's tokens left after what `_fit` packed and the block's frame naming `shown` pointers."""
    frame = frame_tokens(skipped, req.triple_depth, req.vector_limit, shown, loaded)
    return req.budget_tokens - frame - sum(i.cost(i.level or "full") for i in loaded)


@dataclass(frozen=True)
class _Graph:
    """The graph step's findings: the scoring facts, and what it found but may not load."""

    facts: GraphFacts
    beyond: tuple[GraphNode, ...] = ()  # one hop past the granted depth
    superseded: tuple[tuple[int, str], ...] = ()  # (relation id, line) of the seeds' former relations
    outside: tuple[GraphNode, ...] = ()  # dropped by the focus filter
    fill: tuple[MemoryHit, ...] = ()  # document chunks beyond the granted memories, when no entity matched
    excerpts: tuple[tuple[MemoryHit, list[Join]], ...] = ()  # further chunks' sentences holding the asked words


_NO_GRAPH = _Graph(GraphFacts({}, Subgraph(), frozenset(), frozenset(), {}))


class ContextAssembler:
    """Builds a turn's context from the episodic, semantic and graph stores.

    `vectors` gives entity relevance to the question; `weights` are the graph score's weights
    (memory/attention.py; a benchmark passes `STRUCTURE` to compare with the scoring before).
    `evidence` (issue 14) shows each document relation with the sentence joining its ends, drops a
    co-occurrence whose sentence says nothing the question asks, and fills graph mode's budget with
    document chunks when no entity matches; a benchmark turns it off to compare with the context before.
    `excerpts` (with `evidence`) adds the sentences of further document chunks that hold the
    question's words beside a name it does not say (`EXCERPTS`); a benchmark turns it off alone.
    `asked_summaries`: a document chunk packed short shows its sentence holding the question's
    words (`_memory_item`); off, its first 120 characters, as before the fifteenth session.
    `around`: an excerpt's sentence that names nothing is read under its heading or beside its
    neighbour, the question's own entities are no answer, and no sentence is shown twice
    (`evidence_sentences`); off, each sentence alone, as before the eighteenth session.
    `reach`: such a sentence is read beside the nearest sentence of its paragraph that names
    something, at most this many away (`joins.REACH`); 1, the next or previous one only, as
    before the nineteenth session.
    `continued`: an excerpt reads on where the passage asked about does: into the next chunk of a
    read one whose last paragraph holds two of the question's words (`joins.runs_on`), and a
    sentence its writer says ("I write …") under the heading that names the writer; off, as
    before the twentieth session.
    """

    def __init__(
        self,
        engine: Engine,
        turns: TurnStore,
        memories: MemoryIndex,
        entities: EntityStore,
        vectors: EntityVectors,
        weights: Weights = GRAPH_WEIGHTS,
        evidence: bool = True,
        excerpts: bool = True,
        asked_summaries: bool = True,
        surround: bool = True,
        around: bool = True,
        reach: int = REACH,
        continued: bool = True,
    ) -> None:
        self._engine = engine
        self._turns = turns
        self._memories = memories
        self._entities = entities
        self.vectors = vectors
        self.weights = weights
        self.evidence = evidence
        self.excerpts = excerpts
        self.asked_summaries = asked_summaries
        self.surround = surround
        self.around = around
        self.reach = reach
        self.continued = continued

    def assemble(
        self,
        user_id: int,
        thread_id: str,
        message: str,
        req: ContextRequest,
        before_turn_id: int | None = None,
        now: datetime | None = None,
    ) -> AssembledContext:
        """Assemble exactly what `req` grants for `message`, asked at `now` (default: the clock; a
        benchmark replaying a past conversation asks at its end: the day "last year" is read from,
        and what recency is measured against)."""
        now = now or utcnow()
        timings: dict[str, float] = {}
        t0 = time.perf_counter()
        history = self._turns.recent(user_id, thread_id, req.context_turns, before_id=before_turn_id)
        timings["turns"] = _ms(t0)
        t0 = time.perf_counter()
        # A turn already in the history (or the message itself) is not recalled twice: nor does it
        # take a place, or a ranked turn beside it would be kept as its line and shown nowhere.
        in_history = {t.id for t in history if t.id is not None} | ({before_turn_id} if before_turn_id else set())
        # One past the limit, to know whether the limit left a memory above the threshold out (the
        # ranking is the same: `search` ranks every candidate and keeps the first `limit`); further
        # down when a ranked turn next to a chosen one gives its place to the next (`_places`).
        reach = FOLD if self.surround and FOLD > 0 else 1
        ranking = self._memories.search(
            user_id,
            message,
            reach * (req.vector_limit + req.more_memories) + 1 if req.vector_limit else 0,
            req.similarity_threshold,
            document_ids=req.document_ids,
            today=now.date(),
        )
        ranking = [h for h in ranking if h.memory.source_turn_id is None or h.memory.source_turn_id not in in_history]
        turns = [h.memory.id for h in ranking if h.memory.kind == "turn" and h.memory.id is not None]
        near = self._memories.turns_around(user_id, turns) if self.surround else {}

        def cost(hit: MemoryHit) -> int:
            return _memory_item(hit, now).cost("full")

        # Places are freed only when the granted count, not the budget, is the limit: the best
        # memories' texts fit what the frame leaves at most.
        room = req.budget_tokens - max(FRAME_TOKENS, req.budget_tokens // FRAME_SHARE)
        fold = reach > 1 and sum(map(cost, ranking[: req.vector_limit])) <= room
        more = req.more_memories if fold else 0
        fresh, beside, past, crowded = _places(ranking, near if fold else {}, req.vector_limit, room, cost, more)
        hits = [h for h in fresh if _in_focus(h.memory.document_id, req.domains)]
        timings["vector"] = _ms(t0)
        t0 = time.perf_counter()
        graph = self._graph(user_id, message, hits, req)
        timings["graph"] = _ms(t0)
        t0 = time.perf_counter()
        asked = query_terms(message) if self.asked_summaries else []
        items = [_memory_item(h, now, asked) for h in hits] + graph_items(graph.facts, now, self.weights)
        extra = {h.memory.id for h in fresh[req.vector_limit :]}  # taken past the granted count
        for item in items[: len(hits)]:
            if int(item.ref[1:]) in extra:
                item.reason = f"past VECTOR_SEARCH_LIMIT {req.vector_limit}: the budget had room"
        items += [_filling(h, now, asked) for h in graph.fill]
        items += [_excerpt(h, found, now) for h, found in graph.excerpts]
        others = [i for i in items if i.skip is not None]
        others += [_memory_item(h, now).skipped(Skip.FOCUS, _outside(h)) for h in fresh if h not in hits]
        others += [
            _memory_item(h, now).skipped(Skip.LIMIT, f"past VECTOR_SEARCH_LIMIT {req.vector_limit}")
            for h in past
            if _in_focus(h.memory.document_id, req.domains)
        ]
        others += _unreachable(graph, req.triple_depth)
        others += [_memory_item(h, now).skipped(Skip.BUDGET, "token budget") for h in crowded]
        loaded, skipped, shown = _fit([i for i in items if i.skip is None], others, req)
        if self.surround:
            self._surround(user_id, loaded, near, beside, _left(loaded, skipped, req, shown), in_history)
            # A ranked memory shown as a chosen one's line is still one the ranking found (the
            # policy path's notes are built from the hits).
            kept = {h.memory.id for h in hits} | ({r.id for _, r in beside} & {m for i in loaded for m in i.around})
            hits = [h for h in ranking if h.memory.id in kept]
        timings["pack"] = _ms(t0)
        facts = graph.facts
        reached = max(hops(facts.subgraph, set(facts.seeds)).values(), default=0)
        return AssembledContext(history, loaded, skipped, hits, dict(facts.entities), facts.subgraph, timings,
                                req.triple_depth, reached, req.vector_limit, shown)  # fmt: skip

    def _surround(
        self,
        user_id: int,
        loaded: list[ContextItem],
        near: Mapping[int, tuple[MemoryRow | None, MemoryRow | None]],
        beside: Sequence[tuple[int, MemoryRow]],
        left: int,
        in_history: Set[int],
    ) -> None:
        """Show each loaded turn memory with the turns said next to it in its thread, as its own
        indented lines, while `left` tokens of the budget allow. The chosen memories were packed
        first; then the ranked turns said next to a chosen one (`beside`, best first); then every
        memory's next turn (the answer to a question is often the reply), best memory first; then
        every memory's previous turn; then (`RINGS` 2) the turn past each line shown, after first.
        A turn already loaded, already shown or in the recent history is not shown again."""
        turns = {int(i.ref[1:]): i for i in loaded if i.kind == "turn" and i.level == "full"}
        if not turns or left <= 0:
            return
        shown = {int(i.ref[1:]) for i in loaded if i.ref.startswith("m")}
        lines: dict[tuple[int, int], str] = {}  # (memory id, offset: -2..2) -> the line of the turn said there
        rows: dict[tuple[int, int], MemoryRow] = {}  # the same keys -> that turn

        def show(mid: int, offset: int, row: MemoryRow | None) -> None:
            nonlocal left
            if row is None or row.id is None or row.id in shown or row.source_turn_id in in_history:
                return
            if (cost := estimate_tokens(said := _said(offset, row)) + 1) <= left:
                left, lines[mid, offset], rows[mid, offset] = left - cost, said, row
                shown.add(row.id)
                turns[mid].around += (row.id,)

        for mid, row in beside:
            if mid in turns:
                show(mid, 1 if (row.id or 0) > mid else -1, row)
        for side in AROUND:
            for mid in turns:
                show(mid, 1 if side == "after" else -1, near.get(mid, (None, None))[side == "after"])
        if RINGS > 1 and lines:
            far = self._memories.turns_around(user_id, [r.id for r in rows.values() if r.id is not None])
            for offset in (1, -1):
                for mid in turns:
                    if (row := rows.get((mid, offset))) is not None:
                        show(mid, 2 * offset, far.get(row.id or 0, (None, None))[offset > 0])
        for mid, item in turns.items():
            item.full = "\n".join([item.full, *(lines[mid, o] for o in (-2, -1, 1, 2) if (mid, o) in lines)])

    def _graph(self, user_id: int, message: str, hits: list[MemoryHit], req: ContextRequest) -> _Graph:
        depth, domains = req.triple_depth, req.domains
        if depth <= 0:  # TRIPLE_DEPTH 0: no graph at all
            return _NO_GRAPH
        named = self._entities.named(user_id, _candidate_names(message), per_name=5)
        memory_ids = [h.memory.id for h in hits if h.memory.id is not None]
        linked = [i for i in self._linked_entities(user_id, memory_ids) if i not in named]
        seeds = (named + linked)[:MAX_SEEDS]
        outside: list[GraphNode] = []
        if domains is not None:
            known = self._entities.get_many(user_id, seeds)
            seeds = [i for i in seeds if i in known and known[i].domain in domains]
        if not seeds:
            fill = self._fill(user_id, message, hits, req) if self.evidence else []
            return _Graph(_NO_GRAPH.facts, fill=tuple(fill))
        try:
            whole = self._entities.expand(user_id, seeds, depth)
            subgraph = _in_domains(whole, domains)
            kept = subgraph.node_ids  # a set built per read: once, not once per node
            outside = [n for n in whole.nodes if n.id not in kept]
            beyond = self._beyond(user_id, subgraph, seeds, depth, domains)
            old = _superseded(self._entities.expand(user_id, seeds, 1, history=True))
        except GraphLockedError as exc:  # another process kept the graph past its wait: answer without it
            log.warning("no graph context this turn: %s", exc)
            return _NO_GRAPH
        rows = self._entities.get_many(user_id, sorted(subgraph.node_ids | set(seeds)))
        relevance = self.vectors.relevance(list(rows.values()), self._memories.query_vector(message))
        joins = self._joins(user_id, subgraph, rows, message) if self.evidence else None
        asked = domain_shares([rows[i].domain for i in named if i in rows and i in seeds],
                              [_domain(h.memory.document_id) for h in hits])  # fmt: skip
        facts = GraphFacts(rows, subgraph, frozenset(named) & set(seeds), frozenset(seeds) - set(named), relevance,
                           joins, asked)  # fmt: skip
        excerpts = []
        if self.evidence and self.excerpts:
            known = [f for i in named if i in rows for f in _forms(rows[i])]
            excerpts = self._excerpts(user_id, message, hits, req, known)
        return _Graph(facts, tuple(beyond), tuple(old), tuple(outside), excerpts=tuple(excerpts))

    def _excerpts(
        self, user_id: int, message: str, hits: list[MemoryHit], req: ContextRequest, known: Sequence[str] = ()
    ) -> list[tuple[MemoryHit, list[Join]]]:
        """The sentences of the next `EXCERPTS` document chunks past the granted memories that hold
        the question's words beside a name it does not say (`evidence_sentences`; `known`: the forms
        of the entities the question names, which it does say): where the answer is a name no core
        entity holds, only a chunk can bring it, and a sentence costs a tenth of one."""
        have, terms = {h.memory.id for h in hits}, query_terms(message)
        more = self._memories.search(user_id, message, req.vector_limit + EXCERPTS, req.similarity_threshold,
                                     kinds=["chunk"], document_ids=req.document_ids)  # fmt: skip
        more = [h for h in more if h.memory.id not in have and _in_focus(h.memory.document_id, req.domains)]
        running = [h.memory.id or 0 for h in more if runs_on(h.memory.content, terms)] if self.continued else []
        after = self._memories.next_chunks(user_id, running)  # (no query when none runs on)
        read = have | {h.memory.id for h in more}
        found: list[tuple[MemoryHit, list[Join]]] = []
        for h in more:  # best first: a sentence the chunks' overlap repeats is shown by the better one
            then = after.get(h.memory.id or 0)
            if then is not None and then.id in read:
                then = None
            for c in [h] if then is None else [h, replace(h, memory=then)]:  # ranked as the chunk it continues
                read.add(c.memory.id)
                shown = [j.sentence for _, js in found for j in js]
                js = evidence_sentences(c.memory.content, terms, known=known, shown=shown, around=self.around,
                                        reach=self.reach, writer=self.continued)  # fmt: skip
                if js:
                    found.append((c, js))
        return found

    def _fill(self, user_id: int, message: str, hits: list[MemoryHit], req: ContextRequest) -> list[MemoryHit]:
        """Document chunks past the granted memories, at the granted threshold, for graph mode's
        budget when no entity matched (chunks only: how memories rank is recall's business)."""
        have = {h.memory.id for h in hits}
        more = self._memories.search(user_id, message, req.vector_limit + FILL, req.similarity_threshold,
                                     kinds=["chunk"], document_ids=req.document_ids)  # fmt: skip
        return [h for h in more if h.memory.id not in have and _in_focus(h.memory.document_id, req.domains)]

    def _joins(
        self, user_id: int, subgraph: Subgraph, rows: Mapping[int, EntityRow], message: str
    ) -> dict[int, Join | None]:
        """For each document relation, the sentence of its best-supporting chunks that names both
        ends and holds most of the question's words (None: no chunk has one)."""
        params: dict[str, Any] = {"u": user_id}
        ids = ids_clause(self._engine, "s.relation_id", [e.relation_id for e in subgraph.edges], params)
        sql = (
            "SELECT s.relation_id, s.memory_id FROM relation_sources s JOIN relations r ON r.id = s.relation_id "
            f"WHERE r.user_id = :u AND r.document_id IS NOT NULL{ids} "
            "ORDER BY s.relation_id, s.amount DESC, s.memory_id"
        )
        with self._engine.connect() as conn:
            sources: dict[int, list[int]] = {}
            for rid, mid in conn.execute(text(sql), params).all():
                sources.setdefault(rid, []).append(mid)
        chunks = self._memories.by_ids(user_id, sorted({m for ms in sources.values() for m in ms[:JOIN_SOURCES]}))
        edges, terms = {e.relation_id: e for e in subgraph.edges}, query_terms(message)
        out: dict[int, Join | None] = {}
        for rid, mids in sources.items():
            a, b = rows.get(edges[rid].subject_id), rows.get(edges[rid].object_id)
            if a is None or b is None:
                continue
            own = stems([w for f in (*_forms(a), *_forms(b)) for w in f.casefold().split()])
            asked = [t for t in terms if t[:STEM] not in own]  # what the question asks beyond the two names
            found = [j for m in mids[:JOIN_SOURCES] if m in chunks
                     and (j := joining_sentence(chunks[m].content, _forms(a), _forms(b), asked))]  # fmt: skip
            out[rid] = max(found, key=lambda j: j.fit, default=None)
        return out

    def _beyond(
        self, user_id: int, subgraph: Subgraph, seeds: list[int], depth: int, domains: Sequence[str] | None
    ) -> list[GraphNode]:
        """Nodes one hop past the granted depth (what TRIPLE_DEPTH + 1 would add), from a bounded
        number of the farthest nodes; none past the deepest depth there is."""
        if depth >= MAX_DEPTH:
            return []
        dist = hops(subgraph, set(seeds))
        edge = sorted(i for i, d in dist.items() if d == depth)[:BEYOND_FROM]
        if not edge:
            return []
        step = _in_domains(self._entities.expand(user_id, edge, 1), domains)
        return [n for n in step.nodes if n.id not in dist]

    def behind(self, user_id: int, message: str, ctx: AssembledContext, known: Set[int], n: int) -> list[MemoryHit]:
        """The memories the personal relations `ctx` loaded were formed from, best relation first,
        those in `known` left out, at most `n`: a hop's facts as notes, each with the relevance recall
        gives it for `message` (0 when recall ranks it nowhere: a hop's fact need not resemble the
        question). A document's relations already carry their joining sentence."""
        ids = [int(i.ref[1:]) for i in ctx.loaded if i.kind == "relation"]
        if not ids or n <= 0:
            return []
        params: dict[str, Any] = {"u": user_id}
        sql = (
            "SELECT s.relation_id, s.memory_id FROM relation_sources s JOIN relations r ON r.id = s.relation_id "
            f"WHERE r.user_id = :u AND r.document_id IS NULL{in_clause('s.relation_id', ids, params)} "
            "ORDER BY s.amount DESC, s.memory_id"
        )
        with self._engine.connect() as conn:
            by_relation: dict[int, list[int]] = {}
            for rid, mid in conn.execute(text(sql), params).all():
                by_relation.setdefault(rid, []).append(mid)
        order = [m for rid in ids for m in by_relation.get(rid, []) if m not in known]
        wanted = list(dict.fromkeys(order))[:n]
        ranked = {h.memory.id: h for h in self._memories.search(user_id, message, CANDIDATES, 0.0)}
        rows = self._memories.by_ids(user_id, wanted)
        return [ranked.get(m) or MemoryHit(rows[m], 0.0, 0.0, 0.0) for m in wanted if m in rows]

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


def _superseded(past: Subgraph) -> list[tuple[int, str]]:
    names = {n.id: n.name for n in past.nodes}
    return [
        (e.relation_id, f"{names.get(e.subject_id, '?')} {e.predicate} {names.get(e.object_id, '?')}")
        for e in past.edges
        if not e.current
    ]


def _outside(hit: MemoryHit) -> str:
    return f"outside the focus ({_domain(hit.memory.document_id)})"


def _unreachable(graph: _Graph, depth: int) -> list[ContextItem]:
    """What the graph step found but may not load: one hop past the depth, outside the focus,
    superseded. They score below anything loadable (0.1-0.3): only their order among them matters."""
    items = [
        _node_item(n, 0.3).skipped(Skip.DEPTH, f"{depth + 1} hops out, past TRIPLE_DEPTH {depth}") for n in graph.beyond
    ]
    items += [_node_item(n, 0.2).skipped(Skip.FOCUS, f"outside the focus ({n.domain})") for n in graph.outside]
    items += [
        ContextItem(f"r{rid}", "relation", line, line, 0.1).skipped(Skip.SUPERSEDED, "superseded, no longer true")
        for rid, line in graph.superseded
    ]
    return items


def _forms(row: EntityRow) -> list[str]:
    return [row.name, *row.aliases]


def _filling(hit: MemoryHit, now: datetime, asked: Sequence[str]) -> ContextItem:
    item = _memory_item(hit, now, asked)
    item.reason = "no entity matched: a further document chunk"
    return item


def _excerpt(hit: MemoryHit, found: list[Join], now: datetime) -> ContextItem:
    """A further chunk as the sentences of it that hold the question's words, ranked as the chunk
    would be (ranked lower by the share of the question's words they hold, 0.5-1.0, it lost two
    of the Dracula questions' names: docs/benchmarks.md, "Thirteenth session")."""
    item = _memory_item(hit, now)
    best = max(j.fit for j in found)
    item.full = item.summary = f"({item.full[1:].split(')', 1)[0]}, excerpt) " + " ".join(j.sentence for j in found)
    item.reason = f"a further chunk's sentences holding {best:.0%} of the question's words"
    return item


def _node_item(node: GraphNode, score: float) -> ContextItem:
    return ContextItem(f"e{node.id}", "entity", node.name, node.name, score, group=node.type)


def _domain(document_id: int | None) -> str:
    """A memory's graph domain: a document's chunk is in `doc:<id>`, anything else is personal."""
    return "personal" if document_id is None else f"doc:{document_id}"


def _in_focus(document_id: int | None, domains: Sequence[str] | None) -> bool:
    """Whether a memory belongs to the domains in focus (personal memories have no document)."""
    return domains is None or _domain(document_id) in domains


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


def _places(
    ranking: list[MemoryHit],
    near: Mapping[int, tuple[MemoryRow | None, MemoryRow | None]],
    limit: int,
    room: int,
    cost: Callable[[MemoryHit], int],
    more: int = 0,
) -> tuple[list[MemoryHit], list[tuple[int, MemoryRow]], list[MemoryHit], list[MemoryHit]]:
    """The granted memories from `ranking` (best first): a turn said just before or after one already
    chosen (`near`: each turn's previous and next) is kept as that one's neighbouring line instead of
    taking a place (`beside`: (chosen id, turn), best first, all the way down `ranking`), since
    `_surround` shows it there. With lines in play the budget goes in the ranking's order: a memory
    whose text no longer fits the `room` left by the better-ranked memories and lines is not given a
    place (`crowded`), so a place freed by a line never takes the budget of a better-ranked turn. Past the
    limit, up to `more` further memories ranked in order take a place while their texts fit the room left
    (`ContextRequest.more_memories`). Also the first ranked memory past those, if any (for the "past
    VECTOR_SEARCH_LIMIT" pointer)."""
    chosen: list[MemoryHit] = []
    beside: list[tuple[int, MemoryRow]] = []
    past: list[MemoryHit] = []
    crowded: list[MemoryHit] = []
    full = False  # a memory past the limit did not fit: none further takes a place
    for hit in ranking:
        anchor = next((c.memory.id for c in chosen if hit.memory.id in _ids(near.get(c.memory.id or 0))), None)
        price = cost(hit) if near or more else 0  # no lines in play: `_fit` alone packs, as before
        if anchor is not None:
            beside.append((anchor, hit.memory))
            room -= estimate_tokens(_said(1, hit.memory)) + 1
        elif len(chosen) >= limit:
            if not full and len(chosen) < limit + more:
                if price <= room:  # the budget has room: one more
                    chosen.append(hit)
                    room -= price
                    continue
                full = True
            past = past or [hit]
        elif chosen and price > room:
            crowded.append(hit)
        else:
            chosen.append(hit)
            room -= price
    return chosen, beside, past, crowded


def _ids(pair: tuple[MemoryRow | None, MemoryRow | None] | None) -> set[int | None]:
    return {r.id for r in pair or () if r is not None}


def _said(offset: int, row: MemoryRow) -> str:
    """A turn said `offset` turns from a loaded one (-2..2), as its indented line: "  after: …" (the
    twenty-third session cut "said just" from the labels: ~2.5 tokens a line, more lines in the budget)."""
    where = {-2: "before that", -1: "before", 1: "after", 2: "after that"}[offset]
    return f"  {where}: {row.content}"


def _memory_item(hit: MemoryHit, now: datetime, asked: Sequence[str] = ()) -> ContextItem:
    """A memory as a candidate; a document chunk packed short (its summary) shows its sentence
    holding most of the question's words `asked`, not its first 120 characters, which seldom hold
    them (one more Dracula question with every name: docs/benchmarks.md, "Fifteenth session")."""
    row = hit.memory
    date = f"{row.created_at:%Y-%m-%d}" if row.created_at else "undated"
    stamp = f"({date})" if row.kind == "turn" else f"({date}, {row.kind})"
    full = f"{stamp} {row.content}"
    summary = f"{stamp} {row.content[:120]}" + ("…" if len(row.content) > 120 else "")
    said = asked_sentences(row.content, asked) if row.kind == "chunk" and asked else []
    if said and len(" ".join(said)) < len(row.content):
        summary = f"({date}, {row.kind}, excerpt) " + " ".join(said)
    score = 0.6 * hit.relevance + 0.2 * recency(row.created_at, now) + 0.2 * KIND_WEIGHT.get(row.kind, 0.5)
    return ContextItem(f"m{row.id}", row.kind, full, summary, score, row.created_at)


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000
