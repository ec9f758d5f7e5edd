"""`reverie graph rebuild`, the fix a corrupt graph's error names, regenerates it from SQLite (on PostgreSQL
there is nothing to regenerate)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app.cli import main
from app.runtime import open_storage
from app.settings import Settings


def test_graph_cli_rebuild_restores_the_projection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    settings = Settings(_env_file=None, data_dir=tmp_path / "data")  # pyright: ignore[reportCallIssue]
    store = open_storage(settings)
    uid = store.accounts.create("ana", "correct-horse").id
    assert uid is not None
    ana = store.entities.upsert_entity(uid, "Ana", "Person")
    porto = store.entities.upsert_entity(uid, "Porto", "Location")
    assert ana.id and porto.id
    store.entities.add_relation(uid, ana.id, "LIVES_IN", porto.id)
    store.close()
    shutil.rmtree(settings.graph_dir)  # "move it aside": the projection is gone, SQLite is not
    monkeypatch.setenv("REVERIE_DATA_DIR", str(settings.data_dir))
    assert main(["graph", "rebuild"]) == 0
    assert "2 entities, 1 relations" in capsys.readouterr().out
    store = open_storage(settings)
    try:
        assert {n.name for n in store.entities.expand(uid, [ana.id], 1).nodes} == {"Ana", "Porto"}
    finally:
        store.close()


def test_graph_cli_rebuild_on_postgresql_has_nothing_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], pg_url: str
) -> None:
    """There the graph is its tables (memory/graph/sql_graph.py): no Kuzu directory, nothing to rebuild."""
    settings = Settings(_env_file=None, data_dir=tmp_path / "data", database_url=pg_url)  # pyright: ignore[reportCallIssue]
    monkeypatch.setenv("REVERIE_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("REVERIE_DATABASE_URL", pg_url)
    assert main(["graph", "rebuild"]) == 0
    assert "nothing to rebuild on PostgreSQL: the graph is its tables (0 entities" in capsys.readouterr().out
    assert not settings.graph_dir.exists()
