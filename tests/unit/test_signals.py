"""Follow-up signals that the previous answer was missing context."""

from __future__ import annotations

import pytest

from capabilities.signals import followup_signal

HISTORY = [
    "My sister's name is Mara and she lives in Lisbon.",
    "What is the name of my sister?",
    "ok thanks",
]


@pytest.mark.parametrize(
    "message",
    [
        "As I said, I'm allergic to peanuts.",
        "I already told you that yesterday",
        "I've already mentioned my dog's name",
        "like i said, the deadline is Friday",
        "Remember when we planned the trip to Porto?",
        "Did you forget what I asked?",
        "have you forgotten my name?",
        "We talked about this last week",
        "we've already discussed the budget",
        "The book I mentioned is great",
        "AS  I\tSAID: no onions",
        "Like I said… it’s fine",
        "I’ve already told you twice",
    ],
)
def test_followup_signal_explicit_reference(message: str) -> None:
    assert followup_signal(message, []) == "explicit_reference"


@pytest.mark.parametrize(
    "message",
    [
        "what is the name of my sister",
        "What is the NAME of my sister??",
        "what's the name of my sister?",
    ],
)
def test_followup_signal_repeated_question(message: str) -> None:
    assert followup_signal(message, HISTORY) == "repeated_question"


@pytest.mark.parametrize(
    "message",
    [
        "Thanks, that helps!",
        "Where does my sister live?",
        "I said hello to my neighbour today",
        "Remember to buy milk",
        "This is a hint: alike i said nothing",
        "Write a poem about Lisbon",
        "ok thanks",  # repeats, but too short to mean anything
        "",
    ],
)
def test_followup_signal_none_for_ordinary_messages(message: str) -> None:
    assert followup_signal(message, HISTORY) is None


def test_followup_signal_explicit_reference_wins_over_repeat() -> None:
    assert followup_signal("As I said, what is the name of my sister?", HISTORY) == "explicit_reference"


def test_followup_signal_repeat_needs_jaccard_of_at_least_0_8() -> None:
    earlier = ["one two three four five"]
    assert followup_signal("one two three four five six", earlier) == "repeated_question"  # 5/6
    assert followup_signal("one two three four six", earlier) is None  # 4/6
