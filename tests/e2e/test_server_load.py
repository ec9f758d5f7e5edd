"""Issue 8 on the real server over loopback: 20 browser sessions at once, and `kill -9` mid-reply.

A scripted model (tests/e2e/scripted_llm.py) answers, so the tests measure the server, the
socket and the database, not the 135M model's speed.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect, sync_playwright
from sqlalchemy import text

from tests.e2e.scripted_llm import last_user_text, scripted_llm
from tests.e2e.server import (
    CHROMIUM,
    CHROMIUM_ARGS,
    PASSWORD,
    free_port,
    login,
    loopback_only,
    loopback_page,
    ready,
    running_server,
    server_process,
    stored,
    submit,
)

pytestmark = [pytest.mark.e2e]
SHUTDOWN_S = 10.0
"""Issue 16 asks for 5 s; twice that, so a loaded box cannot fail the test, while a hang still does."""
REQUEST = {"context_turns": 4, "vector_limit": 5, "similarity_threshold": 0.5, "triple_depth": 1, "reason": "x"}


def _answer(body: dict[str, Any], content: str) -> str:
    data: dict[str, Any] = {"content": content, "confidence": "high", "follow_ups": []}
    schema = json.dumps({k: v for k, v in body.items() if k != "messages"})
    if '"sources"' in schema:  # the Answer schema has `sources` only when there is something to cite
        data["sources"] = []
    return json.dumps({"result": {"kind": "Answer", "data": data}})


def _echo(body: dict[str, Any]) -> str:
    """Echo the question's token and every user whose tokens reached the prompt (cross-talk shows)."""
    if not body.get("stream"):  # the resource request (and memory formation: unusable → fallback)
        return json.dumps(REQUEST)
    tokens = re.findall(r"token (u\d+s\d+m\d+)", last_user_text(body))
    seen = sorted({t.split("s")[0] for t in tokens})
    return _answer(body, f"Echo {tokens[-1]} seen {' '.join(seen)}" if tokens else "Echo none")


def _seed_users(data_dir: Path, names: list[str]) -> None:
    with stored(data_dir) as store:
        for name in names:
            store.accounts.create(name, PASSWORD)


def test_twenty_browser_sessions_at_once_lose_nothing_and_never_cross(tmp_path: Path) -> None:
    """10 users x 2 sessions each send at the same moment, twice; every reply, turn and step lands."""
    data_dir = tmp_path / "data"
    names = [f"u{i}" for i in range(10)]
    _seed_users(data_dir, names)
    sessions = [(name, k) for name in names for k in range(2)]
    with scripted_llm(_echo) as llm, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            with running_server(data_dir, free_port(), tmp_path / "server.log", "ollama", llm) as url:
                pages: list[Page] = []
                for name, _ in sessions:  # one browser context each: separate cookies, separate sockets
                    page = browser.new_context().new_page()
                    page.route("**/*", loopback_only)
                    login(page, url, name)
                    pages.append(page)
                for m in (1, 2):
                    for page, (name, k) in zip(pages, sessions, strict=True):  # all 20 in flight together
                        submit(page, f"Please echo token {name}s{k}m{m}", timeout=60_000)
                    for page, (name, k) in zip(pages, sessions, strict=True):
                        reply = page.get_by_text(f"Echo {name}s{k}m{m} seen").last
                        expect(reply).to_be_visible(timeout=300_000)
                        seen = re.findall(r"\bu\d+\b", reply.inner_text().split("seen", 1)[1])
                        assert seen == [name], f"{name} session {k} saw another user's words: {seen}"
                        expect(page.locator("#stop-button")).to_have_count(0, timeout=120_000)
        finally:
            browser.close()
    _assert_sessions_stored(data_dir, names)


def _assert_sessions_stored(data_dir: Path, names: list[str]) -> None:
    with stored(data_dir) as store:
        for name in names:
            account = store.accounts.get(name)
            assert account is not None and account.id is not None
            threads = store.turns.threads(account.id)
            assert len(threads) == 2, f"{name}: one thread per session"
            for thread in threads:
                turns = store.turns.recent(account.id, thread, 50)
                assert [t.role for t in turns] == ["user", "assistant"] * 2
                assert all(re.findall(r"\bu\d+", t.content)[:1] in ([name], []) for t in turns)
        with store.engine.connect() as conn:  # Chainlit's own record of the threads, for the sidebar
            rows = conn.execute(text("""SELECT "threadId", count(*) FROM steps WHERE type = 'user_message'
                                        GROUP BY "threadId" """)).all()  # fmt: skip
        per_thread = defaultdict(int, {str(t): int(n) for t, n in rows})
        assert len(per_thread) == 20 and set(per_thread.values()) == {2}, per_thread


def test_kill_9_mid_reply_keeps_the_message_and_retry_answers_it(tmp_path: Path) -> None:
    """SIGKILL while a reply streams; after restart the reopened thread offers Retry and answers."""
    data_dir = tmp_path / "data"
    _seed_users(data_dir, ["tester"])
    question = "Tell me a long story about lighthouses."
    state = {"slow": True}

    def script(body: dict[str, Any]) -> str:
        if not body.get("stream"):
            return json.dumps(REQUEST)
        return _answer(body, "Once upon a time " * 60 if state["slow"] else "Answered after the restart.")

    port, log = free_port(), tmp_path / "server.log"
    with scripted_llm(script, delay=0.3) as llm, loopback_page() as page:
        with _mid_reply(page, data_dir, port, log, llm, question) as proc:
            os.killpg(proc.pid, signal.SIGKILL)  # mid-stream: no reply stored, no clean shutdown
            proc.wait(timeout=30)
        state["slow"] = False
        with running_server(data_dir, port, log, "ollama", llm) as url:
            page.goto(url)
            ready(page)
            thread_link = page.locator("#thread-history a, #thread-history [id^=thread-]").first
            expect(thread_link).to_be_visible(timeout=60_000)
            thread_link.click()
            expect(page.get_by_text(question).first).to_be_visible(timeout=60_000)
            expect(page.get_by_text("Your last message got no reply").last).to_be_visible(timeout=60_000)
            page.get_by_role("button", name="Retry").last.click()
            expect(page.get_by_text("Answered after the restart.").last).to_be_visible(timeout=120_000)
            expect(page.locator("#stop-button")).to_have_count(0, timeout=120_000)
    _assert_answered_once(data_dir, question)


@contextmanager
def _mid_reply(
    page: Page, data_dir: Path, port: int, log: Path, llm: dict[str, str], question: str
) -> Iterator[subprocess.Popen[bytes]]:
    """The server on the scripted model, `question` sent from `page`, its reply streaming ("Once upon a time…")."""
    with server_process(data_dir, port, log, "ollama", llm) as proc:
        login(page, f"http://127.0.0.1:{port}")
        submit(page, question, timeout=60_000)
        expect(page.get_by_text("Once upon a time").last).to_be_visible(timeout=120_000)
        yield proc


def _assert_answered_once(data_dir: Path, question: str) -> None:
    with stored(data_dir) as store:
        with store.engine.connect() as conn:
            assert conn.execute(text("PRAGMA integrity_check")).scalar_one() == "ok"
        account = store.accounts.get("tester")
        assert account is not None and account.id is not None
        (thread,) = store.turns.threads(account.id)
        turns = store.turns.recent(account.id, thread, 50)
        assert [(t.role, t.content) for t in turns] == [
            ("user", question),
            ("assistant", "Answered after the restart."),
        ], "the acknowledged message is kept once, and the retry answered it once"
        assert len(store.usage.recent(account.id)) == 1


def test_sigterm_mid_reply_stops_promptly_and_keeps_the_message(tmp_path: Path) -> None:
    """SIGTERM while a reply streams (the model still generating, a browser connected): the app,
    model child included, is gone within the issue's 5 s (10 s allowed for a loaded box), and the
    person's message is kept for a Retry."""
    data_dir = tmp_path / "data"
    _seed_users(data_dir, ["tester"])
    question = "Tell me a long story about harbours."

    def script(body: dict[str, Any]) -> str:
        if not body.get("stream"):
            return json.dumps(REQUEST)
        return _answer(body, "Once upon a time " * 200)

    port, log = free_port(), tmp_path / "server.log"
    with (
        scripted_llm(script, delay=0.3) as llm,
        loopback_page() as page,
        _mid_reply(page, data_dir, port, log, llm, question) as proc,
    ):
        started = time.monotonic()
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)
        took = time.monotonic() - started
        assert took < SHUTDOWN_S, f"the app took {took:.1f} s to stop after SIGTERM"
        with suppress(ProcessLookupError):
            os.killpg(proc.pid, 0)
            pytest.fail("a process of the app's group outlived it (the model child?)")
    with stored(data_dir) as store:
        account = store.accounts.get("tester")
        assert account is not None and account.id is not None
        (thread,) = store.turns.threads(account.id)
        assert [t.content for t in store.turns.recent(account.id, thread, 50) if t.role == "user"] == [question]
