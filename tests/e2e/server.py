"""Start the real `reverie run` server in a subprocess and drive it with headless Chromium."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlparse

import pytest
from playwright.sync_api import Page, expect, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeout

if TYPE_CHECKING:
    from memory.store import MemoryStore

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PASSWORD = "e2e-password-123"
WELCOME_START = "Hi, I'm Reverie"
"""How the first-run welcome (app/ui.py WELCOME) begins."""


def free_port() -> int:
    """A free loopback TCP port."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def reverie_env(data_dir: Path, backend: str = "embedded", extra: dict[str, str] | None = None) -> dict[str, str]:
    """Environment for a Reverie subprocess (the embedded model by default), data under `data_dir`."""
    env = dict(os.environ)
    env.update({"REVERIE_DATA_DIR": str(data_dir), "REVERIE_LLM_BACKEND": backend, **(extra or {})})
    return env


def reverie(
    data_dir: Path, *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a `reverie` CLI command to completion (`env` adds variables, e.g. REVERIE_DATABASE_URL)."""
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        env=reverie_env(data_dir, extra=env),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@contextmanager
def running_server(
    data_dir: Path, port: int, log: Path, backend: str = "embedded", env: dict[str, str] | None = None
) -> Iterator[str]:
    """`reverie run` on 127.0.0.1:`port` until the block ends; yields the base URL."""
    with server_process(data_dir, port, log, backend, env):
        yield f"http://127.0.0.1:{port}"


@contextmanager
def server_process(
    data_dir: Path, port: int, log: Path, backend: str = "embedded", env: dict[str, str] | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """`reverie run` on 127.0.0.1:`port`, ready; yields the process (its own process group).

    `env` adds variables for the server only (e.g. the scripted model's OLLAMA_HOST).
    """
    with log.open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "app.cli", "run", "--port", str(port)],
            env=reverie_env(data_dir, backend, env),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            _wait_ready(f"http://127.0.0.1:{port}", proc, log)
            yield proc
        finally:
            with suppress(ProcessLookupError):  # a test may have killed it already
                os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def _wait_ready(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"server exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url + "/", timeout=2):
                return
        except OSError:
            time.sleep(0.5)
    pytest.fail(f"server not ready in 180 s:\n{log.read_text()[-3000:]}")


def loopback_only(route: object) -> None:
    """Playwright route handler: abort every request that is not to loopback (CDN fonts…)."""
    request = route.request  # type: ignore[attr-defined]
    host = urlparse(request.url).hostname or ""
    if host in ("127.0.0.1", "localhost", "::1"):
        route.continue_()  # type: ignore[attr-defined]
    else:
        OFF_MACHINE.append(request.url)
        route.abort()  # type: ignore[attr-defined]


OFF_MACHINE: list[str] = []
"""Every request `loopback_only` aborted, in this test process: the page must make none."""


@contextmanager
def loopback_page() -> Iterator[Page]:
    """Debian's headless Chromium with one page that may reach loopback only (`loopback_only`);
    the browser is closed after the block."""
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.route("**/*", loopback_only)
            yield page
        finally:
            browser.close()


def login(page: Page, url: str, user: str = "tester") -> None:
    """Sign in through the login form and wait until the chat can take a message."""
    page.goto(url + "/login")
    page.fill("#email", user)
    page.fill("#password", PASSWORD)
    page.click("button[type=submit]")
    ready(page)


def ready(page: Page) -> None:
    """Wait for the chat input; a message typed before the socket is up is dropped (STACK-NOTES).
    Then for the commands ("Tools"), which the app publishes last when a chat starts: a welcome or
    morning summary sent before them cannot reset the composer under the typing."""
    page.wait_for_load_state("networkidle")
    expect(page.locator("#chat-input")).to_be_visible(timeout=60_000)
    expect(page.get_by_text("Tools", exact=True)).to_be_visible(timeout=60_000)


def pick_command(page: Page, name: str, tries: int = 4) -> None:
    """Pick the command `name` from the composer's command menu, once no run is going.

    The menu's items are rendered again while the page settles after a reply: on a loaded 2-core box an
    item was detached under the click for the whole 30 s (the reminders test, twenty-first session), so
    the menu is closed and opened again until the click lands.
    """
    expect(page.locator("#stop-button")).to_have_count(0, timeout=420_000)
    for attempt in range(tries):
        try:
            page.locator("#command-button").click(timeout=10_000)
            page.locator("#command-popover").get_by_text(name, exact=True).first.click(timeout=10_000)
            return
        except PlaywrightTimeout:
            if attempt == tries - 1:
                raise
            page.keyboard.press("Escape")


def submit(page: Page, text: str, timeout: float = 30_000) -> None:
    """Type `text` into the composer and send it once the send button is enabled.

    As a person would, it waits until no run is going before typing: text typed while the last
    reply was still being finished was sometimes lost, leaving the send button disabled (about one
    run in five of the memory browser test).
    """
    expect(page.locator("#stop-button")).to_have_count(0, timeout=420_000)
    for attempt in range(3):  # the composer may be reset under the typing (a late welcome): type again
        page.fill("#chat-input", text)
        try:
            expect(page.locator("#chat-submit")).to_be_enabled(timeout=timeout / 3)
            page.click("#chat-submit", timeout=timeout / 3)
            return
        except (AssertionError, PlaywrightTimeout):
            if attempt == 2:
                raise


def send(page: Page, text: str) -> str:
    """Send `text`, wait until the whole reply has arrived, and return the reply's text.

    Generous waits: on a loaded 2-core box the 135M model can drop to a few tokens/s (tests assert
    behaviour, not speed). The reply is the last assistant message that is not a step (the Context
    step, an info round's "Looked further in memory"), which Chainlit may render after it.
    """
    # The first-run welcome may arrive at any moment after login: it is never a reply.
    replies = page.locator(".ai-message").filter(has_not_text=WELCOME_START)
    before = replies.count()
    submit(page, text)
    expect(page.get_by_text(text).last).to_be_visible(timeout=30_000)
    expect(replies).not_to_have_count(before, timeout=300_000)
    # The stop button shows while the run is going; the reply is complete when it is gone.
    expect(page.locator("#stop-button")).to_have_count(0, timeout=420_000)
    # and no step still running: under load the stop button was once gone while an info round's step
    # still said "Using Looked further in memory", which was then read as the reply
    steps = re.compile(r"^\s*(?:Used|Using)\b")
    expect(page.locator(".ai-message").filter(has_text=re.compile(r"^\s*Using\b"))).to_have_count(0, timeout=420_000)
    # not a step: "Used Context", or an info round's "Used Looked further in memory (…)"
    reply = replies.filter(has_not_text=steps).last
    expect(reply).not_to_have_text(re.compile(r"^\s*$"))
    assert "<your answer>" not in reply.inner_text(), "a copied format placeholder was shown as the reply"
    return reply.inner_text()


@contextmanager
def stored(data_dir: Path, database_url: str = "") -> Iterator[MemoryStore]:
    """The app's storage on `data_dir` (or the PostgreSQL database at `database_url`; no server may be
    running on it), closed after the block."""
    from app.runtime import open_storage
    from app.settings import Settings

    store = open_storage(Settings(_env_file=None, data_dir=data_dir, database_url=database_url))  # pyright: ignore[reportCallIssue]
    try:
        yield store
    finally:
        store.close()
