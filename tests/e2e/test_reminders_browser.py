"""Reminders in the real UI: asked for in words, confirmed at the local time, listed by `/reminders`
(the person's own only) and cancelled with its button, so it is never delivered."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from memory.models import utcnow
from memory.reminders import ReminderStore
from tests.e2e.server import (
    PASSWORD,
    free_port,
    login,
    loopback_page,
    pick_command,
    reverie,
    running_server,
    send,
    stored,
    submit,
)

pytestmark = [pytest.mark.e2e]


def _reminders_command(page: Page) -> None:
    pick_command(page, "reminders")
    submit(page, "list")


def test_reminders_browser_set_list_and_cancel(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    assert reverie(data_dir, "users", "add", "tester", "--password-stdin", stdin=PASSWORD + "\n").returncode == 0
    with stored(data_dir) as store:  # someone else's reminder: never shown to the tester
        other = store.accounts.create("other", "another-password-1")
        assert other.id is not None
        soon = utcnow() + timedelta(days=2)
        ReminderStore(store.engine).add(other.id, "elsewhere", "feed the neighbour's cat", due_at=soon)
    env = {"REVERIE_TIMEZONE": "Europe/Lisbon"}
    with loopback_page() as page, running_server(data_dir, free_port(), tmp_path / "server.log", env=env) as url:
        login(page, url)
        reply = send(page, "Remind me tomorrow at 9 to call the vet")
        assert reply.startswith("Reminder set for tomorrow, ") and "at 09:00: call the vet." in reply
        _reminders_command(page)
        card = page.locator(".ai-message").filter(has_text="call the vet").filter(has_text="#").last
        expect(card).to_be_visible(timeout=60_000)
        expect(card).to_contain_text("tomorrow, ")
        expect(card).to_contain_text("at 09:00")
        expect(page.get_by_text("Europe/Lisbon time").last).to_be_visible()
        expect(page.get_by_text("feed the neighbour's cat")).to_have_count(0)
        page.screenshot(path=str(tmp_path / "reminders.png"), full_page=True)
        card.get_by_role("button", name="Cancel").click()
        expect(page.get_by_text("Cancelled reminder #2").last).to_be_visible(timeout=30_000)
        expect(page.get_by_role("button", name="Cancel")).to_have_count(0)
        page.screenshot(path=str(tmp_path / "cancelled.png"), full_page=True)
    with stored(data_dir) as store:
        tester = store.accounts.get("tester")
        assert tester is not None and tester.id is not None and other.id is not None
        reminders = ReminderStore(store.engine)
        assert reminders.pending(tester.id) == []
        assert [r.text for r in reminders.pending(other.id)] == ["feed the neighbour's cat"]
        assert [r.text for r in reminders.due(utcnow() + timedelta(days=3))] == ["feed the neighbour's cat"]
