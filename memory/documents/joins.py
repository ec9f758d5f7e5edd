"""Sentences of a document as evidence: the one that joins two entities, those that answer about one.

A co-occurrence ("Mina RELATED_TO Lucy") says only that two names met in a sentence; the
sentence itself says what joins them. Graph context shows a document relation with it
(memory/assembly.py), and leaves out a co-occurrence whose sources hold no such sentence.
For an entity the question names, the sentences of its chunks that name it and hold the
question's other words are the evidence most likely to answer ("Where does Dr. Seward run his
asylum?" → "…Dr. Seward's asylum at Purfleet…"), whatever the graph kept of the other names.
Words match on their first five letters, a crude stem that lets "proposed" find "proposal" (a
shorter word matches the start of one: "sail" finds "sailed").
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from memory.documents.extraction import sentences
from memory.documents.mentions import plain

MAX_CHARS = 240
"""A joining sentence is cut to this window around its names (novels have 100-word sentences)."""
_WORDS = re.compile(r"[0-9a-z\u00c0-\uffff]+")
STEM = 5


@dataclass(frozen=True)
class Join:
    """A sentence naming both ends, and the share of the question's content words it holds."""

    sentence: str
    fit: float


def _finder(forms: Sequence[str]) -> re.Pattern[str]:
    alternation = "|".join(re.escape(f) for f in sorted({f for f in forms if f}, key=len, reverse=True))
    return re.compile(rf"(?<![^\W_])(?:{alternation})(?![^\W_])")


def joining_sentence(text: str, a: Sequence[str], b: Sequence[str], terms: Sequence[str]) -> Join | None:
    """The sentence of `text` naming one of the forms `a` and one of `b`, the best fit to the
    question's `terms` (content words, lower case) first; None when no sentence names both."""
    find_a, find_b = _finder(a), _finder(b)
    best: Join | None = None
    for raw in sentences(text):
        flat = " ".join(plain(raw).split())
        ma, mb = find_a.search(flat), find_b.search(flat)
        if ma is None or mb is None:
            continue
        fit = _fit(flat, terms)
        if best is None or fit > best.fit:
            best = Join(_window(flat, min(ma.start(), mb.start()), max(ma.end(), mb.end())), fit)
    return best


def answering_sentences(texts: Mapping[int, str], terms: Sequence[str], k: int) -> list[tuple[int, Join]]:
    """The `k` sentences of `texts` (id → text) that hold the most of the question's `terms`, each
    term weighted by how rare it is among these sentences (a local IDF: "fever" counts more than
    "castle" in a castle's chapters), with the id of the text each came from."""
    said = [(i, " ".join(plain(raw).split())) for i, text in texts.items() for raw in sentences(text)]
    bags = [stems(_WORDS.findall(flat.casefold())) for _, flat in said]
    wanted = {t[:STEM] for t in terms}
    held = {t: [_holds(bag, t) for bag in bags] for t in wanted}
    idf = {t: math.log(1 + len(bags) / (1 + sum(h))) for t, h in held.items()}
    total = sum(math.log(1 + len(bags)) for _ in wanted) or 1.0
    scored = [(sum(idf[t] for t in wanted if held[t][n]) / total, n) for n in range(len(bags))]
    best = sorted((f, n) for f, n in scored if f > 0)[::-1][:k]
    return [(said[n][0], Join(_window(said[n][1], 0, 0), f)) for f, n in best]


def stems(words: Sequence[str]) -> set[str]:
    """The crude stems (first five letters) of lower-case words."""
    return {w[:STEM] for w in words}


def _fit(flat: str, terms: Sequence[str]) -> float:
    """The share of `terms` whose stem is among the sentence's words' stems."""
    if not terms:
        return 0.0
    said = stems(_WORDS.findall(flat.casefold()))
    return sum(_holds(said, t) for t in terms) / len(terms)


def _holds(said: set[str], term: str) -> bool:
    """Whether a sentence's stems hold a term ("sail" is held by "sailed", stem "saile")."""
    stem = term[:STEM]
    return stem in said or (len(stem) < STEM and any(s.startswith(stem) for s in said))


def _window(flat: str, start: int, end: int) -> str:
    """The sentence, or a MAX_CHARS window of it that holds both names, marked where cut."""
    if len(flat) <= MAX_CHARS:
        return flat
    left = max(0, min(start - 40, end - MAX_CHARS + 40))
    right = min(len(flat), left + MAX_CHARS)
    return ("…" if left else "") + flat[left:right].strip() + ("…" if right < len(flat) else "")
