"""What a person reads in the browser on the real embedded model: remembered across threads, corrected,
"I don't know" when never told, and a context request that fits the message."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from memory.db.engine import open_engine
from memory.formation.queue import FormationQueue
from tests.e2e.server import (
    PASSWORD,
    free_port,
    login,
    loopback_page,
    pick_command,
    ready,
    reverie,
    running_server,
    send,
    stored,
    submit,
)

pytestmark = [pytest.mark.e2e]


def _formed(data_dir: Path, timeout_s: float = 300) -> None:
    """Wait until the running app has formed every queued turn (SQLite admits a second reader)."""
    engine = open_engine(data_dir / "reverie.db")
    try:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            counts = FormationQueue(engine).counts()
            if not counts.get("pending") and not counts.get("running"):
                return
            time.sleep(1)
        pytest.fail(f"formation did not finish: {counts}")
    finally:
        engine.dispose()


def test_memory_browser_answers_across_threads_and_abstains(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    assert reverie(data_dir, "users", "add", "tester", "--password-stdin", stdin=PASSWORD + "\n").returncode == 0
    with loopback_page() as page, running_server(data_dir, free_port(), tmp_path / "server.log") as url:
        login(page, url)
        for text in ("My cat is called Miso.", "My sister Ana lives in Lisbon.", "thanks!",
                     "Actually my sister Ana moved to Porto."):  # fmt: skip
            send(page, text)
        _formed(data_dir)
        page.click("#new-chat-button")
        page.get_by_role("button", name="Confirm").click()  # "Create a new chat?"
        ready(page)
        cat = send(page, "What's my cat's name?")
        sister = send(page, "Where does my sister live?")
        brother = send(page, "What's my brother's name?")
        send(page, "What are my hobbies?")
        page.screenshot(path=str(tmp_path / "second-thread.png"), full_page=True)
    assert "Miso" in cat
    assert "Porto" in sister and "Lisbon" not in sister
    assert "don't know" in brother and not re.search(r"\b(?:Ana|Miso|Porto)\b", brother)
    with stored(data_dir) as store:
        account = store.accounts.get("tester")
        assert account is not None and account.id is not None
        asked = {row.message_excerpt: json.loads(row.request) for row in store.usage.recent(account.id, 20)}
    assert asked["thanks!"]["VECTOR_LIMIT"]["requested"] == 0
    assert asked["What are my hobbies?"]["VECTOR_LIMIT"]["requested"] > 5
    assert asked["thanks!"]["reason"].startswith("policy:ack")


def test_memory_browser_forget_strikes_the_card_and_undo_restores(tmp_path: Path) -> None:
    """/memories, Forget: the card is struck through in place with no buttons left; Undo puts it back;
    and the chat that only ran the command leaves no thread in the history."""
    data_dir = tmp_path / "data"
    with _cat_card(tmp_path, "The user's cat is called Miso.") as (page, url, card):
        card.get_by_role("button", name="Forget").click()
        expect(page.get_by_text("Forgot memory #1").last).to_be_visible(timeout=30_000)
        expect(page.get_by_text("Memory #1").first).to_be_visible()  # the card, struck through
        expect(page.get_by_role("button", name="Edit")).to_have_count(0)
        page.screenshot(path=str(tmp_path / "forgotten.png"), full_page=True)
        page.get_by_role("button", name="Undo").click()
        expect(page.get_by_text("Restored memory #1").last).to_be_visible(timeout=30_000)
        # export as the CLI writes it, then import it back: what is already here is skipped
        _memories_command(page, "export")
        download = page.locator("a", has_text=re.compile(r"reverie-memories-.*\.json")).last
        expect(download).to_be_visible(timeout=30_000)
        exported = tmp_path / "export.json"
        exported.write_bytes(page.request.get(str(download.get_attribute("href"))).body())
        assert json.loads(exported.read_text())["memories"][0]["content"] == "The user's cat is called Miso."
        _memories_command(page, "import", exported)
        expect(page.get_by_text("Imported from export.json: 0 memories").last).to_be_visible(timeout=30_000)
        page.screenshot(path=str(tmp_path / "imported.png"), full_page=True)
        # a chat that only ran a command is not a conversation: the history stays empty
        page.goto(url)
        ready(page)
        expect(page.get_by_text("No threads found")).to_be_visible(timeout=30_000)
        page.screenshot(path=str(tmp_path / "history-after-command.png"), full_page=True)
    with stored(data_dir) as store:
        account = store.accounts.get("tester")
        assert account is not None and account.id is not None
        assert [m.content for m in store.memories.list(account.id, None, "active", 10)] == [
            "The user's cat is called Miso."
        ]


def test_memory_browser_edit_then_send_leaves_the_composer_free(tmp_path: Path) -> None:
    """/memories, Edit, the new text: the card is updated, the composer is free at once (no stop
    button left running), and the next question is answered from the edited memory."""
    with _cat_card(tmp_path, "My cat is called Miso.") as (page, _, card):
        card.get_by_role("button", name="Edit").click()
        expect(page.get_by_text("New text for memory #1").last).to_be_visible(timeout=30_000)
        submit(page, "My cat is called Pixel.")
        expect(page.get_by_text("Updated:").last).to_be_visible(timeout=60_000)
        expect(page.locator("#stop-button")).to_have_count(0, timeout=30_000)
        page.screenshot(path=str(tmp_path / "edited.png"), full_page=True)
        assert "Pixel" in send(page, "What's my cat called?")


@contextmanager
def _cat_card(tmp_path: Path, memory: str) -> Iterator[tuple[Page, str, Locator]]:
    """A user whose one memory is `memory` (about their cat Miso), logged in on a real server, with
    its /memories card shown: the page, the server's URL and the card."""
    data_dir = tmp_path / "data"
    assert reverie(data_dir, "users", "add", "tester", "--password-stdin", stdin=PASSWORD + "\n").returncode == 0
    with stored(data_dir) as store:
        account = store.accounts.get("tester")
        assert account is not None and account.id is not None
        store.memories.add(account.id, "fact", memory)
    with loopback_page() as page, running_server(data_dir, free_port(), tmp_path / "server.log") as url:
        login(page, url)
        _memories_command(page, "cat")
        card = page.locator(".ai-message").filter(has_text="Miso").last
        expect(card).to_be_visible(timeout=60_000)
        yield page, url, card


def _memories_command(page: Page, text: str, attached: Path | None = None) -> None:
    """Pick /memories from the composer's command menu and send `text` with it (and a file)."""
    pick_command(page, "memories")
    if attached is not None:
        page.locator("input[type=file]").first.set_input_files(str(attached))
        expect(page.get_by_text(attached.name).first).to_be_visible(timeout=30_000)  # uploaded
    submit(page, text)
