"""The dream channel end to end: a pending proposal, `/dreams` in the real UI, Approve with a written
reason in headless Chromium, then the override row and `reverie limits` show the new limit."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

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
REPO = Path(__file__).resolve().parents[2]
PNG_WIDTH, PNG_HEIGHT = 700, 320  # dreaming.plot's size (an SVG would decode at its own 560 x 220)


def _seed_proposal(data_dir: Path, fields: dict[str, object]) -> int:
    """A pending proposal written before the server starts, the way a dream commits one (the graph is free then)."""
    from memory.dreams import DreamStore
    from memory.models import ProposalRow, utcnow

    with stored(data_dir) as store:
        dreams = DreamStore(store.engine)
        run = dreams.start_run("e2e")
        assert run.id is not None
        row = ProposalRow.model_validate({"created_at": utcnow(), **fields})
        dreams.commit(run.id, [row], [])
        dreams.update_run(run.id, status="completed")
        assert row.id is not None
        return row.id


def _seed_pending_proposal(data_dir: Path) -> int:
    return _seed_proposal(
        data_dir,
        {"dimension": "CONTEXT_TURNS", "bound": "max", "current_value": 20,
         "proposed_value": 25, "rationale": "3 of 9 conversations hit the MAX_EPISODIC_CONTEXT_TURNS=20 limit",
         "evidence_count": 3, "evidence": '{"requested": {"10": 6, "20": 1, "25": 3}}',
         "simulation": '{"replays": 3, "extra_memory_mb": 0.4, "projected_peak_mb": 420, '
         '"memory_limit_mb": 2048, "risk": "LOW"}', "trial": "Apply for 7 days."},
    )  # fmt: skip


def _seed_usage(data_dir: Path, days: int = 21) -> None:
    """A turn a day for the last `days` days, so `/dreams` charts reply time and memory per day."""
    from datetime import timedelta

    from memory.models import utcnow
    from memory.usage import UsageRecord

    with stored(data_dir) as store:
        for day in range(days):
            store.usage.record(UsageRecord(1, "t", None, "hi", {}, [], [], "r", {}, request_ms=1.0, retrieval_ms=2.0,
                                           generation_ms=2000.0 + 100 * day, rss_mb=600.0 + 5 * day))  # fmt: skip
    with sqlite3.connect(data_dir / "reverie.db") as db:  # back-dated, one a day (SQLAlchemy's own format)
        for n, (row_id,) in enumerate(db.execute("SELECT id FROM usage_log ORDER BY id").fetchall()):
            when = (utcnow() - timedelta(days=days - n)).replace(tzinfo=None)
            db.execute("UPDATE usage_log SET created_at = ? WHERE id = ?", (f"{when:%Y-%m-%d %H:%M:%S.%f}", row_id))


def _run_dreams_command(page: Page) -> None:
    # Commands are picked from the composer's command menu; the message then carries the command id.
    pick_command(page, "dreams")
    submit(page, "show")


@pytest.mark.skipif(
    "ui_dreams" not in (REPO / "app" / "ui.py").read_text(), reason="app/ui.py does not import app.ui_dreams yet"
)
def test_dream_browser_approve_proposal_with_reason(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    assert reverie(data_dir, "users", "add", "tester", "--password-stdin", stdin=PASSWORD + "\n").returncode == 0
    pid = _seed_pending_proposal(data_dir)
    _seed_usage(data_dir)
    with loopback_page() as page, running_server(data_dir, free_port(), tmp_path / "server.log") as url:
        login(page, url)
        _run_dreams_command(page)
        headline = f"#{pid} recent messages read: MAX_EPISODIC_CONTEXT_TURNS 20 → 25"
        expect(page.get_by_text(headline).first).to_be_visible(timeout=60_000)
        expect(page.get_by_text("Last dream").first).to_be_visible()
        # the requested values and the last weeks' reply time and memory, charted as PNGs drawn by matplotlib
        for name in ("requested", "usage"):
            chart = page.locator(f'img[src*="{name}"], img[alt*="{name}"]').first
            expect(chart).to_be_visible(timeout=60_000)
            chart.evaluate("img => img.decode()")
            assert chart.evaluate("img => [img.naturalWidth, img.naturalHeight]") == [PNG_WIDTH, PNG_HEIGHT]
        page.screenshot(path=str(tmp_path / "dreams.png"), full_page=True)
        page.get_by_role("button", name="Approve").first.click()
        expect(page.get_by_text(f"Why approve proposal #{pid}?").first).to_be_visible(timeout=30_000)
        submit(page, "the follow-ups show it misses context")
        expect(page.get_by_text("It applies from your next message").first).to_be_visible(timeout=30_000)
        page.screenshot(path=str(tmp_path / "approved.png"), full_page=True)
        _run_dreams_command(page)  # the approved change is on trial, and the person may end it early
        expect(page.get_by_text("on trial until").first).to_be_visible(timeout=60_000)
        page.get_by_role("button", name="End this change").first.click()
        expect(page.get_by_text("Why end change").first).to_be_visible(timeout=30_000)
        submit(page, "replies feel slower")
        expect(page.get_by_text("It no longer applies from your next message").first).to_be_visible(timeout=30_000)
        page.screenshot(path=str(tmp_path / "ended.png"), full_page=True)
    with sqlite3.connect(data_dir / "reverie.db") as db:
        override = db.execute("SELECT dimension, max_value, proposal_id, reason FROM limit_overrides").fetchall()
        decision = db.execute("SELECT decision, decided_by, reason FROM proposal_decisions").fetchall()
    assert override == [("CONTEXT_TURNS", 25.0, pid, "the follow-ups show it misses context")]
    with sqlite3.connect(data_dir / "reverie.db") as db:
        ended = db.execute("SELECT ended_by, end_reason, trial_outcome FROM limit_overrides").fetchall()
    assert ended == [("tester", "replies feel slower", "reverted")]
    assert decision == [("approved", "tester", "the follow-ups show it misses context")]
    limits = reverie(data_dir, "limits")
    assert limits.returncode == 0, limits.stderr
    line = next(x for x in limits.stdout.splitlines() if x.startswith("CONTEXT_TURNS"))
    assert line.split()[1:4] == ["1", "20", "10"], "ended: the .env range again"


def _seed_policy_proposal(data_dir: Path) -> int:
    """A proposal the dream's request-policy evidence writes (`dreaming.policy`)."""
    from capabilities.request_policy import MORE_WORDS

    return _seed_proposal(
        data_dir,
        {"dimension": "policy:personal", "bound": "default", "current_value": 0.0,
         "proposed_value": 1.0, "evidence_count": 11, "risk": "LOW", "trial": "Apply for 7 days.",
         "simulation": '{"replays": 12, "extra_memory_mb": 0.4, "heap_peak_baseline_mb": 1.1, '
         '"heap_peak_candidate_mb": 1.5, "baseline_p95_ms": 31.0, "candidate_p95_ms": 38.0, '
         '"projected_peak_mb": 612, "memory_limit_mb": 2048, "risk": "LOW"}',
         "rationale": f"Questions about you got too little context: 11 of 12 such turns were followed by a sign "
         f"of missing context, against 1 of 36 turns of other kinds. Proposed: ask for more ({MORE_WORDS}).",
         "evidence": '{"kind": "personal", "label": "questions about you", "turns": 12, "signals": 11, '
         '"retrieval_p95_ms": 31.0, "context_tokens_mean": 412.0, "links": []}'},
    )  # fmt: skip


@pytest.mark.skipif(
    "ui_dreams" not in (REPO / "app" / "ui.py").read_text(), reason="app/ui.py does not import app.ui_dreams yet"
)
def test_dream_browser_approves_a_request_policy_adjustment(tmp_path: Path) -> None:
    """A policy proposal reads in plain words (no raw kind name), and approving it starts its trial."""
    data_dir = tmp_path / "data"
    assert reverie(data_dir, "users", "add", "tester", "--password-stdin", stdin=PASSWORD + "\n").returncode == 0
    pid = _seed_policy_proposal(data_dir)
    with loopback_page() as page, running_server(data_dir, free_port(), tmp_path / "server.log") as url:
        login(page, url)
        _run_dreams_command(page)
        expect(page.get_by_text(f"#{pid} request policy, questions about you: ask for more").first).to_be_visible(
            timeout=60_000
        )
        expect(page.get_by_text("crash risk").first).to_be_visible()  # measured like a limit's (issue 15)
        page.screenshot(path=str(tmp_path / "policy.png"), full_page=True)
        page.get_by_role("button", name="Approve").first.click()
        expect(page.get_by_text(f"Why approve proposal #{pid}?").first).to_be_visible(timeout=30_000)
        submit(page, "it keeps forgetting what I told it")
        expect(page.get_by_text("It applies from your next message").first).to_be_visible(timeout=30_000)
    with sqlite3.connect(data_dir / "reverie.db") as db:
        changes = db.execute("SELECT dimension, proposal_id, trial_until IS NOT NULL FROM limit_overrides").fetchall()
    assert changes == [("policy:personal", pid, 1)]
