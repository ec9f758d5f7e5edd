"""`reverie memories …` in-process on a real data directory (REVERIE_DATA_DIR in tmp_path)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from app.cli import main
from app.runtime import open_storage
from app.settings import Settings

from .formation_helpers import form, say, user

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


pytestmark = pytest.mark.both_backends


@pytest.fixture
def data_dir(settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two users with formed memories; the CLI reads the same directory (and database) from the environment."""
    data = settings.data_dir
    monkeypatch.setenv("REVERIE_DATA_DIR", str(data))
    monkeypatch.setenv("REVERIE_DATABASE_URL", settings.database_url)
    monkeypatch.chdir(tmp_path)  # no stray .env
    store = open_storage(settings)
    ada, bob = user(store, "ada"), user(store, "bob")
    say(store, ada, "t1", "my sister Ana moved to Porto last spring", T0)
    say(store, bob, "t2", "I work at Globex.", T0)
    form(store)
    store.close()
    return data


def test_memories_cli_list_is_scoped_to_the_user(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["memories", "list"]) == 2  # two users: the CLI never guesses whose memory
    assert "--user (users: ada, bob)" in capsys.readouterr().err
    assert main(["memories", "list", "--user", "ada"]) == 0
    out = capsys.readouterr().out
    assert "Porto" in out and "Globex" not in out and "2025-03-01" in out
    assert main(["memories", "list", "--user", "bob"]) == 0
    out = capsys.readouterr().out
    assert "Globex" in out and "Porto" not in out


def test_memories_cli_search_edit_forget(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["memories", "search", "where does my sister live", "--threshold", "0.3", "--user", "ada"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    memory_id = first.split("\t")[1].lstrip("#")
    assert main(["memories", "search", "sister", "--user", "bob", "--threshold", "0"]) == 0
    assert "Porto" not in capsys.readouterr().out
    assert main(["memories", "forget", memory_id, "--user", "bob"]) == 1  # not bob's
    assert main(["memories", "edit", memory_id, "My sister Ana lives in Braga.", "--user", "ada"]) == 0
    assert "Braga" in capsys.readouterr().out
    assert main(["memories", "forget", memory_id, "--user", "ada"]) == 0
    assert "forgot memories" in capsys.readouterr().out
    assert main(["memories", "list", "--all", "--user", "ada"]) == 0
    assert "Braga" not in capsys.readouterr().out


def test_memories_cli_export_import_round_trip(
    data_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "ada.json"
    assert main(["memories", "export", str(target), "--user", "ada"]) == 0
    doc = json.loads(target.read_text())
    assert doc["format"] == "reverie-memories/1" and doc["memories"]
    assert main(["memories", "import", str(target), "--user", "bob"]) == 0
    assert f"imported {len(doc['memories'])} memories" in capsys.readouterr().out
    assert main(["memories", "list", "--user", "bob"]) == 0
    assert "Porto" in capsys.readouterr().out


def test_memories_cli_errors_are_messages(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["memories", "list", "--user", "nobody"]) == 2
    assert "no user named 'nobody'" in capsys.readouterr().err
    assert main(["memories", "import", "/nonexistent.json", "--user", "ada"]) == 2
