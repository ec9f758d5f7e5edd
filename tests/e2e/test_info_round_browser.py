"""Issue 5 in the browser: an info round shows as a step, the answer cites an openable source and
offers a follow-up button that sends the question.

Driven by a SCRIPTED model (tests/e2e/scripted_llm.py) on the real server: the 135M embedded model
does not reliably choose to ask for more (tests/integration/test_answer_loop.py proves its
constrained union parses and the loop ends), so this test scripts the choice.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.scripted_llm import last_user_text, scripted_llm
from tests.e2e.server import (
    PASSWORD,
    free_port,
    login,
    loopback_page,
    ready,
    reverie,
    running_server,
    stored,
    submit,
)

pytestmark = [pytest.mark.e2e]
QUESTION = "Where does my sister live?"
SOURCE = re.compile(r"#1 \(\d{4}-\d\d-\d\d, fact\) The user's sister Ana lives in Porto\. · relevance 0\.90")


def _script(body: dict[str, Any]) -> str:
    prompt = last_user_text(body)
    if not body.get("stream"):  # the resource request (and memory formation: unusable → fallback)
        return json.dumps({"context_turns": 4, "vector_limit": 5, "similarity_threshold": 0.5, "triple_depth": 1,
                           "reason": "recall a relative"})  # fmt: skip
    if "Info requests so far" not in prompt and QUESTION in prompt:
        data = {"capability": "SEARCH_MEMORIES", "args": {"query": "sister Ana"}, "reason": "find where she lives"}
        return json.dumps({"result": {"kind": "NeedsMoreInfo", "data": data}})
    answer = {"content": "Your sister Ana lives in Porto.", "confidence": "high",
              "sources": [{"ref": "m1", "contribution": "says Ana lives in Porto", "relevance": 0.9}],
              "follow_ups": ["When did Ana move to Porto?"]}  # fmt: skip
    if "m1" not in prompt:
        answer.pop("sources")
    return json.dumps({"result": {"kind": "Answer", "data": answer}})


def test_info_round_browser_step_sources_and_follow_up(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    assert reverie(data_dir, "users", "add", "tester", "--password-stdin", stdin=PASSWORD + "\n").returncode == 0
    _seed(data_dir)
    with (
        scripted_llm(_script) as llm,
        loopback_page() as page,
        running_server(data_dir, free_port(), tmp_path / "server.log", "ollama", llm) as url,
    ):
        login(page, url)
        submit(page, QUESTION, timeout=60_000)
        expect(page.get_by_text("Your sister Ana lives in Porto.").last).to_be_visible(timeout=120_000)
        expect(page.get_by_text("Looked further in memory (SEARCH_MEMORIES)").last).to_be_visible()
        expect(page.get_by_text("Confidence: high").last).to_be_visible()
        # the source under the reply says what the memory says, with its id for /memories
        source = page.locator(".ai-message").filter(has_text="Sources").last
        expect(source).to_contain_text(SOURCE)
        expect(page.locator("#side-view-content, [data-testid=side-view]")).to_have_count(0)  # no panel
        page.screenshot(path=str(tmp_path / "info-round.png"), full_page=True)
        page.get_by_role("button", name="When did Ana move to Porto?").click()
        expect(page.get_by_text("When did Ana move to Porto?").nth(1)).to_be_visible(timeout=60_000)
        expect(page.locator("#stop-button")).to_have_count(0, timeout=120_000)
        # reopened from the history, the reply reads as it did live, sources included
        page.goto(url)
        ready(page)
        page.locator("#thread-history a, #thread-history [id^=thread-]").first.click()
        expect(page.get_by_text("Your sister Ana lives in Porto.").first).to_be_visible(timeout=60_000)
        expect(page.locator(".ai-message").filter(has_text="Sources").first).to_contain_text(SOURCE)


def _seed(data_dir: Path) -> None:
    """One remembered fact, written before the server starts (it will own the graph)."""
    with stored(data_dir) as store:
        account = store.accounts.get("tester")
        assert account is not None and account.id is not None
        row = store.memories.add(account.id, "fact", "The user's sister Ana lives in Porto.")
        assert row.id == 1, "the script cites m1"
