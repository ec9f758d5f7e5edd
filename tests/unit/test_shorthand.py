"""Chat shorthand spelled out before any policy reads a message or a note."""

from __future__ import annotations

from capabilities.shorthand import spelled_out
from capabilities.situation import read


def test_shorthand_is_spelled_out_as_whole_tokens_only() -> None:
    assert spelled_out("dad = Declan, drove buses for 30 yrs") == "dad is Declan, drove buses for 30 years"
    assert spelled_out("live in heaton w/ my flatmate Becca") == "live in heaton with my flatmate Becca"
    assert spelled_out("aoife n ross sold up, bc glasgow") == "aoife and ross sold up, because glasgow"
    assert spelled_out("Bf's Kieran") == "Boyfriend's Kieran"  # its capital kept
    assert spelled_out("mam's 60th") == "mum's 60th"
    # not inside words, names, acronyms or symbols
    for kept in ("she is an RN at the Royal", "U2 at the O2", "n/a", "C++ and 45+", "Hanley & Sons", "brown"):
        assert spelled_out(kept) == kept


def test_a_question_in_shorthand_reads_as_in_words() -> None:
    assert "boyfriend" in read("where does my bf work?").text
    assert read("what does my mam do?").heads == read("what does my mum do?").heads


def test_contractions_typed_without_their_apostrophe_are_read_as_such() -> None:
    assert spelled_out("(hes a nurse) im jess, dont worry") == "(he's a nurse) I'm jess, don't worry"
    for word in ("its fine", "we were fine", "I feel ill", "well done"):  # words in their own right stay
        assert spelled_out(word) == word


def test_mine_is_the_thing_last_said_as_someone_s() -> None:
    said = spelled_out("Oh and Finn's birthday is 19 January, just gone. Mine's 11 May and Mereana's is 3 August")
    assert "My birthday is 11 May" in said
    assert spelled_out("It's mine, not yours.") == "It's mine, not yours."


def test_are_typed_as_r_is_read_as_the_word() -> None:
    assert spelled_out("what r u doing, r the kids up") == "what are you doing, are the kids up"
    for kept in ("the letter R", "R2-D2", "r&b"):
        assert spelled_out(kept) == kept


def test_a_possessive_typed_without_its_apostrophe_is_read_as_one() -> None:
    assert spelled_out("whats my wifes name again") == "what's my wife's name again"
    assert spelled_out("when is my mums birthday") == "when is my mum's birthday"
    assert spelled_out("our neighbours dog barks") == "our neighbour's dog barks"
    # a plural before a verb, "and" or a preposition stays a plural
    for kept in ("my sisters live in Leeds", "my sons play rugby", "my brothers and I", "my friends from uni"):
        assert spelled_out(kept) == kept
    assert read("whats my wifes name").heads == read("what's my wife's name").heads
