"""Sums and differences of two amounts the notes give, worked out instead of guessed.

"How much more is the Lone Star total than the loan I got?" is answered by no single note: one gives
the total, another the loan. A 135M model cannot subtract, so a question that compares two amounts
("how much more/less/dearer … than …") or adds them ("the original quote plus the rotten joists",
"both tickets together" when one costs so much each) is split into a question for each amount; the
evidence policy (`capabilities.evidence.choose`) answers each from the notes, and the amount it finds
is the one said beside what that side asks about. Only when each side gives one amount in the same
currency is the result said, with both amounts, which the sources show. "How far over my savings goal
did I end up?" is the goal's amount (the one said beside the word "goal") against the newest amount of
what it is a goal for. Otherwise nothing is worked out and the question goes the usual way.
(`capabilities.change` covers "how much did it go up".)
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from capabilities.evidence import Note, choose
from capabilities.situation import key_terms, read, stem, words
from memory.recall.dates import dated_start

# "how much more did I raise … than my first target", "how much dearer was the other builder's quote
# than kenny's", "how much less per month is the new lot than what we paid at eastside"
_THAN = re.compile(
    r"^\W*how (?:much|many)\s+(?:more|less|higher|lower|cheaper|dearer|bigger|smaller|extra)\b"
    r"(?P<left>.+?)\bthan\b(?P<right>.+?)[\s?.!]*$",
    re.IGNORECASE,
)
# "what did the kitchen come to with the original quote plus the rotten joists, before the extra sockets"
_PLUS = re.compile(
    r"\b(?P<left>(?:the|my|our)\s(?:(?!\b(?:the|my|our)\s)[^,?])+?)\s+plus\s+(?P<right>[^,?]+)", re.IGNORECASE
)  # (the last "the" before "plus": "the quote", not "the kitchen come to with the quote")
# "how much did both plane tickets cost together?" with "$1,340 each"
_BOTH = re.compile(r"^\W*how much\b.*\bboth\b.*\b(?:together|in total|altogether|combined)\b", re.IGNORECASE)
# "how far over my savings goal did i end up?", "how much under budget did the kitchen come in?": the
# goal's amount against the newest amount of the thing it is a goal for (the savings, the kitchen)
_PAST_GOAL = re.compile(
    r"^\W*how (?:far|much)\s+(?:over|under|above|below|past|beyond|short of|off)\s+"
    r"(?P<goal>(?:(?!\b(?:did|was|were|is|are|do|does)\b).)*?\b(?:goal|target|budget|estimate|limit)s?)\b",
    re.IGNORECASE,
)
_GOAL_WORDS = frozenset(
    {"my", "our", "the", "original", "first", "goal", "goals", "target", "targets", "budget", "estimate", "limit"}
)
_EACH = re.compile(r"\beach\b|\bapiece\b|\ba head\b|\bper (?:person|ticket|head)\b", re.IGNORECASE)
# an amount of money as people write it: "$1,340", "£14,280", "€2.400", "£17k", "R37,000", "48k"
_AMOUNT = re.compile(r"(?P<cur>[$€£₹])\s?(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\d+(?:\.\d{1,2})?)(?P<k>k\b)?", re.I)
_TAIL = re.compile(r"\s(?:for|on|at|with)\s.+$", re.IGNORECASE)
_AUX = re.compile(r"^\s*(?P<aux>is|was|are|were|did|does|do|will|would)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Worked:
    """An amount worked out, the sentence that says it, and the notes its parts come from."""

    sentence: str
    notes: tuple[Note, ...]


def worked_out(question: str, notes: Sequence[Note]) -> Worked | None:
    """The sum or difference a question asks, from the notes (None: not asked, or not certain)."""
    than = _THAN.search(question)
    if than:
        left, right = than["left"].strip(), than["right"].strip()
        aux = _AUX.match(left)
        verb = aux["aux"] if aux else "was"
        if right.endswith(("'s", "’s")):  # "than kenny's": kenny's quote
            head = [w for w in words(left) if len(w) > 2][-1:]
            right = f"{right} {' '.join(head)}"
        tail = _TAIL.search(left)  # "than my first target" for Alzheimer Scotland, as the left says
        if tail and not _TAIL.search(right):
            right = f"{right} {tail.group()}"
        if not _AUX.match(right):
            right = f"{verb} {right}"
        return _combined(f"how much {left}?", f"how much {right}?", notes, minus=True)
    plus = _PLUS.search(question)
    if plus and re.search(r"\bhow much\b|\bcome to\b|\bcost\b|\btotal\b", question, re.IGNORECASE):
        return _combined(f"how much was {plus['left']}?", f"how much was {plus['right']}?", notes, minus=False)
    past = _PAST_GOAL.search(question)
    if past:
        thing = " ".join(w for w in words(past["goal"]) if w not in _GOAL_WORDS)
        if thing:  # "how far over budget" alone names nothing whose amount the goal is measured against
            return _past_goal(past["goal"], thing, notes)
    if _BOTH.search(question):
        one = _amount(re.sub(r"\b(?:both|together|in total|altogether|combined)\b", "", question), notes)
        if one and _EACH.search(one[2].text[one[3] :][:40]):
            value, cur, note, _ = one
            return Worked(f"That's {_money(cur, value * 2)}: {_money(cur, value)} each, for two.", (note,))
    return None


def _combined(first: str, second: str, notes: Sequence[Note], minus: bool) -> Worked | None:
    a, b = _amount(first, notes), _amount(second, notes)
    if not a or not b or a[1] != b[1] or (a[2].text == b[2].text and a[3] == b[3]):
        return None
    cur = a[1]
    if minus:
        said = _against(cur, a[0], b[0])
    else:
        said = f"That's {_money(cur, a[0] + b[0])}: {_money(cur, a[0])} plus {_money(cur, b[0])}."
    return Worked(said, tuple(dict.fromkeys((a[2], b[2]))))


def _past_goal(goal: str, thing: str, notes: Sequence[Note]) -> Worked | None:
    """The goal's amount (said right beside the goal word: "goal is $45k", "£500 target"; the newest,
    or the first said for "original") against the newest amount of the thing."""
    word = [w for w in words(goal) if w in _GOAL_WORDS][-1]
    beside = re.compile(rf"\b{word}s?\b\W+(?:\w+\W+)?(?:is|was|of|at)?\W*$|^\W*{word}s?\b", re.IGNORECASE)
    said = sorted(  # (by when said: a note without a date counts as the oldest)
        ((n.created_at.timestamp() if n.created_at else 0.0, n, m) for n in notes for m in _AMOUNT.finditer(n.text)
         if beside.search(n.text[max(0, m.start() - 24) : m.start()]) or beside.search(n.text[m.end() : m.end() + 12])),
        key=lambda s: s[0],
    )  # fmt: skip
    if not said:
        return None
    _, note, m = said[0] if re.search(r"\b(?:original|first)\b", goal, re.IGNORECASE) else said[-1]
    now = _amount(f"how much is my {thing} now?", notes)
    if not now or now[1] != m["cur"] or (now[2].text == note.text and now[3] == m.end()):
        return None
    return Worked(_against(m["cur"], now[0], _value(m)), tuple(dict.fromkeys((note, now[2]))))


def _against(cur: str, first: float, second: float) -> str:
    """A difference said with both amounts: "That's $300: $1,100 against $1,400."."""
    return f"That's {_money(cur, abs(first - second))}: {_money(cur, first)} against {_money(cur, second)}."


def _value(m: re.Match[str]) -> float:
    return float(m["num"].replace(",", "")) * (1000 if m["k"] else 1)


def _amount(question: str, notes: Sequence[Note]) -> tuple[float, str, Note, int] | None:
    """The one amount the notes give for a question: of the notes the evidence policy chooses for it,
    the amount said nearest a word the question asks (value, currency, note, where it ends)."""
    evidence = choose(read(question), notes)
    if evidence.verdict != "answer":
        return None
    asked = {t for t in key_terms(question) if t not in _PLAIN}
    best: list[tuple[int, float, str, Note, int]] = []
    for note in evidence.notes:
        tokens = [(m.start(), stem(m.group())) for m in re.finditer(r"[\w'’-]+", note.text)]
        spots = [at for at, s in tokens if s in asked]
        for m in _AMOUNT.finditer(note.text):
            value = _value(m)
            distance = min((abs(m.start() - at) for at in spots), default=10_000)
            best.append((distance, value, m["cur"], note, m.end()))
    if not best:
        return None
    best.sort(key=lambda b: b[0])
    if len(best) > 1 and best[0][0] == best[1][0] and best[0][1] != best[1][1]:
        return None  # two amounts as near: not certain which
    _, value, cur, note, end = best[0]
    return value, cur, note, end


_PLAIN = frozenset(stem(w) for w in ("much", "how", "cost", "pay", "paid", "was", "is"))


def _money(cur: str, value: float) -> str:
    return f"{cur}{value:,.2f}" if value != int(value) else f"{cur}{int(value):,}"


# "how long have I been driving buses?", "how many years have Ray and I been married", "how long ago did my
# divorce go through?": the years from the day it began, when the notes say the day and not the length
_HOW_LONG_NOW = re.compile(
    r"^\W*how (?:long|many years)\s+(?:have|has|is it since)\b|^\W*how long ago\b|^\W*how many years ago\b",
    re.IGNORECASE,
)
_LENGTH_SAID = re.compile(
    r"\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a few|many)\s+(?:years?|yrs?|months?)\b",
    re.IGNORECASE,
)

# "…since 12 June 1987, so next summer it is 40 years": a length still to come, not the one now
_TO_COME = re.compile(r"\b(?:next|will|going to|turns?)\b|['’]ll\b", re.IGNORECASE)


def _length_now(text: str) -> bool:
    """Whether a note says a length of time as it is now ("12 years now"), not one still to come."""
    return any(_LENGTH_SAID.search(c) and not _TO_COME.search(c) for c in re.split(r"[,.;!?]", text))


def time_since(question: str, notes: Sequence[Note], today: date) -> str:
    """How long since the day the chosen notes say a thing began, said as a sentence ("That is 17 years
    (since 14 June 2009)."), or "" when the question asks no such length, a note already says one ("for 12
    years"), or no note says a year. Worked out here: a 135M model cannot count years."""
    if not _HOW_LONG_NOW.search(question) or any(_length_now(n.text) for n in notes):
        return ""
    start = next((s for n in notes if (s := dated_start(n.text))), None)
    if start is None:
        return ""
    year, month, day = start
    years = today.year - year - ((today.month, today.day) < (month or 1, day or 1) if month else 0)
    if years < 1:
        return ""
    when = f"{day} {calendar.month_name[month]} {year}" if day else (
        f"{calendar.month_name[month]} {year}" if month else str(year))  # fmt: skip
    about = "" if month else "about "
    if re.search(r"\bago\b", question, re.IGNORECASE):
        return f"That was {about}{years} years ago ({when})."
    return f"That is {about}{years} years (since {when})."
