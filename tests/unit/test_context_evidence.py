"""How graph context weighs a document's evidence (fifteenth session, issue 14): a co-occurrence
line by the share of the question its sentence holds, a chunk packed short by its asked sentences."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from memory.assembly import _memory_item
from memory.attention import GRAPH_WEIGHTS, GraphFacts, graph_items
from memory.documents.extraction import COOCCURS
from memory.documents.joins import Join
from memory.graph.cypher import GraphEdge, GraphNode, Subgraph
from memory.models import EntityRow, MemoryRow
from memory.recall.hybrid import MemoryHit

NOW = datetime(2026, 11, 28, tzinfo=UTC)


def _entity(i: int, name: str) -> EntityRow:
    return EntityRow(id=i, user_id=1, name=name, type="Person", domain="doc:1", created_at=NOW, updated_at=NOW)


def _facts(joins: dict[int, Join | None], predicate: str = COOCCURS) -> GraphFacts:
    rows = {1: _entity(1, "Mina"), 2: _entity(2, "Lucy"), 3: _entity(3, "Arthur")}
    nodes = tuple(GraphNode(i, 1, r.name, r.type, r.domain) for i, r in rows.items())
    edges = (GraphEdge(10, 1, predicate, 2, 3.0), GraphEdge(11, 1, predicate, 3, 3.0))
    return GraphFacts(rows, Subgraph(nodes, edges), frozenset({1}), frozenset(), {1: 0.5, 2: 0.5, 3: 0.5}, joins)


def _relations(facts: GraphFacts) -> dict[str, float]:
    return {i.ref: i.score for i in graph_items(facts, NOW) if i.kind == "relation"}


def test_a_cooccurrence_is_worth_the_share_of_the_question_its_sentence_holds() -> None:
    """Two lines that touch the named entity alike: the one whose sentence holds a quarter of the
    asked words scores a quarter of the one holding them all, below a chunk that answers (~0.9)."""
    joins: dict[int, Join | None] = {10: Join("Mina met Lucy at Whitby.", 1.0), 11: Join("Mina and Arthur.", 0.25)}
    scores = _relations(_facts(joins))
    assert scores["r11"] == scores["r10"] / 4 and scores["r11"] < 0.3
    typed = _relations(_facts({10: Join("Mina married Lucy.", 1.0), 11: Join("Mina and Arthur.", 0.25)}, "KNOWS"))
    assert typed["r11"] == typed["r10"]  # a typed relation is a fact beside its sentence: not weighed by it
    before = {i.ref: i.score for i in graph_items(_facts(joins), NOW, replace(GRAPH_WEIGHTS, fit=0.0))}
    assert before["r11"] == before["r10"] == scores["r10"]  # fit 0: the ranking before the session
    bare = _relations(_facts({}))
    assert bare["r10"] == bare["r11"] == scores["r10"]  # no evidence looked up: as before


def _chunk(content: str, kind: str = "chunk") -> MemoryHit:
    row = MemoryRow(id=5, user_id=1, kind=kind, content=content, created_at=NOW, content_hash="h", document_id=1)
    return MemoryHit(row, 0.9, 0.6, 2.0)


def test_a_chunk_packed_short_shows_its_sentences_holding_the_asked_words() -> None:
    text = "It was a grey day and the rain went on all afternoon over the Park. " * 3 + (
        "The keepers hunted the Park all night for Bersicker, the wolf that got out."
    )
    item = _memory_item(_chunk(text), NOW, ["wolf", "zoological"])
    said = "The keepers hunted the Park all night for Bersicker, the wolf that got out."
    assert item.summary == f"(2026-11-28, chunk, excerpt) {said}"
    assert item.full.endswith(text)
    assert "Bersicker" not in _memory_item(_chunk(text), NOW).summary  # no question: the first characters
    assert "excerpt" not in _memory_item(_chunk(text, "turn"), NOW, ["wolf"]).summary  # a turn is short already
