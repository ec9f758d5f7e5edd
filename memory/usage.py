"""The resource-usage log: one row per answered turn, the evidence the nightly dream studies.

It also carries each turn's rendered execution report, so the agent's next context can show
the previous report even after a restart, and the limits in force, so a change of limits
between two turns can be announced.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Engine, text
from sqlmodel import Session, col, select

from memory.models import LimitOverrideRow, UsageRow, utcnow


def m004_usage(conn: Connection) -> None:
    """The usage log and the approved limit overrides."""
    conn.execute(
        text(
            """
            CREATE TABLE usage_log (
                id INTEGER PRIMARY KEY,
                user_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                thread_id TEXT NOT NULL,
                turn_id INTEGER,
                created_at TEXT NOT NULL,
                message_excerpt TEXT NOT NULL DEFAULT '',
                request TEXT NOT NULL,
                clamped TEXT NOT NULL DEFAULT '[]',
                defaulted TEXT NOT NULL DEFAULT '[]',
                reason TEXT NOT NULL DEFAULT '',
                request_ms REAL, retrieval_ms REAL, generation_ms REAL, formation_ms REAL,
                rss_mb REAL, context_tokens INTEGER,
                followup_signal TEXT,
                followed_by_signal TEXT,
                limits TEXT NOT NULL DEFAULT '{}',
                report TEXT NOT NULL DEFAULT '',
                telemetry TEXT NOT NULL DEFAULT '{}'
            )
            """
        )
    )
    conn.execute(text("CREATE INDEX ix_usage_user_thread ON usage_log (user_id, thread_id, id)"))
    conn.execute(text("CREATE INDEX ix_usage_created ON usage_log (created_at)"))
    conn.execute(
        text(
            """
            CREATE TABLE limit_overrides (
                id INTEGER PRIMARY KEY,
                dimension TEXT NOT NULL,
                min_value REAL, max_value REAL, default_value REAL,
                proposal_id INTEGER,
                reason TEXT NOT NULL DEFAULT '',
                created_at TEXT NOT NULL,
                revoked_at TEXT
            )
            """
        )
    )


def m011_trials(conn: Connection) -> None:
    """Approved changes on trial: until when, how the trial ended, and who ended a change and why."""
    for column in ("trial_until TEXT", "trial_outcome TEXT NOT NULL DEFAULT ''", "ended_by TEXT NOT NULL DEFAULT ''",
                   "end_reason TEXT NOT NULL DEFAULT ''"):  # fmt: skip
        conn.execute(text(f"ALTER TABLE limit_overrides ADD COLUMN {column}"))


def m013_policy_adjustments(conn: Connection) -> None:
    """At most one approved adjustment of the request policy in force per kind of message.

    An adjustment is stored beside the limit overrides as a change named `policy:<kind>`, so it
    shares their trial, revert, history and notices. It is one fixed step: a second one in force
    for the same kind would mean nothing, and this index makes approving it fail in its transaction.
    """
    conn.execute(
        text(
            "CREATE UNIQUE INDEX ux_policy_in_force ON limit_overrides (dimension) "
            "WHERE revoked_at IS NULL AND dimension LIKE 'policy:%'"
        )
    )


def m017_usage_used(conn: Connection) -> None:
    """Which refs each turn's answer cited (its sources), so the dream can tell context that was loaded
    and used from context that was loaded for nothing (`dreaming.unused`)."""
    conn.execute(text("ALTER TABLE usage_log ADD COLUMN used TEXT"))  # NULL: an older turn, not recorded


_JSON_FIELDS = ("request", "clamped", "defaulted", "limits", "used")  # written as JSON below


@dataclass
class UsageRecord:
    """What one turn asked for, got and cost (plain values; JSON-ready)."""

    user_id: int
    thread_id: str
    turn_id: int | None
    message_excerpt: str
    request: dict[str, Any]
    clamped: list[str]
    defaulted: list[str]
    reason: str
    limits: dict[str, float]
    request_ms: float | None = None
    retrieval_ms: float | None = None
    generation_ms: float | None = None
    rss_mb: float | None = None
    context_tokens: int | None = None
    followup_signal: str | None = None
    report: str = ""
    telemetry: dict[str, Any] = field(default_factory=dict)
    used: list[str] | None = None  # the refs the answer cited (None: no answer, e.g. the model failed)


class UsageLog:
    """Append and read usage rows; every read is filtered by user unless it is the dream's."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def record(self, rec: UsageRecord) -> UsageRow:
        """Write one row; mark the previous row of the thread when this message is a follow-up signal."""
        row = UsageRow.model_validate(
            {
                **{k: v for k, v in rec.__dict__.items() if k not in _JSON_FIELDS},
                "created_at": utcnow(),
                "request": json.dumps(rec.request),
                "clamped": json.dumps(rec.clamped),
                "defaulted": json.dumps(rec.defaulted),
                "limits": json.dumps(rec.limits),
                "telemetry": json.dumps(rec.telemetry, default=str),
                "used": json.dumps(rec.used) if rec.used is not None else None,
            }
        )
        with Session(self._engine) as session:
            if rec.followup_signal:
                previous = self._last(session, rec.user_id, rec.thread_id)
                if previous is not None:
                    previous.followed_by_signal = rec.followup_signal
                    session.add(previous)
            session.add(row)
            session.commit()
            session.refresh(row)
        return row

    def set_formation_ms(self, turn_id: int, ms: float) -> None:
        """Record how long memory formation of a user turn took, on the newest usage row of that turn."""
        # Newest first by rowid, so the scan stops at once: a turn is formed seconds after its reply.
        newest = "SELECT id FROM usage_log WHERE turn_id = :t ORDER BY id DESC LIMIT 1"
        sql = text(f"UPDATE usage_log SET formation_ms = :ms WHERE id = ({newest})")
        with self._engine.begin() as conn:
            conn.execute(sql, {"t": turn_id, "ms": ms})

    @staticmethod
    def _last(session: Session, user_id: int, thread_id: str) -> UsageRow | None:
        query = select(UsageRow).where(UsageRow.user_id == user_id, UsageRow.thread_id == thread_id)
        return session.exec(query.order_by(col(UsageRow.id).desc()).limit(1)).first()

    def last(self, user_id: int, thread_id: str) -> UsageRow | None:
        """The latest row of a thread (its report goes into the next context)."""
        with Session(self._engine) as session:
            return self._last(session, user_id, thread_id)

    def before(self, user_id: int, thread_id: str, usage_id: int) -> UsageRow | None:
        """The thread's row just before a given one (whose report that turn's context carried)."""
        query = select(UsageRow).where(
            UsageRow.user_id == user_id, UsageRow.thread_id == thread_id, col(UsageRow.id) < usage_id
        )
        with Session(self._engine) as session:
            return session.exec(query.order_by(col(UsageRow.id).desc()).limit(1)).first()

    def last_for_user(self, user_id: int) -> UsageRow | None:
        """The user's latest row in any thread (for limit-change notices)."""
        with Session(self._engine) as session:
            query = select(UsageRow).where(UsageRow.user_id == user_id)
            return session.exec(query.order_by(col(UsageRow.id).desc()).limit(1)).first()

    def since(self, since: datetime | None, limit: int = 100_000) -> list[UsageRow]:
        """All users' rows since a time, oldest first (the dream's input)."""
        with Session(self._engine) as session:
            query = select(UsageRow)
            if since is not None:
                query = query.where(UsageRow.created_at > since)
            return list(session.exec(query.order_by(col(UsageRow.id)).limit(limit)))

    def recent(self, user_id: int, limit: int = 20) -> list[UsageRow]:
        """A user's latest rows, newest first."""
        with Session(self._engine) as session:
            query = select(UsageRow).where(UsageRow.user_id == user_id)
            return list(session.exec(query.order_by(col(UsageRow.id).desc()).limit(limit)))


class OverrideStore:
    """Approved limit overrides: installation-wide, applied in order on top of `.env`."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def add(
        self,
        dimension: str,
        *,
        min_value: float | None = None,
        max_value: float | None = None,
        default_value: float | None = None,
        proposal_id: int | None = None,
        reason: str = "",
    ) -> LimitOverrideRow:
        """Record an approved override; it applies to every turn from now on."""
        row = LimitOverrideRow.model_validate(
            {
                "dimension": dimension,
                "min_value": min_value,
                "max_value": max_value,
                "default_value": default_value,
                "proposal_id": proposal_id,
                "reason": reason,
                "created_at": utcnow(),
            }
        )
        with Session(self._engine) as session:
            session.add(row)
            session.commit()
            session.refresh(row)
        return row

    def active(self) -> list[LimitOverrideRow]:
        """Overrides in force, oldest first (later ones win)."""
        with Session(self._engine) as session:
            query = select(LimitOverrideRow).where(col(LimitOverrideRow.revoked_at).is_(None))
            return list(session.exec(query.order_by(col(LimitOverrideRow.id))))

    def revoke(self, override_id: int, by: str = "", reason: str = "") -> LimitOverrideRow | None:
        """Stop applying an override (kept for history, with who ended it and why); None when there is
        no such override or it had already ended."""
        with Session(self._engine) as session:
            row = session.get(LimitOverrideRow, override_id)
            if row is None or row.revoked_at is not None:
                return None
            row.revoked_at, row.ended_by, row.end_reason = utcnow(), by, reason
            if row.trial_until is not None and not row.trial_outcome:
                row.trial_outcome = "reverted"  # ended during its trial, by whoever
            session.add(row)
            session.commit()
            session.refresh(row)
            return row

    def conclude(self, override_id: int) -> None:
        """A trial that ended well: the change stays, and the dreams stop watching it."""
        with Session(self._engine) as session:
            row = session.get(LimitOverrideRow, override_id)
            if row is not None and row.revoked_at is None:
                row.trial_outcome = "kept"
                session.add(row)
                session.commit()

    def history(self) -> list[LimitOverrideRow]:
        """Every override ever made, active or ended, oldest first."""
        with Session(self._engine) as session:
            return list(session.exec(select(LimitOverrideRow).order_by(col(LimitOverrideRow.id))))

    def started_since(self, since: datetime) -> list[LimitOverrideRow]:
        """Overrides made after a moment (the agent is told of an adjustment of the request policy, which
        changes no range, on its next turn)."""
        with Session(self._engine) as session:
            query = select(LimitOverrideRow).where(col(LimitOverrideRow.created_at) > since)
            return list(session.exec(query.order_by(col(LimitOverrideRow.id))))

    def ended_since(self, since: datetime) -> list[LimitOverrideRow]:
        """Overrides ended after a moment (the agent is told of each on its next turn)."""
        with Session(self._engine) as session:
            query = select(LimitOverrideRow).where(col(LimitOverrideRow.revoked_at) > since)
            return list(session.exec(query.order_by(col(LimitOverrideRow.id))))
