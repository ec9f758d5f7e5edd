"""/people in the browser: one Ana that is two people is split from her card, and merged back."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect
from sqlalchemy import text

from memory.db.engine import open_engine
from memory.formation.plan import form_turn
from tests.e2e.server import (
    PASSWORD,
    free_port,
    login,
    loopback_page,
    pick_command,
    reverie,
    running_server,
    stored,
    submit,
)

pytestmark = [pytest.mark.e2e]


def _active_anas(data_dir: Path) -> int:
    """How many Anas the running app has stored (SQLite admits a second reader)."""
    engine = open_engine(data_dir / "reverie.db")
    try:
        with engine.connect() as conn:
            sql = "SELECT count(*) FROM entities WHERE name = 'Ana' AND status = 'active'"
            return int(conn.execute(text(sql)).scalar() or 0)
    finally:
        engine.dispose()


def test_people_browser_split_then_merge_back(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    assert reverie(data_dir, "users", "add", "tester", "--password-stdin", stdin=PASSWORD + "\n").returncode == 0
    with stored(data_dir) as store:
        uid = store.accounts.resolve("tester")
        for text in ("My friend Ana lives in Lyon.", "My colleague Ana works at Globex."):  # one Ana to formation
            form_turn(store, uid, store.turns.add(uid, "t", "user", text), None)
        (ana,) = store.entities.namesakes(uid, "Ana")
        work = [f"r{r.id}" for r in store.entities.links(uid, ana.id) if r.predicate in ("HAS_COLLEAGUE", "WORKS_AT")]
    with loopback_page() as page, running_server(data_dir, free_port(), tmp_path / "server.log") as url:
        login(page, url)
        pick_command(page, "people")
        submit(page, "Ana")
        card = page.locator(".ai-message").filter(has_text=f"#{ana.id} Ana (Person)").last
        expect(card).to_be_visible(timeout=60_000)
        card.get_by_role("button", name="Split").click()
        expect(page.get_by_text(f"What of #{ana.id} is someone else's?").last).to_be_visible(timeout=30_000)
        submit(page, " ".join([*work, "colleague"]))
        expect(page.get_by_text(f"Split #{ana.id} in two").last).to_be_visible(timeout=60_000)
        page.screenshot(path=str(tmp_path / "split.png"), full_page=True)
        assert _active_anas(data_dir) == 2
        page.get_by_role("button", name=f"Merge into #{ana.id}").last.click()
        expect(page.get_by_text(f"into #{ana.id}").last).to_be_visible(timeout=60_000)
        page.screenshot(path=str(tmp_path / "merged.png"), full_page=True)
    with stored(data_dir) as store:
        assert [n.roles for n in store.entities.namesakes(uid, "Ana")] == [("friend", "colleague")]
