"""Dates in recall: the days a question names, and the days a memory's own words point at.

A question that names a date or a time relative to today ("on 8 May 2023", "October 13, 2023",
"in October 2023", "in 2022", "summer 2021", "last March", "last year", "yesterday", "two weeks
ago") becomes a window of days (`question_window`); a memory whose day, or a day its words point
at, falls in that window gains log-odds in recall (memory/recall/hybrid.py). Relative words inside
a memory ("yesterday", "last week", "three days ago") are resolved at write time against the day
the memory was said (`resolved_spans`, kept in `meta["dates"]` by `MemoryIndex.add_many`), so
"I went camping last week", said on 2 July, is found by "what did she do in June?".

Decisions where English is vague (English only; days, not clock times):
- a week is Monday to Sunday; "last week" is the calendar week before the one it was said in,
  "last weekend" the Saturday and Sunday before, "last Friday" the Friday 1-7 days before;
- "last March" is the newest March before the current month; a month or a day without a year
  ("in June", "on 8 May") is the newest one not after today;
- "a few days ago" is three days ago, "the other day" 1-7 days back; "N weeks/months ago" is the week or
  month around that many back, widened by one unit on each side (people round);
- seasons are the northern hemisphere's (summer = June-August; winter = December of that year
  to February of the next);
- an event anchored on another event ("the week before my trip") is not read: that needs the
  trip's date, which only retrieval could find.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta

Span = tuple[date, date]  # first and last day, both included

MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m}
MONTHS |= {m.lower(): i for i, m in enumerate(calendar.month_abbr) if m and m != "May"}
WEEKDAYS = {d.lower(): i for i, d in enumerate(calendar.day_name)}
SEASONS = {"spring": (3, 5), "summer": (6, 8), "fall": (9, 11), "autumn": (9, 11), "winter": (12, 14)}
NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
NUMBERS |= {"nine": 9, "ten": 10}
NUMBERS |= {"a couple of": 2, "couple of": 2, "a few": 3, "few": 3, "several": 4}

_MONTH = r"(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"  # noqa: E501
_YEAR = r"((?:19|20)\d\d)"
_DAY_MONTH = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th|\.)?(?: of)? {_MONTH}\b,?(?: {_YEAR})?", re.IGNORECASE)
_MONTH_DAY = re.compile(rf"\b{_MONTH} (\d{{1,2}})(?:st|nd|rd|th)?\b(?:,? {_YEAR})?", re.IGNORECASE)
_MONTH_YEAR = re.compile(rf"\b(early |mid-?|late )?{_MONTH},? {_YEAR}\b", re.IGNORECASE)
_IN_MONTH = re.compile(rf"\b(?:in|during|of|last) (early |mid-?|late )?{_MONTH}\b", re.IGNORECASE)
_SEASON_YEAR = re.compile(rf"\b(spring|summer|fall|autumn|winter)(?: of)? {_YEAR}\b", re.IGNORECASE)
_YEAR_ALONE = re.compile(rf"\b(?:in|during|of|since) {_YEAR}\b|\b{_YEAR}\b", re.IGNORECASE)
_NUMBER = "|".join(sorted(map(re.escape, NUMBERS), key=len, reverse=True))
_AGO = re.compile(rf"\b(\d+|{_NUMBER}) (day|week|month|year)s? ago\b", re.IGNORECASE)
_RELATIVE = re.compile(
    r"\b(?:(the day before yesterday)|(yesterday)|(today|tonight|this (?:morning|afternoon|evening))|(last night)"
    r"|(tomorrow)|(the other day)|(last|this|next) (week(?:end)?|month|year"
    r"|monday|tuesday|wednesday|thursday|friday|saturday|sunday|spring|summer|fall|autumn|winter)"
    rf"|(last) {_MONTH})\b",
    re.IGNORECASE,
)


def month_span(year: int, month: int) -> Span:
    """The days of one calendar month."""
    return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])


def _part(span: Span, part: str | None) -> Span:
    """Early / mid / late part of a month span (thirds), or the whole month."""
    lo, hi = span
    part = (part or "").strip().lower().rstrip("-")
    if part == "early":
        return lo, lo + timedelta(days=10)
    if part == "mid":
        return lo + timedelta(days=9), lo + timedelta(days=20)
    return (lo + timedelta(days=19), hi) if part == "late" else span


def _season(year: int, name: str) -> Span:
    first, last = SEASONS[name.lower()]
    end_year, end_month = (year + 1, last - 12) if last > 12 else (year, last)
    return date(year, first, 1), month_span(end_year, end_month)[1]


def _newest_month(month: int, today: date, strictly_before: bool) -> Span:
    """The newest `month` not after today's month (strictly before it for "last March")."""
    year = today.year if (month < today.month or (month == today.month and not strictly_before)) else today.year - 1
    return month_span(year, month)


def _day(day: int, month: int, year: str | None, today: date) -> Span | None:
    try:
        found = date(int(year) if year else today.year, month, day)
        if not year and found > today:
            found = found.replace(year=today.year - 1)
    except ValueError:  # 31 June, or 29 February of a common year
        return None
    return found, found


def _week(day: date, weeks_back: int) -> Span:
    monday = day - timedelta(days=day.weekday() + 7 * weeks_back)
    return monday, monday + timedelta(days=6)


def _ago(count: int, unit: str, day: date) -> Span:
    """ "N units ago", one unit of slack on either side (people round)."""
    if unit == "day":
        return day - timedelta(days=count + 1), day - timedelta(days=max(count - 1, 0))
    if unit == "week":
        return _week(day, count + 1)[0], _week(day, max(count - 1, 0))[1]
    if unit == "month":
        months = day.year * 12 + day.month - 1
        lo, hi = months - count - 1, months - count + 1
        return month_span(lo // 12, lo % 12 + 1)[0], month_span(hi // 12, hi % 12 + 1)[1]
    return date(day.year - count - 1, 1, 1), date(day.year - count + 1, 12, 31)


def _relative(match: re.Match[str], day: date) -> Span | None:
    """The span one `_RELATIVE` match points at, said on `day`."""
    g = match.groups()
    shifts = {0: 2, 1: 1, 2: 0, 3: 1, 4: -1}
    for group, back in shifts.items():
        if g[group]:
            return day - timedelta(days=back), day - timedelta(days=back)
    if g[5]:
        return day - timedelta(days=7), day - timedelta(days=1)
    if g[8]:
        return _newest_month(_month(g[9]), day, strictly_before=True)
    return _named_unit(g[6].lower(), g[7].lower(), day)


def _month(name: str) -> int:
    name = name.lower()
    return MONTHS.get(name) or MONTHS[name[:3]]


def _named_unit(which: str, unit: str, day: date) -> Span | None:
    """ "last week", "this month", "next year", "last friday", "last summer" said on `day`."""
    step = {"last": -1, "this": 0, "next": 1}[which]
    if unit == "week":
        return _week(day, -step)
    if unit == "weekend":
        saturday = _week(day, -step)[0] + timedelta(days=5)
        return saturday, saturday + timedelta(days=1)
    if unit == "month":
        months = day.year * 12 + day.month - 1 + step
        return month_span(months // 12, months % 12 + 1)
    if unit == "year":
        return date(day.year + step, 1, 1), date(day.year + step, 12, 31)
    if unit in WEEKDAYS:
        back = (day.weekday() - WEEKDAYS[unit]) % 7 or 7  # "last/this friday": the one before
        ahead = (WEEKDAYS[unit] - day.weekday()) % 7 or 7
        target = day + timedelta(days=ahead) if step > 0 else day - timedelta(days=back)
        return target, target
    year = day.year + step if step else day.year
    span = _season(year, unit)
    if step < 0 and unit != "winter" and _season(day.year, unit)[1] < day:  # "last summer" in October: this year's
        span = _season(day.year, unit)
    return span


def said_days(text: str, day: date) -> list[tuple[str, Span]]:
    """Each relative expression of a day, week or month in `text` ("last weekend", "yesterday") with the
    days it points at, said on `day`: what a reply says beside the words ("N days ago", widened for
    recall, is left out)."""
    return [(m.group(0), s) for m in _RELATIVE.finditer(text) if (s := _relative(m, day)) is not None]


def resolved_spans(text: str, day: date) -> list[Span]:
    """The days relative expressions in `text` point at, said on `day` ("yesterday" -> the day
    before). Explicit dates are not read here: they are in the words, where BM25 sees them."""
    spans = [s for _, s in said_days(text, day)]
    for m in _AGO.finditer(text):
        count = int(m.group(1)) if m.group(1).isdigit() else NUMBERS[m.group(1).lower()]
        spans.append(_ago(count, m.group(2).lower(), day))
    return spans


def question_window(question: str, today: date) -> Span | None:
    """The days a question names (the narrowest it says), or None when it names no time.

    Explicit dates first (a day, a month of a year, a season of a year, a bare month, a year),
    then relative ones against `today`."""
    found = [s for _, day, month, year in _days_said(question) if (s := _day(day, month, year, today))]
    for m in _MONTH_YEAR.finditer(question):
        found.append(_part(month_span(int(m.group(3)), _month(m.group(2))), m.group(1)))
    for m in _SEASON_YEAR.finditer(question):
        found.append(_season(int(m.group(2)), m.group(1)))
    if not found:
        for m in _IN_MONTH.finditer(question):
            last = m.group(0).lower().startswith("last")
            found.append(_part(_newest_month(_month(m.group(2)), today, strictly_before=last), m.group(1)))
    if not found:
        years = [int(m.group(1) or m.group(2)) for m in _YEAR_ALONE.finditer(question)]
        found += [(date(y, 1, 1), date(y, 12, 31)) for y in years]
    found = found or resolved_spans(question, today)
    return min(found, key=lambda s: s[1] - s[0]) if found else None


def overlaps(a: Span, b: Span) -> bool:
    """Whether two spans share a day."""
    return a[0] <= b[1] and b[0] <= a[1]


def encode(spans: list[Span]) -> list[str]:
    """Spans as meta strings ("2023-05-07/2023-05-07")."""
    return [f"{lo.isoformat()}/{hi.isoformat()}" for lo, hi in spans]


def decode(values: object) -> list[Span]:
    """What `encode` wrote (anything else is ignored)."""
    out: list[Span] = []
    for value in values if isinstance(values, list) else []:
        try:
            lo, hi = str(value).split("/")
            out.append((date.fromisoformat(lo), date.fromisoformat(hi)))
        except ValueError:
            continue
    return out


def _days_said(text: str) -> list[tuple[int, int, int, str | None]]:
    """Each day `text` names with its month ("8 May", "May 8th, 2023"): where it starts, the day, the month
    and the year as typed (None when not said), days before months first."""
    found = [(m.start(), int(m.group(1)), _month(m.group(2)), m.group(3)) for m in _DAY_MONTH.finditer(text)]
    return found + [(m.start(), int(m.group(2)), _month(m.group(1)), m.group(3)) for m in _MONTH_DAY.finditer(text)]


def next_day(text: str, today: date) -> date | None:
    """The first day `text` names with its month ("on 18 April", "April 18th, 2027"): with no year, the first
    one on or after `today` (what "how many days until the race?" counts to), else None."""
    for _, day, month, year in sorted(_days_said(text)):
        try:
            when = date(int(year) if year else today.year, month, day)
            return when.replace(year=today.year + 1) if not year and when < today else when
        except ValueError:  # 31 June; 29 February of a common year
            continue
    return None


_SINCE = re.compile(r"\bsince\b", re.IGNORECASE)


def day_said(year: int, month: int, day: int) -> str:
    """A (year, month, day) as `dated_start` gives it, said: "14 June 2009", "June 2021", "1991"."""
    if not month:
        return str(year)
    return f"{f'{day} ' if day else ''}{calendar.month_name[month]} {year}"


def dated_start(text: str) -> tuple[int, int, int] | None:
    """The day a thing began by `text` (year, month, day; 0 for a month or a day not said): a date after
    "since" first ("married since 12 June 1987", "since 2014"), else the first date that says its year
    ("on 14 June 2009", "in June 2021", "in 1991"); None when no year is said."""
    found = [(at, (int(year), month, day)) for at, day, month, year in _days_said(text) if year]
    for m in _MONTH_YEAR.finditer(text):
        found.append((m.start(), (int(m.group(3)), _month(m.group(2)), 0)))
    years = [(m.start(m.lastindex or 0), (int(m.group(1) or m.group(2)), 0, 0)) for m in _YEAR_ALONE.finditer(text)]
    found += [y for y in years if not any(abs(y[0] - f[0]) < 20 for f in found)]  # (the year of a date said)
    if not found:
        return None
    after_since = [f for f in found if any(0 <= f[0] - s.end() <= 3 for s in _SINCE.finditer(text))]
    return min(after_since or found)[1]
