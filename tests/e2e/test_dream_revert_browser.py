"""An automatic revert as the person meets it: an approved change whose trial breached the memory
budget, the running app's own scheduler dreams (`reverie dream --now` asks it), the dream reverts
the change, and the next reply in the browser says so in plain words; `reverie limits history`
says who ended it and why.

A scripted model answers (tests/e2e/scripted_llm.py): the test is about the notice, not the words
of a reply, and the 135M model takes minutes a turn on a busy box.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from tests.e2e.scripted_llm import scripted_llm
from tests.e2e.server import PASSWORD, free_port, login, loopback_page, reverie, running_server, stored, submit

pytestmark = [pytest.mark.e2e]
BUDGET_MB = 2048.0
REVERTED = re.compile(
    r"Changed since your last message: Change #1 is undone: recent messages read is back to at most 20\. "
    r"The nightly dream ended it after watching its trial: the peak memory during its trial, 1946 MB, "
    r"reached 95% of the 2048 MB budget\."
)


def _script(body: dict[str, Any]) -> str:
    if not body.get("stream"):  # the resource request (and memory formation: unusable → its fallback)
        return json.dumps({"context_turns": 5, "vector_limit": 5, "similarity_threshold": 0.6, "triple_depth": 1,
                           "reason": "short"})  # fmt: skip
    answer = {"content": "You're welcome!", "confidence": "high", "follow_ups": []}
    return json.dumps({"result": {"kind": "Answer", "data": answer}})


def _seed_breaching_trial(data_dir: Path) -> int:
    """Proposal #1 (recent messages 20 → 30) approved by the person, then a turn during its trial whose
    RSS reached 95% of the budget: what the app logs, written before the server starts."""
    from app.runtime import effective_limits
    from app.settings import Settings
    from dreaming import proposals
    from memory.models import ProposalRow, utcnow
    from memory.usage import UsageRecord

    settings = Settings(_env_file=None, data_dir=data_dir)  # pyright: ignore[reportCallIssue]
    with stored(data_dir) as store:
        account = store.accounts.get("tester")
        assert account is not None and account.id is not None
        run = store.dreams.start_run("e2e")
        assert run.id is not None
        row = ProposalRow.model_validate(
            {"created_at": utcnow(), "dimension": "CONTEXT_TURNS", "bound": "max", "current_value": 20,
             "proposed_value": 30, "rationale": "4 of 4 clamped turns were followed by a sign of missing context",
             "evidence_count": 4, "trial": "Apply for 7 days."}
        )  # fmt: skip
        store.dreams.commit(run.id, [row], [])
        store.dreams.update_run(run.id, status="completed")
        assert row.id == 1
        proposals.decide(store.dreams, effective_limits(settings, store), 1, "approved", "long threads lost context",
                         "tester")  # fmt: skip
        limits = {k: float(v) for k, v in effective_limits(settings, store).as_env().items()}
        turn = store.turns.add(account.id, "garden", "user", "What went in the north bed?")
        store.usage.record(
            UsageRecord(account.id, "garden", turn.id, turn.content, {}, [], [], "short", limits, request_ms=1.0,
                        retrieval_ms=3.0, generation_ms=800.0, rss_mb=0.95 * BUDGET_MB)
        )  # fmt: skip
        return account.id


def test_dream_revert_browser_tells_the_person_in_plain_words(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    assert reverie(data_dir, "users", "add", "tester", "--password-stdin", stdin=PASSWORD + "\n").returncode == 0
    _seed_breaching_trial(data_dir)
    with (
        scripted_llm(_script) as llm,
        loopback_page() as page,
        running_server(data_dir, free_port(), tmp_path / "server.log", "ollama", llm) as url,
    ):
        login(page, url)
        dreamt = reverie(data_dir, "dream", "--now", "--wait", "240")
        assert dreamt.returncode == 0, dreamt.stdout + dreamt.stderr
        assert "Reverie is running, so its scheduler dreams" in dreamt.stdout, "the app's own job dreamt"
        submit(page, "Thanks!", timeout=60_000)
        expect(page.get_by_text("You're welcome!").last).to_be_visible(timeout=120_000)
        replies = page.locator(".ai-message").filter(has_text="You're welcome!")
        expect(replies.last).to_contain_text(REVERTED, timeout=30_000)
        page.screenshot(path=str(tmp_path / "reverted.png"), full_page=True)
        submit(page, "Thanks again!", timeout=60_000)
        expect(replies).to_have_count(2, timeout=120_000)
        expect(replies.last).not_to_contain_text("Changed since your last message"), "said once"
    with sqlite3.connect(data_dir / "reverie.db") as db:
        ended = db.execute("SELECT ended_by, trial_outcome FROM limit_overrides").fetchall()
    assert ended == [("dream", "reverted")]
    history = reverie(data_dir, "limits", "history")
    assert history.returncode == 0, history.stderr
    assert "dream" in history.stdout and "95% of the 2048 MB budget" in history.stdout, history.stdout
