"""Memory formation on real stores (SQLite + sqlite-vec + Kuzu in tmp_path, the real embedder)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import anyio.to_thread
import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from sqlalchemy import Engine, text
from sqlmodel import Session, select

from app.extractor import (
    LLMExtractor,
    _requeue_stale,  # pyright: ignore[reportPrivateUsage]
    drain_formation,
    formation_worker,
)
from app.llm import Backend, LLMConfig, open_backend
from app.runtime import Runtime
from app.settings import Settings
from capabilities.context import TwoLevelContext
from memory.assembly import ContextRequest
from memory.formation.patterns import Extraction, PatternExtractor
from memory.formation.queue import FormationQueue, run_pending
from memory.graph.entities import EntityStore
from memory.models import RelationRow, UsageRow
from memory.portability import forget_memory
from memory.recall.vectors import MemoryIndex, MemoryNotFound
from memory.store import MemoryStore
from memory.turns import TurnStore
from memory.usage import UsageRecord

from .formation_helpers import form, lexical, say, snapshot, user, vectors

pytestmark = pytest.mark.both_backends  # each test on SQLite and on PostgreSQL (tests/conftest.py)

T0 = datetime(2025, 3, 1, 9, 0, tzinfo=UTC)
DEFAULT_REQUEST = ContextRequest(context_turns=10, vector_limit=5, similarity_threshold=0.7, triple_depth=1)
FILLER = [
    "Hi!",
    "thanks, that helps",
    "What should I cook tonight?",
    "The weather is grey and rainy today.",
    "Can you explain how tides work?",
    "I finished reading a long novel about whales.",
    "ok cool",
    "Remind me how to boil an egg?",
]


def _many_threads(storage: MemoryStore, uid: int) -> None:
    facts = {
        2: "my sister Ana moved to Porto last spring",
        5: "I'm allergic to peanuts.",
        8: "I work at Acme Robotics.",
        11: "I really love green tea!",
    }
    for day in range(14):
        when = T0 + timedelta(days=day)
        say(storage, uid, f"thread-{day}", facts.get(day, FILLER[day % len(FILLER)]), when)


def test_formation_recall_after_many_threads(storage: MemoryStore) -> None:
    uid = user(storage, "ada")
    _many_threads(storage, uid)
    assert len(form(storage)) == 14
    hits = storage.memories.search(uid, "where does my sister live?", 5, 0.5)
    assert "Porto" in hits[0].memory.content and hits[0].memory.created_at == T0 + timedelta(days=2)
    allergy = storage.memories.search(uid, "what am I allergic to?", 3, 0.5)
    assert any("peanuts" in h.memory.content for h in allergy)
    # No junk: greetings, filler and questions left no memory.
    contents = [m.content for m in storage.memories.list(uid, limit=500)]
    assert not any(c in contents for c in ("Hi!", "ok cool", "thanks, that helps"))
    assert not any(c.endswith("?") for c in contents)
    ctx = storage.assembler.assemble(uid, "thread-new", "Where does my sister live?", DEFAULT_REQUEST)
    block = TwoLevelContext.from_assembled(ctx).block()
    assert "Porto" in block and "(2025-03-03," in block  # recalled with its date and source ref
    assert any(i.ref.startswith("m") for i in ctx.loaded)


def test_formation_supersedes_contradicted_fact_and_keeps_dated_history(both_storages: MemoryStore) -> None:
    storage = both_storages  # (on both backends: supersession reads entities' aliases with raw SQL)
    uid = user(storage, "ada")
    march, june = T0, T0 + timedelta(days=100)
    say(storage, uid, "t1", "my sister Ana moved to Porto last spring", march)
    say(storage, uid, "t2", "I'm allergic to peanuts.", march + timedelta(days=1))
    say(storage, uid, "t3", "Ana moved back to Lisbon.", june)
    results = form(storage)
    old_fact, new_fact = (
        next(m for m in storage.memories.list(uid, ["fact"], None) if w in m.content) for w in ("Porto", "Lisbon")
    )
    assert new_fact.content == "The user's sister Ana moved back to Lisbon."
    assert old_fact.status == "superseded" and old_fact.superseded_by == new_fact.id
    assert old_fact.valid_from == march and old_fact.valid_to == june and new_fact.valid_from == june
    assert results[-1].superseded_memory_ids
    ana = storage.entities.find_by_name(uid, "Ana", fuzzy=False)[0]
    assert ana.id is not None and "sister" in ana.aliases
    current = storage.entities.current_relations(uid, ana.id, "LIVES_IN")
    assert [storage.entities.get(uid, r.object_id).name for r in current] == ["Lisbon"]  # type: ignore[union-attr]
    with Session(storage.engine) as s:
        lives = list(s.exec(select(RelationRow).where(RelationRow.user_id == uid, RelationRow.predicate == "LIVES_IN")))
    assert [(r.valid_from, r.valid_to) for r in lives] == [(march, june), (june, None)]  # history kept, dated
    # The allergy (not functional, another turn) is untouched; the current view says Lisbon.
    assert any("peanuts" in m.content for m in storage.memories.list(uid, ["fact"]))
    block = TwoLevelContext.from_assembled(
        storage.assembler.assemble(uid, "t9", "Where does my sister live?", DEFAULT_REQUEST)
    ).block()
    assert "Lisbon" in block and "Porto" not in block


def test_formation_supersede_keeps_what_else_the_old_turn_said(both_storages: MemoryStore) -> None:
    """A correction of where Jules lives must not take her birthday, said in the same message, with it."""
    storage = both_storages  # (on both backends: supersession reads entities' aliases with raw SQL)
    uid = user(storage, "ada")
    say(storage, uid, "t1", "My sister Jules lives in Hamilton, her birthday is 14 March.", T0)
    say(storage, uid, "t2", "Actually Jules moved to Tauranga last month.", T0 + timedelta(days=30))
    form(storage)
    jules = storage.entities.find_by_name(uid, "Jules", fuzzy=False)[0]
    assert jules.id is not None
    current = storage.entities.current_relations(uid, jules.id, "LIVES_IN")
    assert [storage.entities.get(uid, r.object_id).name for r in current] == ["Tauranga"]  # type: ignore[union-attr]
    active = [m.content for m in storage.memories.list(uid, ["turn", "fact"], "active")]
    assert "Jules — her birthday is 14 March." in active  # the birthday is still recalled,
    assert not any("Hamilton" in c for c in active)  # the old town is not
    hits = storage.memories.search(uid, "When is Jules's birthday?", 5, 0.5)
    assert any("14 March" in h.memory.content for h in hits)
    form(storage)  # a rerun adds nothing
    assert len(storage.memories.list(uid, ["turn", "fact"], "active")) == len(active)
    told = next(m for m in storage.memories.list(uid, ["turn"], None) if "Hamilton" in m.content)
    assert told.status == "superseded" and told.id is not None
    forget_memory(storage, uid, told.id)  # forgetting what was said takes its remainder too
    assert "Jules — her birthday is 14 March." not in [m.content for m in storage.memories.list(uid, None, None)]


def test_formation_out_of_order_retry_cannot_undo_a_newer_fact(both_storages: MemoryStore) -> None:
    storage = both_storages  # (on both backends: supersession reads entities' aliases with raw SQL)
    uid = user(storage, "ada")
    june = say(storage, uid, "t2", "Ana lives in Lisbon.", T0 + timedelta(days=100))
    form(storage)
    march = say(storage, uid, "t1", "Ana lives in Porto.", T0)  # an older turn formed late
    assert march.id is not None and june.id is not None
    form(storage)
    ana = storage.entities.find_by_name(uid, "Ana", fuzzy=False)[0]
    assert ana.id is not None
    current = storage.entities.current_relations(uid, ana.id, "LIVES_IN")
    assert [storage.entities.get(uid, r.object_id).name for r in current] == ["Lisbon"]  # type: ignore[union-attr]
    porto = next(m for m in storage.memories.list(uid, ["fact"], None) if "Porto" in m.content)
    assert porto.status == "superseded" and porto.valid_to == T0 + timedelta(days=100)


def _vec_fts(engine: Engine, memory_id: int, word: str) -> tuple[int, int]:
    return vectors(engine, memory_id=memory_id), lexical(engine, memory_id, word)


def test_formation_forget_removes_memory_everywhere(storage: MemoryStore) -> None:
    uid = user(storage, "ada")
    say(storage, uid, "t1", "my sister Ana moved to Porto last spring", T0)
    say(storage, uid, "t2", "I'm allergic to peanuts.", T0 + timedelta(days=1))
    form(storage)
    fact = next(m for m in storage.memories.list(uid, ["fact"]) if "Porto" in m.content)
    assert fact.id is not None and _vec_fts(storage.engine, fact.id, "Porto") == (1, 1)
    gone = forget_memory(storage, uid, fact.id)
    assert storage.memories.get(uid, fact.id) is None
    assert _vec_fts(storage.engine, fact.id, "Porto") == (0, 0)
    assert len(gone.relation_ids) == 2  # HAS_SISTER and LIVES_IN came only from that fact
    assert storage.entities.find_by_name(uid, "Porto", fuzzy=False) == []
    assert storage.entities.find_by_name(uid, "Ana", fuzzy=False) == []
    user_entity = storage.entities.find_by_name(uid, "User", fuzzy=False)[0]
    assert user_entity.id is not None
    preds = {r.predicate for r in storage.entities.current_relations(uid, user_entity.id)}
    assert preds == {"IS_ALLERGIC_TO"}  # the other memory's edge survives
    turn = next(m for m in storage.memories.list(uid, ["turn"]) if "Porto" in m.content)
    assert turn.id is not None
    assert forget_memory(storage, uid, turn.id).memory_ids == (turn.id,)
    assert all("Porto" not in h.memory.content for h in storage.memories.search(uid, "sister Porto", 10, 0.0))
    assert storage.graph.count(uid) == (2, 1)  # User -IS_ALLERGIC_TO-> peanuts, nothing else


def test_formation_forget_turn_takes_its_facts(storage: MemoryStore) -> None:
    uid = user(storage, "ada")
    say(storage, uid, "t1", "I work at Acme Robotics.", T0)
    form(storage)
    turn = storage.memories.list(uid, ["turn"])[0]
    assert turn.id is not None
    gone = forget_memory(storage, uid, turn.id)
    assert len(gone.memory_ids) == 2
    assert storage.memories.list(uid, None, None) == []
    assert storage.entities.find_by_name(uid, "Acme Robotics", fuzzy=False) == []


def test_formation_users_see_only_their_own_memories(storage: MemoryStore) -> None:
    ada, bob = user(storage, "ada"), user(storage, "bob")
    say(storage, ada, "a1", "my sister Ana moved to Porto last spring", T0)
    say(storage, bob, "b1", "I work at Globex.", T0)
    form(storage)
    assert storage.memories.search(bob, "where does my sister live?", 10, 0.0) == [] or all(
        "Porto" not in h.memory.content for h in storage.memories.search(bob, "sister Porto", 10, 0.0)
    )
    assert all(m.user_id == bob for m in storage.memories.list(bob, None, None))
    assert storage.entities.find_by_name(bob, "Ana") == [] and storage.entities.find_by_name(ada, "Globex") == []
    ctx = storage.assembler.assemble(bob, "b2", "Where does Ana live, in Porto?", DEFAULT_REQUEST)
    assert "Porto" not in TwoLevelContext.from_assembled(ctx).block()
    ada_fact = storage.memories.list(ada, ["fact"])[0]
    assert ada_fact.id is not None
    with pytest.raises(MemoryNotFound):
        forget_memory(storage, bob, ada_fact.id)
    assert storage.memories.get(ada, ada_fact.id) is not None
    bob_user = storage.entities.find_by_name(bob, "User", fuzzy=False)[0]
    ada_user = storage.entities.find_by_name(ada, "User", fuzzy=False)[0]
    assert bob_user.id != ada_user.id  # each user is their own "User" entity


def test_formation_records_its_time_on_the_turns_newest_usage_row(storage: MemoryStore) -> None:
    uid = user(storage, "ada")
    turn = say(storage, uid, "t1", "I'm allergic to peanuts.", T0)
    other = say(storage, uid, "t1", "I work at Acme Robotics.", T0)
    record = UsageRecord(uid, "t1", turn.id, "", {}, [], [], "", {})
    failed, retried = storage.usage.record(record), storage.usage.record(record)  # a failed reply, then its retry
    unformed = storage.usage.record(replace(record, turn_id=other.id))
    FormationQueue(storage.engine).complete(other.id or 0)  # not formed by this run
    form(storage)
    with Session(storage.engine) as s:
        times = [s.get(UsageRow, r.id).formation_ms for r in (failed, retried, unformed)]  # type: ignore[union-attr]
    assert times[0] is None and times[1] is not None and times[1] > 0 and times[2] is None


def test_formation_is_idempotent_by_turn(storage: MemoryStore) -> None:
    uid = user(storage, "ada")
    turn = say(storage, uid, "t1", "my sister Ana moved to Porto. I'm allergic to peanuts.", T0)
    form(storage)
    before = snapshot(storage, uid)
    queue = FormationQueue(storage.engine)
    assert turn.id is not None and not queue.enqueue(uid, turn.id)  # a retried reply queues nothing
    with storage.engine.begin() as conn:  # force a second run of the same job
        conn.execute(text("UPDATE formation_jobs SET status = 'pending'"))
    form(storage)
    assert snapshot(storage, uid) == before


class Crash(BaseException):
    """The process dying mid-formation (not an Exception: nothing may catch it)."""


class CrashingEntities(EntityStore):
    """The real entity store, dying after `relations` relations were added."""

    def __init__(self, storage: MemoryStore, relations: int) -> None:
        super().__init__(storage.engine, storage.graph)
        self.left = relations

    def add_relation(self, *args: Any, **kwargs: Any) -> RelationRow:
        if self.left == 0:
            raise Crash
        self.left -= 1
        return super().add_relation(*args, **kwargs)


@dataclass
class CrashingStores:
    engine: Engine
    turns: TurnStore
    memories: MemoryIndex
    entities: EntityStore


MESSAGE = "My sister Ana moved to Porto. I'm allergic to peanuts and shellfish. I work at Acme."


@pytest.mark.parametrize("after", [0, 1, 3])
def test_formation_crash_mid_formation_then_restart_loses_and_doubles_nothing(storage: MemoryStore, after: int) -> None:
    control, victim = user(storage, "control"), user(storage, "victim")
    say(storage, control, "t", MESSAGE, T0)
    form(storage)
    say(storage, victim, "t", MESSAGE, T0)
    crashing = CrashingStores(storage.engine, storage.turns, storage.memories, CrashingEntities(storage, after))
    with pytest.raises(Crash):
        run_pending(crashing, None, 10)
    queue = FormationQueue(storage.engine)
    assert queue.counts(victim) == {"running": 1}
    assert queue.requeue_stale() == 1  # start-up after the crash
    form(storage)
    assert queue.counts(victim) == {"done": 1}
    assert snapshot(storage, victim) == snapshot(storage, control)
    assert len(snapshot(storage, victim)["relations"]) == 5


class _BoomMemories(MemoryIndex):
    def add_many(self, *args: Any, **kwargs: Any) -> Any:
        raise ValueError("disk full")


def test_formation_failed_job_is_retried_then_marked_failed(storage: MemoryStore) -> None:
    uid = user(storage, "ada")
    turn = say(storage, uid, "t", "I work at Acme.", T0)
    broken = CrashingStores(
        storage.engine, storage.turns, _BoomMemories(storage.engine, storage.embedder), storage.entities
    )
    queue = FormationQueue(storage.engine)
    assert run_pending(broken, None, 1) == [] and queue.counts(uid) == {"pending": 1}
    run_pending(broken, None, 1)
    run_pending(broken, None, 1)
    assert queue.counts(uid) == {"failed": 1} and turn.id is not None and queue.status(turn.id) == "failed"


def _garbage(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return ModelResponse(parts=[TextPart('{"facts": ["The user is a nice"], "triples": [{"subject": ')])


def _hallucination(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    body = '{"facts": ["The user owns a castle in Narnia."], "triples": [{"subject": "User", "predicate": "OWNS", '
    body += '"object": "Narnia", "subject_type": "Person", "object_type": "Location"}]}'
    return ModelResponse(parts=[TextPart(body)])


@pytest.mark.anyio
@pytest.mark.parametrize("reply", [_garbage, _hallucination])
async def test_formation_malformed_model_output_falls_back_to_patterns(storage: MemoryStore, reply: Any) -> None:
    uid = user(storage, "ada")
    say(storage, uid, "t", "my sister Ana moved to Porto last spring", T0)
    extractor = LLMExtractor(FunctionModel(reply))
    if reply is _garbage:
        assert await extractor.extract_async("x y z", "user", T0) is None
    results = await anyio.to_thread.run_sync(run_pending, storage, extractor, 5)
    assert [r.extractor for r in results] == ["patterns"]
    facts = [m.content for m in storage.memories.list(uid, ["fact"])]
    assert facts == ["The user's sister Ana moved to Porto last spring."]
    assert storage.entities.find_by_name(uid, "Narnia", fuzzy=False) == []


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def embedded() -> AsyncIterator[Backend]:
    async with open_backend(LLMConfig(backend="embedded")) as backend:
        yield backend


@pytest.mark.anyio
async def test_formation_real_embedded_model_extraction_is_valid(embedded: Backend) -> None:
    extractor = LLMExtractor.for_backend(embedded)
    found = await extractor.extract_async("My sister Ana lives in Porto.", "user", T0)
    # The 135M model's judgement is not tested, only that what it returns is well-formed.
    assert found is None or isinstance(found, Extraction)
    if found is not None:
        assert len(found.facts) <= 5 and len(found.triples) <= 5
        assert all(isinstance(f, str) and len(f) <= 120 for f in found.facts)
        assert all(t.subject and t.predicate and t.object for t in found.triples)


def test_formation_requeue_spares_a_job_another_live_process_claimed_just_now(storage: MemoryStore) -> None:
    """With the app and `reverie chat` open side by side, a start-up only requeues jobs old enough
    to be a dead process's."""
    uid = user(storage, "maya")
    say(storage, uid, "t", MESSAGE, T0)
    queue = FormationQueue(storage.engine)
    assert queue.claim_next() is not None
    assert queue.requeue_stale(datetime.now(UTC) - timedelta(minutes=10)) == 0 and queue.counts(uid) == {"running": 1}
    assert queue.requeue_stale() == 1 and queue.counts(uid) == {"pending": 1}


def test_formation_start_up_requeue_leaves_this_process_own_jobs(storage: MemoryStore) -> None:
    """A job this process claimed is its own, still forming in a worker thread (`reverie chat` cancels
    its worker, then drains): requeued, it was formed twice. Only jobs claimed before it started go back."""
    uid = user(storage, "maya")
    say(storage, uid, "t", MESSAGE, T0)
    queue = FormationQueue(storage.engine)
    before_claim = datetime.now(UTC)
    assert queue.claim_next() is not None
    this_process = SimpleNamespace(started=before_claim, store=storage)
    assert _requeue_stale(this_process, queue) == 0 and queue.counts(uid) == {"running": 1}  # pyright: ignore[reportArgumentType]
    restarted = SimpleNamespace(started=datetime.now(UTC), store=storage)
    assert _requeue_stale(restarted, queue) == 1 and queue.counts(uid) == {"pending": 1}  # pyright: ignore[reportArgumentType]


class _SlowPatterns(PatternExtractor):
    """The pattern extractor, slow enough that two jobs formed at once would overlap in it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.inside = 0
        self.most_at_once = 0

    def extract(self, text: str, speaker: str, when: datetime) -> Extraction | None:
        with self._lock:
            self.inside += 1
            self.most_at_once = max(self.most_at_once, self.inside)
        time.sleep(0.3)
        with self._lock:
            self.inside -= 1
        return super().extract(text, speaker, when)


def test_formation_one_job_at_a_time_keeps_the_two_anas_apart(storage: MemoryStore) -> None:
    """Two formers in one process (`reverie chat` drained its queue while its cancelled worker's thread
    was still forming the turn before) each read who "Ana" is before the other wrote her: one Ana of
    both, in half of the runs. Jobs of one process are formed one at a time, in queue order."""
    uid = user(storage, "maya")
    say(storage, uid, "t", "My sister Ana lives in Lyon.", T0)
    say(storage, uid, "t", "My colleague Ana works at Globex.", T0 + timedelta(minutes=1))
    slow, start = _SlowPatterns(), threading.Barrier(2)

    def former() -> None:
        start.wait()
        run_pending(storage, slow, 1)

    threads = [threading.Thread(target=former) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert slow.most_at_once == 1
    assert FormationQueue(storage.engine).counts(uid) == {"done": 2}
    assert sorted(n.roles for n in storage.entities.namesakes(uid, "Ana")) == [("colleague",), ("sister",)]


@pytest.mark.anyio
async def test_formation_worker_cancelled_finishes_the_job_in_hand(settings: Settings, storage: MemoryStore) -> None:
    """A cancelled worker used to return at once while its thread went on forming: `reverie chat` then
    drained the queue beside it (two formers, one Ana of two) and closed the stores under it. It
    finishes the job in hand and claims no more (a model-path batch could hold shutdown for minutes)."""

    async def slow(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        await asyncio.sleep(0.3)
        return ModelResponse(parts=[TextPart("{}")])  # no extraction: the patterns form the turn

    backend = Backend("embedded", "scripted", "", FunctionModel(slow))
    rt = Runtime(settings=settings, store=storage, backend=backend, path="model")
    uid = user(storage, "maya")
    say(storage, uid, "t", "My sister Ana lives in Lyon.", T0)
    say(storage, uid, "t", "My colleague Ana works at Globex.", T0 + timedelta(minutes=1))
    queue = FormationQueue(storage.engine)
    worker = asyncio.create_task(formation_worker(rt, poll_s=0.05))
    while "running" not in queue.counts(uid):
        await asyncio.sleep(0.01)
    worker.cancel()
    await asyncio.gather(worker, return_exceptions=True)
    assert queue.counts(uid) == {"done": 1, "pending": 1}
    await drain_formation(rt)  # what `reverie chat` does next
    assert queue.counts(uid) == {"done": 2}
    assert sorted(n.roles for n in storage.entities.namesakes(uid, "Ana")) == [("colleague",), ("sister",)]
