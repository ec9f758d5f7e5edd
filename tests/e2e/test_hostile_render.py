"""Hostile markup in a message is shown as text, never executed (real server, headless Chromium)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.server import (
    PASSWORD,
    WELCOME_START,
    free_port,
    login,
    loopback_page,
    reverie,
    running_server,
    submit,
)

pytestmark = [pytest.mark.e2e]
PAYLOAD = (
    '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"> and **bold** [x](javascript:alert(1))'
)


def test_hostile_render_script_and_onerror_do_not_run(tmp_path: Path) -> None:
    data = tmp_path / "data"
    done = reverie(data, "users", "add", "tester", "--password-stdin", stdin=PASSWORD + "\n")
    assert done.returncode == 0, done.stderr
    with loopback_page() as page:
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        with running_server(data, free_port(), tmp_path / "server.log") as url:
            login(page, url)
            submit(page, PAYLOAD)
            # the reply, not a step ("Used Context"): an acknowledgement comes with its step at once,
            # so the count of all assistant messages never passes through 1
            replies = page.locator(".ai-message").filter(has_not_text=WELCOME_START)
            expect(replies.filter(has_not_text=re.compile(r"^\s*Used\b"))).to_have_count(1, timeout=180_000)
            expect(page.locator("#stop-button")).to_have_count(0, timeout=240_000)
            page.wait_for_timeout(1000)  # an onerror handler would have fired by now
            assert page.evaluate("typeof window.__pwned") == "undefined"
            assert dialogs == []
            user_message = page.get_by_text("window.__pwned=1", exact=False).first
            expect(user_message).to_be_visible(timeout=30_000)  # shown as text, escaped
            assert page.locator("script:has-text('__pwned')").count() == 0
            assert page.locator("img[onerror]").count() == 0
            page.screenshot(path=str(tmp_path / "hostile-render.png"), full_page=True)
