"""What document extraction produces, the extractor protocol, and the model-free fallback.

`PatternExtractor` needs no model: capitalized name runs (with honorifics such as "Dr." or
"Count") and type votes from context, by the rules of memory/documents/mentions.py, and
relations from a few surface patterns between two known names in a sentence
("X went to Y", "X of Y", "X's wife Y"), with every other pair in a sentence counted as a
weighted RELATED_TO co-occurrence. It is the floor an embedded 135M model cannot go below.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Protocol

from memory.documents.chunking import Chunk
from memory.documents.mentions import HONORIFICS, ChunkNames, plain, tally
from memory.graph.names import normalize_predicate

COOCCURS = "RELATED_TO"
__all__ = ["COOCCURS", "HONORIFICS", "EntityExtractor", "Mention", "PatternExtractor", "Triple", "sentences"]
_DEMONYM = re.compile(r"(?:ian|ish|ese|ic)$")
_ABBREV = r"(?:(?<=\bMr)|(?<=\bMrs)|(?<=\bMs)|(?<=\bDr)|(?<=\bSt))\."  # "Mr." does not end a sentence
_SENTENCE = re.compile(rf"(?:[^.!?]|{_ABBREV})+(?:[.!?]+[\"'’”)_]*|$)", re.S)


@dataclass(frozen=True)
class Mention:
    """An entity found in one chunk: name, type guess, short description, salience 1-5, count."""

    name: str
    type: str
    description: str = ""
    salience: int = 2
    count: int = 1


@dataclass(frozen=True)
class Triple:
    """A relation between two selected entity names, found in chunk `seq`."""

    subject: str
    predicate: str
    object: str
    seq: int
    weight: float = 1.0


class EntityExtractor(Protocol):
    """What the ingestion pipeline needs from an extractor (model-backed or not).

    Both methods return None when the extractor failed on that batch, so the caller can run
    the fallback for it instead.
    """

    name: str
    seconds_per_chunk: float  # for the up-front estimate

    def entities(self, batch: Sequence[Chunk]) -> list[list[Mention]] | None:
        """Entities mentioned in each chunk of the batch (one list per chunk)."""
        ...

    def relations(self, batch: Sequence[Chunk], names: Mapping[str, Sequence[str]]) -> list[Triple] | None:
        """Relations among `names` (canonical name → surface forms) found in the batch."""
        ...


_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (
        re.compile(
            r"^\s*(?:went|travell?ed|travels|came|returned|sailed|journeyed|drove|hurried|fled|arrived|"
            r"goes|is going|was going)\s+(?:back\s+)?(?:to|for|at|into)\s+(?:the\s+)?$"
        ),
        "TRAVELS_TO",
    ),
    (
        re.compile(r"^\s*(?:is|was|lives|lived|stays|stayed|staying|living|remained)\s+(?:in|at)\s+(?:the\s+)?$"),
        "LOCATED_IN",
    ),
    (re.compile(r"^\s*of\s+(?:the\s+)?$"), "OF"),
    (
        re.compile(
            r"^['’]s\s+(wife|husband|friend|fianc[ée]e?|servant|master|sister|brother|daughter|son|mother|"
            r"father)\s*,?\s*$"
        ),
        "POSSESSIVE",
    ),
    (
        re.compile(
            r"^\s*(married|loves|loved|met|meets|killed|kills|wrote to|writes to|told|tells|saw|sees|visited|"
            r"visits|followed|follows|helped|helps|attacked|warned|hypnotised|hypnotized|bit)\s+(?:the\s+)?$"
        ),
        "VERB",
    ),
]


def sentences(text: str, fresh_from: int = 0) -> list[str]:
    """The sentences of `text` that end after `fresh_from` (so an overlap is not read twice)."""
    return [m.group(0) for m in _SENTENCE.finditer(text) if m.end() > fresh_from and m.group(0).strip()]


class PatternExtractor:
    """The model-free extractor: capitalized names, honorifics, and pattern-based relations."""

    name = "patterns"
    seconds_per_chunk = 0.002

    def entities(self, batch: Sequence[Chunk]) -> list[list[Mention]]:
        """Capitalized name runs per chunk, with a type guessed from their context."""
        return [self._chunk_entities(c) for c in batch]

    def _chunk_entities(self, chunk: Chunk) -> list[Mention]:
        found = ChunkNames(sentences(chunk.text, chunk.fresh_from)).found()
        return [self._mention(n, votes, sentence, mid) for n, (votes, sentence, mid) in tally(found).items()]

    @staticmethod
    def _mention(name: str, votes: Counter[str], sentence: str, seen_mid: bool) -> Mention:
        concrete = [(n, t) for t, n in votes.items() if t != "Concept"]
        kind = max(concrete)[1] if concrete else "Concept"
        salience = 1 if not seen_mid else 2 + (len(name.split()) > 1) + (kind != "Concept")
        salience -= bool(_DEMONYM.search(name)) and " " not in name
        return Mention(name, kind, sentence, min(salience, 5), sum(votes.values()))

    def relations(self, batch: Sequence[Chunk], names: Mapping[str, Sequence[str]]) -> list[Triple]:
        """Pattern relations and sentence co-occurrences among the given names."""
        surfaces = {s: canon for canon, forms in names.items() for s in (canon, *forms)}
        if not surfaces:
            return []
        alternation = "|".join(re.escape(s) for s in sorted(surfaces, key=len, reverse=True))
        finder = re.compile(rf"\b(?:{alternation})\b")
        triples: list[Triple] = []
        for chunk in batch:
            for sentence in map(plain, sentences(chunk.text, chunk.fresh_from)):
                found = [(m.start(), m.end(), surfaces[m.group(0)]) for m in finder.finditer(sentence)]
                triples += _sentence_triples(sentence, found, chunk.seq)
        return triples


def _sentence_triples(sentence: str, found: list[tuple[int, int, str]], seq: int) -> list[Triple]:
    triples: list[Triple] = []
    typed: set[frozenset[str]] = set()
    for (_, end, a), (start, _, b) in pairwise(found):
        if a == b:
            continue
        pred = _pattern(sentence[end:start])
        if pred is not None:
            subject, obj = (b, a) if pred.endswith("_OF") and pred != "PART_OF" else (a, b)
            triples.append(Triple(subject, pred, obj, seq))
            typed.add(frozenset((a, b)))
    distinct = list(dict.fromkeys(c for _, _, c in found))
    for i, a in enumerate(distinct):
        for b in distinct[i + 1 :]:
            if frozenset((a, b)) not in typed:
                triples.append(Triple(a, COOCCURS, b, seq))
    return triples


def _pattern(gap: str) -> str | None:
    if len(gap) > 40:
        return None
    for regex, kind in _PATTERNS:
        m = regex.match(gap)
        if m is None:
            continue
        if kind == "POSSESSIVE":
            return normalize_predicate(f"{m.group(1)}_of")  # "X's wife Y" → Y WIFE_OF X
        if kind == "VERB":
            return normalize_predicate(m.group(1))
        return "PART_OF" if kind == "OF" else kind
    return None
