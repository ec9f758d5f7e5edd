"""The model-free context request: different situations get different, in-range requests; it learns."""

from __future__ import annotations

from capabilities.request_policy import LEARN_MIN_MISSES, learn, plan_request
from capabilities.resources import Dimension, Limits, clamp
from capabilities.situation import read

LIMITS = Limits.from_values()


def test_plan_request_thanks_and_hobbies_differ() -> None:
    thanks = plan_request("thanks!", [], LIMITS)
    hobbies = plan_request("What are my hobbies?", [], LIMITS)
    assert thanks.vector_limit == 0 and thanks.triple_depth == 0
    assert hobbies.vector_limit == LIMITS[Dimension.VECTOR_LIMIT].max
    assert hobbies.similarity_threshold is not None and hobbies.similarity_threshold < 0.7


def test_plan_request_seed_situations() -> None:
    long_thread = ["step 1 failed", "try restarting", "still failing", "check the logs"] * 3
    deep = plan_request("and what about step 3?", long_thread, LIMITS)
    relational = plan_request("How is Ana connected to Porto?", [], LIMITS)
    assert deep.context_turns == LIMITS[Dimension.CONTEXT_TURNS].max and (deep.vector_limit or 0) <= 3
    assert (relational.triple_depth or 0) >= 2


def test_plan_request_is_never_clamped() -> None:
    narrow = Limits.from_values(
        max_vector_search_limit=4, default_vector_search_limit=3, min_similarity_threshold=0.65, max_triple_depth=1
    )
    for message in ("thanks!", "What are my hobbies?", "How is Ana connected to Porto?", "and then?"):
        provision = clamp(plan_request(message, ["earlier"], narrow), narrow)
        assert not provision.clamped and not provision.defaulted, message


def test_plan_request_learns_from_followup_signals() -> None:
    rows = [("policy:personal — x", "explicit_reference")] * LEARN_MIN_MISSES + [("policy:personal — x", None)]
    learned = learn(rows)
    before = plan_request("Where does my sister live?", [], LIMITS)
    after = plan_request("Where does my sister live?", [], LIMITS, learned)
    assert (after.vector_limit or 0) > (before.vector_limit or 0)
    assert "learned" in after.reason and "learned" not in before.reason


def test_plan_request_ignores_reasons_it_did_not_write() -> None:
    assert learn([("a few words on why", "explicit_reference")] * 5) == {}


def test_situation_reads_kinds() -> None:
    assert read("thanks!").kind == "ack"
    assert read("What's my cat's name?").kind == "personal"
    assert read("My sister just moved to Porto.").kind == "statement"
    assert read("How do I boil an egg?").kind == "general"
    assert read("summarise our conversation so far", ["a", "b"]).kind == "summary"
    assert read("What is my sister's dog called?").heads == ("sister", "dog")
