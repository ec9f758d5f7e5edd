"""The personal-memory benchmark's scorer, and its dev persona is well formed."""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from pathlib import Path

import pytest

from bench.personal_memory import (
    TYPES,
    ChatProcess,
    contains_answer,
    has_loop,
    invented_words,
    is_right,
    leakage,
    load_persona,
    markdown,
    normalise,
    percentile,
    says_unknown,
    summarise,
)

PERSONA = Path(__file__).parents[2] / "bench" / "personas" / "dev.json"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("  Škoda\u00a0Fabia ", "skoda fabia"),
        ("SCHLEUßIG", "schleussig"),
        ("José  Ramón\n\tÁlvarez", "jose ramon alvarez"),
        ("don’t", "don't"),
    ],
)
def test_normalise_folds_case_accents_and_space(text: str, expected: str) -> None:
    assert normalise(text) == expected


def test_contains_answer_ignores_case_and_accents() -> None:
    assert contains_answer("You drive a blue ŠKODA Fabia.", ["Skoda"])
    assert contains_answer("Your sister lives in  porto now.", ["Lisboa", "Porto"])
    assert contains_answer("You started in march   2024.", ["March 2024", "2024-03"])


def test_contains_answer_matches_whole_words_with_plurals() -> None:
    assert contains_answer("You're allergic to walnuts.", ["walnut"])
    assert contains_answer("On Wednesdays.", ["Wednesday"])
    assert contains_answer("Rex's vet is Dr. Brandt.", ["Rex"])
    assert not contains_answer("Miso is 15.", ["5"])
    assert contains_answer("Bao is 20.5kg now.", ["20.5"])  # a unit written onto the number
    assert contains_answer("It's 5mg in the morning.", ["5"])
    assert not contains_answer("Miso is 15kg.", ["5"])
    assert not contains_answer("Still 2.5 mg.", ["5 mg"]) and not contains_answer("4,840 all in", ["840"])
    assert not contains_answer("Rexford", ["Rex"])
    assert not contains_answer("anything", [])


def test_says_unknown_recognises_phrasings() -> None:
    assert says_unknown("I don’t know your brother's name.")
    assert says_unknown("You haven't told me about a brother.")
    assert says_unknown("I have no record of that.")
    assert not says_unknown("Your brother is called Tom.")


@pytest.mark.parametrize(
    ("reply", "invented"),
    [
        ("I don't know your brother's name.", []),
        ("Sorry, you haven't told me your brother's name.", []),
        ("I don't know. Your sister is Ana, though.", ["Ana"]),
        ("You never told me; maybe Tom?", ["Tom"]),
        ("I have no record of a trip in 2021.", ["2021"]),
        ("I don't know what Jonas played in 2022.", []),
    ],
)
def test_invented_words_are_names_not_in_the_question(reply: str, invented: list[str]) -> None:
    question = "What's my brother's name?" if "brother" in reply else "What did Jonas play in 2022?"
    assert invented_words(question, reply) == invented


def test_is_right_abstain_needs_unknown_and_nothing_invented() -> None:
    question = "What's my dog called?"
    assert is_right("abstain", question, [], "I don't know, you never told me about a dog.")
    assert not is_right("abstain", question, [], "Your dog is called Rex.")
    assert not is_right("abstain", question, [], "I don't know, but your sister's dog is Rex.")
    assert not is_right("abstain", question, [], "Your dog?")


def test_is_right_answer_types_need_an_expected_string() -> None:
    assert is_right("update", "Where does my sister live?", ["Porto"], "She lives in Porto.")
    assert not is_right("update", "Where does my sister live?", ["Porto"], "She lives in Lisbon.")


def test_leakage_finds_prompt_markers() -> None:
    assert leakage('Question: what is it? Notes: {"kind": "fact"}') == ["Question:", "Notes:", '"kind"']
    assert leakage("<recalled_context>Ana</recalled_context>") == ["<recalled_context"]
    assert leakage("Your sister lives in Porto; my notes say so.") == []


def test_has_loop_needs_a_four_word_sequence_three_times() -> None:
    assert has_loop("your cat is Miso. Your cat is Miso! your cat is Miso")
    assert not has_loop("your cat is Miso. Your cat is Miso.")
    assert not has_loop("Miso Miso Miso")


def test_percentile_nearest_rank() -> None:
    assert percentile([], 50) is None
    assert percentile([3.0, 1.0, 2.0], 50) == 2.0
    assert percentile([float(x) for x in range(1, 101)], 95) == 95.0
    assert percentile([7.0], 95) == 7.0


def test_dev_persona_is_well_formed() -> None:
    persona = load_persona(PERSONA)
    assert len(persona.threads) >= 8
    assert all(3 <= len(thread) <= 8 and all(m.strip() for m in thread) for thread in persona.threads)
    assert persona.document is not None and persona.document.is_file()
    questions = persona.questions
    assert len(questions) >= 60
    assert len({q["id"] for q in questions}) == len(questions)
    counts = Counter(q["type"] for q in questions)
    assert set(counts) == set(TYPES)
    assert all(counts[kind] >= 12 for kind in TYPES)
    for q in questions:
        assert q["question"].strip()
        if q["type"] != "abstain":
            assert q["expect"] and all(e.strip() for e in q["expect"]), q["id"]


def test_dev_persona_answers_were_told() -> None:
    """Every answer appears in what the person said or in the document: the key has no typos."""
    persona = load_persona(PERSONA)
    assert persona.document is not None
    told = " ".join(m for thread in persona.threads for m in thread) + persona.document.read_text(encoding="utf-8")
    for q in persona.questions:
        if q["type"] not in ("abstain", "temporal"):
            assert contains_answer(told, q["expect"]), q["id"]
    assert json.loads(PERSONA.read_text(encoding="utf-8"))["name"] == persona.name


def test_chat_process_reads_one_json_reply_per_line(tmp_path: Path) -> None:
    """The driver skips non-JSON output, prints nothing for /new, and sees the process end."""
    echo = (
        "import json, sys\n"
        "print('warming up', flush=True)\n"
        "for line in sys.stdin:\n"
        "    if line.strip() != '/new':\n"
        "        print(json.dumps({'reply': line.strip().upper()}), flush=True)\n"
    )
    with (tmp_path / "log").open("w") as log:
        chat = ChatProcess([sys.executable, "-c", echo], dict(os.environ), tmp_path, log)
        try:
            chat.say("/new")
            chat.say("hello")
            assert chat.reply() == {"reply": "HELLO"}
            assert chat.close() == 0
            assert chat.reply() is None
        finally:
            chat.kill()


def test_contains_answer_takes_a_time_with_am_or_pm() -> None:
    assert contains_answer("Report time 7:15am, exam starts 8.", ["7:15"])
    assert not contains_answer("Report time 7:150.", ["7:15"])


def test_summary_reports_how_often_each_confidence_was_right() -> None:
    def result(right: bool, confidence: str) -> dict[str, object]:
        return {"type": "single", "right": right, "confidence": confidence, "reply": "x", "error": "",
                "answered_by": "policy", "timings_ms": {}}  # fmt: skip

    results = [result(True, "high"), result(False, "high"), result(True, "medium"), result(True, "low")]
    summary = summarise(results, [])
    assert summary["by_confidence"] == {"high": (1, 2), "medium": (1, 1), "low": (1, 1)}
    assert "1/2 (50%) / 1/1 (100%) / 1/1 (100%)" in markdown({"policy": summary})
