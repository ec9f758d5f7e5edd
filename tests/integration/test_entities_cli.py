"""`reverie entities show|merge|split` in-process on a real data directory (REVERIE_DATA_DIR in tmp_path)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from app.cli import main
from app.runtime import open_storage
from app.settings import Settings
from memory.store import MemoryStore

from .formation_helpers import form, say, user

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)


pytestmark = pytest.mark.both_backends


@pytest.fixture
def settings_env(settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """One Ana as formation sees her (a friend may be a colleague), and bob, who told nothing of her;
    the CLI reads the same directory (and database) from the environment."""
    monkeypatch.setenv("REVERIE_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("REVERIE_DATABASE_URL", settings.database_url)
    monkeypatch.chdir(tmp_path)  # no stray .env
    store = open_storage(settings)
    ada = user(store, "ada")
    user(store, "bob")
    told = ["My friend Ana lives in Lyon.", "My colleague Ana works at Globex.", "Ana loves jazz."]
    for day, text in enumerate(told):
        say(store, ada, "t1", text, T0 + timedelta(days=day))
    form(store)
    store.close()
    return settings


def _ana(store: MemoryStore, uid: int) -> list[tuple[int, tuple[str, ...], set[str]]]:
    """Each Ana: id, roles, and the names the graph projection (Kuzu) links her to."""
    found = []
    for n in store.entities.namesakes(uid, "Ana"):
        linked = {node.name for node in store.entities.expand(uid, [n.id], 1).nodes} - {"Ana"}
        found.append((n.id, n.roles, linked))
    return found


def test_entities_cli_split_then_merge_undoes_it(settings_env: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["entities", "show", "Ana", "--user", "ada"]) == 0
    shown = capsys.readouterr().out
    assert "— your friend, colleague, works at Globex" in shown and "r4  Ana WORKS_AT Globex" in shown
    store = open_storage(settings_env)
    uid = store.accounts.resolve("ada")
    ((ana, _, before),) = _ana(store, uid)
    colleague = [r.id for r in store.entities.links(uid, ana) if r.predicate in ("HAS_COLLEAGUE", "WORKS_AT")]
    store.close()
    assert before == {"User", "Lyon", "Globex", "jazz"}

    relations = [arg for r in colleague for arg in ("--relation", str(r))]
    assert main(["entities", "split", str(ana), *relations, "--alias", "colleague", "--user", "bob"]) == 1  # not bob's
    capsys.readouterr()
    assert main(["entities", "split", str(ana), *relations, "--alias", "colleague", "--user", "ada"]) == 0
    assert "the new entity is #" in capsys.readouterr().out
    store = open_storage(settings_env)
    split = _ana(store, uid)
    assert [(roles, linked) for _, roles, linked in split] == [
        (("friend",), {"User", "Lyon", "jazz"}),
        (("colleague",), {"User", "Globex"}),
    ]
    new = split[1][0]
    assert store.entities.apart(uid) == {(ana, new)}  # the dream's consolidation leaves them two
    store.close()

    assert main(["entities", "merge", str(ana), str(new), "--user", "ada"]) == 0
    assert "merged #" in capsys.readouterr().out
    store = open_storage(settings_env)
    assert _ana(store, uid) == [(ana, ("friend", "colleague"), before)]
    assert store.entities.apart(uid) == set()
    store.close()


def test_entities_cli_refuses_what_is_not_the_entitys(
    settings_env: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    store = open_storage(settings_env)
    uid = store.accounts.resolve("ada")
    ((ana, _, _),) = _ana(store, uid)
    lyon = store.entities.namesakes(uid, "Lyon")[0].id
    store.close()
    assert main(["entities", "split", str(ana), "--user", "ada"]) == 2
    assert "choose the relations" in capsys.readouterr().err
    assert main(["entities", "split", str(ana), "--alias", "sister", "--user", "ada"]) == 2
    assert "not an alias" in capsys.readouterr().err
    assert main(["entities", "split", str(lyon), "--relation", "999", "--user", "ada"]) == 2
    assert main(["entities", "merge", str(ana), str(ana), "--user", "ada"]) == 2
    assert main(["entities", "show", "Zed", "--user", "ada"]) == 1
