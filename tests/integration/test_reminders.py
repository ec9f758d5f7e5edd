"""Reminders on a real SQLite file: the time a person means, in their zone, stored in UTC; refused when
passed; listed and cancelled by their owner only (the store, and `reverie reminders` through the CLI's
entry point); a cancelled one never comes due."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from app.chat import ContextPlanned, Finished, chat_turn
from app.cli import main
from app.llm import Backend
from app.proactive import deliver_due, set_reminder
from app.runtime import Runtime, open_records
from app.settings import Settings
from memory.models import utcnow
from memory.reminders import ReminderStore
from memory.store import MemoryStore

pytestmark = pytest.mark.both_backends  # each test on SQLite and on PostgreSQL (tests/conftest.py)

LISBON = ZoneInfo("Europe/Lisbon")
NOW = datetime(2026, 6, 10, 14, 0, tzinfo=UTC)
"""Wednesday 10 June 2026, 15:00 in Lisbon (summer time, UTC+1)."""


def _users(storage: MemoryStore) -> tuple[int, int]:
    ana, bob = storage.accounts.create("ana", "correct-horse"), storage.accounts.create("bob", "battery-staple")
    assert ana.id is not None and bob.id is not None
    return ana.id, bob.id


def test_reminders_tomorrow_at_9_lands_at_9_local_stored_in_utc(settings: Settings, storage: MemoryStore) -> None:
    ana, _ = _users(storage)
    reminders = ReminderStore(storage.engine)
    said = set_reminder(reminders, ana, "t", "remind me tomorrow at 9 to call the vet", NOW, LISBON)
    assert said is not None
    [row] = reminders.pending(ana)
    assert row.text == "call the vet"
    assert row.due_at == datetime(2026, 6, 11, 8, 0, tzinfo=UTC)  # 09:00 WEST is 08:00 UTC
    assert said.notice == (
        "REMINDER_SET: “call the vet” set for tomorrow, Thu 11 Jun at 09:00 (as you asked); "
        "it will appear in this thread."
    )
    assert said.reply.startswith("Reminder set for tomorrow, Thu 11 Jun at 09:00: call the vet.")


def test_reminders_no_time_takes_the_failsafe(settings: Settings, storage: MemoryStore) -> None:
    ana, _ = _users(storage)
    reminders = ReminderStore(storage.engine, 120)
    said = set_reminder(reminders, ana, "t", "remind me to water the plants", NOW, LISBON)
    assert said is not None and "no time given: the default 120 minutes" in said.notice
    assert said.reply.startswith("Reminder set for today at 17:00 (you gave no time: the default 120 minutes): water")
    [row] = reminders.pending(ana)
    assert row.due_at == NOW + timedelta(minutes=120) and row.interval_source == "failsafe"


def test_reminders_past_time_is_refused_not_stored(settings: Settings, storage: MemoryStore) -> None:
    ana, _ = _users(storage)
    reminders = ReminderStore(storage.engine)
    said = set_reminder(reminders, ana, "t", "remind me today at 9 to call the vet", NOW, LISBON)
    assert said is not None and said.notice.startswith("REMINDER_NOT_SET")
    assert said.reply.startswith("Today at 09:00 has already passed, so I have not set that reminder.")
    assert reminders.pending(ana) == []
    # a bare "at 9" names no day: the next 09:00 is meant
    assert set_reminder(reminders, ana, "t", "remind me at 9 to call the vet", NOW, LISBON) is not None
    assert [r.due_at for r in reminders.pending(ana)] == [datetime(2026, 6, 11, 8, 0, tzinfo=UTC)]


def test_reminders_list_and_cancel_are_the_owners_only(settings: Settings, storage: MemoryStore) -> None:
    ana, bob = _users(storage)
    reminders = ReminderStore(storage.engine)
    vet = reminders.add(ana, "t1", "call the vet", due_at=NOW + timedelta(hours=1), now=NOW)
    rent = reminders.add(ana, "t1", "pay the rent", due_at=NOW + timedelta(hours=2), now=NOW)
    gym = reminders.add(bob, "t2", "gym", due_at=NOW + timedelta(hours=1), now=NOW)
    assert [r.text for r in reminders.pending(ana)] == ["call the vet", "pay the rent"]
    assert [r.text for r in reminders.pending(bob)] == ["gym"]
    assert reminders.cancel(bob, vet.id or 0) is None  # not bob's
    assert [r.id for r in reminders.pending(ana)] == [vet.id, rent.id]
    cancelled = reminders.cancel(ana, vet.id or 0)
    assert cancelled is not None and cancelled.status == "cancelled"
    assert reminders.cancel(ana, vet.id or 0) is None  # once
    assert [r.id for r in reminders.pending(ana)] == [rent.id]
    later = NOW + timedelta(days=1)
    assert [r.id for r in reminders.due(later)] == [gym.id, rent.id]  # the cancelled one never comes due
    assert [r.id for r in deliver_due(storage.turns, storage.threads, reminders)] == [gym.id, rent.id]  # now is later
    assert storage.turns.recent(ana, "t1", 5)[0].content == "⏰ Reminder: pay the rent"


def _policy_runtime(settings: Settings, storage: MemoryStore) -> Runtime:
    async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart("the model was asked")])

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        yield "the model was asked"

    backend = Backend("embedded", "scripted", "", FunctionModel(respond, stream_function=stream))
    return Runtime(settings=settings, store=storage, backend=backend, path="policy")


@pytest.mark.anyio
async def test_reminders_policy_turn_replies_with_the_local_time(settings: Settings, storage: MemoryStore) -> None:
    """On the policy path the reply is the confirmation, not a grounded answer and not the model's words;
    the Context step's "Limits changed" stays for limits."""
    ana, _ = _users(storage)
    settings = settings.model_copy(update={"timezone": "Europe/Lisbon"})
    rt = _policy_runtime(settings, storage)
    events = [e async for e in chat_turn(rt, ana, "t", "Remind me tomorrow at 9 to call the vet")]
    finished = next(e for e in events if isinstance(e, Finished))
    planned = next(e for e in events if isinstance(e, ContextPlanned))
    local_tomorrow = (utcnow().astimezone(LISBON) + timedelta(days=1)).date()
    assert finished.reply.startswith(f"Reminder set for tomorrow, {local_tomorrow:%a} {local_tomorrow.day} ")
    assert "09:00: call the vet." in finished.reply and finished.confidence == "high"
    assert "model was asked" not in finished.reply and planned.limits_notice == ""
    [row] = rt.reminders.pending(ana)
    due = datetime.combine(local_tomorrow, time(9), tzinfo=LISBON)
    assert row.due_at == due.astimezone(UTC)
    assert storage.turns.recent(ana, "t", 1)[0].content == finished.reply  # the thread keeps the reply
    [query] = storage.queries.recent(ana, 1)
    assert query.status == "completed"


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Ana with two reminders, Bob with one; the CLI reads the directory and zone from the environment."""
    data = tmp_path / "data"
    monkeypatch.setenv("REVERIE_DATA_DIR", str(data))
    monkeypatch.setenv("REVERIE_TIMEZONE", "Europe/Lisbon")
    monkeypatch.chdir(tmp_path)  # no stray .env
    store = open_records(Settings(_env_file=None, data_dir=data))  # pyright: ignore[reportCallIssue]
    ana, bob = (store.accounts.create(n, "correct-horse").id or 0 for n in ("ana", "bob"))
    reminders = ReminderStore(store.engine)
    now = utcnow()
    tomorrow_9 = datetime.combine((now.astimezone(LISBON) + timedelta(days=1)).date(), time(9), tzinfo=LISBON)
    reminders.add(ana, "t1", "call the vet", due_at=tomorrow_9, now=now)  # #1
    reminders.add(bob, "t2", "gym", due_at=now + timedelta(hours=1), now=now)  # #2
    reminders.add(ana, "t1", "pay the rent", due_at=now + timedelta(days=40), now=now)  # #3
    store.close()
    return data


def test_reminders_cli_list_is_the_users_own_in_local_time(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reminders", "list"]) == 2  # two users: the CLI never guesses whose
    assert "--user (users: ana, bob)" in capsys.readouterr().err
    assert main(["reminders", "--user", "ana", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and "gym" not in "".join(lines)
    assert lines[0].startswith("#1\ttomorrow, ") and lines[0].endswith(" at 09:00\tcall the vet")
    assert lines[1].startswith("#3\t") and lines[1].endswith("\tpay the rent")
    assert main(["reminders", "list", "--user", "bob"]) == 0
    assert capsys.readouterr().out.split("\t")[::2] == ["#2", "gym\n"]
    assert main(["reminders", "list", "--user", "nobody"]) == 2


def test_reminders_cli_cancel_is_the_owners_only(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["reminders", "cancel", "1", "--user", "bob"]) == 1  # not bob's
    assert "no pending reminder #1" in capsys.readouterr().err
    assert main(["reminders", "--user", "ana", "cancel", "1"]) == 0
    assert capsys.readouterr().out.startswith("cancelled #1\ttomorrow, ")
    assert main(["reminders", "cancel", "1", "--user", "ana"]) == 1  # once
    capsys.readouterr()
    assert main(["reminders", "list", "--user", "ana"]) == 0
    assert [line.split("\t")[0] for line in capsys.readouterr().out.splitlines()] == ["#3"]
    store = open_records(Settings(_env_file=None, data_dir=data_dir))  # pyright: ignore[reportCallIssue]
    try:
        due = ReminderStore(store.engine).due(utcnow() + timedelta(days=2))
    finally:
        store.close()
    assert [r.id for r in due] == [2]  # the cancelled one never comes due


def test_reminders_terminal_chat_lists_with_slash_reminders(settings: Settings, storage: MemoryStore) -> None:
    from io import StringIO

    from app.cli_chat import _reminders  # pyright: ignore[reportPrivateUsage]

    ana, bob = _users(storage)
    rt = _policy_runtime(settings.model_copy(update={"timezone": "Europe/Lisbon"}), storage)
    out = StringIO()
    _reminders(rt, ana, out)
    assert out.getvalue() == "no pending reminders\n"
    rt.reminders.add(ana, "t", "call the vet", due_at=utcnow() + timedelta(days=2))
    rt.reminders.add(bob, "t", "gym", due_at=utcnow() + timedelta(days=2))
    out = StringIO()
    _reminders(rt, ana, out)
    first, hint = out.getvalue().splitlines()
    assert first.startswith("#1\t") and first.endswith("\tcall the vet") and "cancel ID" in hint
