"""How much something went up or down, worked out from the two values the notes give.

"How much did my salary go up after the negotiations?" is answered by no single note: one says "my
salary is 648 000 kr a year now", a later one "my new salary is 671 000 kr". A 135M model cannot
subtract, so when the evidence policy has chosen notes that give the thing an old and a new value in
the same unit, the difference is computed here and said with both values, which the notes show.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from capabilities.evidence import Note, covers
from capabilities.situation import key_terms, stem

# "by how much did the rate go down", "how much did my salary go up", "how much more do I earn now",
# "what was the raise", "how big was the increase"
_ASKED = re.compile(
    r"\bhow (?:much|many|far)\b.*\b(?:go|gone|went|come|came|goes|going) (?:up|down)\b"
    r"|\bhow (?:much|many) (?:more|less|higher|lower|cheaper|dearer)\b"
    r"|\bhow (?:much|big|large) (?:was|is) the (?:raise|rise|increase|decrease|drop|cut|difference)\b",
    re.IGNORECASE,
)
_UNITS = r"kr|nok|sek|dkk|eur|euros?|usd|dollars?|pounds?|lei|rand|%|percent|kg|kilos?|km|miles?|cm|m|lbs"
# a value and its unit: "648 000 kr", "5,35 %", "$1,850", "€2.400", "22,8 kg" (not a date's "4.")
_VALUE = re.compile(
    rf"(?P<cur>[$€£₹]|Rs\.?|INR)?\s?(?P<num>\d{{1,3}}(?:[  ]\d{{3}})+|\d{{1,2}}(?:,\d{{2}})+,\d{{3}}(?!\d)"
    rf"|\d{{1,3}}(?:,\d{{3}})+(?!,?\d)|\d+(?:[.,]\d+)?)"
    rf"(?(cur)|(?P<sp>\s?)(?P<unit>{_UNITS})(?!\w))",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Change:
    before: str
    after: str
    by: str
    up: bool

    def sentence(self) -> str:
        return f"It went {'up' if self.up else 'down'} by {self.by}: from {self.before} to {self.after}."


def asks_change(question: str) -> bool:
    """Whether a question asks by how much something went up or down."""
    return _ASKED.search(question) is not None


def _number(raw: str) -> tuple[float, int, str]:
    """The value of "648 000", "5,35", "1,850", "2.5": (value, decimals, decimal mark)."""
    plain = raw.replace(" ", "").replace(" ", "")
    if re.fullmatch(r"\d{1,3}(?:,\d{3})+|\d{1,2}(?:,\d{2})+,\d{3}", plain):  # (and "7,35,000": Indian grouping)
        return float(plain.replace(",", "")), 0, "."
    mark = "," if "," in plain else "."
    whole, _, decimals = plain.partition(mark)
    return float(f"{whole}.{decimals or 0}"), len(decimals), mark


def _written(value: float, decimals: int, mark: str, like: str) -> str:
    """A value written the way the person wrote the ones it comes from ("23 000", "0,25")."""
    text = f"{value:,.{decimals}f}"
    thousands = " " if re.search(r"\d[  ]\d{3}", like) else ","
    whole, _, rest = text.partition(".")
    whole = whole.replace(",", thousands)
    return f"{whole}{mark}{rest}" if rest else whole


def _values(text: str) -> list[re.Match[str]]:
    """Each value with a unit a text gives ("648 000 kr", "5,35 %", "$1,850")."""
    return list(_VALUE.finditer(text))


def _unit(m: re.Match[str]) -> str:
    unit = (m["cur"] or m["unit"] or "").casefold().rstrip("s.")
    return "rs" if unit in ("₹", "inr", "r") else unit


def change(question: str, chosen: Sequence[Note], recalled: Sequence[Note] = ()) -> Change | None:
    """The last change of a value, when asked: the newest value said with a word asked (or in a chosen
    note) against the one said before it in the same unit, in another note. Of the units, one the
    chosen notes say comes first ("salary … 671 000 kr", not the "3.1 million" beside a rate)."""
    if not asks_change(question) or not chosen:
        return None
    asked = [t for t in key_terms(question) if t not in _MOVES]
    pool = [*chosen, *(n for n in recalled if n not in chosen and any(covers(n.stems, t) for t in asked))]
    said: dict[str, list[tuple[Note, re.Match[str]]]] = {}
    for note in sorted(pool, key=_when):
        for m in _values(note.text):
            said.setdefault(_unit(m), []).append((note, m))
    # (money before a percentage, unless a rate or a percentage is asked: "my pension went up with the DR
    # hike" is Rs. 880, not the 53% → 55% of the hike)
    rate = re.search(r"\b(?:rate|percent|percentage|%)", question, re.IGNORECASE) is not None
    for unit in sorted(said, key=lambda u: (u == "%" and not rate, not any(n in chosen for n, _ in said[u]))):
        (latest, after), earlier = said[unit][-1], [(n, m) for n, m in said[unit] if n is not said[unit][-1][0]]
        new, nd, nmark = _number(after["num"])
        # (of the same thing: a note before it says a word asked that it says, "pension", not only "hike")
        same = [t for t in asked if covers(latest.stems, t)]
        earlier = [(n, m) for n, m in earlier if not same or any(covers(n.stems, t) for t in same)]
        # (a value said again is no change: "July pension came, Rs. 68,200" after "it is Rs. 68,200 now" goes
        # back to the value before it; not in a document, whose clauses are no values said over time)
        while (earlier and _number(earlier[-1][1]["num"])[0] == new and _when(earlier[-1][0]) < _when(latest)
               and "chunk" not in (latest.source, earlier[-1][0].source)):  # fmt: skip
            earlier.pop()
        if not earlier or _when(earlier[-1][0]) >= _when(latest):
            continue
        before = earlier[-1][1]
        old, od, omark = _number(before["num"])
        if old == new:
            continue
        by = _written(abs(new - old), max(od, nd), nmark if nd else omark, before["num"] + after["num"])
        cur = after.group(0)[: after.start("num") - after.start()].lstrip()  # as written: "Rs. ", "$"
        sign = f"{after['sp'] or ''}{after['unit'] or ''}"
        return Change(before.group(0).strip(), after.group(0).strip(), f"{cur}{by}{sign}", new > old)
    # (only of a thing asked to have moved: "how much more rent than we pay now" compares two things)
    return _unitless(asked, pool) if _MOVED.search(question) else None


_MOVED = re.compile(r"\b(?:go|gone|went|come|came|goes|going) (?:up|down)\b", re.IGNORECASE)
# a value with no unit said of a word asked: "HbA1c in February was 7.4", "HbA1c has come down to 6.9"
_SAID_OF = re.compile(
    r"[^.?!\d]{0,30}?\b(?:is|was|at|to|of|now)\s+(?P<num>\d+(?:[.,]\d+)?)(?!\d|[.,:/]\d|\s*(?:st|nd|rd|th|%|[a-z]))",
    re.IGNORECASE,
)


def _unitless(asked: Sequence[str], pool: Sequence[Note]) -> Change | None:
    """The last change of a value said with no unit right after a word asked ("HbA1c … was 7.4", later
    "HbA1c has come down to 6.9"), each note saying one, when no value with a unit changed."""
    said: list[tuple[Note, str]] = []
    for note in sorted(pool, key=_when):
        values = {v["num"] for m in re.finditer(r"[\w'’-]+", note.text) if stem(m.group()) in asked
                  and (v := _SAID_OF.match(note.text, m.end()))}  # fmt: skip
        if len(values) == 1:
            said.append((note, values.pop()))
    if len(said) < 2 or _when(said[-2][0]) >= _when(said[-1][0]):
        return None
    (old, od, omark), (new, nd, nmark) = _number(said[-2][1]), _number(said[-1][1])
    if old == new:
        return None
    by = _written(abs(new - old), max(od, nd), nmark if nd else omark, said[-2][1] + said[-1][1])
    return Change(said[-2][1], said[-1][1], by, new > old)


def _when(note: Note) -> datetime:
    return note.created_at or datetime.min


_MOVES = frozenset(stem(w) for w in ("go", "went", "gone", "up", "down", "much", "more", "less", "come", "came"))
