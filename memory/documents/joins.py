"""The sentence of a document that joins two of its entities: the evidence a relation is shown with.

A co-occurrence ("Mina RELATED_TO Lucy") says only that two names met in a sentence; the
sentence itself says what joins them. Graph context shows a document relation with it
(memory/assembly.py), and leaves out a co-occurrence whose sources hold no such sentence.
Words match on their first five letters, a crude stem that lets "proposed" find "proposal" (a
shorter word matches the start of one: "sail" finds "sailed"), an irregular verb's past on its base's
("wrote" finds "write", `IRREGULAR`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memory.documents.extraction import sentences
from memory.documents.mentions import plain
from memory.tokens import IRREGULAR

MAX_CHARS = 240
"""A joining sentence is cut to this window around its names (novels have 100-word sentences)."""
SHORT_CHARS = 160
"""A chunk packed short shows one sentence cut to this window, about the cost of the 120 characters
it replaces: two sentences, or 240 characters, crowded other chunks out of flat context (one to two
Dracula questions fewer; docs/benchmarks.md, "Fifteenth session")."""
_WORDS = re.compile(r"[0-9a-z\u00c0-\uffff]+")
STEM = 5
HEADING_CHARS = 160
"""A paragraph this short that is not quoted speech is a heading ("Letter, Sister Agatha, Hospital of St.
Joseph and Ste. Mary, Buda-Pesth, to Miss Wilhelmina Murray."): it says who writes, where and when for
the paragraphs under it."""
REACH = 2
"""A sentence that holds the asked words but names nothing is read beside a sentence at most this many
from it in its paragraph that names something: a paragraph names its subject once, then says "it" (the
next or previous sentence only, 1, left "Which river …?" with no river: docs/benchmarks.md,
"Nineteenth session")."""
REPEAT_CHARS = 40
"""A sentence whose head, middle or tail this long is in an excerpt already shown is not shown again."""
_PARAGRAPH = re.compile(r"\n[^\S\n]*\n")
_QUOTES = ('"', "'", "“", "‘")
_FIRST_PERSON = re.compile(r"\b(?:I|[Ww]e)\b")
"""A sentence said by its writer, whom the heading above it names."""
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


def evidence_sentences(
    text: str,
    terms: Sequence[str],
    n: int = 2,
    *,
    known: Sequence[str] = (),
    shown: Sequence[str] = (),
    around: bool = True,
    reach: int = REACH,
    writer: bool = True,
) -> list[Join]:
    """The `n` sentences of `text` that hold most of the question's `terms` (at least two, or
    the one there is) beside a name the question does not say (a capitalised word after another
    word; `known`: the forms of the entities it names, "Count" for "Dracula"), best first: where a
    further chunk answers, its answer sits beside the asked words. A sentence that holds them but
    names nothing is read where its writer put it: under the heading above its paragraph ("Letter,
    Sister Agatha, …, Buda-Pesth, to …"), else beside the nearest sentence of its paragraph, at most
    `reach` sentences away, that names what it speaks of ("… at Jamaica Lane, Bermondsey. … these
    places were chosen as the first of delivery"; "… either the Pruth or the Sereth. … The Count in
    his box, then, was on a river …", the sentence between left out and marked). A sentence its
    writer says ("I", "we") is read under the heading too, whatever it names: the heading says who
    "I" is ("Letter, Sister Agatha, … I write by desire of Mr. Jonathan Harker …"). No sentence is
    shown twice, nor one `shown` already (chunks overlap). `around` False reads each sentence
    alone, as before the eighteenth session; `reach` 1, beside the next or previous sentence only,
    as before the nineteenth; `writer` False, a named sentence alone, as before the twentieth
    (benchmark rows)."""
    need = min(2, len(terms))
    if not around:
        known, shown = (), ()
    asked = stems(terms) | stems([w for f in known for w in _WORDS.findall(f.casefold())])
    found: list[tuple[float, frozenset[tuple[int, int]], str]] = []
    for p, (heading, said) in enumerate(_paragraphs(text, terms, asked, shown, around)):
        for i, (flat, held, named) in enumerate(said):
            if not need or len(held) < need:
                continue
            parts, read = frozenset({(p, i)}), flat
            if around and heading is not None and (not named or (writer and _FIRST_PERSON.search(flat))):
                read = f"{heading} {flat}"
            elif around and not named and (beside := _naming(said, i, reach)) is not None:
                first, last = sorted((i, beside))
                gap = " " if last - first == 1 else " … "  # the sentences between are left out
                parts, read = parts | {(p, beside)}, f"{said[first][0]}{gap}{said[last][0]}"
            if (name := _new_name(read, asked)) is not None:
                word = re.search(rf"(?i)\b{re.escape(held[0][:STEM])}", read)
                at = [name.start(1), name.end(1)] + ([word.start(), word.end()] if word else [])
                found.append((len(held) / len(terms), parts, _window(read, min(at), max(at))))
    chosen: list[tuple[frozenset[tuple[int, int]], Join]] = []
    for fit, parts, sentence in sorted(found, key=lambda f: -f[0]):
        if len(chosen) < n and not any(parts & taken or sentence in j.sentence for taken, j in chosen):
            chosen.append((parts, Join(sentence, fit)))
    return [j for _, j in chosen]


Said = tuple[str, tuple[str, ...], bool]
"""A sentence as `evidence_sentences` reads it: flat text, the asked terms it holds, whether it names
something the question does not."""


def _paragraphs(
    text: str, terms: Sequence[str], asked: set[str], shown: Sequence[str], split: bool = True
) -> list[tuple[str | None, list[Said]]]:
    """`text`'s paragraphs (`split` False: one), each with the heading above it (None: none, or one
    that names nothing) and its sentences; a sentence `shown` already holds and names nothing. A
    heading is a short paragraph that is not quoted speech (`HEADING_CHARS`)."""
    out: list[tuple[str | None, list[Said]]] = []
    heading: str | None = None
    for para in (p.strip() for p in (_PARAGRAPH.split(text) if split else [text]) if p.strip()):
        said = [" ".join(plain(raw).split()) for raw in sentences(para)]
        out.append((heading, [_read(s, terms, asked, shown) for s in said]))
        flat = " ".join(plain(para).split())
        if len(flat) <= HEADING_CHARS and not para.startswith(_QUOTES):  # a short line may be evidence too
            heading = flat if _new_name(flat, asked) else None
    return out


def _naming(said: list[Said], i: int, reach: int = REACH) -> int | None:
    """The sentence nearest the `i`th, at most `reach` away (after it first), that names something
    not asked."""
    near = sorted((j for j in range(i - reach, i + reach + 1) if j != i), key=lambda j: (abs(j - i), j < i))
    return next((j for j in near if 0 <= j < len(said) and said[j][2]), None)


def _read(flat: str, terms: Sequence[str], asked: set[str], shown: Sequence[str]) -> Said:
    if any(_repeats(flat, t) for t in shown):
        return flat, (), False
    return flat, tuple(_held(flat, terms)), _new_name(flat, asked) is not None


def _repeats(sentence: str, shown: str) -> bool:
    """Whether `sentence` is in `shown`, whole or cut: chunks overlap, so a chunk's first sentence is
    often the end of one another chunk showed, and its last the start of one (its head, middle or
    tail, `REPEAT_CHARS` long, is there)."""
    k = REPEAT_CHARS
    mid = max(0, (len(sentence) - k) // 2)
    return any(part in shown for part in (sentence[:k], sentence[mid : mid + k], sentence[-k:]))


def _new_name(flat: str, asked: set[str]) -> re.Match[str] | None:
    """The first name in `flat` (a capitalised word after another word) whose stem is not `asked`."""
    return next((m for m in _NAME.finditer(flat) if m.group(1)[:STEM].casefold() not in asked), None)


def _held(flat: str, terms: Sequence[str]) -> list[str]:
    """The `terms` a sentence holds."""
    said = stems(_WORDS.findall(flat.casefold()))
    return [t for t in terms if _holds(said, t)]


def runs_on(text: str, terms: Sequence[str]) -> bool:
    """Whether the passage asked about runs on past the end of a chunk: its last paragraph holds
    two of the question's `terms` (the one there is); the next chunk is read too."""
    last = _PARAGRAPH.split(text.rstrip())[-1]
    return bool(terms) and len(_held(" ".join(plain(last).split()), terms)) >= min(2, len(terms))


def asked_sentences(text: str, terms: Sequence[str], n: int = 1, chars: int = SHORT_CHARS) -> list[str]:
    """The `n` sentences of `text` holding most of the question's `terms` (at least one), in the
    text's order, each cut to a `chars` window at its first asked word: what a chunk packed short
    shows instead of its first characters, which seldom hold what was asked."""
    scored: list[tuple[int, int, str]] = []
    for at, raw in enumerate(sentences(text)):
        flat = " ".join(plain(raw).split())
        if held := _held(flat, terms):
            word = re.search(rf"(?i)\b{re.escape(held[0][:STEM])}", flat)
            start = word.start() if word else 0  # the window holds some of what comes before it too
            scored.append((len(held), -at, _window(flat, start, start + chars // 2, chars)))
    best = sorted(scored, reverse=True)[:n]
    return [s for _, _, s in sorted(best, key=lambda b: -b[1])]


def stems(words: Sequence[str]) -> set[str]:
    """The crude stems (first five letters) of lower-case words, an irregular verb's of its base."""
    return {_stem(w) for w in words}


def _stem(word: str) -> str:
    return IRREGULAR.get(word, word)[:STEM]


def _fit(flat: str, terms: Sequence[str]) -> float:
    """The share of `terms` whose stem is among the sentence's words' stems."""
    return len(_held(flat, terms)) / len(terms) if terms else 0.0


def _holds(said: set[str], term: str) -> bool:
    """Whether a sentence's stems hold a term ("sail" is held by "sailed", stem "saile")."""
    stem = _stem(term)
    return stem in said or (len(stem) < STEM and any(s.startswith(stem) for s in said))


def _window(flat: str, start: int, end: int, chars: int = MAX_CHARS) -> str:
    """The sentence, or a `chars` window of it that holds both names, marked where cut."""
    if len(flat) <= chars:
        return flat
    left = max(0, min(start - 40, end - chars + 40))
    right = min(len(flat), left + chars)
    return ("…" if left else "") + flat[left:right].strip() + ("…" if right < len(flat) else "")
