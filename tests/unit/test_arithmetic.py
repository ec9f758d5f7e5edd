"""Sums and differences of two amounts, each side answered from its own note (capabilities/arithmetic.py)."""

from __future__ import annotations

from datetime import datetime, timedelta

from capabilities.arithmetic import worked_out
from capabilities.evidence import Note

T0 = datetime(2026, 3, 1)


def _notes(*texts: str) -> list[Note]:
    return [Note(f"m{i}", t, T0 + timedelta(days=i), 0.8) for i, t in enumerate(texts)]


def test_a_difference_asked_with_than_takes_each_side_from_its_own_note() -> None:
    notes = _notes("running it for alzheimer scotland, justgiving target is £500",
                   "half marathon target is sub 2:10, my 10k pb is 58:40",
                   "justgiving closed at £1,126 for alzheimer scotland, so chuffed")  # fmt: skip
    worked = worked_out("how much more did i raise for alzheimer scotland than my first target", notes)
    assert worked and worked.sentence.startswith("That's £626") and "£1,126" in worked.sentence


def test_a_sum_of_two_amounts_and_both_of_one_said_each() -> None:
    notes = _notes("the quote came back, £14,280 all in", "the joists under the sink are rotten, £2,350 extra")
    worked = worked_out("what did the kitchen come to with the quote plus the rotten joists?", notes)
    assert worked and worked.sentence.startswith("That's £16,630")
    tickets = _notes("booked the plane tickets to seoul!! $1,340 each for me and marcus")
    both = worked_out("how much did both plane tickets cost together?", tickets)
    assert both and both.sentence.startswith("That's $2,680")


def test_nothing_is_worked_out_without_an_amount_for_each_side_or_when_not_asked() -> None:
    notes = _notes("the quote came back, £14,280 all in")
    assert worked_out("how much dearer was the other builder's quote than the first one?", notes) is None
    assert worked_out("how much was the quote?", notes) is None
    assert worked_out("how much did both tickets cost together?", _notes("tickets were $40")) is None


def test_how_far_past_a_goal_is_the_newest_amount_against_the_goal_said_beside_its_word() -> None:
    notes = _notes("the fundraiser target is €3,000, fingers crossed", "update: fundraiser is at €2,100",
                   "we closed the fundraiser at €3,420, way past the target!!")  # fmt: skip
    worked = worked_out("how far over the fundraiser target did we get?", notes)
    assert worked and worked.sentence == "That's €420: €3,420 against €3,000."
    one = _notes("savings at $47,150 now. we passed the $45k goal!!")  # both amounts in one message
    worked = worked_out("how far over my savings goal did i end up?", one)
    assert worked and worked.sentence.startswith("That's $2,150")
    assert worked_out("how far over budget are we?", notes) is None  # names nothing the budget is for
    assert worked_out("how far over the savings goal am I?", _notes("savings at $4,000 now")) is None  # no goal said


def test_a_goal_said_in_a_note_without_a_date_is_the_oldest_not_an_error() -> None:
    from datetime import UTC

    notes = [Note("m0", "goal is €3,000 for the fundraiser"),
             Note("m1", "fundraiser closed at €3,420!!", datetime(2026, 3, 1, tzinfo=UTC))]  # fmt: skip
    worked = worked_out("how far over the fundraiser goal did we get?", notes)
    assert worked and worked.sentence == "That's €420: €3,420 against €3,000."


def test_how_long_since_a_day_the_notes_say_is_counted() -> None:
    from datetime import date

    from capabilities.arithmetic import time_since

    today = date(2026, 11, 29)
    married = [Note("m1", "Ray and I got married in that same basilica actually, 14 june 2009")]
    assert time_since("how many years have Ray and I been married", married, today) == (
        "That is 17 years (since 14 June 2009).")
    divorce = [Note("m1", "the divorce went through in June 2021, finally")]
    assert time_since("How long ago did my divorce go through?", divorce, today) == "That was 5 years ago (June 2021)."
    farm = [Note("m1", "I was born in 1962 and since 1991 I have the farm from my father")]
    assert time_since("How many years is it since I took the farm over?", farm, today) == (
        "That is about 35 years (since 1991).")
    # a length the notes say themselves, a question of another kind, or no year: nothing counted
    said = [Note("m1", "I drive buses, 12 years now, since 2014")]
    assert time_since("How long have I been driving buses?", said, today) == ""
    assert time_since("when did we get married?", married, today) == ""
    assert time_since("how long have we been married?", [Note("m1", "we married on 3 June")], today) == ""
    # a length still to come is not the length now: the years are counted from the day said
    married = [Note("m1", "We are married since 12 June 1987, so next summer it is 40 years.")]
    assert time_since("how long have me and Anneke been married", married, today) == (
        "That is 39 years (since 12 June 1987).")



# --- twenty-second session, ages and amounts worked out (arith) ---


def test_an_age_on_a_coming_birthday_is_one_more_than_the_age_said() -> None:
    notes = _notes("rang mama tonight, she's 71 and still does everything herself",
                   "her birthday's 12 January, we're doing a party for her")  # fmt: skip
    worked = worked_out("How old will mama be on her birthday in January?", notes)
    assert worked and worked.sentence.startswith("That would be 72")
    nanay = _notes("also Nanay lives with us, shes 73, diabetic but still the boss")
    worked = worked_out("how old did Nanay turn while she was in the hospital?", nanay)
    assert worked and worked.sentence.startswith("That would be 74")
    # the age turned said (nothing to work out), two ages said, or none of whom is asked: nothing
    assert worked_out("How old will mama be on her birthday?", _notes("mama is 71", "mama is turning 72")) is None
    assert worked_out("How old will mama be on her birthday?", _notes("mama is 71", "mama is 68")) is None
    assert worked_out("How old will mama be on her birthday?", _notes("she's 71")) is None
    assert worked_out("How old will mama be on her birthday?", _notes("mama's 65 kg now")) is None


def test_an_age_then_is_counted_from_the_day_i_was_born() -> None:
    notes = _notes("We are born on 3 March 1960, Jelle is twenty minutes older",
                   "My wife is Anneke. We are married since 12 June 1987",
                   "On 4 January 1997 we skated the Elfstedentocht together, 200 kilometres")  # fmt: skip
    worked = worked_out("How old was I when I skated the Elfstedentocht?", notes)
    assert worked and worked.sentence.startswith("You were 36")
    retired = _notes("I was born on 9th April 1961 near Kundapura", "I retired from the railways on 30th April 2021")
    worked = worked_out("how old was I when I retired?", retired)
    assert worked and worked.sentence.startswith("You were 60")
    # a year alone leaves the age one of two; another's day is not mine
    assert worked_out("how old was I when I retired?", _notes("I was born in 1961", "I retired in 2021")) is None
    assert worked_out("how old was I when I retired?", _notes("I was born on 9 April 1961",
                                                              "he retired on 30 April 2021")) is None  # fmt: skip


def test_years_between_two_ages_said_in_one_note() -> None:
    notes = _notes("Kasia's 15 now and Kuba's 13, Kasia's in Year 11")
    worked = worked_out("How many years older than Kuba is Kasia?", notes)
    assert worked and worked.sentence.startswith("2 years")
    assert worked_out("How many years older than Kuba is Kasia?", _notes("Kasia's 15", "Kuba's 13")) is None


def test_what_was_saved_by_choosing_one_over_another_is_the_other_less_the_one() -> None:
    notes = _notes("The first quote, from Saanich Roofing, came to $18,400, which made Desmond go pale.",
                   "We have decided on Cedar Ridge Roofing. Their price was $16,950.")  # fmt: skip
    worked = worked_out("How much did we save by choosing Cedar Ridge over Saanich Roofing?", notes)
    assert worked and worked.sentence == "That's $1,450: $18,400 against $16,950."
    # the one chosen cost more: nothing was saved, nothing is worked out
    assert worked_out("How much did we save by choosing Saanich Roofing over Cedar Ridge?", notes) is None


def test_my_half_of_an_amount_a_note_says_is_split_and_amounts_said_without_a_sign() -> None:
    notes = _notes("so i share a 2 bedroom flat with my padi Halima", "rent is 850k a year and we split it half half")
    worked = worked_out("How much rent do I pay a year for my half?", notes)
    assert worked and worked.sentence == "That's 425,000: half of 850,000."
    assert worked_out("How much rent do I pay a year for my half?", _notes("rent is 850k a year")) is None
    # amounts written with the currency after them, and one corrected away, are read as people mean them
    from capabilities.arithmetic import _amounts, _corrected

    said = "The rent is 1,240 € a month (we pay 1,080 euro now), 10,000 steps a day, since 2019"
    assert [m["num"] for m in _amounts(said)] == ["1,240", "1,080"]
    fixed = _notes("the rent in Monplaisir is 1,260 €, not 1,240 €")
    assert [m["num"] for m in _amounts(fixed[0].text)] == ["1,260"] and _corrected(1240.0, fixed) == 1260.0


def test_a_length_the_notes_say_it_is_going_to_be_does_not_stop_the_count() -> None:
    from datetime import date

    from capabilities.arithmetic import time_since

    married = [Note("m1", "We are married since 12 June 1987, so next summer it is 40 years.")]
    assert time_since("how long have me and Anneke been married", married, date(2026, 11, 28)) == (
        "That is 39 years (since 12 June 1987).")
    said = [Note("m1", "We are married since 12 June 1987, 39 years now.")]
    assert time_since("how long have me and Anneke been married", said, date(2026, 11, 28)) == ""
    farm = [Note("m1", "my father started on this farm in 1958, I took it over in 1991"),
            Note("m2", "My wife is Anneke. We are married since 12 June 1987, next summer it is 40.")]  # fmt: skip
    # (not the wedding's year; and of the farm's two years, the one of the clause that says "I took": twenty-fifth
    # session — the father's 1958 is said of "my father started")
    assert time_since("How many years is it since I took the farm over?", farm, date(2026, 11, 28)) == (
        "That is about 35 years (since 1991).")
    assert time_since("How many years is it since the farm was started?", farm, date(2026, 11, 28)) == ""


# --- twenty-third session, temporal ---


def test_the_year_i_was_born_said_as_the_year_after_another() -> None:
    said = _notes("rang mama tonight, she came over from Poland in 1981 and I was born the year after at the old "
                  "Dudley Road hospital", "her birthday's 12 January and we are doing a party")  # fmt: skip
    worked = worked_out("What year was I born?", said)
    assert worked is not None and "1982" in worked.sentence and worked.notes == (said[0],)
    before = _notes("we moved to Leeds in 1990 and I was born the year before")
    earlier = worked_out("what year was I born", before)
    assert earlier is not None and "1989" in earlier.sentence
    assert worked_out("What year was Desmond born?", said) is None  # (only mine, said so)
    assert worked_out("What year was I born?", _notes("she came over from Poland in 1981")) is None


def test_the_days_from_one_day_to_another_the_notes_say() -> None:
    said = _notes("im writing IELTS on 12 september", "oh and british council moved my IELTS to 10 october",
                  "we've been dating since 2021, we met at a friends birthday in Nsukka",
                  "Somto proposed!!!! saturday 31st october, in front of my family in Nsukka")  # fmt: skip
    worked = worked_out("How many days after my IELTS exam did Somto propose?", said)
    assert worked is not None and worked.sentence.startswith("21 days")
    assert worked_out("How many days after my driving test did Somto propose?", said) is None  # never told
