"""Reminder times read from the person's words, with a fixed now and zone (app/reminder_time.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from app.reminder_time import read_when, said_when

LISBON = ZoneInfo("Europe/Lisbon")
NEW_YORK = ZoneInfo("America/New_York")
NOW = datetime(2026, 11, 25, 14, 0, tzinfo=UTC)
"""Wednesday 25 November 2026, 14:00 in Lisbon (UTC+0 in winter)."""


def _due(text: str, now: datetime = NOW, zone: ZoneInfo = LISBON) -> datetime:
    words = read_when(text, now, zone)
    assert words is not None and words.due is not None, text
    assert words.due.utcoffset() == timedelta(0)  # an aware UTC instant, as the store keeps it
    return words.due


def _local(text: str, now: datetime = NOW, zone: ZoneInfo = LISBON) -> str:
    return f"{_due(text, now, zone).astimezone(zone):%Y-%m-%d %H:%M}"


@pytest.mark.parametrize(
    ("words", "local"),
    [
        ("in 20 minutes", "2026-11-25 14:20"),
        ("in 2 hours", "2026-11-25 16:00"),
        ("in half an hour", "2026-11-25 14:30"),
        ("in 3 days", "2026-11-28 14:00"),
        ("in a week", "2026-12-02 14:00"),
        ("tomorrow", "2026-11-26 09:00"),
        ("tomorrow at 9", "2026-11-26 09:00"),
        ("at 6pm", "2026-11-25 18:00"),
        ("at 6:30 p.m.", "2026-11-25 18:30"),
        ("at 18:30", "2026-11-25 18:30"),
        ("tonight", "2026-11-25 20:00"),
        ("tonight at 9", "2026-11-25 21:00"),
        ("this evening", "2026-11-25 18:00"),
        ("this evening at 7", "2026-11-25 19:00"),
        ("in the evening", "2026-11-25 18:00"),
        ("tomorrow morning", "2026-11-26 09:00"),
        ("tomorrow morning at 7", "2026-11-26 07:00"),
        ("tomorrow afternoon", "2026-11-26 15:00"),
        ("the day after tomorrow", "2026-11-27 09:00"),
        ("next week", "2026-11-30 09:00"),
        ("next Monday", "2026-11-30 09:00"),
        ("on Friday at 10", "2026-11-27 10:00"),
        ("on Friday evening", "2026-11-27 18:00"),
        ("on Wednesday", "2026-12-02 09:00"),  # said on a Wednesday: next week's
        ("on 3 December", "2026-12-03 09:00"),
        ("on the 3rd of December at 8:15", "2026-12-03 08:15"),
        ("December 3rd at 5pm", "2026-12-03 17:00"),
        ("on 3 November", "2027-11-03 09:00"),  # passed this year: the next one
        ("on 2026-12-03", "2026-12-03 09:00"),
        ("on 2026-12-03 at 16:45", "2026-12-03 16:45"),
        ("at 3", "2026-11-25 15:00"),  # nobody means 3 a.m. without saying so
        ("at 4am", "2026-11-26 04:00"),
        ("at 9", "2026-11-26 09:00"),  # 09:00 passed today: tomorrow's
        ("at 9.30", "2026-11-26 09:30"),
        ("at noon", "2026-11-26 12:00"),
        ("at 12am", "2026-11-26 00:00"),
        ("in the morning", "2026-11-26 09:00"),  # this morning is over
    ],
)
def test_read_when_phrases(words: str, local: str) -> None:
    assert _local(f"remind me {words} to call the vet") == local


def test_read_when_bare_hour_before_and_after_it_passes() -> None:
    morning = datetime(2026, 11, 25, 8, 0, tzinfo=UTC)
    assert _local("at 9", morning) == "2026-11-25 09:00"
    assert _local("at 9", morning.replace(hour=9)) == "2026-11-26 09:00"  # exactly now is not ahead
    assert _local("at 9", morning.replace(hour=9, minute=1)) == "2026-11-26 09:00"


def test_read_when_today_named_and_passed_is_returned_in_the_past() -> None:
    for words in ("today at 9", "this morning", "on 2026-01-05"):
        found = read_when(f"{words} to call the vet", NOW, LISBON)
        assert found is not None and found.due is not None and found.due < NOW, words


def test_read_when_plain_today_names_no_hour() -> None:
    found = read_when("today to call the vet", NOW, LISBON)
    assert found is not None and found.due is None and found.rest == "to call the vet"


def test_read_when_no_time_words() -> None:
    for text in ("to call the vet", "about Monday's meeting", "to buy 2 apples", "that the 3 kids need coats"):
        assert read_when(text, NOW, LISBON) is None, text


def test_read_when_leaves_the_rest_of_the_message() -> None:
    for text in ("tomorrow at 9 to call the vet", "to call the vet on Friday at 10", "to call the vet in 2 hours",
                 "to call the vet this evening", "on 2026-12-03 to call the vet"):  # fmt: skip
        found = read_when(text, NOW, LISBON)
        assert found is not None and found.rest == "to call the vet", text


def test_read_when_zone_math_to_utc() -> None:
    # 14:00 UTC is 09:00 in New York (EST, UTC-5)
    assert _due("at 6pm", NOW, NEW_YORK) == datetime(2026, 11, 25, 23, 0, tzinfo=UTC)
    assert _due("tomorrow at 9", NOW, NEW_YORK) == datetime(2026, 11, 26, 14, 0, tzinfo=UTC)
    assert _due("at 9", NOW, NEW_YORK) == datetime(2026, 11, 26, 14, 0, tzinfo=UTC)  # 09:00 is now: tomorrow


def test_read_when_dst_start_keeps_wall_clock_for_days_not_hours() -> None:
    saturday = datetime(2026, 3, 28, 10, 0, tzinfo=UTC)  # Lisbon moves to UTC+1 at 01:00 UTC on the 29th
    assert _due("tomorrow at 9", saturday) == datetime(2026, 3, 29, 8, 0, tzinfo=UTC)  # 09:00 WEST
    assert _local("in a day", saturday) == "2026-03-29 10:00"  # the same wall time: 23 hours later
    assert _local("in 24 hours", saturday) == "2026-03-29 11:00"  # elapsed time
    skipped = _due("tomorrow at 1:30am", saturday)  # 01:30 does not exist that night
    assert skipped == datetime(2026, 3, 29, 1, 30, tzinfo=UTC)
    assert said_when(skipped, saturday, LISBON) == "tomorrow, Sun 29 Mar at 02:30"  # said as it will ring


def test_read_when_dst_end() -> None:
    saturday = datetime(2026, 10, 24, 10, 0, tzinfo=UTC)  # 11:00 WEST; back to UTC+0 on the 25th
    assert _due("tomorrow at 9", saturday) == datetime(2026, 10, 25, 9, 0, tzinfo=UTC)  # 09:00 WET
    assert _due("at 9", saturday) == datetime(2026, 10, 25, 9, 0, tzinfo=UTC)


def test_said_when_words() -> None:
    def said(local: str) -> str:
        due = datetime.fromisoformat(local).replace(tzinfo=NEW_YORK)
        return said_when(due, NOW, NEW_YORK)

    assert said("2026-11-25 18:00") == "today at 18:00"
    assert said("2026-11-26 09:00") == "tomorrow, Thu 26 Nov at 09:00"
    assert said("2026-11-27 10:00") == "Fri 27 Nov at 10:00"
    assert said("2027-01-01 09:00") == "Fri 1 Jan 2027 at 09:00"
    assert said_when(datetime(2026, 11, 26, 14, 0), NOW, NEW_YORK) == "tomorrow, Thu 26 Nov at 09:00"  # naive: UTC


def test_settings_timezone_names_the_zone_or_takes_the_machines(monkeypatch: pytest.MonkeyPatch) -> None:
    from pydantic import ValidationError

    from app.settings import Settings

    monkeypatch.setenv("REVERIE_TIMEZONE", "Europe/Lisbon")
    assert Settings(_env_file=None).zone == LISBON  # pyright: ignore[reportCallIssue]
    monkeypatch.delenv("REVERIE_TIMEZONE")
    machine = Settings(_env_file=None).zone  # pyright: ignore[reportCallIssue]
    assert isinstance(machine, ZoneInfo)
    with pytest.raises(ValidationError, match="IANA name"):
        Settings(_env_file=None, timezone="Mars/Olympus")  # pyright: ignore[reportCallIssue]
