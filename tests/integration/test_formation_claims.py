"""Two formation workers on one database never claim the same turn: SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from sqlalchemy import Engine, text

from memory.formation.queue import FormationQueue
from memory.turns import TurnStore
from tests.integration.conftest import make_pg_engine

JOBS = 120


@pytest.fixture
def queued(both_engines: Engine) -> tuple[Engine, list[int]]:
    """A database (each backend in turn) with JOBS user turns queued for formation, and their ids."""
    engine = both_engines
    turns, queue = TurnStore(engine), FormationQueue(engine)
    ids = [turns.add(1, "t", "user", f"message {i}").id or 0 for i in range(JOBS)]
    for turn_id in ids:
        assert queue.enqueue(1, turn_id)
    assert not queue.enqueue(1, ids[0])  # queued once, whatever the dialect's words for it
    return engine, ids


def test_formation_claims_two_workers_never_double_process(queued: tuple[Engine, list[int]]) -> None:
    engine, ids = queued
    claimed: list[list[int]] = [[], []]
    start = threading.Barrier(2)

    def worker(mine: list[int]) -> None:
        queue = FormationQueue(engine)  # one pool, several connections: two workers' transactions overlap
        start.wait()
        while (job := queue.claim_next()) is not None:
            mine.append(job.turn_id)
            queue.complete(job.turn_id)

    threads = [threading.Thread(target=worker, args=(mine,)) for mine in claimed]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    counts = Counter(claimed[0] + claimed[1])
    assert sorted(counts) == sorted(ids)
    assert max(counts.values()) == 1
    assert FormationQueue(engine).counts() == {"done": JOBS}


def test_formation_claims_skip_a_job_another_worker_holds(pg_url: str) -> None:
    """PostgreSQL: while worker A's claim holds the oldest job's row, worker B claims the next one at
    once, instead of waiting for A and then taking A's job too."""
    engine = make_pg_engine(pg_url)
    try:
        turns, queue = TurnStore(engine), FormationQueue(engine)
        first, second = (turns.add(1, "t", "user", m).id or 0 for m in ("one", "two"))
        queue.enqueue(1, first)
        queue.enqueue(1, second)
        got: list[int] = []
        with engine.connect() as holder:  # worker A, mid-claim
            holder.execute(text("SELECT turn_id FROM formation_jobs WHERE turn_id = :t FOR UPDATE"), {"t": first})
            b = threading.Thread(target=lambda: got.append(getattr(queue.claim_next(), "turn_id", 0)))
            b.start()
            b.join(timeout=30)
            waited = b.is_alive()
            holder.rollback()
        b.join()
        assert not waited, "worker B waited for worker A's lock"
        assert got == [second]
        assert queue.status(first) == "pending"
    finally:
        engine.dispose()
