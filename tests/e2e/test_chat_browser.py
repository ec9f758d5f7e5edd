"""The walking skeleton end to end: real server, real embedded model, real headless Chromium; on the
SQLite file and on PostgreSQL (the server, the CLI and Chainlit's threads all on one test database)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, WebSocket, expect

from app.settings import Settings
from tests.e2e.server import (
    OFF_MACHINE,
    PASSWORD,
    WELCOME_START,
    free_port,
    login,
    loopback_page,
    ready,
    reverie,
    running_server,
    send,
    stored,
)

pytestmark = [pytest.mark.e2e, pytest.mark.both_backends]  # (backends: tests/conftest.py)


def test_chat_browser_login_stream_resume_after_restart(tmp_path: Path, settings: Settings) -> None:
    data_dir, database = settings.data_dir, {"REVERIE_DATABASE_URL": settings.database_url}
    created = reverie(data_dir, "users", "add", "tester", "--password-stdin", stdin=PASSWORD + "\n", env=database)
    assert created.returncode == 0, created.stderr
    port = free_port()
    log = tmp_path / "server.log"
    stream_frames: list[str] = []

    def watch(ws: WebSocket) -> None:
        ws.on("framereceived", lambda f: stream_frames.append(f) if "stream_token" in str(f) else None)

    with loopback_page() as page:
        page.on("websocket", watch)
        OFF_MACHINE.clear()
        with running_server(data_dir, port, log, env=database) as url:
            page.goto(url + "/login")
            expect(page.get_by_text("User name")).to_be_visible(timeout=60_000)
            page.screenshot(path=str(tmp_path / "login.png"), full_page=True)
            login(page, url)
            # A first run says what Reverie does; the page shows Reverie's name, not Chainlit's.
            expect(page.get_by_text(WELCOME_START)).to_be_visible(timeout=60_000)
            assert page.title() == "Reverie"
            assert "Chainlit" not in page.locator("body").inner_text()
            page.screenshot(path=str(tmp_path / "welcome.png"), full_page=True)
            send(page, "Hello! My name is Ana and I live in Porto.")
            assert len(stream_frames) >= 2, "the reply was not streamed token by token"
            send(page, "What did I just tell you?")
            _open_context_step(page, tmp_path)
        with running_server(data_dir, port, log, env=database) as url:
            page.goto(url)
            ready(page)
            thread_link = page.locator("#thread-history a, #thread-history [id^=thread-]").first
            expect(thread_link).to_be_visible(timeout=60_000)
            thread_link.click()
            # The resumed thread shows the earlier conversation, then continues it.
            expect(page.get_by_text("What did I just tell you?").first).to_be_visible(timeout=60_000)
            ready(page)
            send(page, "Thanks, one more question: what is my name?")
            follow_up = page.get_by_role("button", name="What else do you know about").last
            expect(follow_up).to_be_visible(timeout=30_000)
            page.screenshot(path=str(tmp_path / "resumed-thread.png"), full_page=True)
            # After a reload the thread renders as it did live: the reply's follow-up buttons too.
            page.reload()
            ready(page)
            page.locator("#thread-history a, #thread-history [id^=thread-]").first.click()
            expect(page.get_by_text("what is my name?").first).to_be_visible(timeout=60_000)
            expect(page.get_by_role("button", name="What else do you know about").last).to_be_visible(timeout=30_000)
            page.screenshot(path=str(tmp_path / "reloaded-thread.png"), full_page=True)
    assert OFF_MACHINE == [], "the page asked for something off this machine"
    _assert_turns_stored(data_dir, settings.database_url)


def _open_context_step(page: Page, tmp_path: Path) -> None:
    """Each reply has a collapsible step with the request, the provided values and the report."""
    step = page.locator(".step").filter(has_text="Context").last
    expect(step).to_be_visible(timeout=30_000)
    step.get_by_text("Context").first.click()
    expect(page.get_by_text("CONTEXT_TURNS").last).to_be_visible(timeout=30_000)
    expect(page.get_by_text("SYSTEM_EXECUTION_REPORT").last).to_be_visible(timeout=30_000)
    page.screenshot(path=str(tmp_path / "context-step.png"), full_page=True)


def _assert_turns_stored(data_dir: Path, database_url: str) -> None:
    with stored(data_dir, database_url) as store:
        account = store.accounts.get("tester")
        assert account is not None and account.id is not None
        threads = store.turns.threads(account.id)
        assert len(threads) == 1, "the resumed conversation must continue the same thread"
        turns = store.turns.recent(account.id, threads[0], 50)
        assert [t.role for t in turns] == ["user", "assistant"] * 3
        assert turns[0].content.startswith("Hello! My name is Ana")
