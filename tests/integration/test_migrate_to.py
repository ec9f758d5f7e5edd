"""`reverie migrate-to URL`: an embedded installation (real SQLite, sqlite-vec, Kuzu, MiniLM) copied
into a real PostgreSQL, stopped halfway and resumed, then checked: every table's rows, recall asked
of both with the same answers, the graph, and the server going on where the file stopped."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

from app.cli import main
from app.runtime import dream_config, open_storage
from app.settings import Settings
from dreaming.dream import run_dream
from memory.models import ProposalRow, utcnow
from memory.store import MemoryStore, StorageError, migrate_to
from memory.transfer import SQLITE_ONLY, TABLES
from memory.usage import UsageRecord

from .formation_helpers import form, say, user

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


class Stop(Exception):
    """Stands for the copy being interrupted (Ctrl-C, a lost connection)."""


def _installation(store: MemoryStore) -> tuple[int, int]:
    """Two people with turns, memories (one superseded), entities and relations, a usage row, a dream
    with a proposal, a limit override, a reminder and a Chainlit thread with a message."""
    ana, ben = user(store, "ana"), user(store, "ben")
    for i, line in enumerate(
        ["My sister Rita lives in Braga.", "I work at Globex as a nurse.", "My cat is called Miso.",
         "I live in Lisbon.", "I moved to Porto.", "My brother Tomas plays the cello."]
    ):  # fmt: skip
        say(store, ana, "t1", line, T0 + timedelta(days=i))
    say(store, ben, "b1", "My dog Rex loves the beach at Nazaré.", T0)
    say(store, ben, "b1", "I work at Initech.", T0 + timedelta(days=1))
    form(store)
    rec = UsageRecord(ana, "t1", None, "where do I live", {"vector_limit": 5}, [], [], "policy:question", {"x": 1.0})
    store.usage.record(rec)
    run = run_dream(store, dream_config(_limits(), store, "test"))
    proposal = {"created_at": utcnow(), "dimension": "vector_limit", "bound": "max", "current_value": 15.0,
                "proposed_value": 20.0, "rationale": "clamped at the maximum"}  # fmt: skip
    store.dreams.commit(run.run_id, [ProposalRow.model_validate(proposal)], [])
    store.overrides.add("vector_limit", max_value=12, reason="approved")
    store.reminders.add(ana, "t1", "call Rita", due_at=utcnow() + timedelta(days=2))
    with store.engine.begin() as conn:
        conn.execute(text("INSERT INTO users (id, identifier, metadata) VALUES ('u1', 'ana', '{}')"))
        conn.execute(text("""INSERT INTO threads (id, "userId", name) VALUES ('t1', 'u1', 'Lisbon')"""))
    store.threads.post("t1", "Reminder: call Rita")
    return ana, ben


def _on_pg(tmp_path: Path, url: str) -> Settings:
    return Settings(_env_file=None, data_dir=tmp_path / "pg", llm_backend="embedded", database_url=url)  # pyright: ignore[reportCallIssue]


def _limits() -> Settings:
    return Settings(_env_file=None, llm_backend="embedded")  # pyright: ignore[reportCallIssue]


def test_migrate_to_copies_every_table_the_backends_share(tmp_path: Path) -> None:
    store = open_storage(Settings(_env_file=None, data_dir=tmp_path, llm_backend="embedded"))  # pyright: ignore[reportCallIssue]
    try:
        with store.engine.connect() as conn:
            tables = {str(r[0]) for r in conn.execute(text("SELECT name FROM sqlite_master WHERE type = 'table'"))}
    finally:
        store.close()
    own = {t for t in tables if t.startswith(SQLITE_ONLY)}
    assert tables - own == set(TABLES)  # a new table must be named in TABLES (or be SQLite's own)


def test_migrate_to_round_trip_resumes_and_answers_the_same(tmp_path: Path, pg_url: str) -> None:
    data = tmp_path / "data"
    settings = Settings(_env_file=None, data_dir=data, llm_backend="embedded")  # pyright: ignore[reportCallIssue]
    store = open_storage(settings)
    try:
        ana, ben = _installation(store)
        questions = ["Where do I live?", "Where does my sister live?", "What is my cat called?", "Where do I work?"]
        before = {q: [h.memory.id for h in store.memories.search(ana, q, 5, 0.3)] for q in questions}
        expanded = store.entities.expand(ana, store.entities.named(ana, ["Rita"]), 2)
        with store.engine.connect() as conn:
            counts = {t: conn.execute(text(f"SELECT count(*) FROM {t}")).scalar_one() for t in TABLES}
        embedder = store.embedder
    finally:
        store.close()
    assert counts["memories"] >= 8 and counts["relations"] and counts["proposals"] and counts["steps"]

    seen: list[str] = []

    def stop_in_memories(table: str, done: int, total: int) -> None:
        seen.append(table)
        if table == "memories" and done < total:
            raise Stop  # after the first batch of memories committed

    with pytest.raises(Stop):
        migrate_to(settings.db_path, pg_url, embedder, stop_in_memories, batch=3)
    copied, found = migrate_to(settings.db_path, pg_url, embedder, batch=3)
    assert copied["accounts"] == 0 and copied["turns"] == 0  # finished before the stop: not copied again
    assert copied["memories"] == counts["memories"] - 3  # resumed after the batch that committed
    assert found.counts_match, found.counts
    assert {t: b for t, (_, b) in found.counts.items()} == counts
    assert found.questions >= 8 and found.same_answers == found.questions, found.differing

    on_pg = open_storage(_on_pg(tmp_path, pg_url))
    try:
        after = {q: [h.memory.id for h in on_pg.memories.search(ana, q, 5, 0.3)] for q in questions}
        assert after == before
        assert on_pg.entities.expand(ana, on_pg.entities.named(ana, ["Rita"]), 2) == expanded
        with on_pg.engine.connect() as conn:
            superseded = conn.execute(text("SELECT count(*) FROM memories WHERE superseded_by IS NOT NULL")).scalar()
            vectors = conn.execute(text("SELECT count(*) FROM memories WHERE embedding IS NULL")).scalar()
        assert superseded and vectors == 0
        turn = on_pg.turns.add(ben, "b1", "user", "A new turn after the move.")  # the sequences go on
        assert turn.id == counts["turns"] + 1
        assert [o.max_value for o in on_pg.overrides.active()] == [12]
        assert json.loads(on_pg.dreams.proposals(["pending"])[0].evidence) == {}
    finally:
        on_pg.close()


def test_migrate_to_refuses_a_database_that_holds_another_installation(tmp_path: Path, pg_url: str) -> None:
    on_pg = open_storage(_on_pg(tmp_path, pg_url))
    try:
        on_pg.accounts.create("someone", "correct horse battery")
        embedder = on_pg.embedder
    finally:
        on_pg.close()
    file = open_storage(Settings(_env_file=None, data_dir=tmp_path / "data", llm_backend="embedded"))  # pyright: ignore[reportCallIssue]
    file.close()
    with pytest.raises(StorageError, match="already holds an installation"):
        migrate_to(tmp_path / "data" / "reverie.db", pg_url, embedder)


def test_migrate_to_command_copies_and_says_so(tmp_path: Path, pg_url: str, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    data = tmp_path / "data"
    store = open_storage(Settings(_env_file=None, data_dir=data, llm_backend="embedded"))  # pyright: ignore[reportCallIssue]
    try:
        say(store, user(store, "ana"), "t1", "My sister Rita lives in Braga.", T0)
        form(store)
    finally:
        store.close()
    monkeypatch.setenv("REVERIE_DATA_DIR", str(data))
    monkeypatch.delenv("REVERIE_DATABASE_URL", raising=False)
    assert main(["migrate-to", pg_url]) == 0
    out = capsys.readouterr().out
    assert "accounts: 1 in the file, 1 on the server" in out
    assert re.search(r"recall: (\d+) of \1 questions gave the same answers", out), out
