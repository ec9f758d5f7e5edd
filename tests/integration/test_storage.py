"""Episodic storage on a real SQLite file: migrations, turns, accounts, isolation."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, text

from memory.accounts import AccountError
from memory.db.engine import Migration, StorageError, migrate, open_engine
from memory.db.migrations import MIGRATIONS
from memory.store import MemoryStore
from memory.threads import ThreadLog

pytestmark = pytest.mark.both_backends  # each test on SQLite and on PostgreSQL (tests/conftest.py)


def test_migrations_blank_database_creates_every_table_once(tmp_path: Path) -> None:
    engine = open_engine(tmp_path / "blank.db")
    applied = migrate(engine, MIGRATIONS)
    assert applied == [name for name, _ in MIGRATIONS]
    assert migrate(engine, MIGRATIONS) == []
    with engine.connect() as conn:
        tables = {row[0] for row in conn.execute(text("SELECT name FROM sqlite_master WHERE type='table'"))}
        mode = conn.execute(text("PRAGMA journal_mode")).scalar_one()
    assert {"accounts", "turns", "meta", "users", "threads", "steps", "elements", "feedbacks"} <= tables
    assert mode == "wal"
    engine.dispose()


class _AfterAnother(list[tuple[str, Migration]]):
    """The migrations, handed out only after another process's engine has applied them all: the
    moment two processes open a new file together, one of them past its first look."""

    def __init__(self, other: Engine) -> None:
        super().__init__(MIGRATIONS)
        self.other = other

    def __iter__(self) -> Iterator[tuple[str, Migration]]:
        migrate(self.other, MIGRATIONS)
        return super().__iter__()


def test_migrations_two_processes_opening_a_new_file_together_migrate_it_once(tmp_path: Path) -> None:
    first, second = open_engine(tmp_path / "new.db"), open_engine(tmp_path / "new.db")
    try:
        assert migrate(first, _AfterAnother(second)) == []  # (was: "table accounts already exists")
        with first.connect() as conn:
            assert conn.execute(text("SELECT count(*) FROM _migrations")).scalar_one() == len(MIGRATIONS)
    finally:
        first.dispose()
        second.dispose()


def test_open_engine_corrupt_file_names_the_fix_and_keeps_the_file(tmp_path: Path) -> None:
    path = tmp_path / "reverie.db"
    garbage = b"this is not a database" * 100
    path.write_bytes(garbage)
    with pytest.raises(StorageError, match="not a readable SQLite database"):
        open_engine(path)
    assert path.read_bytes() == garbage


def test_turns_round_trip_in_order_with_tokens(storage: MemoryStore) -> None:
    ana = storage.accounts.create("ana", "correct-horse")
    assert ana.id is not None
    for i in range(6):
        storage.turns.add(ana.id, "t1", "user" if i % 2 == 0 else "assistant", f"message {i}")
    recent = storage.turns.recent(ana.id, "t1", 4)
    assert [t.content for t in recent] == ["message 2", "message 3", "message 4", "message 5"]
    assert all(t.tokens > 0 and t.created_at.tzinfo is not None for t in recent)
    before = storage.turns.recent(ana.id, "t1", 10, before_id=recent[-1].id)
    assert before[-1].content == "message 4"


def test_turns_per_user_separation(storage: MemoryStore) -> None:
    ana = storage.accounts.create("ana", "correct-horse")
    ben = storage.accounts.create("ben", "battery-staple")
    assert ana.id is not None and ben.id is not None
    turn = storage.turns.add(ana.id, "shared-thread-id", "user", "ana's secret")
    storage.turns.add(ben.id, "ben-thread", "user", "ben's note")
    assert storage.turns.recent(ben.id, "shared-thread-id", 10) == []
    assert storage.turns.get(ben.id, turn.id or 0) is None
    assert storage.turns.threads(ben.id) == ["ben-thread"]


def test_accounts_hash_and_check_passwords(storage: MemoryStore) -> None:
    storage.accounts.create("ana", "correct-horse")
    row = storage.accounts.get("ana")
    assert row is not None and "correct-horse" not in row.password_hash
    assert storage.accounts.authenticate("ana", "correct-horse") is not None
    assert storage.accounts.authenticate("ana", "wrong-horse") is None
    assert storage.accounts.authenticate("nobody", "correct-horse") is None
    with pytest.raises(AccountError, match="already exists"):
        storage.accounts.create("ana", "another-pass")
    with pytest.raises(AccountError, match="at least 8"):
        storage.accounts.create("cy", "short")


def test_accounts_resolve_names_the_cli_user_or_refuses_to_guess(storage: MemoryStore) -> None:
    with pytest.raises(LookupError, match="no users yet"):
        storage.accounts.resolve(None)
    ana = storage.accounts.create("ana", "correct-horse")
    assert storage.accounts.resolve(None) == ana.id  # the only user needs no --user
    ben = storage.accounts.create("ben", "correct-horse")
    assert storage.accounts.resolve("ben") == ben.id
    with pytest.raises(LookupError, match=r"--user \(users: ana, ben\)"):  # never silently the first one
        storage.accounts.resolve(None)
    with pytest.raises(LookupError, match="no user named 'cy'"):
        storage.accounts.resolve("cy")


def test_thread_log_posts_into_an_existing_thread_only(both_engines: Engine) -> None:
    """On both backends (`streaming` is a boolean column: PostgreSQL refuses SQLite's 0)."""
    with both_engines.begin() as conn:
        conn.execute(text("INSERT INTO threads (\"id\", \"createdAt\") VALUES ('t1', '2026-01-01T00:00:00Z')"))
    log = ThreadLog(both_engines)
    log.post("t1", "Time to water the plants.")
    log.post("nope", "Nobody reads this.")
    with both_engines.connect() as conn:
        rows = conn.execute(text('SELECT "threadId", "output", "streaming" FROM steps')).all()
    assert [(t, o, bool(s)) for t, o, s in rows] == [("t1", "Time to water the plants.", False)]
