"""The sentence of a document that joins two of its entities: the evidence a relation is shown with.

A co-occurrence ("Mina RELATED_TO Lucy") says only that two names met in a sentence; the
sentence itself says what joins them. Graph context shows a document relation with it
(memory/assembly.py), and leaves out a co-occurrence whose sources hold no such sentence.
Words match on their first five letters, a crude stem that lets "proposed" find "proposal" (a
shorter word matches the start of one: "sail" finds "sailed").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memory.documents.extraction import sentences
from memory.documents.mentions import plain

MAX_CHARS = 240
"""A joining sentence is cut to this window around its names (novels have 100-word sentences)."""
SHORT_CHARS = 160
"""A chunk packed short shows one sentence cut to this window, about the cost of the 120 characters
it replaces: two sentences, or 240 characters, crowded other chunks out of flat context (one to two
Dracula questions fewer; docs/benchmarks.md, "Fifteenth session")."""
_WORDS = re.compile(r"[0-9a-z\u00c0-\uffff]+")
STEM = 5
_NAME = re.compile(r"(?<=[a-z,;] )([A-Z][\w'’-]+)")
"""A capitalised word after a lower-case word or a comma: a name, not a sentence's first word."""


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


def evidence_sentences(text: str, terms: Sequence[str], n: int = 2) -> list[Join]:
    """The `n` sentences of `text` that hold most of the question's `terms` (at least two, or
    the one there is) and a name the question does not say (a capitalised word after another
    word), best first: where a further chunk answers, its answer sits beside the asked words."""
    need = min(2, len(terms))
    asked = stems(terms)
    found: list[Join] = []
    for raw in sentences(text):
        flat = " ".join(plain(raw).split())
        held = [t for t in terms if _holds(stems(_WORDS.findall(flat.casefold())), t)]
        name = next((m for m in _NAME.finditer(flat) if m.group(1)[:STEM].casefold() not in asked), None)
        if not need or len(held) < need or name is None:
            continue
        word = re.search(rf"(?i)\b{re.escape(held[0][:STEM])}", flat)
        at = [name.start(1), name.end(1)] + ([word.start(), word.end()] if word else [])
        found.append(Join(_window(flat, min(at), max(at)), len(held) / len(terms)))
    return sorted(found, key=lambda j: -j.fit)[:n]


def asked_sentences(text: str, terms: Sequence[str], n: int = 1, chars: int = SHORT_CHARS) -> list[str]:
    """The `n` sentences of `text` holding most of the question's `terms` (at least one), in the
    text's order, each cut to a `chars` window at its first asked word: what a chunk packed short
    shows instead of its first characters, which seldom hold what was asked."""
    scored: list[tuple[int, int, str]] = []
    for at, raw in enumerate(sentences(text)):
        flat = " ".join(plain(raw).split())
        held = [t for t in terms if _holds(stems(_WORDS.findall(flat.casefold())), t)]
        if held:
            word = re.search(rf"(?i)\b{re.escape(held[0][:STEM])}", flat)
            start = word.start() if word else 0  # the window holds some of what comes before it too
            scored.append((len(held), -at, _window(flat, start, start + chars // 2, chars)))
    best = sorted(scored, reverse=True)[:n]
    return [s for _, _, s in sorted(best, key=lambda b: -b[1])]


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


def _window(flat: str, start: int, end: int, chars: int = MAX_CHARS) -> str:
    """The sentence, or a `chars` window of it that holds both names, marked where cut."""
    if len(flat) <= chars:
        return flat
    left = max(0, min(start - 40, end - chars + 40))
    right = min(len(flat), left + chars)
    return ("…" if left else "") + flat[left:right].strip() + ("…" if right < len(flat) else "")
