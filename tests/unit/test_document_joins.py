"""The sentences graph context shows as evidence (memory/documents/joins.py), on lines of the novel."""

from __future__ import annotations

from memory.documents.joins import joining_sentence

TEXT = (
    "It turns out that the schooner is a Russian from Varna, and is called the _Demeter_. "
    "She is almost entirely in ballast of silver sand. The _Demeter_ came into Whitby in the storm. "
    "Of one thing I am now satisfied: that all the boxes which arrived at Whitby from Varna in the "
    "_Demeter_ were safely deposited in the old chapel at Carfax."
)


def test_joining_sentence_names_both_ends_and_fits_the_question() -> None:
    join = joining_sentence(TEXT, ["Demeter"], ["Varna"], ["port", "sail", "from"])
    assert join is not None and join.sentence.startswith("It turns out")  # "from" is asked and said there
    boxes = joining_sentence(TEXT, ["Demeter"], ["Varna"], ["boxes", "deposited"])
    assert boxes is not None and "chapel at Carfax" in boxes.sentence and boxes.fit == 1.0
    assert joining_sentence(TEXT, ["Demeter"], ["London"], ["port"]) is None  # never in one sentence


def test_joining_sentence_reads_emphasis_as_plain_words_and_cuts_long_sentences() -> None:
    whitby = joining_sentence(TEXT, ["Whitby"], ["Demeter"], ["storm"])
    assert whitby is not None and whitby.sentence == "The Demeter came into Whitby in the storm."
    long = "Lucy " + "and then the wind rose again over the sea " * 4 + "until Mina came home " + "and slept " * 30
    join = joining_sentence(long, ["Lucy"], ["Mina"], [])
    assert join is not None and len(join.sentence) <= 241 and join.sentence.endswith("…")
    assert "Lucy" in join.sentence and "Mina" in join.sentence
