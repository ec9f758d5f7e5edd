"""`reverie dream …` against a real data directory, with the app stopped and with the graph held."""

from __future__ import annotations

import os

import pytest

from app.cli import build_parser
from app.runtime import APP_LOCK, hold_lock, open_storage
from app.settings import Settings
from dreaming.dream import morning_text
from dreaming.proposals import proposal_markdown
from memory.dreams import DreamStore
from memory.models import ProposalRow, utcnow

pytestmark = pytest.mark.both_backends  # each test on SQLite and on PostgreSQL (tests/conftest.py)


def cli(settings: Settings, *argv: str) -> int:
    args = build_parser().parse_args(list(argv))
    return args.func(settings, args)


def seed_proposal(settings: Settings) -> tuple[int, int]:
    """A committed dream run with one pending proposal, written the way a dream writes it."""
    store = open_storage(settings)
    try:
        uid = store.accounts.create("ana", "correct-horse").id
        dreams = DreamStore(store.engine)
        run = dreams.start_run("test")
        assert run.id is not None and uid is not None
        row = ProposalRow.model_validate(
            {"created_at": utcnow(), "dimension": "CONTEXT_TURNS", "bound": "max", "current_value": 20,
             "proposed_value": 25, "rationale": "3 of 9 conversations hit the limit", "evidence_count": 3,
             "evidence": '{"requested": {"10": 6, "20": 1, "25": 3}, "links": [{"thread_id": "t1", "turn_id": 4, '
             '"requested": 25, "followup": "explicit_reference"}]}', "simulation": '{"replays": 3, "risk": "LOW"}'}
        )  # fmt: skip
        dreams.commit(run.id, [row], [])
        assert row.id is not None
        return row.id, uid
    finally:
        store.close()


def test_dream_cli_lists_approves_and_limits_follow(settings: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    pid, _ = seed_proposal(settings)
    assert cli(settings, "dream", "proposals") == 0
    out = capsys.readouterr().out
    assert f"#{pid} recent messages read: MAX_EPISODIC_CONTEXT_TURNS 20 → 25 (risk LOW, pending)" in out
    assert "25 │" in out
    assert cli(settings, "dream", "approve", str(pid), "--reason", "more context please") == 0
    assert "active from the next turn" in capsys.readouterr().out
    assert cli(settings, "dream", "reject", str(pid), "--reason", "too late") == 2
    assert "already approved" in capsys.readouterr().err
    assert cli(settings, "limits") == 0
    limits_out = capsys.readouterr().out
    assert "CONTEXT_TURNS" in limits_out and f"max from proposal #{pid} approved" in limits_out
    assert cli(settings, "dream", "history") == 0
    assert "approved by cli: more context please" in capsys.readouterr().out


def test_dream_cli_now_runs_directly_when_app_stopped(settings: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(settings, "dream", "--now") == 0
    assert "dream #1: 0 usage rows analysed, 0 proposal(s)" in capsys.readouterr().out


def test_dream_cli_now_goes_through_the_app_when_it_runs(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    open_storage(settings).close()
    app = hold_lock(settings, APP_LOCK, exclusive=True)  # as `reverie run` holds it
    assert app is not None
    try:
        assert cli(settings, "dream", "--now") == 0
        out = capsys.readouterr().out
        assert "Reverie is running, so its scheduler dreams" in out
        assert (settings.data_dir / "dream-now.request").exists()
        assert cli(settings, "dream", "--now", "--wait", "1") == 1
        assert "no dream finished within 1 s" in capsys.readouterr().err
    finally:
        os.close(app)


def test_dream_morning_summary_shows_once(settings: Settings) -> None:
    pid, uid = seed_proposal(settings)
    store = open_storage(settings)
    try:
        dreams = DreamStore(store.engine)
        first = morning_text(dreams, uid)
        assert first is not None and f"#{pid} recent messages read: MAX_EPISODIC_CONTEXT_TURNS 20 → 25" in first
        assert "/dreams" in first
        assert morning_text(dreams, uid) is None, "shown once per dream"
        md = proposal_markdown(dreams.proposals()[0])
        assert "[thread t1 turn 4](/thread/t1)" in md and "↩ follow-up" in md and "crash risk **LOW**" in md
    finally:
        store.close()
