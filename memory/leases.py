"""Leases: which process does what only one process at a time may do, decided by the database.

With several app processes on one PostgreSQL database (issue 18) each has a scheduler, and each
fires the nightly dream. A lease is a row (name, holder, expires_at, done_at) in the shared
database: taking it is one transaction of `INSERT … ON CONFLICT DO NOTHING` and a conditional
`UPDATE`, which SQLite's one writer and PostgreSQL's row locks both make atomic, so the same code
decides on either backend and across machines. A holder renews it while it works; one that dies
(kill -9, power loss) leaves it to expire, and then another may take it. A lease marked done is
never taken again: "tonight's dream" is done once, whoever did it.

A row lease rather than PostgreSQL's advisory lock: it works on SQLite too, it outlives the
connection that took it (the dream runs in a worker thread over pooled connections), and its row
says who holds it until when. Expiry is read from the caller's clock, so the machines sharing a
server should keep their clocks in step (NTP); a lease is minutes long, not milliseconds.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import Connection, Engine, text

from memory.models import utcnow


def m018_leases(conn: Connection) -> None:
    """Named leases shared by every process on the database (one dream per night)."""
    conn.execute(
        text(
            """CREATE TABLE leases (
                name TEXT PRIMARY KEY,
                holder TEXT NOT NULL,
                expires_at DATETIME NOT NULL,
                done_at DATETIME)"""
        )
    )


EXPIRED = "2000-01-01 00:00:00.000000"  # an expiry long past: a released lease is free at once


def _stamp(when: datetime) -> str:
    # SQLAlchemy's own DateTime format, in UTC: SQLite compares these as text, PostgreSQL types them
    # from the timestamptz column they meet (its sessions are in UTC).
    return when.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


class LeaseStore:
    """Take, renew, release and finish named leases; installation-wide (not per user)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def take(
        self, name: str, holder: str, ttl: timedelta, now: datetime | None = None, *, steal: bool = False
    ) -> bool:
        """Hold `name` for `ttl` if nobody else holds it (or their hold expired) and it is not done.

        `steal` takes it from another holder too: for a caller that knows that holder is dead (on
        SQLite, a process alone on the file; see `MemoryStore.alone`).

        Returns:
            Whether `holder` now holds it (also when it already did: the hold is extended).
        """
        now = now or utcnow()
        values = {"n": name, "h": holder, "now": _stamp(now), "e": _stamp(now + ttl), "steal": steal}
        with self._engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO leases (name, holder, expires_at) VALUES (:n, :h, :e) "
                    "ON CONFLICT (name) DO NOTHING"
                ),
                values,
            )
            taken = conn.execute(
                text(
                    "UPDATE leases SET holder = :h, expires_at = :e WHERE name = :n AND done_at IS NULL "
                    "AND (holder = :h OR expires_at < :now OR :steal)"
                ),
                values,
            )
            return taken.rowcount == 1

    def renew(self, name: str, holder: str, ttl: timedelta, now: datetime | None = None) -> bool:
        """Extend `holder`'s hold on `name` by `ttl` from now.

        Returns:
            False when `holder` no longer holds it (it expired and another took it, or it is done).
        """
        now = now or utcnow()
        with self._engine.begin() as conn:
            renewed = conn.execute(
                text("UPDATE leases SET expires_at = :e WHERE name = :n AND holder = :h AND done_at IS NULL"),
                {"n": name, "h": holder, "e": _stamp(now + ttl)},
            )
            return renewed.rowcount == 1

    def release(self, name: str, holder: str) -> None:
        """Let another take `name` at once (a no-op unless `holder` holds it)."""
        with self._engine.begin() as conn:
            conn.execute(
                text("UPDATE leases SET expires_at = :e WHERE name = :n AND holder = :h AND done_at IS NULL"),
                {"n": name, "h": holder, "e": EXPIRED},
            )

    def finish(self, name: str, holder: str, now: datetime | None = None) -> None:
        """Record `name` as done by `holder`: nobody takes it again."""
        stamp = _stamp(now or utcnow())
        with self._engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO leases (name, holder, expires_at, done_at) VALUES (:n, :h, :t, :t) "
                    "ON CONFLICT (name) DO UPDATE SET holder = :h, done_at = :t"
                ),
                {"n": name, "h": holder, "t": stamp},
            )

    def done(self, name: str) -> bool:
        """Whether `name` was finished (by any process)."""
        with self._engine.connect() as conn:
            row = conn.execute(text("SELECT done_at FROM leases WHERE name = :n"), {"n": name}).first()
        return row is not None and row[0] is not None

    def holder(self, name: str) -> str | None:
        """Who holds or finished `name` last (for messages and tests), or None if nobody ever took it."""
        with self._engine.connect() as conn:
            return conn.execute(text("SELECT holder FROM leases WHERE name = :n"), {"n": name}).scalar()
