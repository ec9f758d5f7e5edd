"""Broken environments at start-up: each gives a message naming the fix and destroys nothing.

Locks are held by real second processes. The read-only directory and the full disk are real
small tmpfs mounts (root only; skipped elsewhere): as root, file permissions would not stop a
write, so `chmod` cannot simulate them.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import text

from app.cli import cmd_limits, cmd_reindex, cmd_users
from app.cli_memories import cmd_memories
from app.runtime import open_storage
from app.settings import Settings
from memory.db.engine import StorageError
from memory.graph import kuzu_graph as graph_module
from memory.graph.kuzu_graph import GraphLockedError
from memory.recall.embedder import Embedder, EmbedderUnavailable, EmbeddingIndexMismatch

HOLD_SQLITE = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("PRAGMA locking_mode=EXCLUSIVE")
conn.execute("BEGIN EXCLUSIVE")
print("ready", flush=True)
time.sleep(120)
"""
HOLD_KUZU = """
import sys, time, kuzu
db = kuzu.Database(sys.argv[1])
print("ready", flush=True)
time.sleep(120)
"""
# A Reverie process with its stores open, as `reverie run` or `reverie chat` has them.
OPEN_REVERIE = """
import sys, time
from pathlib import Path
from app.runtime import open_storage
from app.settings import Settings
store = open_storage(Settings(_env_file=None, data_dir=Path(sys.argv[1])))
print("ready", flush=True)
time.sleep(120)
"""


def _settings(data: Path) -> Settings:
    return Settings(_env_file=None, data_dir=data, llm_backend="embedded")  # pyright: ignore[reportCallIssue]


def _seed(data: Path) -> None:
    """A real installation with one user, a turn, a memory and an entity; closed cleanly."""
    store = open_storage(_settings(data))
    uid = store.accounts.create("ana", "correct-horse").id or 0
    store.turns.add(uid, "t", "user", "I live in Porto")
    store.memories.add(uid, "fact", "Ana lives in Porto")
    store.entities.upsert_entity(uid, "Porto", "Location")
    store.close()


def _digest(data: Path) -> dict[str, str]:
    """Content hashes of every durable file (WAL/SHM side files come and go with connections)."""
    files = [p for p in data.rglob("*") if p.is_file() and not p.name.endswith(("-wal", "-shm", ".lock"))]
    return {str(p.relative_to(data)): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


@contextmanager
def _holder(script: str, target: Path) -> Iterator[subprocess.Popen[str]]:
    proc = subprocess.Popen([sys.executable, "-c", script, str(target)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
        yield proc
    finally:
        proc.kill()
        proc.wait(timeout=30)


@contextmanager
def _tmpfs(where: Path, size: str) -> Iterator[Path]:
    where.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)], capture_output=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def test_faults_database_locked_by_another_process(tmp_path: Path) -> None:
    data = tmp_path / "data"
    _seed(data)
    before = _digest(data)
    with _holder(HOLD_SQLITE, data / "reverie.db"), pytest.raises(StorageError) as err:
        open_storage(_settings(data))
    assert "locked by another process" in str(err.value) and "Stop the other Reverie process" in str(err.value)
    assert _digest(data) == before


def test_a_new_connection_waits_out_a_file_another_process_is_setting_up() -> None:
    """Switching to WAL can fail at once with "database is locked", busy timeout or not, while another process
    creates or migrates the file (CI, 2026-11-29: one of two processes started together on one new file
    died with StorageError). A connection retries its pragmas for a while, then gives up with the error."""
    import sqlean

    from memory.db.engine import _pragmas  # pyright: ignore[reportPrivateUsage]

    locked = sqlean.dbapi2.OperationalError  # pyright: ignore[reportAttributeAccessIssue]

    class Cursor:
        def __init__(self, locked: int) -> None:
            self.locked, self.done = locked, list[str]()

        def execute(self, sql: str) -> None:
            if "journal_mode" in sql and self.locked:
                self.locked -= 1
                raise locked("database is locked")
            self.done.append(sql)

    cursor = Cursor(locked=3)
    _pragmas(cursor)
    assert "PRAGMA journal_mode=WAL" in cursor.done and len(cursor.done) == 5
    with pytest.raises(locked, match="locked"):
        _pragmas(Cursor(locked=3), wait_s=0.0)


def test_faults_corrupt_sqlite_file_is_left_alone(tmp_path: Path) -> None:
    data = tmp_path / "data"
    _seed(data)
    db = data / "reverie.db"
    db.write_bytes(b"this is not SQLite " * 64 + db.read_bytes()[1200:])
    before = _digest(data)
    with pytest.raises(StorageError) as err:
        open_storage(_settings(data))
    assert "not a readable SQLite database" in str(err.value) and "Restore it from a backup" in str(err.value)
    assert "nothing has been deleted" in str(err.value)
    assert _digest(data) == before


def test_faults_graph_kept_by_another_process_past_the_wait(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reverie's processes take the graph in turns; one that never lets go is named after the wait."""
    data = tmp_path / "data"
    _seed(data)
    before = _digest(data)
    monkeypatch.setattr(graph_module, "GRAPH_WAIT_S", 0.5)
    with _holder(HOLD_KUZU, data / "graph" / "graph.kuzu"), pytest.raises(GraphLockedError) as err:
        open_storage(_settings(data))
    assert "has kept" in str(err.value) and "Try again when it is done" in str(err.value)
    assert _digest(data) == before
    store = open_storage(_settings(data))  # once the other process is gone, everything is there
    try:
        assert store.graph.count() == (1, 0)
    finally:
        store.close()


def test_faults_cli_reads_and_changes_beside_a_running_reverie(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Reads go straight to SQLite; a change takes its turn at the graph: neither waits for the app to stop."""
    data = tmp_path / "data"
    _seed(data)
    settings = _settings(data)
    search = {"query": "Ana lives in Porto", "limit": 5, "threshold": 0.0}
    reads = {"list": {}, "search": search, "export": {"file": "-"}}
    common = {"user": None, "kind": None, "all": False, "limit": 50}
    with _holder(OPEN_REVERIE, data):
        assert cmd_limits(settings, argparse.Namespace(action="show")) == 0
        assert "CONTEXT_TURNS" in capsys.readouterr().out
        assert cmd_users(settings, argparse.Namespace(action="list")) == 0
        assert "ana" in capsys.readouterr().out
        for action, extra in reads.items():
            args = argparse.Namespace(action=action, **common | extra)
            assert cmd_memories(settings, args) == 0, action
            assert "Porto" in capsys.readouterr().out, action
        forget = argparse.Namespace(action="forget", user=None, id=1)
        assert cmd_memories(settings, forget) == 0
        assert "forgot memories [1]" in capsys.readouterr().out


def test_faults_a_change_waits_its_turn_while_the_graph_is_in_use(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    """A change finding the graph in use says it waits, then runs when the other process is done."""
    data = tmp_path / "data"
    _seed(data)
    settings = _settings(data)
    with _holder(HOLD_KUZU, data / "graph" / "graph.kuzu") as holder:
        forget = argparse.Namespace(action="forget", user=None, id=1)
        codes: list[int] = []
        worker = threading.Thread(target=lambda: codes.append(cmd_memories(settings, forget)))
        worker.start()
        deadline = time.monotonic() + 60
        while "waiting for another Reverie process" not in caplog.text and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "waiting for another Reverie process" in caplog.text and not codes
        holder.kill()
        worker.join(timeout=60)
    assert codes == [0]
    assert "forgot memories [1]" in capsys.readouterr().out


def test_faults_mismatched_embedding_meta(tmp_path: Path) -> None:
    data = tmp_path / "data"
    _seed(data)
    store = open_storage(_settings(data))
    with store.engine.begin() as conn:
        conn.execute(text("UPDATE meta SET value = 'intfloat/e5-large' WHERE key = 'embedding_model'"))
    store.close()
    before = _digest(data)
    with pytest.raises(EmbeddingIndexMismatch) as err:
        open_storage(_settings(data))
    assert "Set the embedder back" in str(err.value) and "`reverie reindex`" in str(err.value)
    assert _digest(data) == before


def test_faults_reindex_refused_while_another_process_has_the_stores_open(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A running app would go on writing the old model's vectors: reindex runs alone."""
    data = tmp_path / "data"
    _seed(data)
    with _holder(OPEN_REVERIE, data):
        before = _digest(data)  # (the other process's own start may checkpoint the graph file)
        assert cmd_reindex(_settings(data), argparse.Namespace()) == 2
        assert _digest(data) == before
    assert "Reverie is running" in capsys.readouterr().err
    assert cmd_reindex(_settings(data), argparse.Namespace()) == 0


def test_faults_missing_embedder_files(tmp_path: Path) -> None:
    empty = tmp_path / "no-model"
    empty.mkdir()
    with pytest.raises(EmbedderUnavailable) as err:
        Embedder(model_dir=empty).embed(["hello"])
    assert "model.safetensors" in str(err.value) and "bash .ci/setup" in str(err.value)
    (empty / "model.safetensors").write_bytes(b"garbage")
    (empty / "tokenizer.json").write_text("{")
    with pytest.raises(EmbedderUnavailable) as err:
        Embedder(model_dir=empty).embed(["hello"])
    assert "cannot read the embedding model" in str(err.value) and "bash .ci/setup" in str(err.value)


def test_faults_read_only_data_directory(tmp_path: Path) -> None:
    with _tmpfs(tmp_path / "ro", "64m") as mount:
        data = mount / "data"
        _seed(data)
        before = _digest(data)
        subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
        with pytest.raises(StorageError) as err:
            open_storage(_settings(data))
        assert "Check the permissions of REVERIE_DATA_DIR" in str(err.value)
        assert _digest(data) == before


def test_faults_disk_full_at_start_up(tmp_path: Path) -> None:
    with _tmpfs(tmp_path / "full", "4m") as mount:
        data = mount / "data"
        data.mkdir()
        filler = mount / "filler"
        with filler.open("wb") as fh, pytest.raises(OSError):
            while True:  # fill the tiny disk to the last block
                fh.write(b"\0" * 65536)
        with pytest.raises(StorageError) as err:
            open_storage(_settings(data))
        assert "full" in str(err.value) and "Free some space" in str(err.value)


def test_faults_a_store_knows_whether_another_reverie_process_is_open(tmp_path: Path) -> None:
    """Formation requeues every `running` job only when no other process may be forming one."""
    data = tmp_path / "data"
    _seed(data)
    store = open_storage(_settings(data))
    try:
        assert store.alone()
        with _holder(OPEN_REVERIE, data):
            assert not store.alone()
        assert store.alone()
        assert cmd_reindex(_settings(data), argparse.Namespace()) == 2  # asking kept this process's share
    finally:
        store.close()
