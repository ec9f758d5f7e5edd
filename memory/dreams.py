"""Dream records: runs, proposals, their decisions, reminders, and the writes a dream commits.

A dream computes everything first and writes once: `DreamStore.commit` stores the new
proposals, supersedes older pending ones and applies the memory status changes in ONE
transaction, so a crash at any point before it leaves the previous state untouched. A
decision on a proposal and the limit override it creates are also one transaction.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from sqlalchemy import Connection, Engine, text
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from memory.db.postgres import json_text
from memory.models import DreamRunRow, LimitOverrideRow, ProposalDecisionRow, ProposalRow, utcnow

Decision = Literal["approved", "rejected", "superseded"]
TRIAL_DAYS = 7  # an approved change is on trial this long: the dreams compare it with the week before
_DDL = [
    """CREATE TABLE dream_runs (
        id INTEGER PRIMARY KEY,
        started_at DATETIME NOT NULL, finished_at DATETIME,
        status TEXT NOT NULL DEFAULT 'running'
            CHECK (status IN ('running', 'committed', 'completed', 'failed')),
        trigger TEXT NOT NULL DEFAULT 'schedule',
        analyzed_from DATETIME, analyzed_until DATETIME,
        usage_rows INTEGER NOT NULL DEFAULT 0,
        proposals_created INTEGER NOT NULL DEFAULT 0,
        consolidation TEXT NOT NULL DEFAULT '{}',
        error TEXT)""",
    """CREATE TABLE proposals (
        id INTEGER PRIMARY KEY,
        run_id INTEGER REFERENCES dream_runs(id) ON DELETE SET NULL,
        created_at DATETIME NOT NULL,
        dimension TEXT NOT NULL, bound TEXT NOT NULL CHECK (bound IN ('min', 'max', 'default')),
        current_value REAL NOT NULL, proposed_value REAL NOT NULL,
        status TEXT NOT NULL DEFAULT 'pending'
            CHECK (status IN ('pending', 'approved', 'rejected', 'superseded')),
        rationale TEXT NOT NULL, evidence TEXT NOT NULL DEFAULT '{}',
        evidence_count INTEGER NOT NULL DEFAULT 0,
        simulation TEXT NOT NULL DEFAULT '{}', risk TEXT NOT NULL DEFAULT 'LOW',
        alternative TEXT NOT NULL DEFAULT '{}', trial TEXT NOT NULL DEFAULT '',
        decided_at DATETIME)""",
    "CREATE INDEX ix_proposals_dim_status ON proposals (dimension, bound, status)",
    """CREATE TABLE proposal_decisions (
        id INTEGER PRIMARY KEY,
        proposal_id INTEGER NOT NULL REFERENCES proposals(id) ON DELETE CASCADE,
        decision TEXT NOT NULL CHECK (decision IN ('approved', 'rejected', 'superseded')),
        reason TEXT NOT NULL, decided_by TEXT NOT NULL DEFAULT '',
        override_id INTEGER, created_at DATETIME NOT NULL)""",
    # Which dream each account has already been told about (the morning summary shows once).
    """CREATE TABLE dream_seen (
        user_id INTEGER PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
        run_id INTEGER NOT NULL)""",
    """CREATE TABLE reminders (
        id INTEGER PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        thread_id TEXT NOT NULL, text TEXT NOT NULL,
        created_at DATETIME NOT NULL, due_at DATETIME NOT NULL,
        interval_source TEXT NOT NULL DEFAULT 'failsafe',
        status TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'cancelled')),
        sent_at DATETIME)""",
    "CREATE INDEX ix_reminders_due ON reminders (status, due_at)",
]


def m006_dreams(conn: Connection) -> None:
    """Dream runs, limit proposals and their decision history, per-account summary marks, reminders."""
    for statement in _DDL:
        conn.execute(text(statement))


def m012_dream_changes(conn: Connection) -> None:
    """Which memory each dream changed and how, so a dream's tidy-up can be undone."""
    conn.execute(
        text(
            """CREATE TABLE dream_changes (
                id INTEGER PRIMARY KEY,
                run_id INTEGER NOT NULL REFERENCES dream_runs(id) ON DELETE CASCADE,
                user_id INTEGER NOT NULL, memory_id INTEGER NOT NULL,
                status TEXT NOT NULL, undone_at DATETIME)"""
        )
    )


def m016_dream_merges(conn: Connection) -> None:
    """Which entities each dream merged and what the dropped one brought, so the merge can be undone."""
    conn.execute(
        text(
            """CREATE TABLE dream_merges (
                id INTEGER PRIMARY KEY,
                run_id INTEGER NOT NULL REFERENCES dream_runs(id) ON DELETE CASCADE,
                user_id INTEGER NOT NULL, keep_id INTEGER NOT NULL, drop_id INTEGER NOT NULL,
                name TEXT NOT NULL, aliases TEXT NOT NULL DEFAULT '[]',
                relation_ids TEXT NOT NULL DEFAULT '[]', memory_ids TEXT NOT NULL DEFAULT '[]',
                undone_at DATETIME, split_id INTEGER)"""
        )
    )


def m010_dream_findings(conn: Connection) -> None:
    """What each dream found, in plain words: above all why it proposed nothing."""
    conn.execute(text("ALTER TABLE dream_runs ADD COLUMN findings TEXT NOT NULL DEFAULT '[]'"))


class ProposalError(ValueError):
    """A decision that cannot be made (unknown id, already decided, no reason); the message says which."""


@dataclass(frozen=True)
class MemoryChange:
    """A status change a dream applies to one memory: archive it, or supersede it by a duplicate."""

    user_id: int
    memory_id: int
    status: Literal["archived", "superseded"]
    superseded_by: int | None = None


@dataclass(frozen=True)
class EntityMerge:
    """One entity a dream merged into another, with what it brought: its name and aliases, the relations
    that were its own and the memories it was drawn from (what taking it apart again moves back)."""

    user_id: int
    keep_id: int
    drop_id: int
    name: str
    aliases: tuple[str, ...] = ()
    relation_ids: tuple[int, ...] = ()
    memory_ids: tuple[int, ...] = ()
    id: int | None = None


class DreamStore:
    """Dream runs and proposals, installation-wide (limits are installation-wide)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def start_run(self, trigger: str) -> DreamRunRow:
        """Record that a dream began (status `running`)."""
        row = DreamRunRow.model_validate({"started_at": utcnow(), "trigger": trigger})
        return self._save(row)

    def _save(self, row: DreamRunRow) -> DreamRunRow:
        with Session(self._engine) as s:
            s.add(row)
            s.commit()
            s.refresh(row)
        return row

    def update_run(self, run_id: int, **values: Any) -> DreamRunRow:
        """Set fields of a run (status, counts, error, finished_at)."""
        with Session(self._engine) as s:
            row = s.get(DreamRunRow, run_id)
            if row is None:
                raise LookupError(f"no dream run {run_id}")
            for key, value in values.items():
                setattr(row, key, value)
            s.add(row)
            s.commit()
            s.refresh(row)
        return row

    def runs(self, limit: int = 20) -> list[DreamRunRow]:
        """Latest runs first."""
        with Session(self._engine) as s:
            return list(s.exec(select(DreamRunRow).order_by(col(DreamRunRow.id).desc()).limit(limit)))

    def last_committed(self) -> DreamRunRow | None:
        """The latest run whose proposals were written (its window is where the next one starts)."""
        query = select(DreamRunRow).where(col(DreamRunRow.status).in_(["committed", "completed"]))
        with Session(self._engine) as s:
            return s.exec(query.order_by(col(DreamRunRow.id).desc()).limit(1)).first()

    def commit(
        self,
        run_id: int,
        proposals: Sequence[ProposalRow],
        changes: Sequence[MemoryChange],
        before_commit: Callable[[], None] | None = None,
    ) -> list[ProposalRow]:
        """Write a dream's results in one transaction; nothing is written if anything fails.

        New proposals supersede the pending ones of the same dimension and bound (with a
        decision row each), memory changes apply only to still-active memories, and the run
        becomes `committed`. `before_commit` runs inside the transaction (tests use it to crash
        at the worst moment).
        """
        now = utcnow()
        # SQLAlchemy's own DateTime format, so raw SQL writes compare like ORM writes.
        stamp = now.strftime("%Y-%m-%d %H:%M:%S.%f")
        with Session(self._engine) as s:
            for p in proposals:
                self._supersede_pending(s, p, now)
                p.run_id = run_id
                s.add(p)
            s.flush()
            _apply_changes(s.connection(), run_id, changes, stamp)
            run = s.get(DreamRunRow, run_id)
            if run is not None:
                run.status, run.proposals_created = "committed", len(proposals)
                s.add(run)
            if before_commit is not None:
                before_commit()
            s.commit()
            for p in proposals:
                s.refresh(p)
        return list(proposals)

    @staticmethod
    def _supersede_pending(s: Session, new: ProposalRow, now: datetime) -> None:
        query = select(ProposalRow).where(
            ProposalRow.dimension == new.dimension, ProposalRow.bound == new.bound, ProposalRow.status == "pending"
        )
        for old in s.exec(query):
            old.status, old.decided_at = "superseded", now
            s.add(old)
            s.flush()
            reason = "a newer dream proposed this dimension again with newer evidence"
            s.add(_decision(old, "superseded", reason, "dream", None, now))

    def proposals(self, statuses: Sequence[str] | None = None, limit: int = 50) -> list[ProposalRow]:
        """Proposals, pending first then newest first."""
        query = select(ProposalRow)
        if statuses is not None:
            query = query.where(col(ProposalRow.status).in_(list(statuses)))
        with Session(self._engine) as s:
            rows = list(s.exec(query.order_by(col(ProposalRow.id).desc()).limit(limit)))
        return sorted(rows, key=lambda r: r.status != "pending")

    def proposal(self, proposal_id: int) -> ProposalRow | None:
        """One proposal, or None."""
        with Session(self._engine) as s:
            return s.get(ProposalRow, proposal_id)

    def latest(self, dimension: str, bound: str, status: str) -> ProposalRow | None:
        """The newest proposal of a dimension and bound in a status (e.g. the last rejected one)."""
        query = select(ProposalRow).where(
            ProposalRow.dimension == dimension, ProposalRow.bound == bound, ProposalRow.status == status
        )
        with Session(self._engine) as s:
            return s.exec(query.order_by(col(ProposalRow.id).desc()).limit(1)).first()

    def decisions(self, proposal_id: int | None = None) -> list[ProposalDecisionRow]:
        """The decision history, oldest first (one proposal's, or all)."""
        query = select(ProposalDecisionRow)
        if proposal_id is not None:
            query = query.where(ProposalDecisionRow.proposal_id == proposal_id)
        with Session(self._engine) as s:
            return list(s.exec(query.order_by(col(ProposalDecisionRow.id))))

    def decide(
        self, proposal_id: int, decision: Literal["approved", "rejected"], reason: str, decided_by: str
    ) -> tuple[ProposalRow, LimitOverrideRow | None]:
        """Approve (writing the limit override) or reject a pending proposal, in one transaction.

        Raises:
            ProposalError: no such proposal, it is not pending, or the reason is empty.
        """
        if not reason.strip():
            raise ProposalError("a decision needs a written reason")
        now = utcnow()
        with Session(self._engine) as s:
            row = s.get(ProposalRow, proposal_id)
            if row is None:
                raise ProposalError(f"no proposal #{proposal_id}")
            if row.status != "pending":
                raise ProposalError(f"proposal #{proposal_id} is already {row.status}")
            override = _override(row, reason, now) if decision == "approved" else None
            if override is not None:
                s.add(override)
                try:
                    s.flush()
                except IntegrityError as exc:  # m013: one adjustment of a kind in force at a time
                    raise ProposalError(
                        f"proposal #{proposal_id}: an adjustment for this kind of message is already in force; "
                        "end it first (`reverie limits history`)"
                    ) from exc
            row.status, row.decided_at = decision, now
            s.add(row)
            s.add(_decision(row, decision, reason.strip(), decided_by, override, now))
            s.commit()
            s.refresh(row)
            if override is not None:
                s.refresh(override)
        return row, override

    def undo(self, run_id: int, by: str = "", merges_undone: int = 0) -> int:
        """Make active again every memory this dream superseded or archived and nobody changed since
        (one transaction); returns how many. A session summary the dream wrote is archived. The run's
        findings say when, by whom and how much (with `merges_undone`, the entity merges taken apart
        before: `dreaming.consolidation.undo`); history and `/dreams` show them."""
        when = utcnow()
        now = when.strftime("%Y-%m-%d %H:%M:%S.%f")
        with self._engine.begin() as conn:
            changed = conn.execute(
                text("SELECT id, user_id, memory_id, status FROM dream_changes "
                     "WHERE run_id = :r AND undone_at IS NULL"),
                {"r": run_id},
            ).all()
            undone = 0
            for change_id, user_id, memory_id, status in changed:
                undone += conn.execute(
                    text("UPDATE memories SET status = 'active', superseded_by = NULL, valid_to = NULL "
                         "WHERE id = :m AND user_id = :u AND status = :st"),
                    {"m": memory_id, "u": user_id, "st": status},
                ).rowcount  # fmt: skip
                mark = text("UPDATE dream_changes SET undone_at = :now WHERE id = :id")
                conn.execute(mark, {"now": now, "id": change_id})
            undone += conn.execute(
                text("UPDATE memories SET status = 'archived' WHERE kind = 'summary' AND status = 'active' "
                     f"AND {json_text(conn, 'meta', 'run_id')} = :r"),
                {"r": str(run_id)},
            ).rowcount  # fmt: skip
            found = conn.execute(text("SELECT findings FROM dream_runs WHERE id = :r"), {"r": run_id}).scalar()
            merged = f", {merges_undone} entity merge(s) taken apart" if merges_undone else ""
            note = f"Tidy-up undone {when:%Y-%m-%d %H:%M} UTC by {by or '?'}: {undone} memory change(s) put back"
            note += f"{merged}."
            conn.execute(
                text("UPDATE dream_runs SET findings = :f WHERE id = :r"),
                {"f": json.dumps([*_list(found), note]), "r": run_id},
            )
        return undone

    def undone_memories(self) -> set[int]:
        """Memories whose change by a dream was undone: the person wants them as they are, so no later
        dream changes them again."""
        with self._engine.connect() as conn:
            rows = conn.execute(text("SELECT DISTINCT memory_id FROM dream_changes WHERE undone_at IS NOT NULL"))
            return {int(m) for (m,) in rows}

    def record_merge(self, run_id: int, merge: EntityMerge) -> None:
        """Keep one of this dream's entity merges so `undo` can take it apart."""
        with self._engine.begin() as conn:
            conn.execute(
                text("INSERT INTO dream_merges (run_id, user_id, keep_id, drop_id, name, aliases, relation_ids, "
                     "memory_ids) VALUES (:r, :u, :k, :d, :n, :a, :rel, :m)"),
                {"r": run_id, "u": merge.user_id, "k": merge.keep_id, "d": merge.drop_id, "n": merge.name,
                 "a": json.dumps(merge.aliases), "rel": json.dumps(merge.relation_ids),
                 "m": json.dumps(merge.memory_ids)},
            )  # fmt: skip

    def merges(self, run_id: int) -> list[EntityMerge]:
        """The entity merges of one dream not yet undone, newest first (undone in that order)."""
        with self._engine.connect() as conn:
            rows = conn.execute(
                text("SELECT id, user_id, keep_id, drop_id, name, aliases, relation_ids, memory_ids FROM dream_merges "
                     "WHERE run_id = :r AND undone_at IS NULL ORDER BY id DESC"),
                {"r": run_id},
            ).all()  # fmt: skip
        return [
            EntityMerge(u, k, d, n, tuple(_list(a)), tuple(_list(rel)), tuple(_list(m)), id=i)
            for i, u, k, d, n, a, rel, m in rows
        ]

    def merge_undone(self, merge_id: int, split_id: int | None) -> None:
        """Mark a recorded merge as taken apart (into entity `split_id`)."""
        stamp = utcnow().strftime("%Y-%m-%d %H:%M:%S.%f")
        with self._engine.begin() as conn:
            conn.execute(
                text("UPDATE dream_merges SET undone_at = :t, split_id = :s WHERE id = :i"),
                {"t": stamp, "s": split_id, "i": merge_id},
            )

    def mark_seen(self, user_id: int, run_id: int) -> None:
        """Remember that this account was told about this dream."""
        with self._engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO dream_seen (user_id, run_id) VALUES (:u, :r) "
                    "ON CONFLICT(user_id) DO UPDATE SET run_id = excluded.run_id"
                ),
                {"u": user_id, "r": run_id},
            )

    def seen(self, user_id: int) -> int:
        """The id of the last dream this account was told about (0 if none)."""
        with self._engine.connect() as conn:
            value = conn.execute(text("SELECT run_id FROM dream_seen WHERE user_id = :u"), {"u": user_id}).scalar()
        return int(value or 0)


def _apply_changes(conn: Connection, run_id: int, changes: Sequence[MemoryChange], stamp: str) -> None:
    # Only still-active memories change: one edited or retired since planning is left alone.
    for c in changes:
        done = conn.execute(
            text(
                "UPDATE memories SET status = :st, superseded_by = :by, "
                "valid_to = CASE WHEN :st = 'superseded' THEN :now ELSE valid_to END "
                "WHERE id = :id AND user_id = :u AND status = 'active'"
            ),
            {"st": c.status, "by": c.superseded_by, "now": stamp, "id": c.memory_id, "u": c.user_id},
        )
        if done.rowcount:  # kept so the change can be undone (`reverie dream undo RUN`)
            conn.execute(
                text("INSERT INTO dream_changes (run_id, user_id, memory_id, status) VALUES (:r, :u, :m, :st)"),
                {"r": run_id, "u": c.user_id, "m": c.memory_id, "st": c.status},
            )


def _override(row: ProposalRow, reason: str, now: datetime) -> LimitOverrideRow:
    value = {f"{row.bound}_value": row.proposed_value}
    return LimitOverrideRow.model_validate(
        {"dimension": row.dimension, **value, "proposal_id": row.id, "reason": reason.strip(), "created_at": now,
         "trial_until": now + timedelta(days=TRIAL_DAYS)}
    )  # fmt: skip


def _decision(
    row: ProposalRow, decision: Decision, reason: str, by: str, override: LimitOverrideRow | None, now: datetime
) -> ProposalDecisionRow:
    assert row.id is not None  # decisions are only made on stored proposals
    return ProposalDecisionRow.model_validate(
        {
            "proposal_id": row.id,
            "decision": decision,
            "reason": reason,
            "decided_by": by,
            "override_id": override.id if override is not None else None,
            "created_at": now,
        }
    )


def _list(value: object) -> list[Any]:
    try:
        data = json.loads(str(value or "[]"))
    except ValueError:
        return []
    return data if isinstance(data, list) else []  # pyright: ignore[reportUnknownVariableType]


def loads(value: str) -> dict[str, Any]:
    """Decode a JSON column that holds an object ({} when empty or unreadable)."""
    try:
        data = json.loads(value or "{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}
