"""By how much a value went up or down: the last change, worked out from two notes, written as told."""

from __future__ import annotations

from datetime import datetime, timedelta

from capabilities.change import asks_change, change
from capabilities.evidence import Note

T0 = datetime(2025, 4, 1)


def _n(day: int, text: str) -> Note:
    return Note(f"m{day}", text, T0 + timedelta(days=day), 0.8)


def test_the_last_change_in_the_same_unit_is_worked_out_and_written_as_told() -> None:
    rent = [_n(1, "Rent is $1,850 a month."), _n(9, "The rent went up to $1,925, ugh.")]
    moved = change("how much more is the rent now?", rent[1:], rent)
    assert moved and moved.sentence() == "It went up by $75: from $1,850 to $1,925."
    weight = [_n(1, "He weighs 24 kg, the vet wants 21."), _n(5, "Bamse is 22,8 kg now")]
    moved = change("by how much did Bamse's weight go down", weight, weight)
    assert moved and moved.sentence() == "It went down by 1,2 kg: from 24 kg to 22,8 kg."


def test_nothing_is_worked_out_without_a_change_asked_or_an_earlier_value() -> None:
    notes = [_n(1, "My salary is 648 000 kr a year now."), _n(3, "My new salary is 671 000 kr.")]
    assert change("what's my salary now?", notes[1:], notes) is None
    assert change("how much did my salary go up?", notes[1:], notes[1:]) is None
    assert change("how much did the bike go up?", notes[1:], notes) is None  # no note says a word asked before
    assert asks_change("By how much did our mortgage rate go down") and not asks_change("how much is the rent?")


def test_rupees_and_indian_grouping_and_money_before_a_percentage() -> None:
    pension = [_n(1, "Pension came, Rs. 67,320 this month."),
               _n(40, "Pension update: the DR hike was announced, 53% to 55%. Pension is now Rs. 68,200.")]  # fmt: skip
    moved = change("by how much did my pension go up with the DR hike", pension[1:], pension)
    assert moved and moved.sentence() == "It went up by Rs. 880: from Rs. 67,320 to Rs. 68,200."
    car = [_n(1, "On-road price of the Dzire is Rs. 7,35,000."), _n(9, "The dealer raised the price to Rs. 7,52,500.")]
    moved = change("how much did the price of the Dzire go up", car[1:], car)
    assert moved and moved.by == "Rs. 17,500"


# --- twenty-second session, ages and amounts worked out (arith) ---


def test_a_value_said_again_is_no_change_and_another_things_value_is_not_its_before() -> None:
    pension = [_n(1, "My basic pension is Rs. 44,000 and with DR at 53% I am getting Rs. 67,320 per month."),
               _n(5, "Pension update: the DR hike was announced, 53% to 55%."),
               _n(5, "So from now my monthly pension is Rs. 68,200 instead of 67,320."),
               _n(7, "Lakshmamma asked for a small hike, so now Rs. 500 more for her."),
               _n(9, "July pension came on time, Rs. 68,200.")]  # fmt: skip
    moved = change("by how much did my pension go up with the DR hike", pension[1:2], pension)
    assert moved and moved.sentence() == "It went up by Rs. 880: from Rs. 67,320 to Rs. 68,200."


def test_a_value_said_with_no_unit_right_after_the_word_asked_changes_too() -> None:
    notes = [_n(1, "Last HbA1c in February was 7.4, he says below 7 is the target for me."),
             _n(60, "HbA1c has come down to 6.9!! Repeat the test on 22nd September.")]  # fmt: skip
    moved = change("how much did my HbA1c come down", notes[1:], notes)
    assert moved and moved.sentence() == "It went down by 0.5: from 7.4 to 6.9."
    assert change("how much did my HbA1c come down", notes[1:], notes[1:]) is None  # one value: no change
    dates = [_n(1, "HbA1c test is on 12th March"), _n(9, "HbA1c test moved to 22nd March")]  # days, not values
    assert change("how much did my HbA1c come down", dates[1:], dates) is None
    rent = [_n(1, "The rent is 1,240 a month"), _n(3, "the rent in Monplaisir is 1,260, not 1,240")]
    assert change("how much more rent will we pay than now?", rent[1:], rent) is None  # two things, no move asked


def test_a_value_said_again_in_a_document_is_no_run_to_go_back_through() -> None:
    doc = [Note("d1", "ICU: up to 2% of Sum Insured per day.", T0, 0.8, source="chunk"),
           Note("d2", "Co-payment: 20% of every admissible claim.", T0 + timedelta(seconds=1), 0.8, source="chunk"),
           Note("d3", "20% of every admissible claim is borne by the insured.", T0 + timedelta(seconds=2), 0.8,
                source="chunk")]  # fmt: skip
    assert change("how much more is the claim than the insured covers?", doc[2:], doc) is None
