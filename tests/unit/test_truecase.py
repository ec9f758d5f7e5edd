"""Names in text typed all in lower case, learned from where they are certain."""

from __future__ import annotations

from datetime import datetime, timedelta

from capabilities.evidence import Note, choose
from capabilities.situation import read
from capabilities.truecase import capitalised, learned_names, uncased

T0 = datetime(2026, 11, 1)
TOLD = [
    "my older sister tash is married to dev, they've got two kids",
    "partner's marco, he drives trams. my mate said i should use this lol",
    "ziggy's my greyhound btw, adopted him from a rescue",
    "oh and i play bass in a band called the loose units. fitz is on drums",
    "AND marco and i found a place. 2 bed in coburg, we get the keys in june. gp's put me on symbicort",
    "fitz's cousin renee works at the venue, she's in bed with flu so not at work",
]


def test_only_text_without_capitals_is_uncased() -> None:
    assert all(uncased(t) for t in TOLD)
    assert uncased("The user is kirra, 31.")  # a sentence's first word says nothing
    assert not uncased("My sister Tash is married to Dev.")


def test_names_are_learned_from_their_slots_and_cased_text() -> None:
    names = learned_names(["Who is Jonno's partner?"], TOLD)
    assert {"tash", "dev", "marco", "ziggy", "loose units", "fitz", "renee", "coburg", "jonno"} <= names
    assert not names & {"said", "btw", "put", "bed", "work", "rescue", "the", "mate"}
    more = learned_names([], ["little brother callum lives in perth", "i'm seeing ben at northside now",
                              "older sister said hi", "seeing things lol"])  # fmt: skip
    assert {"callum", "ben"} <= more and not more & {"said", "things", "sister"}
    meds = learned_names([], ["gp's put me on flixotide", "the gp switched me to symbicort", "put me on hold lol"])
    assert meds == {"flixotide", "symbicort"}
    # a role's compound is no name: "your dentist Appointment is on tuesday"
    things = learned_names([], ["my dentist appointment is on tuesday", "the vet bill was 80", "my dentist is raj"])
    assert things == {"raj"}
    born = learned_names([], ["my sister ruth just had a baby boy, they called him oscar"])
    assert born == {"ruth", "oscar"}


def test_a_lower_case_note_says_the_names_capitalised() -> None:
    names = learned_names([], TOLD)
    assert capitalised(TOLD[0], names) == "my older sister Tash is married to Dev, they've got two kids"
    assert capitalised("i think so", names) == "I think so"


def test_choose_finds_names_in_lower_case_notes() -> None:
    notes = [Note(f"m{i}", t, T0 + timedelta(minutes=i), 0.7) for i, t in enumerate(TOLD)]

    def answer(question: str) -> list[str]:
        evidence = choose(read(question), notes)
        return [n.text for n in evidence.notes] if evidence.verdict == "answer" else []

    assert "Ziggy's my greyhound btw, adopted him from a rescue" in answer("What's my dog called?")
    assert any("Fitz is on drums" in t for t in answer("Who's our drummer?"))
    assert any("a band called the Loose Units" in t for t in answer("What's the name of my band?"))
    cased = [Note("m9", "My sister Ana lives in Lisbon.", T0, 0.7)]
    assert choose(read("Where does my sister live?"), cased).notes == tuple(cased)  # cased text: as typed


def test_a_name_after_a_described_pet_is_learned() -> None:
    assert "noodle" in learned_names([], ["we're in a tiny 1bed w my leopard gecko noodle. so its me n noodle lol"])


def test_more_slots_a_name_is_said_in() -> None:
    names = learned_names([], [
        "also i have a cat, bovril, ginger, 6",  # a pet, then its name
        "the consultant is dr sandhu, and fraser's teacher is ms kaur",  # a title before a name
        "me and ruaridh are off to arran. gary and i split in 2021",  # me and X, X and I
        "eilidh's maths teacher is lovely",  # X's, a word, then who they are to X
        "im a nurse and i didnt catch it",  # not "a nurse and i"
    ])  # fmt: skip
    assert {"bovril", "sandhu", "kaur", "ruaridh", "gary", "eilidh"} <= names
    assert "nurse" not in names


def test_a_name_after_its_typed_for_it_is_or_a_that_stays_a_name() -> None:
    # (twenty-fifth session) a word after an article is a common noun ("her lunch club"), but chat types
    # "it's" as "its" and says "that" before a name: neither unnames the one after it
    told = ["its kwame's 40th today!!", "kwame and i are off to accra in may", "told her that kwame booked it",
            "her lunch club meets on fridays", "mum's lunch club is back on"]  # fmt: skip
    names = learned_names([], told)
    assert "kwame" in names and "lunch" not in names
