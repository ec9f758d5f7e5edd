"""Grounding: what of a language model's extraction the message itself supports.

Small models invent people and places, echo their prompt and schema, and loop; `grounded` keeps
only what the source text says (docs/architecture.md, "The model's extraction is grounded").
Pure: no storage, no model.
"""

from __future__ import annotations

import re
from collections import Counter

from memory.formation.patterns import (
    FUNCTIONAL_PREDICATES,
    MAX_FACT_CHARS,
    MAX_ITEMS,
    RELATIONS,
    USER,
    Extraction,
    Triple,
    canonical_entity,
    canonical_predicate,
    third_person,
)
from memory.graph.names import name_key, normalize_type

_WORD = re.compile(r"[0-9A-Za-zÀ-ÿ]+")
_FACT_STOP = frozenset(re.findall(r"\S+", "the user user's users is are was has have a an of to in at and or for on s"))
_PARAPHRASED = FUNCTIONAL_PREDICATES | {"FROM", "LIKES", "LOVES", "HATES", "ENJOYS", "DISLIKES", "PREFERS"}
_PREDICATE_GLUE = frozenset({"has", "is", "of", "in", "at", "to", "a", "an", "the", "for", "with", "on", "by"})
_CLAUSE = re.compile(r"\b(?:is|are|was|were|am)\b")
_TAG = re.compile(r"</?[A-Za-z][^<>]{0,30}>|^\s*(?:\d{1,2}[.)]|[-*•])\s+")  # made-up tags, list marks
# Words that point at someone without naming them: "you" in the user's message is the assistant,
# and "she" or "they" name nobody the graph could hold apart. Never an entity.
_UNNAMED = frozenset(
    re.findall(r"\S+", "you your yours yourself he him his she her hers it its we us our they them their someone")
)


def _stems(text: str) -> Counter[str]:
    return Counter(w[:4] for w in _WORD.findall(text.casefold()) if w not in _FACT_STOP)  # a crude stem


def restates(fact: str, source: str) -> bool:
    """Whether `fact` is mostly made of `source`'s words (60 % of its crude stems)."""
    words = set(_stems(fact))
    return bool(words) and len(words & set(_stems(source))) / len(words) >= 0.6


def grounded(extraction: Extraction, source: str) -> Extraction:
    """Only what the source text supports: facts mostly made of its words, triples naming what it names.

    Small models invent people and places; an item that the message does not mention is
    dropped, and so is a triple `_supported` rejects or a fact with a snake_case word (seen from
    SmolLM2-135M, which echoes its schema). At most `MAX_ITEMS` facts and triples
    survive, predicates and types normalized.
    """
    src_stems, src_key = _stems(source), f" {name_key(source)} "
    src_words = set(src_stems)
    facts: dict[str, None] = {}
    for raw in extraction.facts:
        fact = third_person(_TAG.sub("", raw))[:MAX_FACT_CHARS]  # "<story>We went hiking…", "1. Miso is a cat."
        stems = _stems(fact)
        words = set(stems)
        # A snake_case word is the schema leaking into the answer ("The user_storys."); a word said
        # more often than the message says it is a model looping ("Lisbon lisbon Ana.").
        if len(fact) < 8 or "_" in fact or not words:
            continue
        if restates(fact, source) and all(stems[w] <= src_stems[w] for w in words & src_words):
            facts.setdefault(fact, None)
    triples: dict[Triple, None] = {}
    for t in extraction.triples:
        subject, obj = canonical_entity(t.subject), canonical_entity(t.object)
        named = [n for n in (subject, obj) if n != USER]
        if not obj or not subject or subject == obj or not all(f" {name_key(n)} " in src_key for n in named):
            continue
        predicate = canonical_predicate(t.predicate)
        if not _supported(predicate, named, src_words):
            continue
        kind = (normalize_type(t.subject_type) if subject != USER else "Person", normalize_type(t.object_type))
        triples.setdefault(Triple(subject, predicate, obj, *kind), None)
    return Extraction(tuple(facts)[:MAX_ITEMS], tuple(triples)[:MAX_ITEMS])


def _supported(predicate: str, named: list[str], src_words: set[str]) -> bool:
    """Whether a grounded triple's ends are names and its predicate is said in the message.

    A pronoun ("You"), a bare relation word ("Sister") or a clause ("The wife Clara is a doctor")
    is no entity. A predicate needs one of its words in the message ("IS_ALLERGIC_TO" needs
    "allergic"), except the ones people say in other words ("moved to" is LIVES_IN, "I am from"
    FROM). Seen from SmolLM2-135M: "Ana HAS_SISTER Sister" and "Ana IS_ALLERGIC_TO Sister" from
    "My sister Ana moved to Porto".
    """
    keys = [name_key(n) for n in named]
    if any(k in _UNNAMED or re.fullmatch(RELATIONS, k) or _CLAUSE.search(k) for k in keys):
        return False
    words = [w for w in predicate.lower().split("_") if w not in _PREDICATE_GLUE]
    if len(words) > 3:  # a relation has a short name; "SAOJO_HEALTH_TREATMENT_DOCTOR" is a sentence
        return False
    return predicate in _PARAPHRASED or not words or any(w[:4] in src_words for w in words)
