"""Reminder requests parsed from the user's own words."""

from __future__ import annotations

from app.proactive import parse_reminder


def test_parse_reminder_with_interval() -> None:
    ask = parse_reminder("Please remind me in 2 hours to call Ana")
    assert ask is not None and ask.minutes == 120 and ask.text == "call Ana"


def test_parse_reminder_without_time_uses_failsafe() -> None:
    ask = parse_reminder("remind me to buy peanuts-free cookies")
    assert ask is not None and ask.minutes is None and ask.text == "buy peanuts-free cookies"


def test_parse_reminder_units_and_articles() -> None:
    ask = parse_reminder("Remind me about the dentist in a day")
    assert ask is not None and ask.minutes == 1440 and ask.text == "the dentist"


def test_parse_reminder_absent() -> None:
    assert parse_reminder("What did I tell you about reminders?") is None
