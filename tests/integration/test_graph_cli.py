"""`reverie graph rebuild`, the fix a corrupt graph's error names, regenerates it from SQLite (on PostgreSQL
there is nothing to regenerate: the graph is its tables). Each test on both backends (tests/conftest.py)."""

from __future__ import annotations

import shutil

import pytest

from app.cli import main
from app.runtime import open_storage
from app.settings import Settings

pytestmark = pytest.mark.both_backends


def test_graph_cli_rebuild_leaves_the_graph_answering(
    settings: Settings, backend: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """On SQLite the Kuzu projection is moved aside and rebuilt; on PostgreSQL there is no projection
    (memory/graph/sql_graph.py) and the same command says so. Either way the graph then answers."""
    store = open_storage(settings)
    uid = store.accounts.create("ana", "correct-horse").id
    assert uid is not None
    ana = store.entities.upsert_entity(uid, "Ana", "Person")
    porto = store.entities.upsert_entity(uid, "Porto", "Location")
    assert ana.id and porto.id
    store.entities.add_relation(uid, ana.id, "LIVES_IN", porto.id)
    store.close()
    if backend == "sqlite":
        shutil.rmtree(settings.graph_dir)  # "move it aside": the projection is gone, SQLite is not
    monkeypatch.setenv("REVERIE_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("REVERIE_DATABASE_URL", settings.database_url)
    assert main(["graph", "rebuild"]) == 0
    said = {
        "sqlite": "graph rebuilt from SQLite: 2 entities, 1 relations",
        "postgresql": "nothing to rebuild on PostgreSQL: the graph is its tables (2 entities, 1 relations)",
    }
    assert said[backend] in capsys.readouterr().out
    assert settings.graph_dir.exists() == (backend == "sqlite")  # PostgreSQL never makes a Kuzu directory
    store = open_storage(settings)
    try:
        assert {n.name for n in store.entities.expand(uid, [ana.id], 1).nodes} == {"Ana", "Porto"}
    finally:
        store.close()
