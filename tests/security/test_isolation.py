"""User isolation through every path, with ids guessed from another user.

Mallory knows (guesses) every id and thread id Bob has. Each store, the context assembler, the
retry path of a chat turn, the info capabilities and the CLI must behave as if Bob's rows did
not exist. Bob's rows must also be unchanged after Mallory's attempts.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from sqlalchemy import text

from app.chat import Finished, Rejected, chat_turn, reply_to
from app.llm import Backend
from app.runtime import Runtime
from app.settings import Settings
from capabilities.context import TwoLevelContext
from memory.assembly import ContextRequest
from memory.graph.entities import EntityNotFound
from memory.store import MemoryStore
from tests.e2e.server import reverie
from tests.scripted import answer_chunks

pytestmark = pytest.mark.both_backends  # each test on SQLite and on PostgreSQL (tests/conftest.py)

REQUEST = '{"context_turns": 20, "vector_limit": 15, "similarity_threshold": 0.5, "triple_depth": 3, "reason": "x"}'
SECRET = "Bob's locker code is 4417 and he hides it in the blue notebook"


@dataclass
class Bob:
    """Everything Bob owns, by id (what Mallory guesses)."""

    uid: int
    thread: str
    turn_id: int
    memory_id: int
    entity_ids: tuple[int, int]
    relation_id: int


def _runtime(settings: Settings, storage: MemoryStore) -> Runtime:
    async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(REQUEST)])

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        for chunk in answer_chunks("seen: " + repr(messages)[-3000:]):  # echo what it saw: a leak would show
            yield chunk

    model = FunctionModel(respond, stream_function=stream)
    return Runtime(settings=settings, store=storage, backend=Backend("embedded", "scripted", "", model))


def _bob(storage: MemoryStore) -> Bob:
    uid = storage.accounts.create("bob", "bob-password-123").id
    assert uid is not None
    turn = storage.turns.add(uid, "bob-thread", "user", SECRET)
    memory = storage.memories.add(uid, "fact", SECRET, thread_id="bob-thread", source_turn_id=turn.id)
    a = storage.entities.upsert_entity(uid, "Bob Locker", "Product", source_memory_id=memory.id)
    b = storage.entities.upsert_entity(uid, "Blue Notebook", "Product", source_memory_id=memory.id)
    assert a.id and b.id and turn.id and memory.id
    rel = storage.entities.add_relation(uid, a.id, "stored_in", b.id, source_memory_id=memory.id)
    storage.usage.record(_usage(uid))
    return Bob(uid, "bob-thread", turn.id, memory.id, (a.id, b.id), rel.id or 0)


def _usage(uid: int):
    from memory.usage import UsageRecord

    return UsageRecord(uid, "bob-thread", None, SECRET, {}, [], [], "", {})


def _mallory(storage: MemoryStore) -> int:
    uid = storage.accounts.create("mallory", "mallory-password-1").id
    assert uid is not None
    storage.memories.add(uid, "fact", "Mallory likes lockers and notebooks")
    return uid


def _bob_rows(storage: MemoryStore, uid: int) -> list[object]:
    with storage.engine.connect() as conn:
        return [
            conn.execute(text(f"SELECT * FROM {t} WHERE user_id = :u ORDER BY id"), {"u": uid}).all()
            for t in ("turns", "memories", "entities", "relations", "usage_log")
        ]


def test_isolation_stores_ignore_guessed_ids(storage: MemoryStore) -> None:
    bob = _bob(storage)
    mal = _mallory(storage)
    before = _bob_rows(storage, bob.uid)
    assert storage.turns.get(mal, bob.turn_id) is None
    assert storage.turns.recent(mal, bob.thread, 50) == []
    assert bob.thread not in storage.turns.threads(mal)
    assert storage.memories.by_ids(mal, [bob.memory_id]) == {}
    assert all(h.memory.user_id == mal for h in storage.memories.search(mal, SECRET, 15, 0.5))
    assert storage.entities.get(mal, bob.entity_ids[0]) is None
    assert storage.entities.find_by_name(mal, "Bob Locker") == []
    assert storage.entities.expand(mal, list(bob.entity_ids), 3).node_ids == set()
    assert storage.entities.shortest_path(mal, *bob.entity_ids) is None
    assert storage.entities.types(mal) == {}
    with pytest.raises(EntityNotFound):
        storage.entities.add_relation(mal, bob.entity_ids[0], "owns", bob.entity_ids[1])
    with pytest.raises(EntityNotFound):
        storage.entities.supersede_relation(mal, bob.relation_id)
    try:
        deleted = storage.memories.delete(mal, bob.memory_id)
    except LookupError:
        deleted = False
    assert not deleted
    assert all(r.user_id == mal for r in storage.usage.recent(mal)) and storage.usage.last(mal, bob.thread) is None
    assert _bob_rows(storage, bob.uid) == before


def test_isolation_assembly_on_a_guessed_thread_loads_nothing_of_bob(storage: MemoryStore) -> None:
    bob = _bob(storage)
    mal = _mallory(storage)
    ctx = storage.assembler.assemble(
        mal, bob.thread, f"Bob Locker Blue Notebook {SECRET}", ContextRequest(20, 15, 0.5, 3)
    )
    assert ctx.history == [] and ctx.entities == {} and all(h.memory.user_id == mal for h in ctx.hits)
    assert "4417" not in TwoLevelContext.from_assembled(ctx).block()


@pytest.mark.anyio
async def test_isolation_chat_turn_and_retry_with_guessed_ids(settings: Settings, storage: MemoryStore) -> None:
    bob = _bob(storage)
    mal = _mallory(storage)
    before = _bob_rows(storage, bob.uid)
    rt = _runtime(settings, storage)
    retry = [e async for e in reply_to(rt, mal, bob.thread, bob.turn_id)]
    assert len(retry) == 1 and isinstance(retry[0], Rejected)
    events = [e async for e in chat_turn(rt, mal, bob.thread, "What is Bob's locker code? Bob Locker, Blue Notebook")]
    final = events[-1]
    assert isinstance(final, Finished) and "4417" not in final.reply and "Bob Locker" not in final.reply
    assert _bob_rows(storage, bob.uid) == before


def test_isolation_info_capabilities_with_bobs_ids(storage: MemoryStore) -> None:
    info = pytest.importorskip("capabilities.info")
    from capabilities.answer import NeedsMoreInfo
    from capabilities.context import TwoLevelContext

    bob = _bob(storage)
    mal = _mallory(storage)
    stores = info.InfoStores(entities=storage.entities, memories=storage.memories)
    a, b = (f"e{i}" for i in bob.entity_ids)
    requests = [
        ("EXPAND_ENTITY", {"entity_id": a}),
        ("GET_RELATIONSHIPS", {"entity_id": a, "direction": "both"}),
        ("FIND_PATH", {"from_id": a, "to_id": b, "max_hops": 3}),
        ("GET_ENTITY_BY_NAME", {"name": "Bob Locker"}),
        ("SEARCH_MEMORIES", {"query": "locker code hidden in a notebook"}),
        ("LIST_ENTITY_TYPES", {}),
        ("GET_ENTITIES_BY_TYPE", {"type": "Product"}),
    ]
    for capability, args in requests:
        result = info.fulfil(NeedsMoreInfo(capability=capability, args=args), stores, mal, TwoLevelContext())
        shown = repr(result.delta) + result.summary.replace(repr(args.get("name", "")), "")
        assert "4417" not in shown and "Bob Locker" not in shown and "Blue Notebook" not in shown, capability
        assert not (result.delta.memories or result.delta.summaries or result.delta.details), capability


def test_isolation_cli_lists_names_only(tmp_path) -> None:
    data = tmp_path / "data"
    for name in ("ana", "bob"):
        done = reverie(data, "users", "add", name, "--password-stdin", stdin="a-long-password\n")
        assert done.returncode == 0, done.stderr
    listed = reverie(data, "users", "list")
    assert listed.returncode == 0 and {"ana", "bob"} <= set(listed.stdout.split())
    assert "$2b$" not in listed.stdout and "a-long-password" not in listed.stdout
    limits = reverie(data, "limits")
    assert limits.returncode == 0 and "CONTEXT_TURNS" in limits.stdout
    assert "ana" not in limits.stdout and "bob" not in limits.stdout
    dup = reverie(data, "users", "add", "bob", "--password-stdin", stdin="another-password\n")
    assert dup.returncode != 0 and "Traceback" not in dup.stderr
