"""Core-entity selection: exact and semantic dedupe, thresholds, caps, relation aggregation."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from memory.documents.core_entities import CoreConfig, aggregate, aggregate_relations, dedupe_key, select_core
from memory.documents.extraction import COOCCURS, Mention, Triple
from memory.documents.store import CoreEntity


class KeywordEmbedder:
    """A deterministic fake: texts sharing their first description word embed identically."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = []
        for t in texts:
            word = t.split(": ", 1)[-1].split()[0] if ": " in t else t
            v = np.zeros(64, dtype=np.float32)
            v[hash(word) % 64] = 1.0
            rows.append(v)
        return np.stack(rows)


def _staged(*mentions: tuple[int, str, str, int, int]) -> list[tuple[int, list[Mention]]]:
    by_seq: dict[int, list[Mention]] = {}
    for seq, name, kind, salience, count in mentions:
        by_seq.setdefault(seq, []).append(Mention(name, kind, f"{name} described", salience, count))
    return sorted(by_seq.items())


def test_core_entities_exact_dedupe_strips_honorifics_and_folds_people() -> None:
    assert dedupe_key("Dr. Van Helsing") == "van helsing"
    cands = aggregate(_staged(
        (0, "Dr. Seward", "Person", 3, 2), (1, "Seward", "Person", 2, 3),
        (0, "Count Dracula", "Person", 4, 1), (2, "Dracula", "Person", 2, 5), (2, "Count", "Person", 2, 4),
        (3, "Jonathan Harker", "Person", 3, 4), (3, "Mina Harker", "Person", 3, 4), (4, "Harker", "Person", 2, 2),
    ))
    by_name = {c.name: c.mentions for c in cands}
    assert by_name["Dr. Seward"] == 5
    assert by_name["Count Dracula"] == 10
    assert by_name["Harker"] == 2  # ambiguous between two Harkers: not folded


def test_core_entities_selection_applies_thresholds_and_caps() -> None:
    staged = _staged(
        *((i, f"Town{chr(65 + i)}", "Location", 3, 10 - i) for i in range(6)),
        (0, "Rare", "Person", 5, 1), (0, "Dull", "Person", 1, 9), (1, "Lucy", "Person", 3, 4),
    )
    cfg = CoreConfig(min_mentions=2, min_salience=2, max_entities=4, max_per_type={"Location": 3, "Person": 5})
    core = select_core(staged, cfg, None)
    names = [e.name for e in core]
    assert "Rare" not in names and "Dull" not in names  # too few mentions / too little salience
    assert sum(e.type == "Location" for e in core) == 3 and len(core) == 4
    assert names[0] == "TownA" and "Lucy" in names
    assert [e.score for e in core] == sorted((e.score for e in core), reverse=True)


def test_core_entities_semantic_dedupe_merges_same_type_only() -> None:
    staged = [(0, [Mention("Whitby", "Location", "harbour town", 3, 5), Mention("Whitby Harbour", "Location",
                                                                               "harbour town", 3, 2),
                   Mention("Harbour Master", "Person", "harbour town", 3, 2)])]
    core = select_core(staged, CoreConfig(), KeywordEmbedder())  # type: ignore[arg-type]
    locations = [e for e in core if e.type == "Location"]
    assert len(locations) == 1 and len(core) == 2  # the Person with the same description stays apart
    assert {locations[0].name, *locations[0].aliases} == {"Whitby", "Whitby Harbour"}
    assert locations[0].mentions == 7


def test_core_entities_relations_keep_typed_and_frequent_cooccurrence() -> None:
    core = [CoreEntity(n, "Person", "", 3, 1.0) for n in ("A", "B", "C", "D")]
    staged = [
        (0, [Triple("A", "travels to", "B", 0), Triple("A", COOCCURS, "B", 0), Triple("C", COOCCURS, "D", 0)]),
        (1, [Triple("D", COOCCURS, "C", 1), Triple("A", COOCCURS, "C", 1), Triple("A", "KNOWS", "Z", 1)]),
    ]
    rels = {(r.subject, r.predicate, r.object): r.weight for r in aggregate_relations(staged, core, CoreConfig())}
    assert rels == {("A", "TRAVELS_TO", "B"): 1.0, ("C", COOCCURS, "D"): 2.0}


def test_core_entities_semantic_dedupe_needs_a_shared_name_word() -> None:
    # Both first seen in "Letter from Miss Mina Murray to Miss Lucy Westenra": one description, two people.
    said = "Letter from Miss Mina Murray to Miss Lucy Westenra."
    staged = [(0, [Mention("Lucy Westenra", "Person", said, 3, 5), Mention("Mina Murray", "Person", said, 3, 4)])]
    core = select_core(staged, CoreConfig(), KeywordEmbedder())  # type: ignore[arg-type]
    assert sorted((e.name, tuple(e.aliases)) for e in core) == [("Lucy Westenra", ()), ("Mina Murray", ())]
