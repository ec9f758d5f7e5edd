"""The labelled context situations (bench/context_situations.json) and the shipped policy against them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from capabilities.resources import Dimension, Limits

SITUATIONS = Path(__file__).parents[2] / "bench" / "context_situations.json"
SEED = Limits.from_values()
# The policy must land inside the accepted range on at least this share of dimension decisions.
POLICY_MIN_SHARE = 0.85


def _situations() -> list[dict[str, Any]]:
    return json.loads(SITUATIONS.read_text(encoding="utf-8"))["situations"]


def test_context_situations_are_well_formed() -> None:
    situations = _situations()
    assert len(situations) >= 80
    ids = [s["id"] for s in situations]
    assert len(set(ids)) == len(ids)
    for s in situations:
        assert isinstance(s["kind"], str) and s["kind"], s["id"]
        assert isinstance(s["message"], str) and s["message"].strip(), s["id"]
        assert isinstance(s["history"], list), s["id"]
        assert all(isinstance(h, str) for h in s["history"]), s["id"]
        assert set(s["accept"]) == {d.name for d in Dimension}, s["id"]
        for dim in Dimension:
            lo, hi = s["accept"][dim.name]
            rng = SEED[dim]
            assert rng.min <= lo <= hi <= rng.max, f"{s['id']} {dim.name} [{lo}, {hi}]"


def test_request_policy_lands_in_the_accepted_ranges() -> None:
    policy = pytest.importorskip("capabilities.request_policy")
    decisions = hits = 0
    misses: list[str] = []
    for s in _situations():
        request = policy.plan_request(s["message"], s["history"], SEED)
        for dim in Dimension:
            requested = request.value(dim)
            value = SEED[dim].default if requested is None else requested
            lo, hi = s["accept"][dim.name]
            decisions += 1
            if lo - 1e-9 <= value <= hi + 1e-9:
                hits += 1
            else:
                misses.append(f"{s['id']} {dim.name}={value} not in [{lo}, {hi}]")
    assert hits / decisions >= POLICY_MIN_SHARE, f"{hits}/{decisions} in range; misses: {misses}"


def test_a_sentences_first_word_in_ing_or_ly_is_no_name() -> None:
    from capabilities.situation import names_in

    said = "I got the letter. Reading it made me queasy. Finally Maeve came home. Started in May."
    assert names_in(said) == ["Maeve"]
    assert names_in("After nine years I'm now an instructor at NSCC, the Nova Scotia Community College.") == [
        "NSCC", "Nova Scotia Community College"]  # fmt: skip


def test_the_persons_name_is_read_from_a_formed_fact_too() -> None:
    from capabilities.situation import introduced

    assert introduced("The user is Ana Sousa and the user lives in Porto.") == "Ana"
    assert introduced("The user is British.") == "" and introduced("hey, tom here. 34, living in leeds") == "Tom"


def test_a_question_typed_without_a_question_mark_is_still_a_question() -> None:
    """"by how much did our rate go down" and "after selling the wagon r what did the new car cost us" were
    kept as remarks ("Got it — …"); a statement that only contains "what was" stays one."""
    from capabilities.situation import read

    for asked in ("by how much did our mortgage rate go down", "after selling the wagon r what did the new car "
                  "actually cost us", "ok so where is the party now", "in which year did we move"):  # fmt: skip
        assert read(asked).question, asked
    for said in ("I told him what was happening", "so we moved, what a week"):
        assert not read(said).question, said
