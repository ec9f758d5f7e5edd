"""Sums and differences of two amounts the notes give, worked out instead of guessed.

"How much more is the Lone Star total than the loan I got?" is answered by no single note: one gives
the total, another the loan. A 135M model cannot subtract, so a question that compares two amounts
("how much more/less/dearer … than …") or adds them ("the original quote plus the rotten joists",
"both tickets together" when one costs so much each) is split into a question for each amount; the
evidence policy (`capabilities.evidence.choose`) answers each from the notes, and the amount it finds
is the one said beside what that side asks about. Only when each side gives one amount in the same
currency is the result said, with both amounts, which the sources show. "How far over my savings goal
did I end up?" is the goal's amount (the one said beside the word "goal") against the newest amount of
what it is a goal for. "How much did we save by choosing A over B?" is B's amount less A's, and "my
half" half the one amount a note says is split. An amount said without a currency ("280k a month",
"10,800") takes the other side's; one corrected away ("1,260 €, not 1,240 €") is not read.
Ages too: "how old will mama be on her birthday?" is one more than the age a note says ("she's 71"),
"how old was I when I retired?" counted from the day a note says I was born, "how many years older
than Kuba is Kasia?" the two ages one note says. "How many days after my IELTS exam did Somto propose?" is
counted from the day of each the evidence policy finds. Otherwise nothing is worked out and the question goes
the usual way. (`capabilities.change` covers "how much did it go up".)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from itertools import pairwise

from capabilities.ages import age_worked_out
from capabilities.evidence import Note, choose, covers, day_months
from capabilities.situation import key_terms, read, stem, words
from memory.recall.dates import dated_start, day_said, next_day

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
# "how much did we save by choosing Cedar Ridge over Saanich Roofing?"
_SAVED = re.compile(
    r"^\W*how much (?:did|do|would|will|have) (?:i|we) (?:save|saved)\s+(?:by\s+)?"
    r"(?:choosing|picking|going with|taking|booking|buying)\s+(?P<chosen>.+?)\s+(?:over|instead of|rather than)\s+"
    r"(?P<other>.+?)[\s?.!]*$",
    re.IGNORECASE,
)
# "how much rent do I pay a year for my half?" with "rent is 850k a year and we split it half half"
_MY_HALF = re.compile(r"^\W*how much\b.*\b(?:my|our|his|her|your) (?:half|share)\b", re.IGNORECASE)
_SPLIT = re.compile(
    r"\bsplit\b[^.?!]{0,20}?\b(?:half|halves|50/50|50-50|in two|equally|evenly)\b|\bhalf each\b|\bgo halves\b",
    re.IGNORECASE,
)
_EACH = re.compile(r"\beach\b|\bapiece\b|\ba head\b|\bper (?:person|ticket|head)\b", re.IGNORECASE)
# an amount of money as people write it: "$1,340", "£14,280", "R37,000", "£17k", "Rs. 1,60,000", "1,240 €",
# "12,500 euro"; and said with no currency ("280k a month", "10,800, and", "maximum 9000 for"), which takes
# the currency of the amount it is set against
_AMOUNT = re.compile(
    r"(?:(?P<cur>[$€£₹₦¥₩]|(?<!\w)(?:R\$|Rs\.?|INR|R(?=\d)))\s?|(?<![\w.,:/+#-]))"
    r"(?P<num>\d{1,2}(?:,\d{2})+,\d{3}|\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\d+(?:\.\d{1,2})?)(?![\d,:/]\d|\.\d)"
    r"(?P<k>k\b)?(?P<post>\s?(?:€|(?:euros?|eur|dollars?|pounds?|quid|naira|rand|rupees)\b))?",
    re.I,
)
_BARE_AFTER = re.compile(
    r"\s*(?:$|[,.;!?)\]—–-]|(?:a|per|for|each|all|every|and|but|so|to|from|in|on|at|which|with|now|then)\b)", re.I
)
_CURRENCY = {"euro": "€", "euros": "€", "eur": "€", "dollar": "$", "dollars": "$", "pound": "£", "pounds": "£",
             "quid": "£", "naira": "₦", "rand": "R", "r": "R", "rs": "₹", "rs.": "₹", "inr": "₹", "rupees": "₹",
             "r$": "R$"}  # fmt: skip
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
        thing = _MV_THING.match(left)
        if thing and not {t for t in key_terms(right) if t not in _PLAIN and t not in _MV_NOW_WORDS}:
            # "how much more rent per month will we pay in the new flat than we pay now?": the rent now
            right = f"{thing['thing']} {right}"
        tail = _TAIL.search(left)  # "than my first target" for Alzheimer Scotland, as the left says
        if tail and not _TAIL.search(right):
            right = f"{right} {tail.group()}"
        if not _AUX.match(right):
            right = f"{verb} {right}"
        return _combined(f"how much {left}?", f"how much {right}?", notes, minus=True)
    saved = _SAVED.search(question)
    if saved:  # what the one not chosen cost less what the one chosen did, when that is more than nothing
        return _combined(f"how much was {saved['other']}?", f"how much was {saved['chosen']}?", notes, minus=True,
                         more=True)  # fmt: skip
    plus = _PLUS.search(question)
    if plus and re.search(r"\bhow much\b|\bcome to\b|\bcost\b|\btotal\b", question, re.IGNORECASE):
        return _combined(f"how much was {plus['left']}?", f"how much was {plus['right']}?", notes, minus=False)
    past = _PAST_GOAL.search(question)
    if past:
        thing = " ".join(w for w in words(past["goal"]) if w not in _GOAL_WORDS)
        if thing and re.search(r"\btimes?\b", question, re.IGNORECASE):  # "…target was my actual time": a race's
            return _MV_past_time_goal(past["goal"], thing, notes)
        if thing:  # "how far over budget" alone names nothing whose amount the goal is measured against
            return _past_goal(past["goal"], thing, notes)
    apart = _DAYS_APART.search(question)
    if apart:  # "how many days after my IELTS exam did Somto propose?": the two days, counted
        return _days_apart(apart["first"], apart["second"], notes)
    aged = age_worked_out(question, notes)  # "how old will mama be on her birthday?"
    if aged:
        return Worked(*aged)
    if _MY_HALF.search(question):
        return _half(question, notes)
    if _MV_DAILY.search(question):  # "what is dad's total daily dose of apixaban?" with "5 mg twice a day"
        return _MV_daily(question, notes)
    if _BOTH.search(question):
        one = _amount(re.sub(r"\b(?:both|together|in total|altogether|combined)\b", "", question), notes)
        if one and _EACH.search(one[2].text[one[3] :][:40]):
            value, cur, note, _ = one
            return Worked(f"That's {_money(cur, value * 2)}: {_money(cur, value)} each, for two.", (note,))
    return None


# "how many days after my IELTS exam did Somto propose?": the day each was, and the days between
_DAYS_APART = re.compile(
    r"^\W*how many days after (?P<first>.+?) (?P<second>(?:did|was|were) .+?)[\s?.!]*$", re.IGNORECASE
)


def _days_apart(first: str, second: str, notes: Sequence[Note]) -> Worked | None:
    """The days from the day the notes give for the first thing to the next such day of the second, each
    the one day and month a note says of those the evidence policy answers "when…?" with."""
    days = []
    for asked in (f"when was {first}?", f"when {second}?"):
        evidence = choose(read(asked), notes)
        dated = [n for n in evidence.notes if day_months(n.text)]
        if evidence.verdict != "answer" or len(dated) != 1 or len(day_months(dated[0].text)) != 1:
            return None
        days.append(dated[0])
    one, other = days
    start = next_day(one.text, _A_YEAR_FROM)
    end = next_day(other.text, start) if start else None  # (the second on or after the first, no year said)
    if start is None or end is None or end == start or one is other:
        return None
    return Worked(f"{(end - start).days} days: from {start.day} {start:%B} to {end.day} {end:%B}.", (one, other))


_A_YEAR_FROM = date(2001, 1, 1)  # (a common year: a day said without its year is counted within one)


# "what is my father's total daily dose of apixaban?", "how much metformin does mum take a day?"
_MV_DAILY = re.compile(
    r"\b(?:total\s+)?daily\s+(?:dose|dosage|amount|intake)\b|^\W*how (?:much|many (?:mg|milligrams))\b.*"
    r"\b(?:take|takes|taking|have|has|get|gets|on)\b.*\b(?:a|per|each) day\b",
    re.IGNORECASE,
)
# a dose said with how often: "apixaban 5 mg twice a day", "2.5mg of bisoprolol three times daily"
_MV_DOSE = r"(?P<n>\d+(?:\.\d+)?)\s?(?P<unit>mg|mcg|µg|g|ml|units|iu)\b"
_MV_TIMES = (
    r"\s+(?P<times>twice|three times|four times|[2-6] times|two times)\s+(?:a|per|each) day\b|"
    r"\s+(?P<times2>twice|three times|four times|[2-6] times|two times)\s+daily\b"
)
_MV_HOW_OFTEN = {"twice": 2, "two times": 2, "three times": 3, "four times": 4}


def _MV_daily(question: str, notes: Sequence[Note]) -> Worked | None:
    """The dose a day of the one medicine asked, when the notes say it once with how many times a day
    ("apixaban 5 mg twice a day": 10 mg a day); a dose said once a day is the answer as said, and two
    doses said for the medicine are no certain one."""
    asked = [w for w in words(question) if len(w) > 3]
    found: dict[tuple[str, str], tuple[Note, re.Match[str]]] = {}
    for note in notes:  # (of every note: "total" and "daily dose" are words a note of the pills need not say)
        for name in asked:
            for pattern in (rf"\b{re.escape(name)}\W{{1,3}}(?:[a-z]+\W+)?{_MV_DOSE}(?:{_MV_TIMES})",
                            rf"{_MV_DOSE}\s+of\s+{re.escape(name)}(?:{_MV_TIMES})"):
                for m in re.finditer(pattern, note.text, re.IGNORECASE):
                    found[(note.text, m.group())] = (note, m)
    if len(found) != 1:
        return None
    ((note, m),) = found.values()
    often = (m["times"] or m["times2"]).casefold()
    times = _MV_HOW_OFTEN.get(often) or int(often.split()[0])
    one = float(m["n"])
    total = one * times
    unit = m["unit"]
    text = f"{total:g} {unit}"
    return Worked(f"That's {text} a day: {one:g} {unit} {often} a day.", (note,))


def _half(question: str, notes: Sequence[Note]) -> Worked | None:
    """Half the one amount a chosen note says it splits in two ("850k a year and we split it half half")."""
    evidence = choose(read(question), notes)
    split = [(n, found) for n in evidence.notes if _SPLIT.search(n.text) and len(found := _amounts(n.text)) == 1]
    if evidence.verdict != "answer" or len(split) != 1:
        return None
    note, (m,) = split[0]
    whole = _value(m)
    return Worked(f"That's {_money(_cur(m), whole / 2)}: half of {_money(_cur(m), whole)}.", (note,))


def _combined(first: str, second: str, notes: Sequence[Note], minus: bool, more: bool = False) -> Worked | None:
    """The two amounts' sum or difference (`more`: only when the first is the larger)."""
    a, b = _amount(first, notes), _amount(second, notes)
    cur = _same_currency(a[1], b[1]) if a and b else ""
    if not a or not b or not cur or (a[2].text == b[2].text and a[3] == b[3]) or (minus and a[0] == b[0]):
        return None  # (no difference: both sides found the same amount, not two)
    if more and a[0] < b[0]:
        return None
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
        ((n.created_at.timestamp() if n.created_at else 0.0, n, m) for n in notes for m in _amounts(n.text)
         if beside.search(n.text[max(0, m.start() - 24) : m.start()]) or beside.search(n.text[m.end() : m.end() + 12])),
        key=lambda s: s[0],
    )  # fmt: skip
    if not said:
        return None
    _, note, m = said[0] if re.search(r"\b(?:original|first)\b", goal, re.IGNORECASE) else said[-1]
    now = _amount(f"how much is my {thing} now?", notes)
    cur = _same_currency(now[1], _cur(m)) if now else ""
    if not now or not cur or (now[2].text == note.text and now[3] == m.end()):
        return None
    return Worked(_against(cur, now[0], _value(m)), tuple(dict.fromkeys((note, now[2]))))


# a time a race took, as runners write it: "2:14:37", "sub 2:10", "58:40" (not "at 6:30pm")
_MV_DURATION = re.compile(r"(?<![\d:.])(\d{1,2}):([0-5]\d)(?::([0-5]\d))?(?![\d:]|\s?[ap]\.?m\b)", re.IGNORECASE)


def _MV_past_time_goal(goal: str, thing: str, notes: Sequence[Note]) -> Worked | None:
    """How far a time was off its target ("how far off my original half marathon target was my actual
    time?"): the target is the time said right after the goal word ("target is sub 2:10"; the first said for
    "original", else the newest), the time the one that a note of the thing says elsewhere ("edinburgh half
    on sunday, 2:14:37"), when it says one. A time of two parts is read as the one of hours or of minutes
    nearer the other ("2:10" against "2:14:37": two hours ten)."""
    word = [w for w in words(goal) if w in _GOAL_WORDS][-1]
    beside = re.compile(rf"\b{word}s?\b(?:\s+(?:is|was|of|at|now|set|to))*\s+(?:(?:sub|under|below|around|about)\s+)?$",
                        re.IGNORECASE)
    targets = sorted(((n.created_at.timestamp() if n.created_at else 0.0, m.group(), n) for n in notes
                      for m in _MV_DURATION.finditer(n.text)
                      if beside.search(n.text[max(0, m.start() - 30) : m.start()])), key=lambda t: t[0])  # fmt: skip
    thing_words = {stem(w) for w in words(thing)}
    done = {m.group(): n for n in notes if thing_words & {stem(w) for w in words(n.text)}
            for m in _MV_DURATION.finditer(n.text) if m.group().count(":") == 2
            and not beside.search(n.text[max(0, m.start() - 30) : m.start()])
            and not re.search(rf"\b{word}", n.text[m.end() : m.end() + 8], re.IGNORECASE)}  # fmt: skip
    if not targets or len(done) != 1:
        return None
    _, target, aim_note = targets[0] if re.search(r"\b(?:original|first)\b", goal, re.IGNORECASE) else targets[-1]
    ((actual, took_note),) = done.items()
    parts = [int(p) for p in actual.split(":")]
    took = parts[0] * 3600 + parts[1] * 60 + parts[2]
    aimed = [int(p) for p in target.split(":")]
    aim = (min((aimed[0] * 3600 + aimed[1] * 60, aimed[0] * 60 + aimed[1]), key=lambda a: abs(a - took))
           if len(aimed) == 2 else aimed[0] * 3600 + aimed[1] * 60 + aimed[2])  # fmt: skip
    off = abs(took - aim)
    if off == 0 or off >= 3600:
        return None
    way = "over" if took > aim else "under"
    return Worked(f"{off // 60}:{off % 60:02d} {way} the target ({off // 60} minutes {off % 60} seconds): "
                  f"{actual} against {target}.", tuple(dict.fromkeys((took_note, aim_note))))


def _against(cur: str, first: float, second: float) -> str:
    """A difference said with both amounts: "That's $300: $1,100 against $1,400."."""
    return f"That's {_money(cur, abs(first - second))}: {_money(cur, first)} against {_money(cur, second)}."


def _value(m: re.Match[str]) -> float:
    return float(m["num"].replace(",", "")) * (1000 if m["k"] else 1)


def _cur(m: re.Match[str]) -> str:
    """An amount's currency as a sign ("12,500 euro": "€"), or "" when none is said."""
    said = (m["cur"] or m["post"] or "").strip()
    return _CURRENCY.get(said.casefold(), said)


def _amounts(text: str) -> list[re.Match[str]]:
    """The amounts of money a text gives: with a currency, or without one when written as money is (in
    thousands, "280k", "10,800", "9000", not a year, and followed by no unit: not "10,000 steps"); not
    one corrected away ("1,260 €, not 1,240 €": the 1,240)."""
    out: list[re.Match[str]] = []
    for m in _AMOUNT.finditer(text):
        if re.search(r"\bnot\s*$", text[max(0, m.start() - 6) : m.start()], re.I):
            continue
        if not _cur(m) and not (
            (m["k"] or "," in m["num"] or (len(m["num"]) >= 4 and not re.fullmatch(r"0\d+|(?:19|20)\d\d", m["num"])))
            and _BARE_AFTER.match(text, m.end())
        ):
            continue
        out.append(m)
    return out


def _same_currency(a: str, b: str) -> str:
    """The currency two amounts share ("" and "€": "€"), or "" when they differ or neither says one."""
    return a or b if not (a and b) or a == b else ""


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
        for m in _amounts(note.text):
            value = _value(m)
            distance = min((abs(m.start() - at) for at in spots), default=10_000)
            best.append((distance, value, _cur(m), note, m.end()))
    if not best:
        return None
    if _MV_NOW.search(question):  # "than we pay now": the amount said as the present one ("we currently pay 1,080 €")
        present = [b for b in best if _MV_PRESENT.search(b[3].text[max(0, b[4] - 60) : b[4]])]
        best = present if len({b[1] for b in present}) == 1 else best
    best.sort(key=lambda b: b[0])
    if len(best) > 1 and best[0][0] == best[1][0] and best[0][1] != best[1][1]:
        return None  # two amounts as near: not certain which
    _, value, cur, note, end = best[0]
    return _corrected(value, notes), cur, note, end


def _corrected(value: float, notes: Sequence[Note]) -> float:
    """The amount a note puts in place of this one ("the rent is 1,260 €, not 1,240 €"), or this one."""
    for note in notes:
        for m in _AMOUNT.finditer(note.text):
            after = re.match(r"\W{0,3}\s*not\s+", note.text[m.end() :])
            wrong = after and _AMOUNT.match(note.text, m.end() + after.end())
            if wrong and _value(wrong) == value and _value(m) != value:
                return _value(m)
    return value


_PLAIN = frozenset(stem(w) for w in ("much", "how", "cost", "pay", "paid", "was", "is"))
# the thing compared, said before its verb: "(how much more) rent per month will we pay…"
_MV_THING = re.compile(
    r"^\s*(?P<thing>(?:(?!\b(?:is|was|are|were|did|does|do|will|would|have|has|had|can|could)\b)[\w'’ ])+?)\s+"
    r"(?:is|was|are|were|did|does|do|will|would|have|has|had|can|could)\b",
    re.IGNORECASE,
)
_MV_NOW = re.compile(r"\b(?:now|currently|at the moment|at present|these days)\b", re.IGNORECASE)
_MV_NOW_WORDS = frozenset(stem(w) for w in ("now", "currently", "moment", "present", "days", "these"))
# an amount said as the present one: "we currently pay 1,080 €", "at the moment it's £950"
_MV_PRESENT = re.compile(
    r"\b(?:currently|at the moment|at present|right now|these days)\b(?:\W+\w+){0,3}\W+[^\s]*\d[\d,.]*[k€]?\s*€?$",
    re.IGNORECASE,
)


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

# "so next summer it is 40 years", "it will be 40 years in June": a length it is going to be, not one now
_TO_BE = re.compile(
    r"\b(?:next \w+,? (?:it is|it['’]s|it will be|will be)|will be|it['’]ll be|it['’]s going to be)\s*$", re.IGNORECASE
)


_YEAR = re.compile(r"\b(?:19|20)\d\d\b")
_SPAN = frozenset(stem(w) for w in ("how", "long", "many", "years", "year", "ago", "since"))


# "since I took the farm over", "since we moved here": who did what, asked (the verb's stem, group 2)
_MV_SINCE_DID = re.compile(r"\bsince\s+(?P<who>i|we|he|she|they)\s+(?P<verb>[\w'’]+)", re.IGNORECASE)
_MV_CLAUSE = re.compile(r"[,;.!?()—–]|\b(?:and|but|then|while|before|after)\b", re.IGNORECASE)


def _MV_verb_year(question: str, notes: Sequence[Note]) -> tuple[int, int, int] | None:
    """For "since I took the farm over", the one year of the one clause that says who did it and the verb,
    in a note that says several years ("my father started on this farm in 1958, I took it over from him
    in 1991": 1991, not the father's 1958)."""
    did = _MV_SINCE_DID.search(question)
    if not did:
        return None
    who, verb = did["who"].casefold(), stem(did["verb"])
    said = {
        start
        for n in notes
        if len(set(_YEAR.findall(n.text))) > 1
        for clause in _MV_CLAUSE.split(n.text)
        if len(_YEAR.findall(clause)) == 1
        and (w := words(clause))
        and any(a == who and stem(b) == verb for a, b in pairwise(w))
        and (start := dated_start(clause))
    }
    return next(iter(said)) if len(said) == 1 else None


def _length_now(text: str) -> bool:
    """Whether a text says a length of time that is not one it is going to be."""
    return any(not _TO_BE.search(text[max(0, m.start() - 30) : m.start()]) for m in _LENGTH_SAID.finditer(text))


def time_since(question: str, notes: Sequence[Note], today: date) -> str:
    """How long since the day the chosen notes say a thing began, said as a sentence ("That is 17 years
    (since 14 June 2009)."), or "" when the question asks no such length, a note already says one ("for 12
    years"), or no note says a year. Worked out here: a 135M model cannot count years."""
    if not _HOW_LONG_NOW.search(question) or any(_length_now(n.text) for n in notes):
        return ""
    # (of a note that says a word asked, "married", and one year, or the one after "since": the farm
    # "my father started in 1958, I took it over in 1991" is not certain, nor a note of the wedding)
    asked = [t for t in key_terms(question) if t not in _SPAN]
    start = next((s for n in notes if any(covers(n.stems, t) for t in asked) and (s := dated_start(n.text))
                  and (len(set(_YEAR.findall(n.text))) == 1 or re.search(r"\bsince\b", n.text, re.I))),
                 None)  # fmt: skip
    if start is None:
        start = _MV_verb_year(question, notes)
    if start is None:
        return ""
    year, month, day = start
    years = today.year - year - ((today.month, today.day) < (month or 1, day or 1) if month else 0)
    if years < 1:
        return ""
    when = day_said(year, month, day)
    about = "" if month else "about "
    if re.search(r"\bago\b", question, re.IGNORECASE):
        return f"That was {about}{years} years ago ({when})."
    return f"That is {about}{years} years (since {when})."
