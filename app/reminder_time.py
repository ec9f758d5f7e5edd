"""When a reminder is due, read from the person's own words in their time zone, and said back.

Model-free on purpose: SmolLM2-135M invents times, a grammar does not. The words read are
"in 20 minutes / 2 hours / 3 days / a week", "today", "tomorrow", "tonight", "this evening",
"tomorrow morning", "in the evening", "next week", "on|next|this Monday", "on 3 December",
"December 3rd", "on 2026-12-03", and a clock time: "at 9", "at 6pm", "at 18:30", "at noon".

The decisions for what a person leaves vague, each applied in the function named:
- Minutes and hours are elapsed time; days and weeks are calendar days at the same local wall
  time, so "in a week" across a DST change is still at the hour it was asked (`_relative`).
- A day with no hour is at 09:00 (`DEFAULT_HOUR`): "tomorrow", "on Friday", "on 3 December".
  "next week" is next Monday at 09:00 (`_day`).
- Parts of the day: morning 09:00, afternoon 15:00, evening 18:00, tonight or night 20:00 (`PARTS`).
- An hour without am/pm is read as written from 7 to 12; 1 to 6 is the afternoon (a reminder
  "at 3" is not meant for 3 a.m.); next to afternoon, evening or night words it is pm, so
  "tonight at 9" is 21:00, and next to "morning" it is as written (`_hour`). "at 09:00", "at 21"
  and "at 6am" are as written.
- A plain "today" names no hour: the failsafe interval applies, as for no time at all (`Words.due`).
- No day named: the next time it comes ("at 9" after 09:00 today is tomorrow at 09:00, "in the
  evening" after 18:00 is tomorrow evening). A day and month without a year: the next such date.
- A weekday is the first one after today, "next" or not: "on Friday" said on a Friday is a
  week later ("today at 10" says today). British "Monday week" is not read.
- Today named ("today at 9", "this morning", "tonight") or a full date that has passed is
  returned as it is, in the past: the store refuses it and the person is asked again, rather
  than a reminder being moved somewhere they did not say.
- Numeric dates other than year-month-day (3/12) are not read: day-month or month-day would be a guess.
- A wall time that DST skips lands an hour later; one that happens twice is the first (zoneinfo's
  fold=0), so the local time said back is always the one that will ring.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

DEFAULT_HOUR = 9
"""The hour of a day named without one ("tomorrow", "on Friday", "next week")."""
PARTS = {"morning": 9, "afternoon": 15, "evening": 18, "night": 20, "tonight": 20}
"""The hour of a part of the day named without a clock time."""
_PM_PARTS = {"afternoon", "evening", "night", "tonight"}

_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30}  # fmt: skip
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")  # fmt: skip
_MONTH = r"(?P<month>jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|" \
         r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"  # fmt: skip
_ORD = r"(?:st|nd|rd|th)?"

_RELATIVE = re.compile(
    rf"\bin\s+(?P<n>\d{{1,4}}|half\s+an?|{'|'.join(_NUMBERS)})\s+"
    r"(?P<unit>minutes?|mins?|hours?|hrs?|days?|weeks?)\b",
    re.IGNORECASE,
)
_UNIT_MINUTES = {"m": 1, "h": 60, "d": 1440, "w": 10080}  # by the unit's first letter

_DAYS = [  # (pattern, what it names); the first that matches wins, so longer phrases come first
    (r"\bthe\s+day\s+after\s+tomorrow\b", "after_tomorrow"),
    (r"\btomorrow\b", "tomorrow"),
    (r"\btonight\b", "tonight"),
    (r"\bthis\s+(?P<part>morning|afternoon|evening)\b", "today"),
    (r"\btoday\b", "today"),
    (r"\bnext\s+week\b", "next_week"),
    (rf"\b(?:on\s+|next\s+|this\s+)(?P<weekday>{'|'.join(_WEEKDAYS)})\b(?!['’]s)", "weekday"),
    (r"\b(?:on\s+)?(?P<y>\d{4})-(?P<m>\d{2})-(?P<d>\d{2})\b", "iso"),
    (rf"\b(?:on\s+)?(?:the\s+)?(?P<d>\d{{1,2}}){_ORD}(?:\s+of)?\s+{_MONTH}\b\.?(?:,?\s+(?P<y>\d{{4}}))?", "date"),
    (rf"\b(?:on\s+)?{_MONTH}\.?\s+(?:the\s+)?(?P<d>\d{{1,2}}){_ORD}\b(?:,?\s+(?P<y>\d{{4}}))?", "date"),
]
_DAY_PATTERNS = [(re.compile(p, re.IGNORECASE), kind) for p, kind in _DAYS]
_PART_AFTER_DAY = re.compile(r"\s+(?P<part>morning|afternoon|evening|night)\b", re.IGNORECASE)
_PART = re.compile(r"\b(?:in\s+the\s+(?P<part>morning|afternoon|evening)|at\s+(?P<night>night))\b", re.IGNORECASE)
_CLOCK = [
    re.compile(r"\b(?:at\s+|around\s+|by\s+)?(?P<h>\d{1,2})(?::(?P<m>[0-5]\d))?\s*(?P<ap>[ap])\.?m\b\.?", re.I),
    re.compile(r"\b(?:at\s+|around\s+|by\s+)?(?P<h>[01]?\d|2[0-3]):(?P<m>[0-5]\d)\b", re.IGNORECASE),
    re.compile(r"\b(?:at|around|by)\s+(?P<h>[01]?\d|2[0-3])\.(?P<m>[0-5]\d)\b", re.IGNORECASE),  # "at 9.30"
    re.compile(r"\b(?:at|around|by)\s+(?P<h>[01]?\d|2[0-3])(?:\s*o['’]?clock)?\b(?![:.]?\d)", re.IGNORECASE),
    re.compile(r"\b(?:at|around|by)\s+(?P<noon>noon|midday)\b", re.IGNORECASE),
]


@dataclass(frozen=True)
class Words:
    """The time words found in a message: the instant they mean and what is left of the message."""

    due: datetime | None
    """Aware, UTC; in the past only when the person named a day that has passed (see the module).
    None for a plain "today", which names no hour: the caller's failsafe interval is meant."""
    rest: str
    """The message without the time words ("remind me to call the vet")."""


@dataclass(frozen=True)
class _Day:
    on: date
    part: str | None = None
    rolls: bool = False  # no day named, or no year: the next occurrence is meant when this one has passed
    years: bool = False  # rolls by a year (a day and month), not by a day
    default: tuple[int, int] | None = (DEFAULT_HOUR, 0)  # the time when none is said (None: no hour meant)


@dataclass(frozen=True)
class _Clock:
    hour: int
    minute: int
    exact: bool  # am/pm, a zero-padded or 24-hour hour, noon: not re-read by `_hour`


def read_when(text: str, now: datetime, zone: ZoneInfo) -> Words | None:
    """The due time the message names, if it names one (None: no time words at all).

    Args:
        text: the person's message, e.g. "remind me tomorrow at 9 to call the vet".
        now: the current instant (aware).
        zone: the person's time zone; the words mean wall-clock time there.
    """
    spans: list[tuple[int, int]] = []
    relative = _RELATIVE.search(text)
    if relative is not None:
        spans.append(relative.span())
        if relative.group("unit")[0].lower() in "mh":  # elapsed time, whatever the clock says
            return Words(now + timedelta(minutes=_minutes(relative)), _without(text, spans))
    local_now = now.astimezone(zone)
    day = _relative(relative, local_now) if relative is not None else _day(text, local_now, spans)
    part = (day.part if day else None) or _part(text, spans)
    clock = _clock(text, spans)
    if day is None and part is None and clock is None:
        return None
    day = day or _Day(local_now.date(), rolls=True)
    hour_minute = _time_of_day(clock, part, day.default)
    if hour_minute is None:
        return Words(None, _without(text, spans))
    due = _at(day.on, *hour_minute, zone)
    if due <= now and day.rolls:
        due = _at(_next_year(day.on) if day.years else day.on + timedelta(days=1), *hour_minute, zone)
    return Words(due, _without(text, spans))


def _time_of_day(clock: _Clock | None, part: str | None, default: tuple[int, int] | None) -> tuple[int, int] | None:
    if clock is not None:
        return _hour(clock, part), clock.minute
    if part is not None:
        return PARTS[part], 0
    return default


def _minutes(found: re.Match[str]) -> int:
    n = found.group("n").lower()
    unit = found.group("unit").lower()
    per = _UNIT_MINUTES[unit[0]]
    if n.startswith("half"):
        return per // 2
    return (int(n) if n.isdigit() else _NUMBERS[n]) * per


def _relative(found: re.Match[str], local_now: datetime) -> _Day:
    """Days or weeks ahead ("in 3 days", "in a week"): calendar days in the person's zone, at this time of day."""
    return _Day(local_now.date() + timedelta(days=_minutes(found) // 1440), default=(local_now.hour, local_now.minute))


def _day(text: str, local_now: datetime, spans: list[tuple[int, int]]) -> _Day | None:
    """The day named, if any; the part of the day said with it ("tomorrow morning") comes along."""
    today = local_now.date()
    for pattern, kind in _DAY_PATTERNS:
        found = pattern.search(text)
        if found is None:
            continue
        on = _named_day(kind, found, today)
        if on is None:  # "on 31 February": not a day
            continue
        end = found.end()
        part = found.groupdict().get("part")
        after = _PART_AFTER_DAY.match(text, end)
        if part is None and after is not None:
            part, end = after.group("part"), after.end()
        spans.append((found.start(), end))
        part = "tonight" if kind == "tonight" else part
        if part is not None:
            part = part.lower()
        years = kind == "date" and found.group("y") is None
        default = None if kind == "today" else (DEFAULT_HOUR, 0)  # a plain "today" names no hour
        return _Day(on, part, rolls=years, years=years, default=default)
    return None


def _named_day(kind: str, found: re.Match[str], today: date) -> date | None:
    match kind:
        case "tomorrow":
            return today + timedelta(days=1)
        case "after_tomorrow":
            return today + timedelta(days=2)
        case "today" | "tonight":
            return today
        case "next_week":  # next Monday
            return today + timedelta(days=7 - today.weekday())
        case "weekday":
            ahead = (_WEEKDAYS.index(found.group("weekday").lower()) - today.weekday()) % 7
            return today + timedelta(days=ahead or 7)
        case _:
            month = int(found.group("m")) if kind == "iso" else _month(found.group("month"))
            year = int(found.group("y")) if found.group("y") else today.year
            try:
                return date(year, month, int(found.group("d")))
            except ValueError:
                return None


def _month(word: str) -> int:
    return next(i for i, name in enumerate(_MONTHS, start=1) if name.startswith(word.lower()[:3]))


def _next_year(day: date) -> date:
    try:
        return day.replace(year=day.year + 1)
    except ValueError:  # 29 February: the next one is years away; 1 March is what a person means
        return date(day.year + 1, 3, 1)


def _part(text: str, spans: list[tuple[int, int]]) -> str | None:
    """A part of the day said without a day ("in the evening", "at night")."""
    found = _PART.search(text)
    if found is None:
        return None
    spans.append(found.span())
    return (found.group("part") or found.group("night")).lower()


def _clock(text: str, spans: list[tuple[int, int]]) -> _Clock | None:
    for pattern in _CLOCK:
        found = pattern.search(text)
        if found is None or any(s <= found.start() < e for s, e in spans):  # "2026-12-03" is no "12"
            continue
        groups = found.groupdict()
        if groups.get("noon"):
            spans.append(found.span())
            return _Clock(12, 0, exact=True)
        hour, minute = int(groups["h"]), int(groups.get("m") or 0)
        if groups.get("ap"):
            if not 1 <= hour <= 12:
                continue
            hour = hour % 12 + (12 if groups["ap"].lower() == "p" else 0)
            exact = True
        else:
            exact = hour == 0 or hour > 12 or groups["h"].startswith("0")
        spans.append(found.span())
        return _Clock(hour, minute, exact)
    return None


def _hour(clock: _Clock, part: str | None) -> int:
    """A clock hour as meant: "at 3" is 15:00, "tonight at 9" 21:00, "at 9" 09:00, "at 09:00" and "at 21" as said."""
    if clock.exact or clock.hour == 12 or part == "morning":
        return clock.hour
    if part in _PM_PARTS or clock.hour <= 6:
        return clock.hour + 12
    return clock.hour


def _at(day: date, hour: int, minute: int, zone: ZoneInfo) -> datetime:
    """Wall-clock time `hour:minute` on `day` in `zone`, as a UTC instant (DST: see the module)."""
    return datetime.combine(day, time(hour, minute), tzinfo=zone).astimezone(UTC)


def _without(text: str, spans: list[tuple[int, int]]) -> str:
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + " " + text[end:]
    return " ".join(text.split())


def said_when(due: datetime, now: datetime, zone: ZoneInfo) -> str:
    """A due time in the person's words and zone: "today at 18:00", "tomorrow, Thu 26 Nov at 09:00",
    "Fri 4 Dec at 10:00", "Fri 3 Dec 2027 at 09:00" (the year only when it is not this one).

    A naive `due` is UTC: SQLite hands stored times back without their zone.
    """
    due = due if due.tzinfo is not None else due.replace(tzinfo=UTC)
    local, today = due.astimezone(zone), now.astimezone(zone).date()
    day = f"{local:%a} {local.day} {local:%b}" + (f" {local.year}" if local.year != today.year else "")
    if local.date() == today:
        day = "today"
    elif local.date() == today + timedelta(days=1):
        day = f"tomorrow, {day}"
    return f"{day} at {local:%H:%M}"
