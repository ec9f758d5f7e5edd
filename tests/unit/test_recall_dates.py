"""Dates in recall: the days a question names, and relative words resolved against the day said."""

from __future__ import annotations

from datetime import date

import pytest

from memory.recall.dates import decode, encode, next_day, overlaps, question_window, resolved_spans

TODAY = date(2023, 10, 20)  # a Friday
SUNDAY = date(2023, 7, 2)


@pytest.mark.parametrize(
    ("question", "window"),
    [
        ("What painting did Melanie show on October 13, 2023?", (date(2023, 10, 13), date(2023, 10, 13))),
        ("What did Gina find for her store on 1 February, 2023?", (date(2023, 2, 1), date(2023, 2, 1))),
        ("what did I do on 8 May 2023", (date(2023, 5, 8), date(2023, 5, 8))),
        ("what did we do on 17. May 2023", (date(2023, 5, 17), date(2023, 5, 17))),  # the European way
        ("What setback did she face in October 2023?", (date(2023, 10, 1), date(2023, 10, 31))),
        ("What happened in early May 2023?", (date(2023, 5, 1), date(2023, 5, 11))),
        ("Which state did Joanna visit in summer 2021?", (date(2021, 6, 1), date(2021, 8, 31))),
        ("What did we celebrate in 2022?", (date(2022, 1, 1), date(2022, 12, 31))),
        ("Where did I go last March?", (date(2023, 3, 1), date(2023, 3, 31))),
        ("Where did I go in December?", (date(2022, 12, 1), date(2022, 12, 31))),  # the newest December
        ("What did they see on their trip last year?", (date(2022, 1, 1), date(2022, 12, 31))),
        ("What did I cook yesterday?", (date(2023, 10, 19), date(2023, 10, 19))),
        ("Who called me last week?", (date(2023, 10, 9), date(2023, 10, 15))),
    ],
)
def test_question_window_reads_the_days_a_question_names(question: str, window: tuple[date, date]) -> None:
    assert question_window(question, TODAY) == window


@pytest.mark.parametrize(
    "question", ["What did I do the week before my trip?", "I may go to the gym.", "What is my sister's name?"]
)
def test_question_window_is_none_without_a_time(question: str) -> None:
    assert question_window(question, TODAY) is None


@pytest.mark.parametrize(
    ("said", "span"),
    [
        ("We went to a pottery class yesterday!", (date(2023, 7, 1), date(2023, 7, 1))),
        ("I went camping last week with the kids.", (date(2023, 6, 19), date(2023, 6, 25))),
        ("Last weekend we painted the fence.", (date(2023, 6, 24), date(2023, 6, 25))),
        ("I saw her last Friday.", (date(2023, 6, 30), date(2023, 6, 30))),
        ("I ran a marathon three days ago.", (date(2023, 6, 28), date(2023, 6, 30))),
        ("We moved here last month.", (date(2023, 6, 1), date(2023, 6, 30))),
        ("Last summer we saw the Perseids.", (date(2022, 6, 1), date(2022, 8, 31))),
        ("We're going to Rome next month.", (date(2023, 8, 1), date(2023, 8, 31))),
    ],
)
def test_resolved_spans_read_relative_words_against_the_day_said(said: str, span: tuple[date, date]) -> None:
    assert resolved_spans(said, SUNDAY) == [span]


def test_resolved_spans_leave_undated_words_alone() -> None:
    assert resolved_spans("I love pottery and the beach in May.", SUNDAY) == []


def test_spans_round_trip_through_meta_and_overlap() -> None:
    spans = resolved_spans("yesterday and last week", SUNDAY)
    assert decode(encode(spans)) == spans
    assert decode(["nonsense", 3]) == []
    assert overlaps(spans[0], (date(2023, 7, 1), date(2023, 7, 31)))
    assert not overlaps(spans[1], (date(2023, 7, 1), date(2023, 7, 31)))


def test_next_day_is_the_first_day_named_on_or_after_today() -> None:
    today = date(2026, 11, 29)
    assert next_day("The half marathon is on 18 April, not 11.", today) == date(2027, 4, 18)
    assert next_day("Her birthday is December 3rd.", today) == date(2026, 12, 3)
    assert next_day("It's today, 29 November.", today) == today
    assert next_day("We married on 14 June 2009.", today) == date(2009, 6, 14)  # a year said is kept
    assert next_day("It moved to 31 June.", today) is None and next_day("soon, I hope", today) is None


def test_the_day_a_thing_began_is_the_one_after_since_else_the_first_with_a_year() -> None:
    from memory.recall.dates import dated_start

    assert dated_start("we are married since 12 June 1987, big party in 2012") == (1987, 6, 12)
    assert dated_start("born 1981, and since March 2019 I work here") == (2019, 3, 0)
    assert dated_start("the divorce went through in June 2021") == (2021, 6, 0)
    assert dated_start("took the farm over in 1991") == (1991, 0, 0)
    assert dated_start("we married on 3 June") is None
