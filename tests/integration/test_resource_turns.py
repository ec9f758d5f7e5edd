"""Issue 4 on real stores: the agent's request is clamped, reported, logged and honoured.

The model is a scripted FunctionModel (deterministic agent logic); tests/e2e drives the real
embedded model.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from app.chat import ContextPlanned, Finished, TurnEvent, chat_turn
from app.llm import Backend
from app.runtime import Runtime
from app.settings import Settings
from capabilities.resources import Dimension
from memory.store import MemoryStore
from tests.scripted import answer_chunks

pytestmark = [pytest.mark.anyio, pytest.mark.both_backends]  # (backends: tests/conftest.py)


class Script:
    """A scripted model: fixed resource-request JSON, and a reply that records what it saw."""

    def __init__(self, request: str) -> None:
        self.request = request
        self.prompts: list[str] = []
        self.history_sizes: list[int] = []

    async def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(self.request)])

    async def stream(self, messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        parts = [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, UserPromptPart)]
        self.prompts.append(str(parts[-1].content))
        self.history_sizes.append(len(messages) - 1)
        for chunk in answer_chunks("noted."):
            yield chunk

    def runtime(self, settings: Settings, storage: MemoryStore) -> Runtime:
        model = FunctionModel(self.respond, stream_function=self.stream)
        return Runtime(settings=settings, store=storage, backend=Backend("embedded", "scripted", "", model))


async def _turn(rt: Runtime, uid: int, text: str, thread: str = "t") -> list[TurnEvent]:
    return [e async for e in chat_turn(rt, uid, thread, text)]


def _uid(storage: MemoryStore) -> int:
    row = storage.accounts.create("ana", "correct-horse")
    assert row.id is not None
    return row.id


async def test_resource_turn_clamps_logs_and_reports_in_next_context(settings: Settings, storage: MemoryStore) -> None:
    uid = _uid(storage)
    script = Script('{"context_turns": 25, "vector_limit": 3, "similarity_threshold": 0.85, "reason": "deep"}')
    rt = script.runtime(settings, storage)
    events = await _turn(rt, uid, "Let's debug the parser again")
    planned = next(e for e in events if isinstance(e, ContextPlanned))
    assert planned.provision.value(Dimension.CONTEXT_TURNS) == 20
    assert [g.dimension.name for g in planned.provision.clamped] == ["CONTEXT_TURNS"]
    assert [g.dimension.name for g in planned.provision.defaulted] == ["TRIPLE_DEPTH"]
    finished = events[-1]
    assert isinstance(finished, Finished)
    assert "- CONTEXT_TURNS: 20 (clamped to MAX_EPISODIC_CONTEXT_TURNS)" in finished.report
    row = storage.usage.last(uid, "t")
    assert row is not None and json.loads(row.clamped) == ["CONTEXT_TURNS"]
    assert json.loads(row.request)["CONTEXT_TURNS"] == {"requested": 25, "provided": 20, "status": "clamped_to_max"}
    assert row.rss_mb and row.rss_mb > 0 and row.retrieval_ms is not None and row.generation_ms is not None
    await _turn(rt, uid, "and the lexer?")
    assert script.prompts[0].startswith("and") is False
    assert script.prompts[1].startswith("SYSTEM_EXECUTION_REPORT")
    assert "clamped to MAX_EPISODIC_CONTEXT_TURNS" in script.prompts[1]


async def test_resource_turn_flags_off_hide_report_and_violations(settings: Settings, storage: MemoryStore) -> None:
    uid = _uid(storage)
    quiet = settings.model_copy(update={"include_execution_report": False, "report_constraint_violations": False})
    script = Script('{"context_turns": 99, "reason": "x"}')
    rt = script.runtime(quiet, storage)
    first = await _turn(rt, uid, "one")
    await _turn(rt, uid, "two")
    finished = first[-1]
    assert isinstance(finished, Finished)
    assert "clamped" not in finished.report and "- CONTEXT_TURNS: 20" in finished.report
    assert "SYSTEM_EXECUTION_REPORT" not in script.prompts[1]


async def test_resource_turn_garbled_request_falls_back_to_defaults(settings: Settings, storage: MemoryStore) -> None:
    uid = _uid(storage)
    rt = Script("I think maybe some turns? {{{").runtime(settings, storage)
    events = await _turn(rt, uid, "hello")
    planned = next(e for e in events if isinstance(e, ContextPlanned))
    assert len(planned.provision.defaulted) == 4
    assert planned.provision.value(Dimension.CONTEXT_TURNS) == settings.default_episodic_context_turns
    assert planned.notes, "the fallback must be recorded"
    row = storage.usage.last(uid, "t")
    assert row is not None and len(json.loads(row.defaulted)) == 4


async def test_resource_turn_context_turns_limits_history(settings: Settings, storage: MemoryStore) -> None:
    uid = _uid(storage)
    script = Script('{"context_turns": 2, "vector_limit": 0, "triple_depth": 0, "reason": "short"}')
    rt = script.runtime(settings, storage)
    for i in range(4):
        await _turn(rt, uid, f"message number {i}")
    assert script.history_sizes == [0, 2, 2, 2]


async def test_resource_turn_followup_signal_marks_previous_row(settings: Settings, storage: MemoryStore) -> None:
    uid = _uid(storage)
    rt = Script('{"context_turns": 1, "reason": "x"}').runtime(settings, storage)
    await _turn(rt, uid, "My favourite colour is teal")
    await _turn(rt, uid, "As I said before, what colour do I like?")
    rows = storage.usage.recent(uid)
    assert rows[0].followup_signal == "explicit_reference"
    assert rows[1].followed_by_signal == "explicit_reference"


async def test_resource_turn_approved_override_takes_effect_next_turn(settings: Settings, storage: MemoryStore) -> None:
    uid = _uid(storage)
    script = Script('{"context_turns": 25, "reason": "long"}')
    rt = script.runtime(settings, storage)
    await _turn(rt, uid, "first")
    storage.overrides.add("CONTEXT_TURNS", max_value=25, proposal_id=7, reason="long threads lost context")
    events = await _turn(rt, uid, "second")
    planned = next(e for e in events if isinstance(e, ContextPlanned))
    assert planned.provision.value(Dimension.CONTEXT_TURNS) == 25 and not planned.provision.clamped
    assert "LIMITS_CHANGED" in planned.limits_notice and "25" in planned.limits_notice
    assert "proposal #7" in planned.limits_notice and "long threads lost context" in planned.limits_notice
    assert "LIMITS_CHANGED" in script.prompts[1]


async def test_resource_turn_reminder_is_set_and_delivered_into_thread(
    settings: Settings, storage: MemoryStore
) -> None:
    from datetime import timedelta

    from app.proactive import deliver_due
    from memory.models import utcnow

    uid = _uid(storage)
    script = Script('{"context_turns": 1, "reason": "x"}')
    rt = script.runtime(settings, storage)
    await _turn(rt, uid, "remind me to water the plants")
    assert "REMINDER_SET" in script.prompts[0] and "no time given: the default 120 minutes" in script.prompts[0]
    pending = rt.reminders.pending(uid)
    assert len(pending) == 1
    due = pending[0].due_at - utcnow()
    assert timedelta(minutes=119) < due <= timedelta(minutes=120)
    assert deliver_due(storage.turns, storage.threads, rt.reminders) == []
    with storage.engine.begin() as conn:
        from sqlalchemy import text

        conn.execute(text("UPDATE reminders SET due_at = '2000-01-01 00:00:00.000000'"))
    sent = deliver_due(storage.turns, storage.threads, rt.reminders)
    assert len(sent) == 1
    assert storage.turns.recent(uid, "t", 1)[0].content == "⏰ Reminder: water the plants"
    assert rt.reminders.pending(uid) == []


async def test_resource_turn_focus_limits_recall_to_one_document(settings: Settings, storage: MemoryStore) -> None:
    from app.chat import ContextPlanned as Planned
    from app.focus import focus_reply
    from memory.documents.store import DocumentStore
    from memory.recall.vectors import NewMemory

    uid = _uid(storage)
    docs = DocumentStore(storage.engine, storage.entities)
    book = docs.create(uid, "dracula.txt", "hash-1", 10, 1, "patterns")
    assert book.id is not None
    storage.memories.add(uid, "fact", "What happened at Whitby: the user's sister moved there.")
    storage.memories.add_many(
        uid, [NewMemory("chunk", "What happened at Whitby: the Demeter ran aground.", document_id=book.id)]
    )
    script = Script('{"context_turns": 1, "vector_limit": 5, "similarity_threshold": 0.5, "reason": "x"}')
    rt = script.runtime(settings, storage)

    async def kinds() -> set[str]:
        events = await _turn(rt, uid, "What happened at Whitby?")
        planned = next(e for e in events if isinstance(e, Planned))
        loaded = [i["ref"] for i in planned.telemetry["loaded"] if str(i["ref"]).startswith("m")]
        rows = storage.memories.by_ids(uid, [int(r[1:]) for r in loaded])
        return {row.kind for row in rows.values()}

    assert await kinds() == {"fact", "chunk"}
    assert "dracula.txt" in focus_reply(rt, uid, "t", str(book.id))
    assert await kinds() == {"chunk"}
    assert "only what you told me" in focus_reply(rt, uid, "t", "personal")
    assert await kinds() == {"fact"}
    assert "everything again" in focus_reply(rt, uid, "t", "all")
    assert "Say `/focus" in focus_reply(rt, uid, "t", "999")


async def test_resource_turn_next_context_says_what_was_left_out_and_what_to_ask(
    settings: Settings, storage: MemoryStore
) -> None:
    """The telemetry reaches the agent's next context in plain words (the execution report it reads
    before asking for context again), and the Context step's report says the same."""
    uid = _uid(storage)
    ents = storage.entities
    ana = ents.upsert_entity(uid, "Ana", "Person", summary="the user's sister").id
    acme = ents.upsert_entity(uid, "Acme Logistics", "Organization", summary="a freight company").id
    depot = ents.upsert_entity(uid, "Depot", "Location", summary="Acme's freight depot").id
    assert ana and acme and depot
    ents.add_relation(uid, ana, "WORKS_AT", acme)
    ents.add_relation(uid, acme, "USES", depot)
    script = Script('{"context_turns": 2, "vector_limit": 0, "similarity_threshold": 0.7, "triple_depth": 1}')
    rt = script.runtime(settings, storage)
    first = (await _turn(rt, uid, "Where does Ana work?"))[-1]
    assert isinstance(first, Finished)
    said = "Recommendation: ask TRIPLE_DEPTH 2 for Depot"
    assert "links followed 1 of 1 step(s) out" in first.report and said in first.report
    assert "Left out: 1 past TRIPLE_DEPTH" in first.report
    seen = len(script.prompts)
    await _turn(rt, uid, "thanks")
    assert script.prompts[seen].startswith("SYSTEM_EXECUTION_REPORT") and said in script.prompts[seen]
