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
    assert "The" not in found


def test_doc_extraction_marks_sentence_initial_words_low_salience() -> None:
    mentions = PatternExtractor().entities([Chunk(0, 0, "Yesterday the door opened. I saw Lucy there.")])[0]
    by_name = {m.name: m for m in mentions}
    assert by_name["Yesterday"].salience == 1
    assert by_name["Lucy"].salience >= 2


def _core(*paragraphs: str) -> dict[str, str]:
    """The core entities (defaults) of a document made of these paragraphs, one chunk each."""
    chunks = [Chunk(i, 0, text) for i, text in enumerate(paragraphs)]
    staged = [(c.seq, ground(ms, c)) for c, ms in zip(chunks, PatternExtractor().entities(chunks), strict=True)]
    return {e.name: e.type for e in select_core(staged, CoreConfig(), None)}


def test_doc_extraction_sentence_initial_words_need_a_name_mid_clause() -> None:
    # Sentences of the novel: "Nay", "Take" and "Forgive" only ever start a clause (a CRLF
    # before the quote used to hide the quote); "Lucy" is also written mid-sentence.
    found = _names(
        '"Nay, sir, you are my guest."\r\n"Take this," said Lucy.\r\n"Forgive me," said she. '
        'Later on I saw Lucy. Don\'t be afraid.'
    )
    mentions = {m.name: m for m in PatternExtractor().entities([Chunk(0, 0, "Take care.\r\n\"Nay, I told Lucy.\"")])[0]}
    assert "Don" not in found  # a contraction
    assert mentions["Nay"].salience == 1 and mentions["Take"].salience == 1
    assert mentions["Lucy"].salience >= 2
    assert "Suddenly" not in _names("Suddenly the door opened. I saw Lucy there, suddenly pale.")
    core = _core('"Nay, sir," said Lucy. "Nay, but they are not to take." Lucy smiled.',
                 '"Take this," said Lucy. "Forgive me." I told Lucy so.')
    assert set(core) == {"Lucy"}


def test_doc_extraction_sheds_glued_verbs_and_splits_at_honorifics() -> None:
    found = _names("_20 July._--Visited Renfield very early. I saw Renfield. Truly Miss Lucy, if she be dead, is.")
    assert "Renfield" in found and "Visited Renfield" not in found
    assert found["Lucy"] == "Person" and "Truly Miss Lucy" not in found
    assert "Thank God" not in _names("Thank God, it is over, and I thank God for Mina.")


def test_doc_extraction_types_people_by_speech_titles_and_surnames() -> None:
    found = _names('"Quincey Morris!" I cried out. Then said Van Helsing: "Go." I wrote to Quincey Morris at once.')
    assert found["Van Helsing"] == "Person" and found["Quincey Morris"] == "Person"
    # "to Quincey Morris" on a letter is no place; the surname of "Mr. Morris" makes him a person.
    core = _core("I wrote to Quincey Morris. Then I wrote to Quincey Morris again.",
                 "Mr. Morris sat down beside me. Mr. Morris smiled.")
    assert core.get("Quincey Morris") == "Person"
    assert _names("We went to Whitby and stayed in Whitby.")["Whitby"] == "Location"
    assert _core("We saw Castle Dracula. Mr. Dracula waited at Castle Dracula.")["Castle Dracula"] == "Location"


def test_doc_extraction_keeps_vessels_named_in_emphasis() -> None:
    text = ("I was permitted to look over the log-book of the _Demeter_, which was in order. "
            "She is the _Czarina Catherine_, and she sail from Doolittle's Wharf. "
            "The _Czarina Catherine_ left the Thames yesterday morning.")
    found = _names(text)
    assert found["Demeter"] == "Product" and found["Czarina Catherine"] == "Product"
    kept = ground(PatternExtractor().entities([Chunk(0, 0, text)])[0], Chunk(0, 0, text))
    assert {m.name: m.count for m in kept}["Czarina Catherine"] == 2  # emphasis markup is no word character


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
