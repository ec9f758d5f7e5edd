"""`reverie graph rebuild`, the fix a corrupt graph's error names, regenerates it from SQLite."""

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
