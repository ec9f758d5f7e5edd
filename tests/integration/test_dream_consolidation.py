"""Consolidation and reminders on real stores: merge, archive, summarise, count; follow-up timing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text

from app.cli import build_parser
from app.runtime import effective_limits
from app.settings import Settings
from dreaming.dream import DreamConfig, last_night, run_dream
from memory.models import MemoryRow
from memory.reminders import ReminderStore
from memory.store import MemoryStore

pytestmark = pytest.mark.both_backends  # each test on SQLite and on PostgreSQL (tests/conftest.py)


def _backdate_thread(storage: MemoryStore, thread: str, when: datetime) -> None:
    with storage.engine.begin() as conn:
        stamp = when.strftime("%Y-%m-%d %H:%M:%S.%f")  # SQLAlchemy's own DateTime format
        conn.execute(text("UPDATE turns SET created_at = :t WHERE thread_id = :th"), {"t": stamp, "th": thread})


def test_dream_consolidation_merges_archives_summarises_and_counts(
    settings: Settings, storage: MemoryStore, capsys: pytest.CaptureFixture[str]
) -> None:
    uid = storage.accounts.create("ana", "correct-horse").id
    assert uid is not None
    old = datetime.now(UTC) - timedelta(days=200)
    keep = storage.memories.add(uid, "fact", "Ana's sister Eva lives in Lisbon.")
    dup = storage.memories.add(uid, "fact", "ana's sister eva lives in  lisbon.")
    near = storage.memories.add(uid, "fact", "Ana's sister Eva lives in Lisbon, btw!")  # the same words
    moved = storage.memories.add(uid, "fact", "Ana's sister Eva moved to Porto.")  # a correction: kept
    short = storage.memories.add(uid, "turn", "ok thanks!", created_at=old, thread_id="x")
    fresh = storage.memories.add(uid, "turn", "ok thanks!!")  # short but recent: kept
    eva = storage.entities.upsert_entity(uid, "Eva", "Person")
    eva2 = storage.entities.upsert_entity(uid, "Eva", "Concept", distinct=True, source_memory_id=moved.id)
    for i in range(12):
        storage.turns.add(uid, "long", "user", f"Plan step {i}: repaint the fence. Then rest.")
        storage.turns.add(uid, "long", "assistant", f"Step {i} noted. Anything else?")
    _backdate_thread(storage, "long", old)

    config = DreamConfig(limits=effective_limits(settings, storage), stale_days=90)
    report = run_dream(storage, config)
    assert report.consolidation == {
        "duplicate_memories": 2, "archived_memories": 1, "merged_entities": 1, "session_summaries": 1,
    }  # fmt: skip
    statuses = {m.id: m.status for m in storage.memories.list(uid, status=None, limit=50)}
    assert statuses[dup.id] == statuses[near.id] == "superseded" and statuses[keep.id] == statuses[moved.id] == "active"
    assert statuses[short.id] == "archived" and statuses[fresh.id] == "active"
    assert storage.memories.get(uid, short.id or 0) is not None, "archived, never deleted"
    merged = storage.entities.get(uid, eva2.id or 0)
    assert merged is not None and merged.status == "merged" and merged.merged_into == eva.id
    summary: MemoryRow = storage.memories.list(uid, kinds=["summary"])[0]
    assert summary.content.startswith(f"Session summary for {old.date().isoformat()} (24 messages)")
    assert "Plan step 0: repaint the fence." in summary.content and summary.thread_id == "long"
    hits = storage.memories.search(uid, "what did I plan for the fence?", 5, 0.3)
    assert any(h.memory.id == summary.id for h in hits), "the summary is a searchable memory"

    again = run_dream(storage, config)
    assert set(again.consolidation.values()) == {0}, "a second dream finds nothing left to do"

    # every change of the tidy-up can be undone: the duplicates and the old turn active again, the summary archived
    capsys.readouterr()
    assert cli(settings, "dream", "undo", str(report.run_id)) == 0
    assert "4 memory change(s) undone, 1 entity merge(s) taken apart" in capsys.readouterr().out
    evas = {e.id: e for e in storage.entities.active(uid) if e.name == "Eva"}
    assert len(evas) == 2 and eva.id in evas, "the merged Eva is an entity of her own again"
    (back,) = (e for i, e in evas.items() if i != eva.id)
    assert storage.entities.source_memories(uid, back.id or 0) == [moved.id]
    assert frozenset((eva.id, back.id)) in {frozenset(p) for p in storage.entities.apart(uid)}, "never merged again"
    statuses = {m.id: m.status for m in storage.memories.list(uid, status=None, limit=50)}
    assert statuses[dup.id] == statuses[near.id] == statuses[short.id] == "active"
    assert statuses[summary.id] == "archived"
    assert cli(settings, "dream", "undo", "999") == 2
    # history shows what each dream tidied and who undid it
    assert cli(settings, "dream", "history") == 0
    history = capsys.readouterr().out
    assert (f"run #{report.run_id} " in history and "memory tidy-up: duplicate memories 2, archived memories 1, "
            "merged entities 1, session summaries 1" in history)  # fmt: skip
    assert "UTC by cli: 4 memory change(s) put back, 1 entity merge(s) taken apart." in history
    assert "Tidy-up undone" in last_night(storage.dreams), "and /dreams too"
    after = run_dream(storage, config)
    assert set(after.consolidation.values()) == {0}, "what the person undid, no later dream does again"


def test_dream_decays_only_old_small_talk(settings: Settings, storage: MemoryStore) -> None:
    """Old raw turns are archived only when they are small talk: short, and naming nothing. A turn the
    day's session summary also says stays (the summary recalls it worse: on a synthetic month of chat,
    archiving those took recall from 37 to 33 of 57), and so does a short turn an entity was drawn from."""
    uid = storage.accounts.create("ana", "correct-horse").id or 0
    old = datetime.now(UTC) - timedelta(days=200)
    for i in range(12):
        storage.turns.add(uid, "long", "user", f"Plan step {i}: repaint the fence. Then rest.")
        storage.turns.add(uid, "long", "assistant", f"Step {i} noted. Anything else?")
    _backdate_thread(storage, "long", old)

    def said(content: str) -> int:
        return storage.memories.add(uid, "turn", content, created_at=old, thread_id="long").id or 0

    summed, told, named, chat = (said("Plan step 3: repaint the fence."), said("Brian lends us his ladder, bless him."),
                                 said("Biscuit's our beagle."), said("ha, fair enough."))  # fmt: skip
    storage.entities.upsert_entity(uid, "Biscuit", "Animal", source_memory_id=named)
    config = DreamConfig(limits=effective_limits(settings, storage), stale_days=90)
    assert run_dream(storage, config).consolidation["session_summaries"] == 1
    assert run_dream(storage, config).consolidation["archived_memories"] == 0, "nor the next, which reads the summary"
    statuses = {m.id: m.status for m in storage.memories.list(uid, status=None, limit=50)}
    assert [statuses[m] for m in (summed, told, named, chat)] == ["active", "active", "active", "archived"]


def cli(settings: Settings, *argv: str) -> int:
    args = build_parser().parse_args(list(argv))
    return args.func(settings, args)


def test_dream_reminders_failsafe_interval_due_and_sent(settings: Settings, storage: MemoryStore) -> None:
    uid = storage.accounts.create("ana", "correct-horse").id
    assert uid is not None
    store = ReminderStore(storage.engine, settings.default_proactive_interval_minutes)
    now = datetime(2026, 5, 1, 9, 0, tzinfo=UTC)
    failsafe = store.add(uid, "t1", "call the plumber", now=now)
    chosen = store.add(uid, "t2", "water the basil", interval_minutes=30, now=now)
    assert failsafe.interval_source == "failsafe" and chosen.interval_source == "agent_interval"
    assert store.due(now + timedelta(minutes=29)) == []
    assert [r.id for r in store.due(now + timedelta(minutes=30))] == [chosen.id]
    assert [r.id for r in store.due(now + timedelta(minutes=120))] == [chosen.id, failsafe.id]
    store.mark_sent(chosen.id or 0)
    assert [r.id for r in store.due(now + timedelta(days=1))] == [failsafe.id]
    later = store.reschedule(failsafe.id or 0, interval_minutes=600, now=now)
    assert later.interval_source == "agent_interval" and store.due(now + timedelta(minutes=121)) == []
    assert [r.thread_id for r in store.pending(uid)] == ["t1"]
