"""Which remembered notes answer a question, and how sure to be: decided without a model.

SmolLM2-135M cannot abstain (asked about a brother never mentioned, it answered "Your brother's
name is Ana.") and calls invented answers "high" confidence. So before the model says anything:

1. Notes that are questions carry no facts and are dropped.
2. A note *covers* a question's key term when it holds the term or a word of its generic-English
   group (`situation.related_stems`: "work" is covered by "job").
3. What the question asks about after "my" (`heads`: "my brother's name" → brother) must be
   covered by a note, and, when the question is about the person, by a note that speaks as the
   person ("My cat…", "The user's…") or shares a name with one that does ("My sister Ana…" +
   "Ana adopted a dog…" answers "my sister's dog"). "Ana adopted a dog" alone does not answer
   "my dog".
4. The best note covers the most key terms; among equals the newest wins (a correction is newer
   than what it corrects), then the most relevant. A second note is added when it covers terms
   the first does not and shares a name with it (two hops).
5. No covering note → the answer is "I don't know", stated plainly.

Confidence: high when every key term is covered and the best note's recall relevance is at least
`HIGH_RELEVANCE`; medium when the answer stands on partial coverage or weaker relevance; low for
"I don't know".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from capabilities.situation import Situation, is_first_person, names_in, related_stems, stem, words

HIGH_RELEVANCE = 0.6
# With no key term at all ("what was that thing?") only a strong recall match may answer.
BARE_RELEVANCE = 0.8
MAX_NOTES = 2
_QUESTION = re.compile(
    r"^\W*(?:what|who|where|when|why|how|which|do|does|did|is|are|can|could|would)\b.*\?\s*$", re.I | re.S
)

Verdict = Literal["answer", "unknown"]


@dataclass(frozen=True)
class Note:
    """One remembered piece of text a question might be answered from."""

    ref: str
    text: str
    created_at: datetime | None = None
    relevance: float = 0.0

    @property
    def stems(self) -> frozenset[str]:
        """The stems of its words."""
        return frozenset(stem(w) for w in words(self.text))


@dataclass(frozen=True)
class Evidence:
    """The notes chosen to answer, the verdict and the confidence, with the reason."""

    verdict: Verdict
    notes: tuple[Note, ...]
    confidence: Literal["high", "medium", "low"]
    reason: str
    missing: tuple[str, ...] = ()


def covers(note_stems: frozenset[str], term: str) -> bool:
    """Whether a note's stems include a term or a word of its group."""
    return bool(related_stems(term) & note_stems)


def is_question(text: str) -> bool:
    """Whether a stored text is itself a question (it states no fact)."""
    return bool(_QUESTION.match(text.strip()))


_SUBJECT = frozenset(["i", "i'm", "i've", "i'd", "i'll", "we", "we're"])


def _rank(note: Note, terms: Sequence[str], sit: Situation) -> tuple[int, bool, float, float]:
    """Coverage first; then, for "where do I work?", notes where the person is the subject ("I
    started at Siemens") before notes about someone of theirs ("My partner works…"); then the
    newest; then relevance."""
    stems = note.stems
    covered = sum(covers(stems, t) for t in terms)
    speaks = bool(_SUBJECT & set(words(note.text))) or "the user " in note.text.lower()
    subject = not sit.heads and sit.about_me and speaks
    when = note.created_at.timestamp() if note.created_at else 0.0
    return covered, subject, when, note.relevance


def _shares_name(a: Note, b: Note) -> bool:
    return bool(set(names_in(a.text)) & set(names_in(b.text)))


def choose(sit: Situation, candidates: Sequence[Note]) -> Evidence:
    """Pick the notes that answer the question read as `sit`, or decide that none does."""
    notes = [n for n in candidates if n.text.strip() and not is_question(n.text)]
    terms = list(dict.fromkeys([*sit.heads, *sit.key_terms]))
    if not notes:
        return Evidence("unknown", (), "low", "nothing relevant is remembered", tuple(terms))
    if not terms:
        best = max(notes, key=lambda n: n.relevance)
        if best.relevance >= BARE_RELEVANCE:
            return Evidence("answer", (best,), "medium", f"no key term; strong match {best.relevance:.2f}")
        return Evidence("unknown", (), "low", "no key term and no strong match")
    ranked = sorted(notes, key=lambda n: _rank(n, terms, sit), reverse=True)
    best = ranked[0]
    if _rank(best, terms, sit)[0] == 0:
        return Evidence("unknown", (), "low", "no remembered note mentions " + ", ".join(terms), tuple(terms))
    chosen = [best]
    missing = [t for t in terms if not covers(best.stems, t)]
    for other in ranked[1:]:
        adds = [t for t in missing if covers(other.stems, t)]
        if adds and _shares_name(best, other) and len(chosen) < MAX_NOTES:
            chosen.append(other)
            missing = [t for t in missing if t not in adds]
    unanswered_heads = [h for h in sit.heads if h in missing]
    if unanswered_heads:
        why = "nothing remembered about your " + ", ".join(unanswered_heads)
        return Evidence("unknown", (), "low", why, tuple(missing))
    if sit.about_me and sit.heads and not _speaks_as_person(chosen, ranked):
        return Evidence("unknown", (), "low", "the notes are about someone else", tuple(missing))
    # A bare-verb question ("where do I work?") is answered only when the note matches strongly or
    # covers every term; a single incidental word in common is not evidence.
    covered = len(terms) - len(missing)
    if covered < len(terms) and covered <= len(terms) / 2 and best.relevance < HIGH_RELEVANCE:
        return Evidence("unknown", (), "low", "only weak, partial matches", tuple(missing))
    chosen.sort(key=lambda n: n.created_at.timestamp() if n.created_at else 0.0)
    confidence = "high" if not missing and best.relevance >= HIGH_RELEVANCE else "medium"
    why = f"covers {covered}/{len(terms)} key terms; relevance {best.relevance:.2f}"
    return Evidence("answer", tuple(chosen), confidence, why, tuple(missing))


def _speaks_as_person(chosen: Sequence[Note], ranked: Sequence[Note]) -> bool:
    """Whether a chosen note speaks as the person, or names someone a note of theirs names."""
    if any(is_first_person(n.text) for n in chosen):
        return True
    mine = [n for n in ranked if is_first_person(n.text)]
    return any(_shares_name(c, m) for c in chosen for m in mine) and len(chosen) > 1
