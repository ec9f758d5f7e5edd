"""The answer loop on real stores, driven by scripted models (FunctionModel), plus one run of
the real embedded model proving its grammar-constrained `Answer | NeedsMoreInfo` parses and
the loop terminates."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from pydantic_ai import models
from pydantic_ai.exceptions import ModelAPIError
from pydantic_ai.messages import ModelMessage, ModelRequest, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from app.answer_loop import AnswerDelta, Answered, InfoRound, LoopEvent, answer_question
from app.llm import Backend, LLMConfig, open_backend
from capabilities.answer import NOT_VERIFIED
from capabilities.context import TwoLevelContext
from memory.graph.entities import EntityStore
from memory.graph.entity_vectors import EntityVectors
from memory.graph.names import USER
from memory.queries import QueryConfig, QueryStore
from memory.recall.vectors import MemoryIndex
from memory.store import MemoryStore
from tests.integration.test_info_capabilities import World, initial_context, seed

pytestmark = pytest.mark.both_backends
QUESTION = "Where does Ana live?"
SISTER = "Where does my sister Ana live?"  # says which Ana: the reply is the model's alone


@dataclass
class Stores:
    entities: EntityStore
    memories: MemoryIndex
    queries: QueryStore
    vectors: EntityVectors


@dataclass
class Script:
    """A model that replies with the next scripted text, streamed in small chunks."""

    replies: list[str]
    prompts: list[str] = field(default_factory=list)

    async def stream(self, messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        self.prompts.append("".join(str(p.content) for p in last.parts if isinstance(p, UserPromptPart)))
        reply = self.replies.pop(0) if self.replies else answer("out of script")
        for i in range(0, len(reply), 9):
            yield reply[i : i + 9]

    def backend(self) -> Backend:
        return Backend("embedded", "script", "http://127.0.0.1:1/v1", FunctionModel(stream_function=self.stream))


def answer(content: str, *refs: str, confidence: str = "high", envelope: bool = True) -> str:
    sources = [{"ref": r, "contribution": "states it", "relevance": 1.4} for r in refs]
    data = {"content": content, "confidence": confidence, "sources": sources, "follow_ups": ["Who is Bruno?"]}
    return json.dumps({"result": {"kind": "Answer", "data": data}} if envelope else data)


def request(capability: str, reason: str = "need more", **args: Any) -> str:
    data = {"capability": capability, "args": args, "reason": reason}
    return json.dumps({"result": {"kind": "NeedsMoreInfo", "data": data}})


@pytest.fixture(autouse=True)
def no_real_model_requests() -> Iterator[None]:
    previous, models.ALLOW_MODEL_REQUESTS = models.ALLOW_MODEL_REQUESTS, False
    try:
        yield
    finally:
        models.ALLOW_MODEL_REQUESTS = previous


@pytest.fixture
def world(storage: MemoryStore) -> World:
    """The shared world, with who each Ana is to the person as formation writes it ("my sister Ana",
    "my colleague Ana"): what tells the two apart in a reply."""
    found = seed(storage)
    user = storage.entities.upsert_entity(found.uid, USER, "Person").id or 0
    storage.entities.add_relation(found.uid, user, "HAS_SISTER", found.sister)
    storage.entities.add_relation(found.uid, user, "HAS_COLLEAGUE", found.colleague)
    return found


@pytest.fixture
def stores(storage: MemoryStore) -> Stores:
    return Stores(storage.entities, storage.memories, QueryStore(storage.engine), storage.vectors)


async def run_loop(
    script: Script,
    stores: Stores,
    storage: MemoryStore,
    world: World,
    cfg: QueryConfig | None = None,
    question: str = QUESTION,
) -> tuple[list[LoopEvent], TwoLevelContext]:
    ctx = initial_context(storage, world, question)
    row = stores.queries.create(world.uid, question, cfg)
    events = [e async for e in answer_question(script.backend(), stores, world.uid, row, ctx, question)]
    return events, ctx


def final(events: list[LoopEvent]) -> Answered:
    assert isinstance(events[-1], Answered)
    assert sum(isinstance(e, Answered) for e in events) == 1
    return events[-1]


@pytest.mark.anyio
async def test_answer_loop_answer_first_is_one_round(storage: MemoryStore, world: World, stores: Stores) -> None:
    script = Script([answer("Your sister Ana lives in Porto.", f"m{world.sister_memory}", f"e{world.sister}")])
    events, _ = await run_loop(script, stores, storage, world)
    done = final(events)
    assert (done.rounds, done.forced, done.answer.confidence) == (0, False, "high")
    assert "".join(e.text for e in events if isinstance(e, AnswerDelta)) == done.answer.content
    assert sum(isinstance(e, AnswerDelta) for e in events) > 1  # streamed, not one chunk
    assert done.answer.sources[0].relevance == 1.0  # clamped from 1.4
    assert done.answer.follow_ups == ["Who is Bruno?"]
    row = stores.queries.recent(world.uid)[0]
    assert (row.status, row.info_requests, row.confidence) == ("completed", 0, "high")
    assert "<recalled_context>" in script.prompts[0] and QUESTION in script.prompts[0]


@pytest.mark.anyio
async def test_answer_loop_one_info_round_then_answer(storage: MemoryStore, world: World, stores: Stores) -> None:
    sister = f"e{world.sister}"
    script = Script([request("EXPAND_ENTITY", "which Ana", entity_id=sister), answer("Porto.", sister)])
    events, ctx = await run_loop(script, stores, storage, world)
    rounds = [e for e in events if isinstance(e, InfoRound)]
    assert len(rounds) == 1 and rounds[0].accepted
    assert (rounds[0].capability, rounds[0].args, rounds[0].round) == ("EXPAND_ENTITY", {"entity_id": sister}, 1)
    assert "relations" in rounds[0].result_summary and rounds[0].reason == "which Ana"
    done = final(events)
    assert (done.rounds, done.forced) == (1, False)
    assert world.sister in ctx.expanded_ids and done.stats.expanded == 1
    assert "Info requests so far" in script.prompts[1] and "LIVES_IN" in script.prompts[1]
    row = stores.queries.recent(world.uid)[0]
    assert row.info_requests == 1 and row.status == "completed"
    assert json.loads(row.choices)["ana"]["chosen"] == [world.sister]


@pytest.mark.anyio
async def test_answer_loop_max_rounds_forces_a_low_confidence_answer(
    storage: MemoryStore, world: World, stores: Stores
) -> None:
    script = Script(
        [
            request("SEARCH_MEMORIES", "Ana's street", query="Ana street address"),
            request("SEARCH_MEMORIES", "Ana's street", query="Ana house"),
            answer("Ana lives in Porto.", f"m{world.sister_memory}"),
        ]
    )
    events, _ = await run_loop(script, stores, storage, world, QueryConfig(max_info_requests=2), SISTER)
    assert [e.round for e in events if isinstance(e, InfoRound)] == [1, 2]
    done = final(events)
    assert done.forced and done.rounds == 2 and done.answer.confidence == "low"
    assert done.answer.content.startswith("Ana lives in Porto.") and NOT_VERIFIED in done.answer.content
    assert "no more information can be requested" in script.prompts[2]
    row = stores.queries.recent(world.uid)[0]
    assert (row.info_requests, row.forced, row.confidence) == (2, True, "low")


@pytest.mark.anyio
async def test_answer_loop_model_that_never_stops_asking_still_terminates(
    storage: MemoryStore, world: World, stores: Stores
) -> None:
    script = Script([request("SEARCH_MEMORIES", query=f"try {n}") for n in range(10)])
    events, _ = await run_loop(script, stores, storage, world, QueryConfig(max_info_requests=3))
    done = final(events)
    assert done.forced and done.rounds == 3 and done.answer.confidence == "low"
    assert NOT_VERIFIED in done.answer.content and len(script.prompts) == 4
    assert stores.queries.recent(world.uid)[0].status == "completed"


@pytest.mark.anyio
@pytest.mark.parametrize(
    "bad",
    [
        request("EXPAND_ENTITY", "hallucinated", entity_id="e999"),
        request("GET_RELATIONSHIPS", entity_id="e1", direction="sideways"),
        request("TELEPORT", where="moon"),
        '{"result": {"kind": "NeedsMoreInfo", "data": {"capability": "EXPAND_ENTITY"',  # cut off
        "I think Ana lives in Porto.",  # not JSON at all
    ],
)
async def test_answer_loop_violation_forces_an_answer(
    storage: MemoryStore, world: World, stores: Stores, bad: str
) -> None:
    script = Script([bad, answer("Probably Porto.", f"e{world.sister}", confidence="medium")])
    events, _ = await run_loop(script, stores, storage, world)
    rejected = [e for e in events if isinstance(e, InfoRound)]
    assert len(rejected) == 1 and not rejected[0].accepted and rejected[0].result_summary.startswith("rejected")
    done = final(events)
    assert done.forced and done.answer.confidence == "low" and NOT_VERIFIED in done.answer.content
    assert done.rounds == 0 and stores.queries.recent(world.uid)[0].info_requests == 0


@pytest.mark.anyio
async def test_answer_loop_invalid_answer_then_garbage_gets_a_built_answer(
    storage: MemoryStore, world: World, stores: Stores
) -> None:
    script = Script([answer("Porto", "m999"), "not json", "still not json"])
    events, _ = await run_loop(script, stores, storage, world)
    done = final(events)
    assert done.forced and done.answer.confidence == "low" and NOT_VERIFIED in done.answer.content
    assert {s.ref for s in done.answer.sources} <= {f"m{world.sister_memory}", "m2", "m3"}
    assert len(script.prompts) == 2  # one try, one forced try, then no model at all


@pytest.mark.anyio
async def test_answer_loop_copied_placeholder_is_never_the_reply(
    storage: MemoryStore, world: World, stores: Stores
) -> None:
    """The 135M model copied the instructions' `<your answer>` verbatim; it must not reach the user."""
    script = Script([answer("<your answer>", f"m{world.sister_memory}"), answer(" <your answer> ")])
    events, _ = await run_loop(script, stores, storage, world)
    done = final(events)
    assert done.forced and done.answer.confidence == "low"
    assert "<your answer>" not in done.answer.content
    assert len(script.prompts) == 2


@pytest.mark.anyio
async def test_answer_loop_ambiguity_records_the_chosen_candidate(
    storage: MemoryStore, world: World, stores: Stores
) -> None:
    script = Script(
        [
            request("GET_ENTITY_BY_NAME", "which Ana?", name="Ana"),
            answer("Your colleague Ana leads billing at Acme.", f"e{world.colleague}"),
        ]
    )
    events, _ = await run_loop(script, stores, storage, world)
    first = next(e for e in events if isinstance(e, InfoRound))
    assert "ambiguous" in first.result_summary
    assert "my sister" in script.prompts[1] and "billing team lead" in script.prompts[1]
    assert not final(events).forced
    choices = json.loads(stores.queries.recent(world.uid)[0].choices)
    assert choices["ana"] == {"candidates": sorted([world.sister, world.colleague]), "chosen": [world.colleague]}


@pytest.mark.anyio
async def test_answer_loop_zero_requests_allowed_is_a_plain_answer(
    storage: MemoryStore, world: World, stores: Stores
) -> None:
    script = Script([answer("Porto.", envelope=False)])  # the Answer-only schema has no envelope
    events, _ = await run_loop(script, stores, storage, world, QueryConfig(max_info_requests=0), SISTER)
    done = final(events)
    assert not done.forced and done.answer.content == "Porto."


@pytest.mark.anyio
async def test_answer_loop_model_failure_marks_query_failed_and_propagates(
    storage: MemoryStore, world: World, stores: Stores
) -> None:
    async def down(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        raise ModelAPIError("script", "connection refused")
        yield ""

    ctx = initial_context(storage, world, QUESTION)
    row = stores.queries.create(world.uid, QUESTION)
    backend = Backend("embedded", "script", "http://127.0.0.1:1/v1", FunctionModel(stream_function=down))
    with pytest.raises(ModelAPIError):
        async for _ in answer_question(backend, stores, world.uid, row, ctx, QUESTION):
            pass
    failed = stores.queries.get(world.uid, row.id or 0)
    assert failed is not None and failed.status == "failed" and "connection refused" in (failed.error or "")


@pytest.mark.one_backend
@pytest.mark.anyio
async def test_answer_loop_real_embedded_model_constrained_union_parses_and_terminates(
    storage: MemoryStore, world: World, stores: Stores
) -> None:
    """The real SmolLM2-135M: its grammar-constrained reply parses as Answer | NeedsMoreInfo every
    round, and the loop ends with an answer within max_info_requests + 1 model calls."""
    models.ALLOW_MODEL_REQUESTS = True
    ctx = initial_context(storage, world, QUESTION)
    row = stores.queries.create(world.uid, QUESTION, QueryConfig(max_info_requests=1))
    started = time.perf_counter()
    async with open_backend(LLMConfig(backend="embedded")) as backend:
        events = [e async for e in answer_question(backend, stores, world.uid, row, ctx, QUESTION)]
    elapsed = time.perf_counter() - started
    done = final(events)
    rounds = [e for e in events if isinstance(e, InfoRound)]
    assert all(r.accepted for r in rounds), rounds  # a grammar-constrained id is always in context
    assert done.answer.content.strip() and done.rounds == len(rounds) <= 1
    assert set(done.answer.refs) <= set(ctx.refs)
    stored = stores.queries.get(world.uid, row.id or 0)
    assert stored is not None and stored.status == "completed"
    print(f"embedded loop: {len(rounds)} info round(s), {elapsed:.1f} s, answer={done.answer.content[:80]!r}")


TWO_ANAS = "You've told me about two Anas — your sister and your colleague."


@pytest.mark.anyio
async def test_answer_loop_states_two_namesakes_before_the_streamed_answer(
    storage: MemoryStore, world: World, stores: Stores
) -> None:
    script = Script([answer("Your sister Ana lives in Porto.", f"m{world.sister_memory}", f"e{world.sister}")])
    events, _ = await run_loop(script, stores, storage, world)
    done = final(events)
    assert done.answer.content == f"{TWO_ANAS} Your sister Ana lives in Porto."
    deltas = [e.text for e in events if isinstance(e, AnswerDelta)]
    assert deltas[0] == f"{TWO_ANAS} " and "".join(deltas) == done.answer.content  # said first, as it streams


@pytest.mark.anyio
async def test_answer_loop_says_which_namesake_a_cited_note_is_about_or_asks_which(
    storage: MemoryStore, world: World, stores: Stores
) -> None:
    cited = Script([answer("Ana lives in Porto.", f"m{world.sister_memory}")])  # the note says "my sister"
    done = final((await run_loop(cited, stores, storage, world))[0])
    assert done.answer.content == f"{TWO_ANAS} Ana lives in Porto. (That is your sister Ana.)"
    bare = Script([answer("Porto.")])
    events, _ = await run_loop(bare, stores, storage, world)
    done = final(events)
    assert done.answer.content == f"{TWO_ANAS} Porto. Which Ana — your sister or your colleague?"
    assert "".join(e.text for e in events if isinstance(e, AnswerDelta)) == done.answer.content
    lower = Script([answer("Porto.")])  # a lower-case name is found through the context's same-named group
    done = final((await run_loop(lower, stores, storage, world, question="where does ana live?"))[0])
    assert done.answer.content.startswith(TWO_ANAS)
    marked = Script([answer("Porto.")])
    done = final((await run_loop(marked, stores, storage, world, question=SISTER))[0])
    assert done.answer.content == "Porto."
