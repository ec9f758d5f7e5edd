"""Hybrid recall on the real index, on both backends: each retriever covers the other's blind spot, and
conversation mode (neighbours, speakers: `meta` read as JSON in each dialect) re-ranks the same way."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from memory.recall.embedder import Embedder
from memory.recall.pg_index import PgMemoryIndex
from memory.recall.vectors import MemoryIndex, NewMemory

NOTES = [
    "Order number XK-4471 for the standing desk shipped on Tuesday.",
    "My brother Tom is allergic to peanuts.",
    "I started learning Portuguese because we are moving to Lisbon.",
    "The plumber fixed the kitchen sink leak.",
    "I prefer tea over coffee in the mornings.",
]


@pytest.fixture
def index(both_engines: Engine, embedder: Embedder) -> MemoryIndex:
    pg = both_engines.dialect.name == "postgresql"
    idx = PgMemoryIndex(both_engines, embedder) if pg else MemoryIndex(both_engines, embedder)
    idx.add_many(1, [NewMemory("fact", n) for n in NOTES])
    return idx


def test_recall_lexical_only_query_found(index: MemoryIndex) -> None:
    hits = index.search(1, "XK-4471", limit=1, threshold=0.5)
    assert hits and "XK-4471" in hits[0].memory.content
    assert hits[0].lexical > 0


def test_recall_paraphrase_only_query_found(index: MemoryIndex) -> None:
    # No content word in common with the stored note: only the dense side can find it. Its
    # calibrated relevance (~0.37 here) is honest about a 0.41 cosine, so rank, not threshold.
    hits = index.search(1, "Which foods must my sibling avoid?", limit=5, threshold=0.0)
    assert "peanuts" in hits[0].memory.content
    assert hits[0].lexical == 0
    assert hits[0].relevance > 3 * hits[1].relevance


def test_recall_neighbours_follow_their_anchor(index: MemoryIndex) -> None:
    turns = ["Did you book anything for the trip?", "Yes, a cabin by the lake for three nights.", "Nice!"]
    rows = index.add_many(1, [NewMemory("turn", t, thread_id="th") for t in turns])
    hits = index.search(1, "Did you book anything for the trip?", limit=3, threshold=0.0)
    assert [h.memory.id for h in hits[:2]] == [rows[0].id, rows[1].id]


def test_recall_prefers_the_named_speakers_turn(index: MemoryIndex) -> None:
    ann, bob = index.add_many(
        1,
        [
            NewMemory("turn", "We finally adopted a rescue cat last spring.", thread_id="a", meta={"speaker": "Ann"}),
            NewMemory("turn", "We adopted a rescue cat last spring.", thread_id="b", meta={"speaker": "Bob"}),
        ],
    )
    plain = index.search(1, "Did someone adopt a cat?", limit=2, threshold=0.0)
    assert [h.memory.id for h in plain] == [bob.id, ann.id]  # Bob's words match a little better
    hits = index.search(1, "Did Ann adopt a cat?", limit=2, threshold=0.0)
    assert [h.memory.id for h in hits] == [ann.id, bob.id]  # but Ann is the one asked about
