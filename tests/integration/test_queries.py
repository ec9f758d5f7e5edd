"""QueryStore on a real SQLite file: lifecycle transitions, validation, choices, and `reverie queries recent`."""

from __future__ import annotations

import json

import pytest

from app.cli import build_parser
from app.settings import Settings
from memory.queries import InvalidTransition, QueryConfig, QueryNotFound, QueryStore
from memory.store import MemoryStore
from memory.turns import InvalidMessage

pytestmark = pytest.mark.both_backends  # each test on SQLite and on PostgreSQL (tests/conftest.py)


@pytest.fixture
def queries(storage: MemoryStore) -> QueryStore:
    return QueryStore(storage.engine)


@pytest.fixture
def uid(storage: MemoryStore) -> int:
    return storage.accounts.create("reader", "password-123").id or 0


def test_queries_create_keeps_config_and_starts_pending(queries: QueryStore, uid: int) -> None:
    cfg = QueryConfig(max_info_requests=2, initial_context_size=800, include_relationships=False, temperature=0.3)
    row = queries.create(uid, "Where does Ana live?", cfg, thread_id="t1")
    again = queries.get(uid, row.id or 0)
    assert again is not None and again.status == "pending"
    assert (again.max_info_requests, again.initial_context_size) == (2, 800)
    assert again.include_relationships is False and again.temperature == pytest.approx(0.3)
    assert again.info_requests == 0 and again.started_at is None and again.created_at is not None


def test_queries_full_lifecycle_records_timestamps_count_and_confidence(queries: QueryStore, uid: int) -> None:
    row = queries.create(uid, "question")
    qid = row.id or 0
    started = queries.start(uid, qid)
    assert started.status == "processing" and started.started_at is not None
    assert queries.count_info_request(uid, qid).info_requests == 1
    done = queries.complete(uid, qid, "medium", forced=True)
    assert done.status == "completed" and done.finished_at is not None
    assert (done.confidence, done.forced, done.info_requests) == ("medium", True, 1)


def test_queries_failure_keeps_the_error(queries: QueryStore, uid: int) -> None:
    qid = queries.create(uid, "question").id or 0
    queries.start(uid, qid)
    failed = queries.fail(uid, qid, "ModelConnectionError: refused")
    assert failed.status == "failed" and failed.error == "ModelConnectionError: refused"


@pytest.mark.parametrize(
    ("steps", "bad"),
    [
        ([], "complete"),  # pending → completed skips processing
        ([], "fail"),
        (["start"], "start"),  # processing → processing
        (["start", "complete"], "start"),  # completed is final
        (["start", "complete"], "fail"),
        (["start", "fail"], "complete"),
    ],
)
def test_queries_invalid_transitions_raise(queries: QueryStore, uid: int, steps: list[str], bad: str) -> None:
    qid = queries.create(uid, "question").id or 0
    moves = {
        "start": lambda: queries.start(uid, qid),
        "complete": lambda: queries.complete(uid, qid, "high"),
        "fail": lambda: queries.fail(uid, qid, "boom"),
    }
    for step in steps:
        moves[step]()
    before = queries.get(uid, qid)
    with pytest.raises(InvalidTransition):
        moves[bad]()
    assert queries.get(uid, qid) == before


def test_queries_info_requests_only_while_processing_and_up_to_the_max(queries: QueryStore, uid: int) -> None:
    qid = queries.create(uid, "question", QueryConfig(max_info_requests=1)).id or 0
    with pytest.raises(InvalidTransition):
        queries.count_info_request(uid, qid)
    queries.start(uid, qid)
    queries.count_info_request(uid, qid)
    with pytest.raises(InvalidTransition):
        queries.count_info_request(uid, qid)


@pytest.mark.parametrize("text", ["", "   \n", "x" * 10_001])
def test_queries_text_must_be_non_empty_and_at_most_10000_chars(queries: QueryStore, uid: int, text: str) -> None:
    with pytest.raises(InvalidMessage):
        queries.create(uid, text)
    assert queries.recent(uid) == []
    assert queries.create(uid, "x" * 10_000).text == "x" * 10_000


def test_queries_config_out_of_range_is_rejected() -> None:
    with pytest.raises(ValueError):
        QueryConfig(max_info_requests=-1)
    with pytest.raises(ValueError):
        QueryConfig(temperature=3.0)


def test_queries_are_scoped_by_user(storage: MemoryStore, queries: QueryStore, uid: int) -> None:
    other = storage.accounts.create("other", "password-456").id or 0
    qid = queries.create(uid, "mine").id or 0
    assert queries.get(other, qid) is None
    assert queries.recent(other) == []
    with pytest.raises(QueryNotFound):
        queries.start(other, qid)


def test_queries_record_choice_on_ambiguity(queries: QueryStore, uid: int) -> None:
    qid = queries.create(uid, "Is Ana coming?").id or 0
    queries.record_choice(uid, qid, "ana", [3, 7], [7])
    row = queries.record_choice(uid, qid, "porto", [1, 2], [])
    assert json.loads(row.choices) == {
        "ana": {"candidates": [3, 7], "chosen": [7]},
        "porto": {"candidates": [1, 2], "chosen": []},
    }


def test_queries_recent_cli_lists_newest_first(
    settings: Settings, queries: QueryStore, uid: int, capsys: pytest.CaptureFixture[str]
) -> None:
    for n in range(3):
        qid = queries.create(uid, f"question number {n}").id or 0
    queries.start(uid, qid)
    queries.fail(uid, qid, "ModelConnectionError: refused")
    args = build_parser().parse_args(["queries", "recent", "--user", "reader", "--limit", "2"])
    assert args.func(settings, args) == 0
    out = capsys.readouterr().out
    assert "question number 2" in out and "question number 1" in out and "question number 0" not in out
    assert out.index("question number 2") < out.index("question number 1")
    assert "failed" in out and "ModelConnectionError" in out


def test_queries_recent_cli_unknown_user_fails_with_message(
    settings: Settings, uid: int, capsys: pytest.CaptureFixture[str]
) -> None:
    args = build_parser().parse_args(["queries", "recent", "--user", "nobody"])
    assert args.func(settings, args) == 2
    assert "no user named 'nobody'" in capsys.readouterr().err
