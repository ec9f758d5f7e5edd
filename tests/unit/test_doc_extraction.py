"""The model-free extractor: names, honorifics, type votes, relation patterns, labeled quality."""

from __future__ import annotations

import json
from pathlib import Path

from memory.documents.chunking import Chunk, chunk_stream
from memory.documents.core_entities import CoreConfig, select_core
from memory.documents.extraction import COOCCURS, PatternExtractor
from memory.documents.ingest import ground
from memory.graph.names import name_key, normalize_predicate, normalize_type

DATA = Path(__file__).parent.parent / "data"


def _names(text: str) -> dict[str, str]:
    mentions = PatternExtractor().entities([Chunk(0, 0, text)])[0]
    return {m.name: m.type for m in mentions}


def test_doc_extraction_finds_honorific_names_and_types() -> None:
    found = _names("Yesterday Dr. Seward went to Whitby. The ship Demeter came in. Count Dracula smiled.")
    assert found["Seward"] == "Person"
    assert found["Whitby"] == "Location"
    assert found["Demeter"] == "Product"
    assert found["Count Dracula"] == "Person"
    assert "Yesterday" not in found and "The" not in found


def test_doc_extraction_marks_sentence_initial_words_low_salience() -> None:
    mentions = PatternExtractor().entities([Chunk(0, 0, "Suddenly the door opened. I saw Lucy there.")])[0]
    by_name = {m.name: m for m in mentions}
    assert by_name["Suddenly"].salience == 1
    assert by_name["Lucy"].salience >= 2


def test_doc_extraction_type_normalization() -> None:
    assert [normalize_type(t) for t in ("GPE", "people", "company", "ship", "Cities")] == [
        "Location", "Person", "Organization", "Concept", "Location",
    ]
    assert normalize_predicate("travels to") == "TRAVELS_TO"


def test_doc_extraction_relation_patterns_and_cooccurrence() -> None:
    text = "Jonathan went to Whitby. Mina of Exeter wrote. Jonathan's wife Mina smiled, and Lucy laughed."
    names = {n: [] for n in ("Jonathan", "Whitby", "Mina", "Exeter", "Lucy")}
    triples = {(t.subject, t.predicate, t.object) for t in PatternExtractor().relations([Chunk(0, 0, text)], names)}
    assert ("Jonathan", "TRAVELS_TO", "Whitby") in triples
    assert ("Mina", "PART_OF", "Exeter") in triples
    assert ("Mina", "WIFE_OF", "Jonathan") in triples
    assert ("Mina", COOCCURS, "Lucy") in triples
    assert not any(t[1] == COOCCURS and {t[0], t[2]} == {"Jonathan", "Mina"} for t in triples)


def test_doc_extraction_grounding_drops_names_not_in_text() -> None:
    chunk = Chunk(1, 0, "Mina wrote to Mina. Lucy read.", fresh_from=12)
    from memory.documents.extraction import Mention

    kept = ground([Mention("Mina", "Person"), Mention("Quincey", "Person"), Mention("Lucy", "Person")], chunk)
    assert {m.name: m.count for m in kept} == {"Mina": 1, "Lucy": 1}  # only the fresh part counts


def precision_recall(names: list[str], labeled: list[dict[str, object]]) -> tuple[float, float]:
    """Name-level precision and recall against labeled entities (any alias counts)."""
    keys = [{name_key(str(e["name"])), *(name_key(str(a)) for a in e["aliases"])} for e in labeled]  # type: ignore[union-attr]
    hits = [any(name_key(n) in k for k in keys) for n in names]
    found = [any(name_key(n) in k for n in names) for k in keys]
    return sum(hits) / max(1, len(names)), sum(found) / max(1, len(keys))


def test_doc_extraction_fallback_quality_on_labeled_excerpt() -> None:
    labeled = json.loads((DATA / "dracula_labeled.json").read_text())["entities"]
    ex = PatternExtractor()
    with (DATA / "dracula_ch4_excerpt.txt").open() as f:
        chunks = list(chunk_stream(f))
    staged = [(c.seq, ground(ms, c)) for c, ms in zip(chunks, ex.entities(chunks), strict=True)]
    core = select_core(staged, CoreConfig(), None)
    precision, recall = precision_recall([e.name for e in core], labeled)
    assert precision >= 0.6 and recall >= 0.3, (precision, recall, [e.name for e in core])
