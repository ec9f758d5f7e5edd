"""Reminder requests parsed from the user's own words."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from app.proactive import parse_reminder

NOW = datetime(2026, 11, 25, 14, 0, tzinfo=UTC)
ZONE = ZoneInfo("Europe/Lisbon")


def test_parse_reminder_with_interval() -> None:
    ask = parse_reminder("Please remind me in 2 hours to call Ana", NOW, ZONE)
    assert ask is not None and ask.due == NOW + timedelta(hours=2) and ask.text == "call Ana"


def test_parse_reminder_without_time_uses_failsafe() -> None:
    ask = parse_reminder("remind me to buy peanuts-free cookies", NOW, ZONE)
    assert ask is not None and ask.due is None and ask.text == "buy peanuts-free cookies"


def test_parse_reminder_units_and_articles() -> None:
    ask = parse_reminder("Remind me about the dentist in a day", NOW, ZONE)
    assert ask is not None and ask.due == NOW + timedelta(days=1) and ask.text == "the dentist"


def test_parse_reminder_day_and_hour_leave_the_text() -> None:
    ask = parse_reminder("remind me tomorrow at 9 to call the vet", NOW, ZONE)
    assert ask is not None and ask.due == datetime(2026, 11, 26, 9, 0, tzinfo=UTC) and ask.text == "call the vet"
    ask = parse_reminder("Remind me to call the vet on Friday at 10.", NOW, ZONE)
    assert ask is not None and ask.due == datetime(2026, 11, 27, 10, 0, tzinfo=UTC) and ask.text == "call the vet"


def test_parse_reminder_reads_time_only_after_the_ask() -> None:
    ask = parse_reminder("Tomorrow is busy, so remind me to call the vet", NOW, ZONE)
    assert ask is not None and ask.due is None


def test_parse_reminder_absent() -> None:
    assert parse_reminder("What did I tell you about reminders?", NOW, ZONE) is None


def test_remind_me_asking_what_is_remembered_is_a_question_not_a_reminder() -> None:
    asked = ("Remind me, what does Priya do?", "Remind me of my physio's name?", "remind me again where Tash works?")
    for message in asked:
        assert parse_reminder(message, NOW, ZONE) is None
    ask = parse_reminder("remind me of the dentist tomorrow morning", NOW, ZONE)  # a time: a reminder
    assert ask is not None and ask.due is not None
