"""Attention: what each candidate piece of context is worth to the question, and why it was or
was not loaded.

A graph node is scored by a weighted sum of four terms, each in 0..1, less a domain penalty
(`Weights`; the shipped ones are `GRAPH_WEIGHTS`, and why they give relevance no weight is said
at `RELEVANCE`):
- **seed**: 1.0 for an entity the message names or a recalled memory links, 0.6 for one reached
  by expansion;
- **relevance**: cosine of the entity's name + summary to the question (memory/graph/entity_vectors.py,
  the embedder of memories);
- **domain** (the seed's "domain/focus"): how much of what the question named and recalled lies in
  the entity's graph domain ("personal", "doc:3"), the question's main domain 1.0 (`domain_shares`);
  a node loses `Weights.domain` times the share its domain lacks, so the question's own domain loses
  nothing; a chat's focus already keeps other domains out, so this ranks only when no focus is set;
- **centrality**: its degree in the expanded subgraph over the highest degree there;
- **recency**: 1.0 when last updated now, halving every 30 days.
A relation is scored with the same weights: touching a seed, the mean relevance and the mean domain
term of its two ends, its weight (3 mentions and more count fully), and 1.0 for recency. A document's relation is shown
with the sentence that joins its ends (memory/documents/joins.py), and `Weights.evidence` adds the
share of the question's other content words (beyond the two names) that sentence holds. A
co-occurrence (RELATED_TO) is offered only when such a sentence holds one of them: two names that
met in a sentence saying nothing the question asks carry no fact for it.

Every candidate carries a reason: why it was loaded ("named in the question", "2 hops out,
relevance 0.41"), or the kind of skip and its words (`Skip`).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from enum import StrEnum
from typing import Literal

from memory.documents.extraction import COOCCURS
from memory.documents.joins import Join
from memory.graph.cypher import GraphEdge, Subgraph
from memory.models import EntityRow
from memory.tokens import estimate_tokens

Level = Literal["full", "summary"]
RECENCY_HALF_LIFE_DAYS = 30.0
EXPANDED = 0.6
"""The seed term of an entity reached by expansion (a named or linked one has 1.0)."""


@dataclass(frozen=True)
class Weights:
    """The weights of a graph node's score terms (they sum to 1), and the relevance cut: an
    expanded entity whose name + summary has a cosine below `cut` to the question is not loaded,
    nor a relation to it (0 cuts nothing). `evidence` weighs, for a relation only, the share of
    the question's content words in the sentence shown with it. `domain` is what a node of another
    domain than the question's loses: its score drops by `domain` times the share of the question
    its domain lacks (`domain_shares`); the question's own domain loses nothing, so a graph of one
    domain ranks as without the term."""

    seed: float
    relevance: float
    centrality: float
    recency: float
    cut: float = 0.0
    evidence: float = 0.0
    domain: float = 0.0
    fit: float = 1.0
    """How far a document co-occurrence's score is weighed by the share of the question its
    sentence holds: × (1 - fit + fit × share); 1 ships, 0 ranks as before the fifteenth session."""


EVIDENCE = 0.0
"""Issue 14 measured ranking a relation up by the share of the question's words in its joining
sentence (0.3): it lost a question on the Dracula set (docs/benchmarks.md, "Entities worth having
and evidence"), so it ships off; the term stays for other graphs and the benchmark's row."""
STRUCTURE = Weights(seed=0.5, relevance=0.0, centrality=0.3, recency=0.2)
"""The scoring before issue 19: nothing relates a node to the question."""
RELEVANCE = Weights(seed=0.35, relevance=0.35, centrality=0.15, recency=0.15, cut=0.15)
"""Relevance weighted as much as being named. On the Dracula questions (bench/ingest_eval.py,
depth 2, 800 tokens) it lost to `STRUCTURE`: answer names among the loaded items 0.697 against
0.738 (every mix tried, down to relevance 0.05, lost a question or more). In a novel's
co-occurrence graph the central names are the answers, and ranking by a name's likeness to the
question let the relations that name them go. Kept for the benchmark and for other graphs."""
NO_DOMAIN = Weights(seed=0.5, relevance=0.0, centrality=0.3, recency=0.2, cut=0.1, evidence=EVIDENCE)
"""Shipped before the domain term: the order of `STRUCTURE`, and an expanded entity less like the
question than 0.1 (MiniLM puts unrelated short texts at about 0.0-0.15) is not loaded, nor a
relation to it. On the Dracula questions: answer names among the loaded items 0.748 (multi-hop
0.817) against 0.738 (0.783) before; a cut of 0.15 lost a question."""
GRAPH_WEIGHTS = replace(NO_DOMAIN, domain=0.1)
"""Shipped: `NO_DOMAIN`, and a node of another domain than the question's loses up to 0.1. With a
person's own life beside the novel (`bench/ingest_eval.py --namesakes`), the Dracula questions
keep every answer name (0.722, multi-hop 0.7, as without the term) and load 16 of the person's
entities instead of 22 over the 36 questions; 0.2 and more lost a multi-hop question. In a graph
of one domain (the novel alone, LoCoMo) it ranks exactly as `NO_DOMAIN` (docs/benchmarks.md,
"Twelfth session")."""
DOMAIN = replace(NO_DOMAIN, domain=0.25)
"""Domain in the seed's place, above centrality: lost a multi-hop question (0.694 against 0.722)."""
SEED_ORDER = Weights(seed=0.3, relevance=0.25, centrality=0.15, recency=0.1, cut=0.1, domain=0.2)
"""The seed's order in full: relevance, then domain, centrality, recency (seed first, as named)."""


def domain_shares(named: Iterable[str], recalled: Iterable[str]) -> dict[str, float]:
    """Each graph domain's part in what the question named (its seed entities' domains) and
    recalled (its memories': "personal", or a chunk's "doc:<id>"), the largest 1.0. Empty when
    nothing was named or recalled: the domain term is then 1.0 for every node."""
    counts = Counter([*named, *recalled])
    top = max(counts.values(), default=0)
    return {d: n / top for d, n in counts.items()} if top else {}


class Skip(StrEnum):
    """Why something related was not loaded."""

    RELEVANCE = "relevance"
    BUDGET = "budget"
    DEPTH = "depth"
    LIMIT = "limit"  # a memory past VECTOR_SEARCH_LIMIT, above the threshold
    FOCUS = "focus"
    SUPERSEDED = "superseded"


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
    reason: str = ""  # why it was loaded, or why not
    skip: Skip | None = None
    around: tuple[int, ...] = ()  # a turn's neighbouring turns shown as its surrounding lines (memory ids)

    def cost(self, level: Level) -> int:
        """Token cost of this item at a level, as the block renders it: the text, its bullet and
        ref, and an entity's type ("- [e12] Lucy (Person)")."""
        typed = estimate_tokens(self.group) + 1 if self.kind == "entity" else 0
        return estimate_tokens(self.full if level == "full" else self.summary) + 2 + typed

    def skipped(self, skip: Skip, reason: str) -> ContextItem:
        """This item, marked as not loaded for `reason`."""
        self.level, self.skip, self.reason = None, skip, reason
        return self


def recency(created_at: datetime | None, now: datetime) -> float:
    """1.0 for now, halving every RECENCY_HALF_LIFE_DAYS."""
    if created_at is None:
        return 0.5
    age_days = max(0.0, (now - created_at).total_seconds() / 86400)
    return math.pow(0.5, age_days / RECENCY_HALF_LIFE_DAYS)


def hops(subgraph: Subgraph, seeds: set[int]) -> dict[int, int]:
    """Each node's distance in hops from the nearest seed, over the subgraph's edges."""
    links: dict[int, set[int]] = {}
    for e in subgraph.edges:
        links.setdefault(e.subject_id, set()).add(e.object_id)
        links.setdefault(e.object_id, set()).add(e.subject_id)
    dist = {s: 0 for s in seeds}
    frontier = sorted(seeds)
    while frontier:
        fresh = sorted({n for f in frontier for n in links.get(f, ()) if n not in dist})
        dist.update((n, dist[frontier[0]] + 1) for n in fresh)
        frontier = fresh
    return dist


@dataclass(frozen=True)
class GraphFacts:
    """What the graph step found, for scoring: rows, the subgraph, seeds and how they were found."""

    entities: Mapping[int, EntityRow]
    subgraph: Subgraph
    named: frozenset[int]
    linked: frozenset[int]
    relevance: Mapping[int, float]
    joins: Mapping[int, Join | None] | None = None
    """Per document relation, the sentence joining its ends (None: no sentence found); the whole
    map is None when nothing was looked up (relations then show as bare lines, as before)."""
    domains: Mapping[str, float] | None = None
    """The question's graph domains with their shares (`domain_shares`); None or empty: one domain."""

    def in_domain(self, row: EntityRow | None) -> float:
        """The domain term of an entity: its domain's share of the question's (1.0 when unknown)."""
        if not self.domains or row is None:
            return 1.0
        return self.domains.get(row.domain, 0.0)

    @property
    def seeds(self) -> frozenset[int]:
        """Entities the expansion started from."""
        return self.named | self.linked


def graph_items(facts: GraphFacts, now: datetime, weights: Weights = GRAPH_WEIGHTS) -> list[ContextItem]:
    """Every entity and relation of the subgraph, scored; those below the weights' relevance cut
    already marked skipped."""
    degree: dict[int, int] = {}
    for e in facts.subgraph.edges:
        degree[e.subject_id] = degree.get(e.subject_id, 0) + 1
        degree[e.object_id] = degree.get(e.object_id, 0) + 1
    top = max(degree.values(), default=1)
    dist = hops(facts.subgraph, set(facts.seeds))
    cut: set[int] = set()
    items: list[ContextItem] = []
    for eid, row in facts.entities.items():
        seed, rel = eid in facts.seeds, facts.relevance.get(eid, 0.0)
        score = (
            weights.seed * (1.0 if seed else EXPANDED)
            + weights.relevance * rel
            - weights.domain * (1.0 - facts.in_domain(row))
            + weights.centrality * degree.get(eid, 0) / top
            + weights.recency * recency(row.updated_at, now)
        )
        item = entity_item(row, score)
        item.reason = _why_entity(eid, facts, dist)
        if not seed and rel < weights.cut:
            cut.add(eid)
            item.skipped(Skip.RELEVANCE, f"relevance {rel:.2f} below the cut {weights.cut}")
        items.append(item)
    items += [item for e in facts.subgraph.edges if (item := _relation_item(e, facts, dist, cut, weights)) is not None]
    return items


def shown_summary(row: EntityRow) -> str:
    """The summary an entity is loaded with: none for a document's entity, whose "summary" is the
    first sentence its name was seen in (memory/documents/core_entities.py), seldom about it
    ("'Yes,' I said, 'Jonathan Harker.'"): 30-50 tokens of the budget for no fact."""
    return "" if row.domain.startswith("doc:") else (row.summary or "")


def entity_item(row: EntityRow, score: float) -> ContextItem:
    """An entity as a candidate: name, aliases and summary in full; the name alone as summary."""
    about = f" — {shown_summary(row)}" if shown_summary(row) else ""
    aliases = f" (also: {', '.join(row.aliases[:3])})" if row.aliases else ""
    return ContextItem(f"e{row.id}", "entity", f"{row.name}{aliases}{about}", row.name, score, row.updated_at, row.type)


def _why_entity(eid: int, facts: GraphFacts, dist: Mapping[int, int]) -> str:
    if eid in facts.named:
        return "named in the question"
    if eid in facts.linked:
        return "linked to a recalled memory"
    hop = dist.get(eid)
    where = f"{hop} hop{'s' if hop != 1 else ''} out" if hop is not None else "in the expansion"
    row = facts.entities.get(eid)
    other = f", another domain ({row.domain})" if row is not None and facts.in_domain(row) < 1.0 else ""
    return f"{where}, relevance {facts.relevance.get(eid, 0.0):.2f}{other}"


def _relation_item(
    e: GraphEdge, facts: GraphFacts, dist: Mapping[int, int], cut: set[int], weights: Weights
) -> ContextItem | None:
    subj, obj = facts.entities.get(e.subject_id), facts.entities.get(e.object_id)
    if subj is None or obj is None:
        return None
    joins = facts.joins or {}
    join = joins.get(e.relation_id)
    if e.relation_id in joins and e.predicate == COOCCURS and (join is None or join.fit == 0):
        return None  # two names met in a sentence that says nothing the question asks: no fact for it
    ends = {e.subject_id, e.object_id}
    rel = sum(facts.relevance.get(i, 0.0) for i in ends) / len(ends)
    touches = 1.0 if ends & facts.seeds else 0.5
    score = (
        weights.seed * touches
        + weights.relevance * rel
        - weights.domain * (1.0 - (facts.in_domain(subj) + facts.in_domain(obj)) / 2)
        + weights.centrality * min(1.0, e.weight / 3)
        + weights.recency * 1.0
        + (weights.evidence * join.fit if join else 0.0)
    )
    if e.predicate == COOCCURS and join is not None:
        # A co-occurrence is no fact but its sentence: it is worth the share of the question the
        # sentence holds, so a line holding one asked word of four yields to a chunk that answers
        # (two more Dracula questions with every name, none lost: docs/benchmarks.md, "Fifteenth session").
        score *= 1.0 - weights.fit + weights.fit * join.fit
    line = f"{subj.name} {e.predicate} {obj.name}"
    full = f"{line}: “{join.sentence}”" if join else line
    # A co-occurrence is its sentence: without it the line is no fact, so it has no short form.
    item = ContextItem(f"r{e.relation_id}", "relation", full, full if e.predicate == COOCCURS else line, score)
    far = max(dist.get(i, 0) for i in ends)
    item.reason = "link of a named entity" if ends & facts.named else f"link {far} hop{'s' if far != 1 else ''} out"
    off = sorted(ends & cut)
    if off:
        name = facts.entities[off[0]].name
        item.skipped(Skip.RELEVANCE, f"links {name}, below the relevance cut")
    return item
