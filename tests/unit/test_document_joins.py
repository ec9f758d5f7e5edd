"""The sentences graph context shows as evidence (memory/documents/joins.py), on lines of the novel."""

from __future__ import annotations

from memory.documents.joins import asked_sentences, evidence_sentences, joining_sentence, runs_on

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


def test_evidence_sentences_hold_the_asked_words_beside_a_name_not_asked() -> None:
    """Issue 14: the sentence of a further chunk that answers with a name no core entity holds."""
    text = (
        "The keeper said the wolf had been restless all day. "
        "Mr. Bilder looked after the wolf they called Bersicker at the Zoological Gardens. "
        "Nobody at the Zoological Gardens looked after the wolf that night."
    )
    asked = ["looks", "after", "wolf", "zoological", "gardens"]
    found = evidence_sentences(text, asked)
    assert found[0].sentence.startswith("Mr. Bilder looked after the wolf they called Bersicker")
    assert all("Nobody" not in j.sentence for j in found)  # no name beyond the question's own words
    assert evidence_sentences(text, ["spiders", "flies"]) == []  # the asked words are not there
    assert evidence_sentences("So Bersicker ran.", ["wolf"]) == []  # one word, not the one asked


def test_evidence_sentences_read_a_nameless_answer_beside_its_neighbour() -> None:
    """Eighteenth session: the sentence holding the asked words speaks of a place its neighbour
    names ("these places"); the names of what the question names ("the Count" for "Dracula") are
    not an answer."""
    text = (
        "He gave me the destinations of the boxes. There were six in the cartload which he left at "
        "Jamaica Lane, Bermondsey. If then the Count meant to scatter these ghastly refuges over "
        "London, these places were chosen as the first of delivery."
    )
    asked = ["dracula", "boxes", "earth", "delivered", "london"]
    (found,) = evidence_sentences(text, asked, known=["Count Dracula", "Dracula", "Count"])
    assert "Bermondsey. If then the Count" in found.sentence
    assert found.fit == 0.4  # the answering sentence's own words: "London", "delivery"
    (alone,) = evidence_sentences(text, asked)  # without the named entity's forms, "Count" passed for an answer
    assert "Bermondsey" not in alone.sentence
    assert evidence_sentences(text, ["boxes", "cartload"], known=["Count"]) == []  # "boxes" alone: no borrowing


def test_evidence_sentences_read_a_nameless_answer_under_its_heading() -> None:
    """Eighteenth session: a letter's heading says where its writer is; the sentence under it
    does not, and is shown with it rather than with a neighbour naming someone else."""
    text = (
        "I must write no more.\n\n\n_Letter, Sister Agatha, Hospital of St. Joseph and Ste. Mary,\n"
        'Buda-Pesth, to Miss Wilhelmina Murray._\n\n"Dear Madam,--\n\n"I write by desire of Mr. Jonathan '
        "Harker. He has been under our care for nearly six weeks, suffering from a violent brain fever. He "
        "wishes me to write for him to Mr. Peter Hawkins, Exeter."
    )
    (found,) = evidence_sentences(text, ["jonathan", "recover", "brain", "fever"], known=["Jonathan Harker"])
    assert found.sentence == (
        "Letter, Sister Agatha, Hospital of St. Joseph and Ste. Mary, Buda-Pesth, to Miss Wilhelmina Murray. "
        "He has been under our care for nearly six weeks, suffering from a violent brain fever."
    )
    spoken = text.replace("_Letter", '"Letter')  # quoted speech is no heading: the neighbour names instead
    (found,) = evidence_sentences(spoken, ["jonathan", "recover", "brain", "fever"], known=["Jonathan Harker"])
    assert "Peter Hawkins" in found.sentence and "Buda-Pesth" not in found.sentence


def test_evidence_sentences_read_a_nameless_answer_beside_the_nearest_naming_sentence() -> None:
    """Nineteenth session: a paragraph names what it speaks of once, then says "a road"; the
    sentence holding the asked words is read with the nearest sentence of its paragraph that names
    something, two sentences up, the one between left out and marked; never farther than `REACH`."""
    text = (
        "I looked at the map: the road most fit for the carts is either the Northway or the Eastmere. "
        "I read my notes again by the lamp. The chest, then, went along a road in an open cart. "
        "There would be no such sound on the hills."
    )
    asked = ["road", "chest", "follow"]
    (found,) = evidence_sentences(text, asked)
    assert found.sentence == (
        "I looked at the map: the road most fit for the carts is either the Northway or the Eastmere. … "
        "The chest, then, went along a road in an open cart."
    )
    assert found.fit == 2 / 3  # the asked sentence's own words; the naming one holds only "road"
    assert evidence_sentences(text, asked, reach=1) == []  # the next or previous sentence only: no name
    farther = text.replace("the lamp. ", "the lamp. The wind rose. ")  # three sentences up: too far
    assert evidence_sentences(farther, asked) == []


def test_evidence_sentences_do_not_repeat_what_an_overlapping_chunk_showed() -> None:
    """Chunks overlap: the sentence a better-ranked chunk's excerpt showed is not shown again,
    whole or cut at the chunk's edge."""
    first = "It is only about 24 hours' sail from the Dardanelles to here, at the rate the Czarina has come."
    asked = ["port", "czarina", "sail"]
    (shown,) = evidence_sentences(first, asked)
    assert evidence_sentences(first, asked, shown=[shown.sentence]) == []
    cut = "hours' sail from the Dardanelles to here, at the rate the Czarina has come. She is late."
    assert evidence_sentences(cut, asked, shown=[shown.sentence]) == []


def test_asked_sentences_are_what_a_chunk_packed_short_shows() -> None:
    """Fifteenth session: the sentence holding most of the asked words, not the chunk's first
    characters (which hold none of them)."""
    text = (
        "It was a grey day and the rain went on. The keeper drank his tea. "
        "We had been up all night a-huntin' the Park for Bersicker, the wolf that got out. "
        "The wolf at the Zoological Gardens was a grey one from Norway. Nobody came."
    )
    assert asked_sentences(text, ["wolf", "zoological", "gardens"]) == [
        "The wolf at the Zoological Gardens was a grey one from Norway."
    ]
    assert asked_sentences(text, ["wolf", "zoological", "gardens"], n=2) == [  # in the text's order
        "We had been up all night a-huntin' the Park for Bersicker, the wolf that got out.",
        "The wolf at the Zoological Gardens was a grey one from Norway.",
    ]
    assert asked_sentences(text, ["spiders"]) == []
    long = "And so " * 60 + "the wolf Bersicker ran into the Park " + "and on " * 40 + "."
    (cut,) = asked_sentences(long, ["wolf"])
    assert "wolf Bersicker" in cut and len(cut) <= 162  # a window at the asked word


def test_an_irregular_past_is_held_by_its_base() -> None:
    """Twentieth session: "wrote" is asked, "write" is said; the five-letter stem ("wrote", "write")
    did not join them, a closed list of English irregular verbs does (`memory.tokens.IRREGULAR`)."""
    text = "The mayor came at noon. Anna Berg will write to the mayor tonight."
    assert asked_sentences(text, ["wrote", "mayor"]) == ["Anna Berg will write to the mayor tonight."]
    (found,) = evidence_sentences(text, ["wrote", "mayor"])
    assert found.sentence == "Anna Berg will write to the mayor tonight." and found.fit == 1.0
    assert asked_sentences("She spoke to the mayor. The mayor came.", ["speak", "mayor"]) == [
        "She spoke to the mayor."
    ]


def test_evidence_sentences_read_a_writers_sentence_under_the_heading() -> None:
    """Twentieth session: a sentence its writer says ("I write …") names someone else, yet the
    heading above it says who "I" is: it is read under the heading, whatever it names."""
    text = (
        "_Letter, Anna Berg, Hotel Sonne, Basel, to Miss Clara Voss._\n\n\"Dear Madam,--\n\n"
        "\"I write at the wish of Mr. Paul Weber, who is ill at Lyon and cannot hold a pen. The doctor "
        "calls every morning."
    )
    asked = ["wrote", "clara", "voss", "paul", "weber", "illness"]
    (found,) = evidence_sentences(text, asked, known=["Clara Voss", "Paul Weber"])  # the heading is not shown twice
    assert found.sentence == (
        'Letter, Anna Berg, Hotel Sonne, Basel, to Miss Clara Voss. "I write at the wish of Mr. Paul Weber, who is '
        "ill at Lyon and cannot hold a pen."
    )
    alone = evidence_sentences(text, asked, known=["Clara Voss", "Paul Weber"], writer=False)[0].sentence
    assert alone.startswith('"I write at the wish') and "Anna Berg" not in alone
    said = text.replace("I write at the wish of", "Mother writes at the wish of")  # not the writer's own words
    (other,) = evidence_sentences(said, ["writes", "paul", "illness"], known=["Paul Weber"])
    assert "Anna Berg" not in other.sentence


def test_a_passage_runs_on_past_a_chunk_whose_last_paragraph_holds_the_asked_words() -> None:
    """Twentieth session: the next chunk is read too when the read one ends in a paragraph holding
    two of the question's words: what it speaks of continues there."""
    asked = ["wrote", "clara", "paul", "illness"]
    assert runs_on("The rain went on.\n\nAt last, news of Paul: he has been ill. A nurse wrote", asked)
    assert not runs_on("Paul wrote twice.\n\nThe rain went on all day, and the paths were empty.", asked)
    assert not runs_on("At last, news of Paul.", [])
