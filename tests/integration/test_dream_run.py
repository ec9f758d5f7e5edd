"""Issue 6 on real stores: usage from real (scripted-model) turns → dream → proposal → approval → next turn.

The usage log is written by app/chat.py itself; the simulation replays it through the real
context assembly (SQLite + sqlite-vec + Kuzu + the real embedder). Issue 15's four cases (a limit
that hurts, asking past it that loses nothing, degenerate requests, a trial that breaches memory)
dream through the real scheduler and the app's own job (`scheduled`).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
from collections.abc import AsyncIterator
from datetime import timedelta

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from sqlmodel import Session

from app.chat import ContextPlanned, Finished, TurnEvent, chat_turn
from app.cli import build_parser
from app.llm import Backend, LLMConfig, open_backend
from app.meter import model_meter
from app.runtime import Runtime, effective_limits
from app.settings import Settings
from capabilities.resources import Dimension, GrantStatus
from dreaming import proposals
from dreaming.dream import DreamConfig, DreamReport, last_night, morning_text, run_dream
from memory.dreams import DreamStore, MemoryChange, ProposalError, loads
from memory.models import UsageRow, utcnow
from memory.store import MemoryStore
from tests.scheduled_dream import scheduled as scheduled_dream
from tests.scripted import answer_chunks

pytestmark = [pytest.mark.anyio, pytest.mark.both_backends]  # (backends: tests/conftest.py)


class Scripted:
    """A model that always asks for the same resources and answers "noted."."""

    def __init__(self, request: str) -> None:
        self.request = request

    async def respond(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart(self.request)])

    async def stream(self, messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        yield "noted."

    def runtime(self, settings: Settings, storage: MemoryStore) -> Runtime:
        model = FunctionModel(self.respond, stream_function=self.stream)
        return Runtime(settings=settings, store=storage, backend=Backend("embedded", "scripted", "", model))


async def turns(rt: Runtime, uid: int, thread: str, texts: list[str]) -> list[list[TurnEvent]]:
    return [[e async for e in chat_turn(rt, uid, thread, t)] for t in texts]


def dream(settings: Settings, storage: MemoryStore) -> DreamReport:
    config = DreamConfig(limits=effective_limits(settings, storage), memory_limit_mb=settings.memory_limit_mb)
    return run_dream(storage, config)


async def scheduled(settings: Settings, storage: MemoryStore) -> DreamReport:
    """One dream as the running app dreams (tests/scheduled_dream.py), the meter on the scripted model."""
    return await scheduled_dream(settings, storage, Scripted(MODEST).runtime(settings, storage).backend)


GREEDY = '{"context_turns": 30, "vector_limit": 5, "similarity_threshold": 0.6, "triple_depth": 1, "reason": "deep"}'
MODEST = '{"context_turns": 5, "vector_limit": 5, "similarity_threshold": 0.6, "triple_depth": 1, "reason": "short"}'


async def seed_history(settings: Settings, storage: MemoryStore, n_clamped: int = 4) -> int:
    """A long thread (so 30 turns load more than 20) and `n_clamped` greedy turns, each followed by
    the person saying it again ("As I said…"): the evidence that the limit hurt."""
    uid = storage.accounts.create("ana", "correct-horse").id
    assert uid is not None
    modest = Scripted(MODEST).runtime(settings, storage)
    notes = [f"Note: the {bed} bed gets {plant}." for bed, plant in zip(BEDS, PLANTS, strict=True)]
    await turns(modest, uid, "long", notes)
    await hurt(settings, storage, uid, "plant", n_clamped)
    return uid


BEDS = ("north", "south", "east", "west", "corner", "pond", "fence", "shed", "path", "gate", "porch", "wall", "hedge",
        "orchard")  # fmt: skip
PLANTS = ("tomatoes", "basil", "beans", "kale", "leeks", "onions", "garlic", "mint", "sage", "thyme", "chard", "peas",
          "squash", "radish")  # fmt: skip


async def hurt(settings: Settings, storage: MemoryStore, uid: int, topic: str, n: int) -> None:
    """`n` greedy turns (clamped at 20), each followed by a missing-context signal ("As I said…"):
    the evidence that the limit hurt. No two messages alike (a near repeat is a signal too)."""
    greedy, modest = Scripted(GREEDY).runtime(settings, storage), Scripted(MODEST).runtime(settings, storage)
    for bed in BEDS[:n]:
        await turns(greedy, uid, "long", [f"{topic}: what went in the {bed} bed?"])
        await turns(modest, uid, "long", [f"As I said before, I told you about the {bed} one"])


async def test_dream_proposes_from_real_usage_with_measured_simulation(
    settings: Settings, storage: MemoryStore
) -> None:
    await seed_history(settings, storage)
    report = await scheduled(settings, storage)
    assert report.usage_rows == 22
    assert [p.dimension for p in report.proposals] == ["CONTEXT_TURNS"], "no evidence, no proposal elsewhere"
    assert "proposed 1 change(s)" in last_night(DreamStore(storage.engine))
    p = report.proposals[0]
    assert (p.bound, p.current_value, p.proposed_value, p.status) == ("max", 20, 30, "pending")
    assert p.rationale.startswith("1 of 1 conversations hit the MAX_EPISODIC_CONTEXT_TURNS=20 limit (4 turns)")
    assert "4 of 4 clamped turns were followed by a sign of missing context, against 0 of 18" in p.rationale
    assert "Fisher one-sided p = 0.000" in p.rationale
    sim = loads(p.simulation)
    assert sim["replays"] == 4 and sim["candidate"] == 30
    assert sim["candidate_p50_ms"] > 0 and sim["baseline_p50_ms"] > 0
    assert sim["candidate_tokens"] > sim["baseline_tokens"], "30 turns of a 37-turn thread load more than 20"
    assert sim["projected_peak_mb"] >= sim["log_peak_rss_mb"] > 0
    assert sim["model_replays"] == 3, "the app's job measures on the configured model (here the scripted one)"
    assert sim["model_candidate_prompt_tokens"] > 0 and sim["model_candidate_rss_mb"] > 0
    assert p.risk == "LOW" and sim["memory_limit_mb"] == 2048
    evidence = loads(p.evidence)
    assert evidence["requested"] == {"5": 18, "30": 4} and evidence["p"] < 0.05
    assert {link["thread_id"] for link in evidence["links"]} == {"long"} and len(evidence["links"]) == 4
    assert loads(p.alternative)["value"] == 25
    assert "7 days" in p.trial
    chart = proposals.requested_chart(p)
    assert "30 │" in chart and "← proposed" in chart and "limit 20" in chart
    assert chart.startswith("recent messages read, values requested"), "a plain-words label, no raw name"


async def test_dream_window_starts_after_the_last_dream(settings: Settings, storage: MemoryStore) -> None:
    await seed_history(settings, storage)
    dream(settings, storage)
    second = dream(settings, storage)
    assert second.usage_rows == 0 and second.proposals == []
    assert DreamStore(storage.engine).proposals(["pending"])[0].id == 1, "the pending proposal is kept"


async def test_dream_rejected_is_not_reproposed_without_more_evidence(settings: Settings, storage: MemoryStore) -> None:
    uid = await seed_history(settings, storage)
    first = dream(settings, storage).proposals[0]
    dreams = DreamStore(storage.engine)
    assert first.id is not None
    proposals.decide(dreams, effective_limits(settings, storage), first.id, "rejected", "too slow for me", "ana")
    await hurt(settings, storage, uid, "again", 4)  # 4 = the rejected one's evidence
    second = dream(settings, storage)
    assert second.proposals == [] and any("rejected before" in f for f in second.findings)
    await hurt(settings, storage, uid, "more", 5)  # 5 > 4: new evidence exceeds it
    again = dream(settings, storage).proposals
    assert [(p.dimension, p.evidence_count) for p in again] == [("CONTEXT_TURNS", 5)]
    assert [d.decision for d in dreams.decisions(first.id)] == ["rejected"]


async def test_dream_approval_changes_limits_for_the_next_turn(settings: Settings, storage: MemoryStore) -> None:
    uid = await seed_history(settings, storage)
    p = dream(settings, storage).proposals[0]
    assert p.id is not None
    dreams = DreamStore(storage.engine)
    with pytest.raises(ProposalError, match="reason"):
        proposals.decide(dreams, effective_limits(settings, storage), p.id, "approved", "  ", "ana")
    row, override = proposals.decide(
        dreams, effective_limits(settings, storage), p.id, "approved", "follow-ups keep missing context", "ana"
    )
    assert row.status == "approved" and override is not None and override.proposal_id == p.id
    limits = effective_limits(settings, storage)
    assert limits[Dimension.CONTEXT_TURNS].max == 30
    assert limits[Dimension.CONTEXT_TURNS].source_of("max").startswith(f"proposal #{p.id} approved")
    events = (await turns(Scripted(GREEDY).runtime(settings, storage), uid, "long", ["bed 3 again?"]))[0]
    planned = next(e for e in events if isinstance(e, ContextPlanned))
    assert planned.provision.grant(Dimension.CONTEXT_TURNS).status is GrantStatus.AS_REQUESTED
    assert planned.provision.value(Dimension.CONTEXT_TURNS) == 30
    assert "MAX_EPISODIC_CONTEXT_TURNS 20 → 30" in planned.limits_notice
    history = dreams.decisions(p.id)
    assert [(d.decision, d.reason, d.override_id) for d in history] == [
        ("approved", "follow-ups keep missing context", override.id)
    ]
    with pytest.raises(ProposalError, match="already approved"):
        proposals.decide(dreams, limits, p.id, "rejected", "changed my mind", "ana")


async def test_dream_crash_leaves_previous_state_intact(settings: Settings, storage: MemoryStore) -> None:
    uid = await seed_history(settings, storage)
    first = dream(settings, storage).proposals[0]
    storage.memories.add(uid, "fact", "Ana keeps bees.")
    dup = storage.memories.add(uid, "fact", "ana keeps   bees.")
    await hurt(settings, storage, uid, "bees", 6)
    dreams = DreamStore(storage.engine)
    before = [(p.id, p.status) for p in dreams.proposals()]

    def crash(phase: str) -> None:
        if phase == "commit":
            raise OSError("disk full (simulated)")

    config = DreamConfig(limits=effective_limits(settings, storage))
    with pytest.raises(OSError, match="disk full"):
        run_dream(storage, config, checkpoint=crash)
    assert [(p.id, p.status) for p in dreams.proposals()] == before == [(first.id, "pending")]
    assert storage.memories.get(uid, dup.id or 0).status == "active"  # pyright: ignore[reportOptionalMemberAccess]
    failed = dreams.runs(limit=1)[0]
    assert failed.status == "failed" and failed.error and "disk full" in failed.error
    report = run_dream(storage, config)  # the same window again: nothing was lost
    assert report.usage_rows == 12 and report.consolidation["duplicate_memories"] == 1
    assert {p.status for p in dreams.proposals()} == {"pending", "superseded"}
    assert [d.decision for d in dreams.decisions(first.id)] == ["superseded"]
    assert json.loads(dreams.runs(limit=1)[0].consolidation)["duplicate_memories"] == 1


STUCK = '{"context_turns": 1, "vector_limit": 1, "similarity_threshold": 1.0, "triple_depth": 1, "reason": "a few"}'


async def test_dream_proposes_nothing_from_degenerate_requests(settings: Settings, storage: MemoryStore) -> None:
    """A small model asking for a threshold of 1.0 on every turn of every thread is failing, not in need:
    no proposal, and the report says why (issue 15's story: it proposed MAX_SIMILARITY_THRESHOLD 1)."""
    uid = storage.accounts.create("ana", "correct-horse").id or 0
    stuck = Scripted(STUCK).runtime(settings, storage)
    for thread in ("a", "b"):
        for bed, plant in zip(BEDS[:5], PLANTS[:5], strict=True):
            await turns(stuck, uid, thread, [f"The {bed} bed in {thread} gets {plant}.", f"As I said, {plant}!"])
    report = await scheduled(settings, storage)
    assert report.proposals == []
    assert report.findings[0].startswith("Every one of the 20 turns asked for the very same context")
    assert "how close a memory must match 1.0" in report.findings[0]
    assert "asked for the very same context" in last_night(DreamStore(storage.engine))


async def test_dream_proposes_nothing_when_asking_past_a_limit_loses_nothing(
    settings: Settings, storage: MemoryStore
) -> None:
    uid = storage.accounts.create("ana", "correct-horse").id or 0
    greedy, modest = Scripted(GREEDY).runtime(settings, storage), Scripted(MODEST).runtime(settings, storage)
    for bed, plant in zip(BEDS[:6], PLANTS[:6], strict=True):
        await turns(greedy, uid, "long", [f"What went in the {bed} bed?"])
        await turns(modest, uid, "long", [f"Lovely, and next year {plant} again."])
    report = await scheduled(settings, storage)
    assert report.proposals == []
    assert report.findings == [
        "Recent messages read (at most 20): 0 of 6 clamped turns were followed by a sign of missing context, "
        "against 0 of 6 turns that got what they asked (Fisher one-sided p = 1.000). "
        "No evidence that the limit hurts, so no change."
    ]


async def test_dream_trial_reverts_an_approved_change_that_breaches_memory(
    settings: Settings, storage: MemoryStore
) -> None:
    """Approve → the change is on trial → the next dream sees the trial's peak RSS near the budget and
    reverts it → the limits are the .env's again and the agent's next context says who ended it and why."""
    uid = await seed_history(settings, storage)
    p = (await scheduled(settings, storage)).proposals[0]
    dreams = DreamStore(storage.engine)
    _, override = proposals.decide(dreams, effective_limits(settings, storage), p.id or 0, "approved", "try it", "ana")
    assert override is not None and override.trial_until is not None
    assert "on trial until" in cli_history(settings)
    greedy = Scripted(GREEDY).runtime(settings, storage)
    await turns(greedy, uid, "long", ["Which bed had the mint again?"])
    last = storage.usage.last(uid, "long")
    assert last is not None and last.id is not None
    with Session(storage.engine) as s:  # the model process grew near the budget while the change was on trial
        row = s.get(UsageRow, last.id)
        assert row is not None
        row.rss_mb = 0.95 * settings.memory_limit_mb
        s.add(row)
        s.commit()
    report = await scheduled(settings, storage)
    reverted = f"Reverted #{override.id} (recent messages read: MAX_EPISODIC_CONTEXT_TURNS 30"
    assert report.findings[0].startswith(reverted)
    assert "95% of the" in report.findings[0] and report.proposals == []
    assert effective_limits(settings, storage)[Dimension.CONTEXT_TURNS].max == 20
    assert storage.overrides.history()[0].trial_outcome == "reverted"
    assert "Reverted" in (morning_text(dreams, uid) or "")
    events = (await turns(greedy, uid, "long", ["And the sage?"]))[0]
    planned = next(e for e in events if isinstance(e, ContextPlanned))
    assert "MAX_EPISODIC_CONTEXT_TURNS 30 → 20" in planned.limits_notice
    assert f"LIMIT_ENDED: override #{override.id} ended by dream: Reverted" in planned.limits_notice
    done = next(e for e in events if isinstance(e, Finished))
    assert done.told == planned.told == (
        f"Change #{override.id} is undone: recent messages read is back to at most 20. The nightly dream ended it "
        "after watching its trial: the peak memory during its trial, 1946 MB, reached 95% of the 2048 MB budget."
    ), "the person is told too, in plain words"


class Answering(Scripted):
    """The scripted model answering properly (the loop's JSON), at a given confidence."""

    def __init__(self, request: str, confidence: str, content: str = "The north bed gets tomatoes.") -> None:
        super().__init__(request)
        self.confidence, self.content = confidence, content

    async def stream(self, messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        for chunk in answer_chunks(self.content, self.confidence):
            yield chunk


async def test_dream_trial_reverts_a_change_whose_replies_turn_unsure(settings: Settings, storage: MemoryStore) -> None:
    """The answer path's confidence, kept with each query, is the trial's answer-quality signal: sure
    replies before the approval, "I don't know" at low confidence during the trial → reverted, and the
    dream's report says so in plain words."""
    uid = storage.accounts.create("ana", "correct-horse").id or 0
    sure, greedy = (
        Answering(MODEST, "high").runtime(settings, storage),
        Answering(GREEDY, "high").runtime(settings, storage),
    )
    await turns(
        sure, uid, "long", [f"Note: the {bed} bed gets {plant}." for bed, plant in zip(BEDS, PLANTS, strict=True)]
    )
    for bed in BEDS[:4]:
        await turns(greedy, uid, "long", [f"plant: what went in the {bed} bed?"])
        await turns(sure, uid, "long", [f"As I said before, I told you about the {bed} one"])
    p = dream(settings, storage).proposals[0]
    _, override = proposals.decide(
        storage.dreams, effective_limits(settings, storage), p.id or 0, "approved", "ok", "ana"
    )
    assert override is not None
    unsure = Answering(GREEDY, "low", "I don't know.").runtime(settings, storage)
    await turns(unsure, uid, "long", [f"which bed had the {plant} in the end?" for plant in PLANTS[:8]])
    config = DreamConfig(limits=effective_limits(settings, storage), memory_limit_mb=settings.memory_limit_mb)
    report = run_dream(storage, config, now=utcnow() + timedelta(hours=1))
    assert report.findings[0].startswith(f"Reverted #{override.id} (recent messages read")
    assert (
        "more replies were unsure or did not know during its trial (replies I was unsure of or could not "
        "answer: 8 of 8 during the trial, against 0 of 22 before" in report.findings[0]
    )
    assert effective_limits(settings, storage)[Dimension.CONTEXT_TURNS].max == 20
    assert "8 of 8 during the trial" in last_night(storage.dreams)


async def test_limits_revert_from_the_cli_ends_an_approved_change(settings: Settings, storage: MemoryStore) -> None:
    await seed_history(settings, storage)
    p = dream(settings, storage).proposals[0]
    _, override = proposals.decide(DreamStore(storage.engine), effective_limits(settings, storage), p.id or 0,
                                   "approved", "try it", "ana")  # fmt: skip
    assert override is not None
    assert cli(settings, "limits", "revert", str(override.id)) == 2, "a reason is required"
    assert cli(settings, "limits", "revert", str(override.id), "--reason", "too slow for me") == 0
    assert cli(settings, "limits", "revert", str(override.id), "--reason", "again") == 2, "already ended"
    assert effective_limits(settings, storage)[Dimension.CONTEXT_TURNS].max == 20
    assert f"override #{override.id} recent messages read (CONTEXT_TURNS max 30)" in cli_history(settings)
    assert "by cli: too slow for me" in cli_history(settings)


async def test_the_person_is_told_once_on_the_policy_path_when_a_limit_changes_and_why(
    settings: Settings, storage: MemoryStore
) -> None:
    """On the policy path, which answers without the agent's context: the first reply after an approval
    says in plain words what changed and why, the next says nothing; the same when the person ends it."""
    uid = await seed_history(settings, storage)
    p = dream(settings, storage).proposals[0]
    _, override = proposals.decide(storage.dreams, effective_limits(settings, storage), p.id or 0, "approved",
                                   "long threads lost context", "ana")  # fmt: skip
    assert override is not None
    policy = Runtime(settings=settings, store=storage, backend=Scripted(MODEST).runtime(settings, storage).backend,
                     path="policy")  # fmt: skip

    async def told(text: str) -> str:
        events = (await turns(policy, uid, "other", [text]))[0]
        done = next(e for e in events if isinstance(e, Finished))
        assert done.told == next(e for e in events if isinstance(e, ContextPlanned)).told, "reply and Context step"
        return done.told

    assert await told("Thanks!") == (
        f"Recent messages read: now at most 30 (was 20), because proposal #{p.id} was approved on "
        f"{override.created_at:%Y-%m-%d}: long threads lost context."
    )
    assert await told("Thanks again!") == "", "told once"
    assert cli(settings, "limits", "revert", str(override.id), "--reason", "too slow for me") == 0
    assert await told("Hi there") == (
        f"Change #{override.id} is undone: recent messages read is back to at most 20. You ended it from the "
        "command line: too slow for me."
    )
    assert await told("Thanks!") == ""
    assert [t.content for t in storage.turns.recent(uid, "other", 8) if "Changed" in t.content] == [], (
        "the notice is never part of the stored conversation"
    )


def cli(settings: Settings, *argv: str) -> int:
    args = build_parser().parse_args(list(argv))
    return args.func(settings, args)


def cli_history(settings: Settings) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli(settings, "dream", "history") == 0
    return out.getvalue()


class Recording(Scripted):
    """The scripted model, keeping every answer-loop call it gets: (instructions, what the messages say)."""

    def __init__(self, request: str) -> None:
        super().__init__(request)
        self.calls: list[tuple[str, list[str]]] = []

    async def stream(self, messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        said = [str(getattr(part, "content", "")) for m in messages for part in m.parts]
        self.calls.append((info.instructions or "", said))
        yield "noted."


async def test_dream_meter_sends_the_model_what_the_turn_sent(settings: Settings, storage: MemoryStore) -> None:
    """The meter rebuilds a replayed turn's prompt as the answer loop built it (its instructions, the
    report before it, the recalled block, the capabilities, the question, the history as messages):
    replayed at the value it was granted, the model is sent what the turn sent, word for word."""
    uid = storage.accounts.create("ana", "correct-horse").id or 0
    notes = [f"Note: the {bed} bed gets {plant}." for bed, plant in zip(BEDS, PLANTS, strict=True)]
    await turns(Scripted(MODEST).runtime(settings, storage), uid, "long", notes)
    real = Recording(GREEDY)
    modest = Scripted(MODEST).runtime(settings, storage)
    for bed in BEDS[:4]:
        await turns(real.runtime(settings, storage), uid, "long", [f"plant: what went in the {bed} bed?"])
        await turns(modest, uid, "long", [f"As I said before, I told you about the {bed} one"])
    metered = Recording(MODEST)
    meter = model_meter(metered.runtime(settings, storage).backend, storage, asyncio.get_running_loop())
    config = DreamConfig(limits=effective_limits(settings, storage), meter=meter)
    report = await asyncio.to_thread(run_dream, storage, config)
    assert [p.dimension for p in report.proposals] == ["CONTEXT_TURNS"]
    granted = [said for instructions, said in metered.calls if "dream measurement: granted" in instructions]
    at_30 = [said for instructions, said in metered.calls if "dream measurement: 30" in instructions]
    assert len(at_30) == 3 and len(granted) == 6, "granted beside 30 and beside the alternative 25"
    sent = {said[-1]: said for _, said in real.calls}  # the user-role prompt ends the messages
    assert [said == sent.get(said[-1]) for said in granted] == [True] * 6, "word for word, the history included"
    assert "SYSTEM_EXECUTION_REPORT" in granted[0][-1] and "NeedsMoreInfo" in granted[0][-1]
    assert all(len(more) > len(said) for more, said in zip(at_30, granted[:3], strict=True)), "30 turns of history"
    assert real.calls[0][0] in metered.calls[0][0], "the loop's instructions, marked"


async def test_dream_measures_a_proposal_on_the_real_embedded_model(settings: Settings, storage: MemoryStore) -> None:
    """The risk is measured where the cost is: the recorded turns' prompts rebuilt at the granted and
    the proposed limit and run through the real SmolLM2-135M (prompt tokens, first token, RSS)."""
    await seed_history(settings, storage)
    async with open_backend(LLMConfig(backend="embedded")) as backend:
        meter = model_meter(backend, storage, asyncio.get_running_loop())
        config = DreamConfig(limits=effective_limits(settings, storage), meter=meter)
        report = await asyncio.to_thread(run_dream, storage, config)
    sim = loads(report.proposals[0].simulation)
    assert sim["model_replays"] == 3
    assert sim["model_candidate_prompt_tokens"] > sim["model_baseline_prompt_tokens"] > 0, "30 turns say more than 20"
    assert sim["model_candidate_first_token_s"] > 0 and sim["model_candidate_rss_mb"] > sim["log_peak_rss_mb"] / 2
    assert "**On the model** (3 recorded prompts" in proposals.proposal_markdown(report.proposals[0])


def test_dream_undo_restores_its_changes_and_archives_its_summary(both_storages: MemoryStore) -> None:
    """On both backends: the summary is found by the run id in its JSON meta (SQLite's json_extract
    and PostgreSQL's ->> spell it differently, and one gives a number where the other gives text)."""
    storage = both_storages
    uid = storage.accounts.create("ana", "correct-horse").id
    assert uid is not None
    keep = storage.memories.add(uid, "fact", "Eva lives in Lisbon.")
    dup = storage.memories.add(uid, "fact", "eva lives in lisbon.")
    run = storage.dreams.start_run("test")
    assert run.id is not None and keep.id is not None and dup.id is not None
    summary = storage.memories.add(uid, "summary", "Session summary: Eva.", meta={"run_id": run.id})
    other = storage.memories.add(uid, "summary", "Session summary: Rui.", meta={"run_id": run.id + 1})
    storage.dreams.commit(run.id, [], [MemoryChange(uid, dup.id, "superseded", keep.id)])
    assert storage.memories.get(uid, dup.id).status == "superseded"  # type: ignore[union-attr]
    assert storage.dreams.undo(run.id) == 2
    statuses = {m.id: m.status for m in storage.memories.list(uid, status=None, limit=10)}
    assert statuses == {keep.id: "active", dup.id: "active", summary.id: "archived", other.id: "active"}
