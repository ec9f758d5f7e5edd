"""Which of a document's extracted entities become graph nodes, and which relations join them.

Pure functions over staged mentions (plus the embedder for semantic dedupe), so a resumed
ingestion selects exactly the same set. The steps, in order:

1. exact dedupe: one candidate per `name_key` with a leading honorific dropped ("Dr. Seward"
   and "Seward" are one); a multi-word name ending in a known person's surname is a person;
   then a one-word person name folds into the only (or clearly dominant) multi-word person
   it is part of ("Dracula", "the Count" → "Count Dracula");
2. selection: minimum mentions and salience, score = mention_weight·log2(1+mentions) +
   salience_weight·salience, caps per type and overall (all in `CoreConfig`);
3. semantic dedupe: same-type candidates whose names share a word and whose "name: description"
   embeddings have cosine ≥ `semantic_threshold` merge into the higher-scored one (as an alias,
   never a new node). The shared word is required because two names met in one sentence get that
   sentence as their description: "Letter from Miss Mina Murray to Miss Lucy Westenra" made Mina an
   alias of Lucy, and "Varna" of "Whitby", once both were typed alike.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from memory.documents.extraction import COOCCURS, HONORIFICS, Mention, Triple
from memory.documents.mentions import place_name
from memory.documents.store import CoreEntity, CoreRelation
from memory.graph.names import DEFAULT_TYPE, name_key, normalize_predicate, normalize_type
from memory.recall.embedder import Embedder

DEFAULT_TYPE_CAPS: dict[str, int] = {
    "Person": 25,
    "Location": 20,
    "Organization": 10,
    "Product": 8,
    "Concept": 12,
    "Event": 8,
    "Role": 8,
}
_HONORIFIC_KEYS = frozenset(h.casefold() for h in HONORIFICS.split("|"))


@dataclass(frozen=True)
class CoreConfig:
    """Knobs of core-entity and relation selection (defaults sized for a novel: ~60 nodes)."""

    min_mentions: int = 2
    min_salience: int = 2
    max_entities: int = 60
    max_per_type: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_TYPE_CAPS))
    mention_weight: float = 1.0
    salience_weight: float = 1.0
    semantic_threshold: float = 0.9
    min_cooccurrence: float = 2.0
    max_relations: int = 250


@dataclass
class Candidate:
    """An entity aggregated over the document: surface forms, type votes, mentions per chunk."""

    key: str
    forms: Counter[str] = field(default_factory=Counter)
    types: Counter[str] = field(default_factory=Counter)
    description: str = ""
    salience: int = 1
    by_seq: Counter[int] = field(default_factory=Counter)

    @property
    def mentions(self) -> int:
        """Total mentions in the document."""
        return sum(self.by_seq.values())

    @property
    def type(self) -> str:
        """The most voted concrete type ("Concept" only when nothing else was said)."""
        concrete = [(n, t) for t, n in self.types.items() if t != DEFAULT_TYPE]
        return max(concrete)[1] if concrete else DEFAULT_TYPE

    @property
    def name(self) -> str:
        """The display name: the most frequent multi-word form, else the most frequent form.

        "Most frequent" rather than "longest": a stray capitalized run ("Truly Miss Lucy") is long.
        """
        return max(self.forms, key=lambda f: (len(f.split()) > 1, self.forms[f], f))

    def absorb(self, other: Candidate) -> None:
        """Fold another candidate's forms, votes and mentions into this one."""
        self.forms.update(other.forms)
        self.types.update(other.types)
        self.by_seq.update(other.by_seq)
        self.salience = max(self.salience, other.salience)
        self.description = self.description or other.description


def dedupe_key(name: str) -> str:
    """`name_key` without a leading honorific ("Dr. Van Helsing" → "van helsing")."""
    words = name_key(name).split()
    if len(words) > 1 and words[0] in _HONORIFIC_KEYS:
        words = words[1:]
    return " ".join(words)


def aggregate(staged: Iterable[tuple[int, Sequence[Mention]]]) -> list[Candidate]:
    """Exact dedupe of every chunk's mentions into document-level candidates."""
    by_key: dict[str, Candidate] = {}
    for seq, mentions in staged:
        for m in mentions:
            key = dedupe_key(m.name)
            if not key:
                continue
            c = by_key.setdefault(key, Candidate(key))
            c.forms[m.name] += m.count
            c.types[normalize_type(m.type)] += m.count
            c.by_seq[seq] += m.count
            c.salience = max(c.salience, m.salience)
            if not c.description and m.description:
                c.description = m.description
    return fold_people(type_by_surname(list(by_key.values())))


def type_by_surname(cands: list[Candidate]) -> list[Candidate]:
    """A multi-word name whose last word is a known person's is a person: "Quincey Morris" beside
    "Mr. Morris", "Lucy Westenra" beside "Mrs. Westenra" (their own votes said Location, from
    "to Quincey Morris" on letters). A place word in the name keeps it a place ("Castle Dracula")."""
    people = {c.key for c in cands if " " not in c.key and c.type == "Person"}
    for c in cands:
        words = c.key.split()
        if len(words) > 1 and c.type != "Person" and words[-1] in people and not place_name(words):
            c.types["Person"] += sum(c.types.values())
    return cands


def fold_people(cands: list[Candidate]) -> list[Candidate]:
    """Fold one-word person names into the one multi-word person containing that word.

    The most mentioned go first, so "Jonathan" makes "Jonathan Harker" the clear home of
    "Harker" before "Harker" is weighed between him and "Mina Harker"; a fold updates the words
    its target answers to.
    """
    people = [c for c in cands if c.type in ("Person", DEFAULT_TYPE) and any(len(f.split()) > 1 for f in c.forms)]
    words = {id(p): {w for f in p.forms for w in name_key(f).split()} for p in people}
    gone: set[int] = set()
    for single in sorted(cands, key=lambda c: -c.mentions):
        if " " in single.key or single.type not in ("Person", DEFAULT_TYPE):
            continue
        targets = sorted(
            (p for p in people if p is not single and single.key in words[id(p)] and id(p) not in gone),
            key=lambda p: -p.mentions,
        )
        if not targets or "Person" not in (single.type, targets[0].type):
            continue
        if len(targets) == 1 or targets[0].mentions > 2 * targets[1].mentions:
            targets[0].absorb(single)
            words[id(targets[0])] |= words.get(id(single), {single.key})
            gone.add(id(single))
    return [c for c in cands if id(c) not in gone]


def score(c: Candidate, cfg: CoreConfig) -> float:
    """Rank of a candidate: more mentions and more salience first."""
    return cfg.mention_weight * math.log2(1 + c.mentions) + cfg.salience_weight * c.salience


def _capped(ranked: Sequence[Candidate], cfg: CoreConfig, scale: float = 1.0) -> list[Candidate]:
    taken: Counter[str] = Counter()
    out: list[Candidate] = []
    for c in ranked:
        if len(out) >= math.ceil(cfg.max_entities * scale):
            break
        if taken[c.type] < math.ceil(cfg.max_per_type.get(c.type, cfg.max_entities) * scale):
            taken[c.type] += 1
            out.append(c)
    return out


def _words(c: Candidate) -> set[str]:
    return {w for f in c.forms for w in dedupe_key(f).split()}


def semantic_dedupe(ranked: list[Candidate], embedder: Embedder, threshold: float) -> list[Candidate]:
    """Merge same-type candidates whose name+description embeddings are near-identical."""
    if len(ranked) < 2:
        return ranked
    vectors = np.asarray(embedder.embed([f"{c.name}: {c.description}" for c in ranked]))
    sims = vectors @ vectors.T
    kept: list[int] = []
    for i, c in enumerate(ranked):
        twin = next((k for k in kept if ranked[k].type == c.type and sims[i, k] >= threshold
                     and _words(ranked[k]) & _words(c)), None)  # fmt: skip
        if twin is None:
            kept.append(i)
        else:
            ranked[twin].absorb(c)
    return [ranked[k] for k in kept]


def select_core(
    staged: Iterable[tuple[int, Sequence[Mention]]], cfg: CoreConfig, embedder: Embedder | None
) -> list[CoreEntity]:
    """The document's core entities, best first (steps in this module's docstring)."""
    cands = aggregate(staged)
    eligible = [c for c in cands if c.mentions >= cfg.min_mentions and c.salience >= cfg.min_salience]
    ranked = sorted(eligible, key=lambda c: (-score(c, cfg), c.key))
    pool = _capped(ranked, cfg, scale=1.5)
    if embedder is not None:
        pool = semantic_dedupe(pool, embedder, cfg.semantic_threshold)
    final = _capped(sorted(pool, key=lambda c: (-score(c, cfg), c.key)), cfg)
    return [
        CoreEntity(
            c.name,
            c.type,
            c.description,
            c.mentions,
            round(score(c, cfg), 3),
            [f for f in c.forms if f != c.name],
            dict(c.by_seq),
        )
        for c in final
    ]


def aggregate_relations(
    staged: Iterable[tuple[int, Sequence[Triple]]], core: Sequence[CoreEntity], cfg: CoreConfig
) -> list[CoreRelation]:
    """Weighted relations among core entities: typed ones kept, co-occurrences above a floor."""
    names = {e.name for e in core}
    by_triple: dict[tuple[str, str, str], Counter[int]] = {}
    for seq, triples in staged:
        for t in triples:
            pred = normalize_predicate(t.predicate)
            if t.subject == t.object or t.subject not in names or t.object not in names:
                continue
            a, b = sorted((t.subject, t.object)) if pred == COOCCURS else (t.subject, t.object)
            by_triple.setdefault((a, pred, b), Counter())[seq] += round(t.weight) or 1
    typed = {frozenset((a, b)) for a, p, b in by_triple if p != COOCCURS}
    kept = [
        CoreRelation(a, p, b, {s: float(w) for s, w in seqs.items()})
        for (a, p, b), seqs in by_triple.items()
        if p != COOCCURS or (frozenset((a, b)) not in typed and sum(seqs.values()) >= cfg.min_cooccurrence)
    ]
    kept.sort(key=lambda r: (-r.weight, r.subject, r.predicate, r.object))
    return kept[: cfg.max_relations]
