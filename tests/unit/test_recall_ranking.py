"""Pure ranking logic of memory/recall/hybrid.py: calibration, FTS query building, fusion, packing."""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from memory.models import MemoryRow
from memory.recall.conversation import (
    ConversationLookups,
    holds_less,
    named_speakers,
    rerank,
    speaker_lift,
    speaker_weight,
    with_neighbours,
    with_session_support,
    with_speaker_prior,
    without_names,
)
from memory.recall.hybrid import (
    MemoryHit,
    affordable,
    fts_terms,
    fuse,
    pack,
    relevance,
)
from memory.tokens import query_terms


def _hit(mid: int, content: str, rel: float) -> MemoryHit:
    row = MemoryRow.model_validate(
        {
            "id": mid,
            "user_id": 1,
            "kind": "fact",
            "content": content,
            "created_at": datetime(2024, 1, 1, tzinfo=UTC),
            "content_hash": "-",
        }
    )
    return MemoryHit(row, rel, 0.5, 0.0)


def test_relevance_is_monotonic_and_bounded() -> None:
    assert 0.0 < relevance(-1.0, 0.0) < relevance(0.3, 0.0) < relevance(0.6, 0.0) < relevance(1.0, 0.0) < 1.0
    assert relevance(0.3, 5.0) > relevance(0.3, 0.0)
    assert relevance(0.3, -2.0) == relevance(0.3, 0.0)


def test_relevance_unrelated_text_stays_below_range() -> None:
    # MiniLM gives unrelated sentences a cosine of about 0.0-0.15.
    assert relevance(0.1, 0.0) < 0.5


def test_query_terms_drop_stopwords_and_duplicates() -> None:
    assert query_terms("What did Caroline do, and what did CAROLINE see?") == ["caroline", "see"]


def test_affordable_keeps_the_rarest_terms_within_the_postings_budget() -> None:
    postings = {"remember": 25_000, "ana": 5_000, "marasx": 200, "cello": 4_000, "zebra": 0}
    assert affordable(postings, budget=5_000) == ["marasx", "cello"]  # query order, rarest first in
    assert affordable(postings, budget=100_000) == ["remember", "ana", "marasx", "cello"]
    assert affordable({"the": 90_000, "and": 80_000}, budget=5_000) == ["and"]  # the rarest always
    assert affordable({"zebra": 0}, budget=5_000) == []


def test_fts_terms_quote_terms_against_injection() -> None:
    assert fts_terms(query_terms('NEAR(a b) OR content:"x" *')) == '"near" OR "content"'
    assert fts_terms(query_terms("what is it?")) is None


def test_fuse_ranks_by_relevance_and_keeps_union() -> None:
    fused = fuse({1: 0.2, 2: 0.6}, {1: 8.0, 3: 1.0})
    assert {f[0] for f in fused} == {1, 2, 3}
    assert [f[1] for f in fused] == sorted((f[1] for f in fused), reverse=True)
    assert next(f for f in fused if f[0] == 3)[2] == 0.0


def test_pack_respects_budget_and_skips_oversized() -> None:
    hits = [_hit(1, "a" * 40, 0.9), _hit(2, "b" * 400, 0.8), _hit(3, "c" * 40, 0.7)]
    assert [h.memory.id for h in pack(hits, 25)] == [1, 3]
    assert pack(hits, 0) == []
    assert pack(["xx", "yyyy"], 100, cost=len) == ["xx", "yyyy"]


def test_with_neighbours_inherits_decayed_score() -> None:
    spread = with_neighbours([(10, 0.9), (20, 0.5)], {10: [9, 11], 20: [21]}, penalty=math.log(9))
    assert spread[0] == (10, 0.9)
    assert dict(spread)[11] == pytest.approx(0.5) and dict(spread)[21] == pytest.approx(0.1)
    assert [m for m, _ in spread][:3] == [10, 9, 11]


def test_session_support_lifts_a_turn_whose_thread_matches_elsewhere_too() -> None:
    scored = [(3, 0.62), (1, 0.6), (2, 0.7), (4, 0.61)]
    threads: dict[int, str | None] = {1: "x", 2: "x", 3: "y", 4: None}
    ranked = with_session_support(scored, threads, weight=0.3)
    assert [m for m, _ in ranked] == [2, 1, 3, 4]  # 1 overtakes 3: its session also holds 2
    assert with_session_support(scored, threads, weight=0.0) == sorted(scored, key=lambda kv: -kv[1])
    lifted = with_session_support(scored, threads, weight=0.3, lift={3: 3.0})
    assert [m for m, _ in lifted][:2] == [3, 2]  # 3's lift counts in its own (one-turn) thread
    assert dict(lifted)[1] == dict(ranked)[1]  # 1 is in another thread: unchanged
    alone = dict(with_session_support([(4, 0.61)], {4: None}, weight=0.3))
    assert alone[4] == pytest.approx(1 / (1 + math.exp(-1.3 * math.log(0.61 / 0.39))))  # its own group


def test_named_speakers_are_the_ones_whose_whole_name_the_query_uses() -> None:
    people = ["Caroline", "Melanie", "Mary Ann", "Will", None]

    def named(query: str) -> set[str]:
        return named_speakers(query_terms(query), people, query_terms)

    assert named("What did Caroline's kids like?") == {"Caroline"}
    assert named("Did Ann call?") == set()  # only part of "Mary Ann"
    assert named("What will mary ann and melanie bring?") == {"Mary Ann", "Melanie"}
    assert named("Will it rain?") == set()  # a stopword-only name never matches


def test_speaker_prior_lifts_the_named_speakers_turns_only() -> None:
    ranked = [(1, 0.8), (2, 0.6), (3, 0.5)]
    speakers: dict[int, str | None] = {1: "Caroline", 2: "Melanie", 3: None}
    lifted = with_speaker_prior(ranked, speakers, {"Melanie"}, weight=math.log(9))
    assert lifted[0] == (2, pytest.approx(0.6 * 9 / (0.6 * 9 + 0.4)))  # odds x 9
    assert dict(lifted)[1] == 0.8 and dict(lifted)[3] == 0.5
    assert with_speaker_prior(ranked, speakers, set(), weight=1.5) == ranked


def test_speaker_prior_is_centred_so_it_moves_relevance_and_never_inflates_it() -> None:
    ranked = [(1, 0.8), (2, 0.6), (3, 0.5)]
    hers: dict[int, str | None] = {1: "Ann", 2: "Ann", 3: "Ann"}
    centre = speaker_lift([1, 2, 3], hers, {"Ann"}, 1.5)
    assert centre == pytest.approx(1.5)  # every candidate is Ann's: nothing moves
    assert with_speaker_prior(ranked, hers, {"Ann"}, 1.5, centre) == [(m, pytest.approx(s)) for m, s in ranked]
    mixed: dict[int, str | None] = {1: "Bob", 2: "Ann", 3: "Ann"}
    centre = speaker_lift([1, 2, 3], mixed, {"Ann"}, 1.5)
    lifted = dict(with_speaker_prior(ranked, mixed, {"Ann"}, 1.5, centre))
    assert lifted[1] < 0.8 and lifted[2] > 0.6 and lifted[3] > 0.5  # what one gains, the other loses


def test_speaker_weight_yields_as_far_as_someone_elses_turn_matches_better() -> None:
    said: dict[int, str | None] = {1: "Bob", 2: "Ann", 3: "Ann", 4: None}

    def rel(z: float) -> float:  # relevance from log-odds, to read the margins below
        return 1 / (1 + math.exp(-z))

    close = [(1, rel(1.5)), (2, rel(1.0)), (3, 0.2)]  # Bob's best is 0.5 log-odds ahead of Ann's
    assert speaker_weight(close, said, {"Ann"}, 1.5, margin=1.0) == pytest.approx(1.5)
    assert speaker_weight(close, said, {"Ann"}, 1.5, margin=0.0) == pytest.approx(1.0)
    far = [(1, rel(1.0)), (2, rel(1.0)), (4, rel(2.5))]  # nobody's turn, 1.5 ahead, counts as not Ann's
    assert speaker_weight(far, said, {"Ann"}, 1.5, margin=0.0) == 0.0
    assert speaker_weight(far, said, {"Ann"}, 1.5, margin=1.0) == pytest.approx(1.0)
    assert speaker_weight([(1, 0.9)], said, {"Ann"}, 1.5, margin=0.0) == 0.0  # none of Ann's among them
    assert speaker_weight([(2, 0.1)], said, {"Ann"}, 1.5, margin=0.0) == 1.5  # only Ann's
    assert speaker_weight([(1, 0.1), (2, 0.9)], said, {"Ann"}, 1.5, margin=0.0) == 1.5  # Ann's ahead


def test_holds_less_when_someone_elses_turn_holds_more_of_the_questions_words() -> None:
    said: dict[int, str | None] = {1: "Bob", 2: "Ann", 3: "Ann"}
    texts = {
        1: "Bob: I lost my job at the factory last month.",
        2: "Ann: Sorry to hear that, Bob. How are you holding up?",
        3: "Ann: I started a new job painting houses.",
    }
    # "What happened to Ann's job last month?": Bob's turn holds job, last, month; Ann's only job.
    assert holds_less(texts, said, {"Ann"}, ["happened", "job", "last", "month"])
    # "What job did Ann start?": Ann's turn holds both words ("started" is "start"), Bob's one.
    assert not holds_less(texts, said, {"Ann"}, ["job", "start"])
    assert not holds_less(texts, said, {"Ann"}, ["job"])  # a tie leaves the name to decide
    assert not holds_less(texts, said, {"Ann"}, [])  # no content words: nothing to go by


class _Turns(ConversationLookups):
    """What rerank reads about three turns, each its own thread, no neighbours."""

    def __init__(self, said: dict[int, tuple[str, str]]) -> None:
        self.said = said

    def threads(self, user_id: int, ids: Sequence[int]) -> dict[int, str | None]:
        return {m: None for m in ids}

    def speakers(self, user_id: int, ids: Sequence[int]) -> dict[int, str | None]:
        return {m: self.said[m][0] for m in ids}

    def texts(self, user_id: int, ids: Sequence[int]) -> dict[int, str]:
        return {m: self.said[m][1] for m in ids}

    def neighbours(self, user_id: int, ids: Sequence[int]) -> dict[int, list[int]]:
        return {}


def test_rerank_gives_no_speaker_lift_when_the_named_persons_turns_lack_the_content() -> None:
    turns = _Turns(
        {
            1: ("Bob", "Bob: The car factory closed and I lost my job."),
            2: ("Ann", "Ann: I love my job at the bakery."),
            3: ("Ann", "Ann: Oh no, sorry to hear that."),
        }
    )
    scored = [(1, 0.82), (2, 0.8), (3, 0.3)]  # Bob's turn ahead, too little for the margin to matter
    # "What did Ann lose when the factory closed?": only Bob's turn holds factory and closed.
    assert rerank(turns, 1, scored, {"Ann"}, ["lose", "factory", "closed"])[0][0] == 1
    # "What does Ann love about her job?": Ann's turn holds the words, her name decides.
    assert rerank(turns, 1, scored, {"Ann"}, ["love", "job"])[0][0] == 2


def test_without_names_replaces_whole_names_in_any_case() -> None:
    assert without_names("What do Melanie's kids like?", {"Melanie"}) == "What do someone's kids like?"
    assert without_names("did mary ann call Melanie?", {"Mary Ann", "Melanie"}) == "did someone call someone?"
    assert without_names("Is Annabel Ann's sister?", {"Ann"}) == "Is Annabel someone's sister?"
    assert without_names("Any news?", set()) == "Any news?"
