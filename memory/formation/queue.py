"""The durable formation queue: one job per user turn, so a crash loses nothing and repeats nothing.

A job moves pending → running → done (or back to pending after a failure, `failed` after
`MAX_ATTEMPTS`). The table is the watermark: a turn is formed when its job is `done`.

Crash safety comes from three things together:
- `requeue_stale()` at start-up puts jobs a dead process left `running` back to pending (all of
  them when no other process is open, else those claimed over `STALE_AFTER` ago);
- the job's plan (what the extractor said, memory/formation/plan.py `Plan`) is saved before any
  memory is written, so a rerun applies the same plan instead of asking a non-deterministic
  model again;
- applying a plan is idempotent (memory/formation/plan.py), so the part done before the crash
  is found, not repeated.
`enqueue` ignores a turn already queued, so a retried reply never forms a turn twice.

One process forms one job at a time (`_FORMING`): which entity a name means is read, then
written (memory/formation/graph_writes.py), so two jobs formed at once can each miss what the
other is writing. "My sister Ana…" and "My colleague Ana…" formed side by side made one Ana of
both in half of the runs (`reverie chat` drained its queue while its cancelled worker's thread was
still forming the turn before). Other processes take turns at the graph file for a whole job.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import SQLAlchemyError

from memory.formation.graph_writes import user_roles
from memory.formation.patterns import Extractor
from memory.formation.plan import FormationResult, Plan, Stores, apply_plan, plan_turn
from memory.models import utcnow
from memory.usage import UsageLog

MAX_ATTEMPTS = 3
STALE_AFTER = timedelta(minutes=10)
"""A job another live process claimed this long ago has died with it (forming one takes seconds)."""
_FORMING = threading.Lock()
"""Held from claiming a job to settling it: one formation at a time in a process (module docstring)."""

_DDL = [
    """CREATE TABLE formation_jobs (
        turn_id INTEGER PRIMARY KEY REFERENCES turns(id) ON DELETE CASCADE,
        user_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        error TEXT,
        plan TEXT,
        updated_at TEXT NOT NULL
    )""",
    "CREATE INDEX ix_formation_jobs_status ON formation_jobs (status, turn_id)",
]


def m007_formation(conn: Connection) -> None:
    """The formation queue (one row per user turn to form)."""
    for statement in _DDL:
        conn.execute(text(statement))


@dataclass(frozen=True)
class Job:
    """A claimed formation job."""

    turn_id: int
    user_id: int
    attempts: int
    plan: str | None


class FormationQueue:
    """Enqueue, claim and settle formation jobs (single SQL statements, so claims never collide)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def _run(self, sql: str, **params: object) -> int:
        with self._engine.begin() as conn:
            return conn.execute(text(sql), {"t": utcnow().isoformat(), **params}).rowcount

    def enqueue(self, user_id: int, turn_id: int) -> bool:
        """Queue a stored user turn for formation; False if it was already queued (in any state)."""
        return (
            self._run(
                # (ON CONFLICT DO NOTHING rather than INSERT OR IGNORE: the same words on PostgreSQL)
                "INSERT INTO formation_jobs (turn_id, user_id, updated_at) VALUES (:turn, :u, :t) "
                "ON CONFLICT DO NOTHING",
                turn=turn_id,
                u=user_id,
            )
            > 0
        )

    def claim_next(self, user_id: int | None = None) -> Job | None:
        """Mark the oldest pending job running and return it (None when the queue is empty); only
        `user_id`'s when given (their question waits for what they said a moment ago: `app.extractor`).

        On SQLite one statement is enough: writers take turns on the whole file. On PostgreSQL two
        workers' statements run at once, and in READ COMMITTED both would pick the same oldest row
        (the second waits for the first's lock, then updates the row its subquery found all the
        same; measured: 2 workers claimed the same turns): `FOR UPDATE SKIP LOCKED` makes the
        second pick the next row nobody holds instead.
        """
        mine = "" if user_id is None else f" AND user_id = {int(user_id)}"
        pick = f"SELECT turn_id FROM formation_jobs WHERE status = 'pending'{mine} ORDER BY turn_id LIMIT 1"
        if self._engine.dialect.name == "postgresql":
            pick += " FOR UPDATE SKIP LOCKED"
        sql = (
            "UPDATE formation_jobs SET status = 'running', attempts = attempts + 1, updated_at = :t "
            f"WHERE turn_id = ({pick}) "
            "RETURNING turn_id, user_id, attempts, plan"
        )
        with self._engine.begin() as conn:
            row = conn.execute(text(sql), {"t": utcnow().isoformat()}).first()
        return Job(int(row[0]), int(row[1]), int(row[2]), row[3]) if row is not None else None

    def save_plan(self, turn_id: int, plan: Plan) -> None:
        """Keep a job's plan before applying it (a rerun applies the same plan)."""
        self._run(
            "UPDATE formation_jobs SET plan = :p, updated_at = :t WHERE turn_id = :turn", p=plan.to_json(), turn=turn_id
        )

    def complete(self, turn_id: int) -> None:
        """Mark a job done."""
        self._run(
            "UPDATE formation_jobs SET status = 'done', error = NULL, updated_at = :t WHERE turn_id = :turn",
            turn=turn_id,
        )

    def fail(self, turn_id: int, error: str) -> None:
        """Record a failure: back to pending for another try, `failed` after MAX_ATTEMPTS tries."""
        self._run(
            "UPDATE formation_jobs SET status = CASE WHEN attempts >= :max THEN 'failed' ELSE 'pending' END, "
            "error = :e, updated_at = :t WHERE turn_id = :turn",
            max=MAX_ATTEMPTS,
            e=error[:1000],
            turn=turn_id,
        )

    def requeue_stale(self, claimed_before: datetime | None = None) -> int:
        """At start-up: jobs left running by a dead process go back to pending; returns how many.

        `claimed_before`: only jobs claimed before then, not those a live process may be forming now
        (this one's own, in a worker thread; or another's: the app and `reverie chat` run side by side)."""
        before = claimed_before.isoformat() if claimed_before is not None else None
        return self._run(
            "UPDATE formation_jobs SET status = 'pending', updated_at = :t "
            "WHERE status = 'running' AND (:before IS NULL OR updated_at < :before)",
            before=before,
        )

    def counts(self, user_id: int | None = None) -> dict[str, int]:
        """How many jobs are in each state (one user's, or all)."""
        sql = "SELECT status, count(*) FROM formation_jobs WHERE (:u IS NULL OR user_id = :u) GROUP BY status"
        with self._engine.connect() as conn:
            return {str(s): int(n) for s, n in conn.execute(text(sql), {"u": user_id})}

    def status(self, turn_id: int) -> str | None:
        """A job's state, or None if the turn was never queued."""
        with self._engine.connect() as conn:
            row = conn.execute(text("SELECT status FROM formation_jobs WHERE turn_id = :t"), {"t": turn_id}).first()
        return str(row[0]) if row is not None else None


def process(stores: Stores, queue: FormationQueue, job: Job, extractor: Extractor | None) -> FormationResult | None:
    """Form one claimed job's turn: reuse its saved plan, or make and save one, then apply it.

    Returns:
        What was stored, or None when the turn no longer exists (deleted with its user).
    """
    turn = stores.turns.get(job.user_id, job.turn_id)
    if turn is None or turn.role != "user":
        return None
    if job.plan:
        plan = Plan.from_json(job.plan)
    else:
        plan = plan_turn(turn.content, extractor, turn.created_at, user_roles(stores.engine, job.user_id))
        queue.save_plan(job.turn_id, plan)
    return apply_plan(stores, job.user_id, turn, plan)


def run_pending(
    stores: Stores, extractor: Extractor | None, limit: int = 10, stop: threading.Event | None = None,
    user_id: int | None = None,
) -> list[FormationResult]:
    """Form up to `limit` pending turns (only `user_id`'s when given), oldest first (sync: run it off
    the event loop), claiming no more once `stop` is set (the job in hand is finished).

    A job that fails with a storage or data error goes back to the queue (see `fail`); a crash
    leaves it `running` for `requeue_stale`.
    """
    queue, usage = FormationQueue(stores.engine), UsageLog(stores.engine)
    results: list[FormationResult] = []
    for _ in range(limit):
        if stop is not None and stop.is_set():
            break
        with _FORMING:  # claimed in order and formed in that order, one at a time (module docstring)
            job = queue.claim_next(user_id)
            if job is None:
                break
            started = time.perf_counter()
            try:
                result = process(stores, queue, job, extractor)
            except (SQLAlchemyError, LookupError, ValueError, RuntimeError) as exc:
                queue.fail(job.turn_id, f"{type(exc).__name__}: {exc}")
                continue
            # (before `done`: a waiter reads it)
            usage.set_formation_ms(job.turn_id, (time.perf_counter() - started) * 1000)
            queue.complete(job.turn_id)
        if result is not None:
            results.append(result)
    return results
