"""Ages worked out from the notes, not guessed: a 135M model cannot add a year or count them.

"How old will mama be on her birthday in January?" is answered by no note: one says "she's 71", another
when her birthday is. The age a note says of whom is asked is one year more on the birthday asked of,
unless a note says the age turned ("turning 72": said, nothing to work out). "How old was I when I
skated the Elfstedentocht?" is counted from the day a note says I was born to the day a note of mine
says the thing was done, each with its month. "How many years older than Kuba is Kasia?" is the two
ages one note says. "What year was I born?" is one after the year a note says before "I was born the year after".
Each sentence says the values it comes from, which its notes show.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from capabilities.evidence import Note, covers
from capabilities.situation import is_first_person, key_terms, stem
from memory.recall.dates import dated_start, day_said

# a sentence that says an age worked out, and the notes its values come from
_Said = tuple[str, tuple[Note, ...]]


def age_worked_out(question: str, notes: Sequence[Note]) -> _Said | None:
    """The age a question asks that the notes give only with a year to add or count (None: not asked, or
    not certain), as a sentence and its notes."""
    age = _AGE_ASKED.search(question)
    if age:
        return _age_on_birthday(age["who"], notes)
    gap = _AGE_GAP.search(question)
    if gap:
        return _age_gap(gap["a"] or gap["a2"], gap["b"] or gap["b2"], notes)
    then = _AGE_THEN.search(question)
    if then:
        return _age_then(then["event"], notes)
    if _BORN_YEAR_ASKED.search(question):
        return _born_year_after(notes)
    return None


# "how old will mama be on her birthday in January?", "how old did Nanay turn while she was in hospital?":
# the age a note says ("she's 71") and one year more, when no note says the age turned
_AGE_ASKED = re.compile(
    r"^\W*how old (?:will|is|did|does|was)\s+(?P<who>.+?)\s+"
    r"(?:be on (?:his|her|their|my|your) birthday|turn(?:s|ing)?)\b",
    re.IGNORECASE,
)
_TURNED = re.compile(r"\bturn(?:s|ed|ing)\s+\d|\b\d{1,3}(?:st|nd|rd|th)\s+(?:bday|birthday)\b", re.IGNORECASE)


def _age_on_birthday(who: str, notes: Sequence[Note]) -> _Said | None:
    """One year more than the one age the notes say of whom is asked ("mama … she's 71"; "I'm 45"), when no
    note says an age turned ("turning 72", "her 72nd birthday": that age is said, nothing to work out)."""
    ages = _ages_of(who, notes)
    named = [n for n in notes if re.search(rf"\b{re.escape(who)}\b", n.text, re.IGNORECASE)] + [n for n, _ in ages]
    if not ages or len({a for _, a in ages}) > 1 or any(_TURNED.search(n.text) for n in named):
        return None
    note, now = ages[0]
    return f"That would be {now + 1}: {who} was {now} when you told me.", (note,)


def _ages_of(who: str, notes: Sequence[Note], *, pronoun: bool = True) -> list[tuple[Note, int]]:
    """Each age a note says of whom is asked: "mama … she's 71", "Kasia's 15", "I'm 45" (not "she's 65 kg")."""
    me = who.casefold() in ("i", "me")
    said = r"\b(?:i'?m|i am)" if me else rf"\b(?:{re.escape(who)}{'|s?he' if pronoun else ''})(?:['’]?s| is)"
    unit = r"%|[.,:/]\d|k\b|kg|km|cm|lbs?|min|hours?|days?|weeks?|months?"
    age = re.compile(rf"{said}\s+(?P<n>\d{{1,3}})\b(?!\s*(?:{unit}))", re.I)
    return [(n, int(m["n"])) for n in notes if (me or re.search(rf"\b{re.escape(who)}\b", n.text, re.I))
            for m in age.finditer(n.text)]  # fmt: skip


# "how many years older than Kuba is Kasia?", "how much younger is Kuba than Kasia": two ages one note says
_AGE_GAP = re.compile(
    r"^\W*how (?:many years|much) (?:older|younger)\s+"
    r"(?:than (?P<a>\w+) is (?P<b>\w+)|is (?P<b2>\w+) than (?P<a2>\w+))[\s?.!]*$",
    re.IGNORECASE,
)


def _age_gap(a: str, b: str, notes: Sequence[Note]) -> _Said | None:
    """The years between two ages said in one note ("Kasia's 15 now and Kuba's 13"), each said once."""
    said = [(n, x, y) for n in notes for x in _ages_of(a, [n], pronoun=False) for y in _ages_of(b, [n], pronoun=False)]
    if len({(x[1], y[1]) for _, x, y in said}) != 1:
        return None
    note, (_, x), (_, y) = said[0]
    if x == y:
        return None
    return f"{abs(x - y)} years: {b} is {y} and {a} {x}.", (note,)


# "how old was I when I skated the Elfstedentocht?": from the day I was born to the day the thing was done
_AGE_THEN = re.compile(r"^\W*how old (?:was|were) (?:i|we) when (?P<event>.+?)[\s?.!]*$", re.IGNORECASE)
_BORN = re.compile(r"\b(?:i|we)\s+(?:was|were|am|are)\s+born\b", re.IGNORECASE)


def _age_then(event: str, notes: Sequence[Note]) -> _Said | None:
    """My age on the day a note of mine says the thing asked was done, from the day a note says I was born
    ("I was born on 9th April 1961", "I retired on 30th April 2021": 60), when each is one day said with
    its year and month (a year alone leaves the age one of two)."""
    asked = [t for t in key_terms(event) if t not in _PLAIN]
    born = {d for n in notes if _BORN.search(n.text) and (d := dated_start(n.text))}
    done = {(d, n) for n in notes if asked and not _BORN.search(n.text) and is_first_person(n.text)
            and all(covers(n.stems, t) for t in asked) and (d := dated_start(n.text))}  # fmt: skip
    if len(born) != 1 or len({d for d, _ in done}) != 1:
        return None
    (by, bm, bd), ((ey, em, ed), note) = next(iter(born)), next(iter(done))
    if not bm or not em or (bm == em and not (bd and ed)):
        return None
    years = ey - by - ((em, ed) < (bm, bd))
    birth = next(n for n in notes if _BORN.search(n.text) and dated_start(n.text))
    return f"You were {years}: born {day_said(by, bm, bd)}, and that was {day_said(ey, em, ed)}.", (birth, note)


_PLAIN = frozenset(stem(w) for w in ("much", "how", "was", "is"))


# "what year was I born?" with "she came over from Poland in 1981 and I was born the year after": the year
# said before it in the note, one more (or one less: "the year before")
_BORN_YEAR_ASKED = re.compile(r"^\W*(?:what|which) year was I born\W*$", re.IGNORECASE)
_BORN_THE_YEAR = re.compile(r"\bI\s+was\s+born\s+the\s+year\s+(?P<way>after|before)\b", re.IGNORECASE)
_A_YEAR = re.compile(r"\b(?:19|20)\d\d\b")


def _born_year_after(notes: Sequence[Note]) -> _Said | None:
    """The year I was born, from a note that says it as "the year after" (or before) the year it said just
    before ("…in 1981 and I was born the year after": 1982), when the notes say one such year."""
    said: dict[int, tuple[Note, str, str]] = {}
    for n in notes:
        for m in _BORN_THE_YEAR.finditer(n.text):
            years = _A_YEAR.findall(n.text[: m.start()])
            if years:
                step = 1 if m["way"].casefold() == "after" else -1
                said[int(years[-1]) + step] = (n, years[-1], m["way"].casefold())
    if len(said) != 1:
        return None
    year, (note, before, way) = next(iter(said.items()))
    return f"In {year}: you told me you were born the year {way} {before}.", (note,)
