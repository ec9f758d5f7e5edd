"""The LoCoMo replay's miss accounting (bench/locomo_replay.py): where a missed evidence turn sat in
the ranking, and how many loaded turns sit next to another loaded one. No benchmark data."""

from __future__ import annotations

from bench.locomo_replay import adjacent, position


def test_a_missed_turn_is_placed_by_its_rank_or_as_absent() -> None:
    ranking = [f"D1:{i}" for i in range(1, 31)]
    assert position(ranking, "D1:3") == "1-10"
    assert position(ranking, "D1:11") == "11-25"
    assert position(ranking, "D1:26") == "26-100"
    assert position(ranking, "D9:1") == "absent"


def test_adjacent_counts_turns_next_to_another_loaded_turn_of_the_same_session() -> None:
    # (1, 4) and (1, 5) are neighbours; (2, 5) is the same index in another session; (1, 9) is alone.
    assert adjacent([(1, 4), (1, 5), (2, 5), (1, 9)]) == 2
    assert adjacent([(1, 1), (1, 2), (1, 3)]) == 3
    assert adjacent([]) == 0
