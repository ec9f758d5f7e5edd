"""Proposals about the request policy on real stores: a kind of message that asks too little → the
dream proposes asking for more → approved, the policy asks for more for that kind → its trial reverts it.

The usage rows are written the way app/chat.py writes them on the policy path (the policy's own
request and reason; a re-ask marks the turn before); the last steps go through `chat_turn` itself.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from app.chat import ContextPlanned, chat_turn
from app.cli import build_parser
from app.llm import Backend
from app.runtime import Runtime, effective_limits
from app.settings import Settings
from capabilities.request_policy import adjustments, plan_request
from capabilities.resources import Dimension, clamp
from dreaming import proposals
from dreaming.dream import DreamConfig, DreamReport, run_dream
from memory.dreams import DreamStore, ProposalError, loads
from memory.models import ProposalRow
from memory.store import MemoryStore
from memory.usage import UsageRecord
from tests.scheduled_dream import scheduled

pytestmark = [pytest.mark.anyio, pytest.mark.both_backends]  # (backends: tests/conftest.py)
PERSONAL = "Where does my sister live now ({i})?"
GENERAL = "How do I boil an egg ({i})?"


def log_turns(settings: Settings, storage: MemoryStore, turns: list[tuple[str, bool]], rss_mb: float = 420.0) -> int:
    """One usage row per (message, re-asked) as the policy planned it; a re-ask is the next message
    of the thread and marks the turn before. Threads of twelve turns."""
    account = next(iter(storage.accounts.list()), None) or storage.accounts.create("ana", "correct-horse")
    uid = account.id or 0
    limits = effective_limits(settings, storage)
    reasked: dict[str, bool] = {}
    for i, (text, reask) in enumerate(turns):
        thread = f"t{i // 12}"
        message = text.format(i=i)
        row = storage.turns.add(uid, thread, "user", message)
        request = plan_request(message, [], limits, adjustments(storage.overrides.active()))
        provision = clamp(request, limits)
        storage.usage.record(
            UsageRecord(uid, thread, row.id, message, provision.as_dict(), [], [], request.reason, {},
                        request_ms=1.0, retrieval_ms=3.0, generation_ms=800.0, rss_mb=rss_mb,
                        followup_signal="explicit_reference" if reasked.get(thread) else None)
        )  # fmt: skip
        reasked[thread] = reask
    return uid


def under_asking() -> list[tuple[str, bool]]:
    """Questions about the person re-asked after 9 of 12; general chat after 2 of 36."""
    return [(PERSONAL, i % 16 != 12) if i % 4 == 0 else (GENERAL, i in (5, 21)) for i in range(48)]


def dream(settings: Settings, storage: MemoryStore) -> DreamReport:
    return run_dream(storage, DreamConfig(limits=effective_limits(settings, storage)))


def cli(settings: Settings, *argv: str) -> int:
    args = build_parser().parse_args(list(argv))
    return args.func(settings, args)


def policy_runtime(settings: Settings, storage: MemoryStore) -> Runtime:
    async def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart("noted.")])

    async def stream(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str]:
        yield "noted."

    backend = Backend("embedded", "scripted", "", FunctionModel(respond, stream_function=stream))
    return Runtime(settings=settings, store=storage, backend=backend, path="policy")


async def planned(rt: Runtime, uid: int, text: str) -> ContextPlanned:
    events = [e async for e in chat_turn(rt, uid, "t0", text)]
    return next(e for e in events if isinstance(e, ContextPlanned))


def test_dream_proposes_asking_more_for_a_kind_that_under_asks(settings: Settings, storage: MemoryStore) -> None:
    log_turns(settings, storage, under_asking())
    report = dream(settings, storage)
    assert [(p.dimension, p.bound, p.status) for p in report.proposals] == [("policy:personal", "default", "pending")]
    p = report.proposals[0]
    assert p.rationale.startswith(
        "Questions about you got too little context: 9 of 12 such turns were followed by a sign of missing "
        "context, against 2 of 36 turns of other kinds (Fisher one-sided p = 0.000)."
    )
    assert "Turns followed by one: “Where does my sister live now (0)?”; “Where does my sister" in p.rationale
    assert p.rationale.endswith("ask for more on questions about you (+4 recent messages, +4 memories, match "
                                "threshold 0.1 lower).")  # fmt: skip
    evidence = loads(p.evidence)
    assert (evidence["turns"], evidence["signals"], p.evidence_count) == (12, 9, 9) and evidence["p"] < 0.05
    assert len(evidence["links"]) == 9 and evidence["retrieval_p95_ms"] == 3.0
    assert proposals.headline(p).startswith(f"#{p.id} request policy, questions about you: ask for more (+4")
    md = proposals.proposal_markdown(p)
    assert "policy:personal" not in md and "↩ follow-up" in md and "**Proposed trial**: Apply for 7 days" in md
    assert report.findings[0] == "No turn of 48 asked past a limit, so there is nothing to change."
    assert any(f.startswith("General chat: 2 of 36 such turns") for f in report.findings)
    assert report.findings[-1].startswith("Asking for too much is not measured")
    assert report.analysis["policy"]["personal"]["signals"] == 9


async def test_a_policy_proposal_is_measured_like_a_limit_by_the_nightly_job(
    settings: Settings, storage: MemoryStore
) -> None:
    """Through the real scheduler and the app's job: the kind's turns replayed at their grants and as
    the adjustment asks (+4 recent messages in threads of twelve), on the stores and on the model."""
    log_turns(settings, storage, under_asking())
    report = await scheduled(settings, storage, policy_runtime(settings, storage).backend)
    assert [p.dimension for p in report.proposals] == ["policy:personal"]
    p = report.proposals[0]
    sim = loads(p.simulation)
    assert p.risk == "LOW" and sim["replays"] == 12 and sim["memory_limit_mb"] == 2048
    assert sim["candidate_tokens"] > sim["baseline_tokens"], "four more recent messages of the thread"
    assert sim["projected_peak_mb"] >= sim["log_peak_rss_mb"] == 420.0
    assert sim["model_replays"] == 3 and sim["model_candidate_rss_mb"] > 0
    assert proposals.headline(p).endswith("match threshold 0.1 lower) (risk LOW, pending)")
    md = proposals.proposal_markdown(p)
    assert "**Risk assessment** (measured by replaying 12 of these turns' queries" in md
    assert "crash risk **LOW**" in md and "**On the model** (3 recorded prompts" in md


def test_dream_proposes_no_policy_change_without_evidence(settings: Settings, storage: MemoryStore) -> None:
    even = [(PERSONAL, i == 0) if i % 4 == 0 else (GENERAL, i in (5, 9, 13)) for i in range(48)]
    log_turns(settings, storage, even)
    report = dream(settings, storage)
    assert report.proposals == []
    assert (
        "Questions about you: 1 of 12 such turns were followed by a sign of missing context, against 3 of 36 turns "
        "of other kinds (Fisher one-sided p = 0.697). No evidence that the policy asks too little, so no change."
    ) in report.findings
    assert "not measured" in report.findings[-1] and "which of its context the answer used" in report.findings[-1]


async def test_approved_adjustment_asks_for_more_until_its_trial_reverts_it(
    settings: Settings, storage: MemoryStore
) -> None:
    uid = log_turns(settings, storage, under_asking())
    p = dream(settings, storage).proposals[0]
    dreams = DreamStore(storage.engine)
    limits = effective_limits(settings, storage)
    _, change = proposals.decide(dreams, limits, p.id or 0, "approved", "it keeps forgetting", "ana")
    assert change is not None and change.trial_until is not None
    assert effective_limits(settings, storage) == limits, "an adjustment changes no range"
    rt = policy_runtime(settings, storage)
    asked = await planned(rt, uid, "Where does my sister live?")
    assert (asked.provision.value(Dimension.CONTEXT_TURNS), asked.provision.value(Dimension.VECTOR_LIMIT)) == (7, 14)
    assert f"asking for more (change #{change.id} approved" in asked.provision.request.reason
    assert asked.limits_notice == (
        f"POLICY_CHANGED: change #{change.id}, asking for more on questions about you "
        f"(proposal #{p.id} approved: it keeps forgetting)"
    ), "the agent is told of an approved adjustment, which changes no range"
    assert (await planned(rt, uid, "And my brother?")).limits_notice == "", "told once"
    log_turns(settings, storage, [(PERSONAL, False)] * 8, rss_mb=0.95 * settings.memory_limit_mb)
    report = dream(settings, storage)
    assert report.findings[0].startswith(
        f"Reverted #{change.id} (asking for more on questions about you, proposal #{p.id}): the peak memory"
    )
    assert report.proposals == [], "not proposed again the night it was reverted"
    assert adjustments(storage.overrides.active()) == {}
    assert storage.overrides.history()[0].trial_outcome == "reverted"
    back = await planned(rt, uid, "Where does my sister live?")
    assert (back.provision.value(Dimension.CONTEXT_TURNS), back.provision.value(Dimension.VECTOR_LIMIT)) == (3, 10)
    assert "asking for more" not in back.provision.request.reason
    assert f"POLICY_ENDED: change #{change.id}, asking for more on questions about you, ended by dream: Reverted" in (
        back.limits_notice
    )


async def test_rejected_adjustment_changes_nothing(settings: Settings, storage: MemoryStore) -> None:
    uid = log_turns(settings, storage, under_asking())
    p = dream(settings, storage).proposals[0]
    dreams = DreamStore(storage.engine)
    proposals.decide(dreams, effective_limits(settings, storage), p.id or 0, "rejected", "fast is fine", "ana")
    assert storage.overrides.history() == [] and adjustments(storage.overrides.active()) == {}
    asked = await planned(policy_runtime(settings, storage), uid, "Where does my sister live?")
    assert (asked.provision.value(Dimension.CONTEXT_TURNS), asked.provision.value(Dimension.VECTOR_LIMIT)) == (3, 10)
    log_turns(settings, storage, [(PERSONAL, False)] * 4)
    again = dream(settings, storage)
    assert again.proposals == [] and any(f.startswith("Questions about you: ") for f in again.findings)


def test_policy_adjustment_through_the_cli(
    settings: Settings, storage: MemoryStore, capsys: pytest.CaptureFixture[str]
) -> None:
    log_turns(settings, storage, under_asking())
    p = dream(settings, storage).proposals[0]
    assert cli(settings, "dream", "proposals") == 0
    out = capsys.readouterr().out
    assert f"#{p.id} request policy, questions about you: ask for more" in out and "trial: Apply for 7 days" in out
    assert cli(settings, "dream", "approve", str(p.id), "--reason", "try it") == 0
    assert "is active from the next turn (see `reverie limits history`)" in capsys.readouterr().out
    assert cli(settings, "limits") == 0 and "CONTEXT_TURNS" in capsys.readouterr().out
    assert cli(settings, "limits", "history") == 0
    change = storage.overrides.history()[0]
    assert f"change #{change.id} request policy, questions about you: ask for more (+4" in capsys.readouterr().out
    assert cli(settings, "limits", "revert", str(change.id), "--reason", "too slow") == 0
    out = capsys.readouterr().out
    assert "ended" in out and "by cli: too slow" in out and "The request policy asks as before" in out
    assert adjustments(storage.overrides.active()) == {}


def test_a_second_adjustment_of_a_kind_in_force_is_refused(settings: Settings, storage: MemoryStore) -> None:
    log_turns(settings, storage, under_asking())
    first = dream(settings, storage).proposals[0]
    dreams = DreamStore(storage.engine)
    limits = effective_limits(settings, storage)
    proposals.decide(dreams, limits, first.id or 0, "approved", "try it", "ana")
    second = ProposalRow.model_validate(first.model_dump(exclude={"id", "run_id", "status", "decided_at"}))
    run = dreams.start_run("test")
    dreams.commit(run.id or 0, [second], [])
    with pytest.raises(ProposalError, match="already in force"):
        proposals.decide(dreams, limits, second.id or 0, "approved", "again", "ana")
    assert dreams.proposal(second.id or 0).status == "pending"  # pyright: ignore[reportOptionalMemberAccess]
    assert len(storage.overrides.history()) == 1, "the failed approval wrote nothing"


SISTER = [
    "My sister Ana lives in Lyon.", "My sister Ana plays the cello.", "My sister Ana has a grey cat called Pixel.",
    "My sister Ana loves jazz.", "My sister Ana is allergic to peanuts.", "My sister Ana reads crime novels.",
    "My sister Ana grows tomatoes.", "My sister Ana was born in April.", "My sister Ana swims every Sunday.",
    "My sister Ana collects old maps.", "My sister Ana speaks Portuguese.", "My sister Ana runs a bakery.",
    "My sister Ana has two sons.", "My sister Ana hates flying.", "My sister Ana paints watercolours.",
    "My sister Ana drinks green tea.", "My sister Ana cycles to work.", "My sister Ana sings in a choir.",
    "My sister Ana knits scarves.", "My sister Ana visits Porto every summer.",
]  # fmt: skip
ABOUT_ANA = ["Where does my sister Ana live?", "What is my sister Ana's cat called?",
             "Which instrument does my sister Ana play?", "What music does my sister Ana love?",
             "What is my sister Ana allergic to?", "What does my sister Ana read?", "What does my sister Ana grow?",
             "When was my sister Ana born?", "When does my sister Ana swim?", "What does my sister Ana collect?",
             "Which city does my sister Ana live in?", "What pet does my sister Ana have?"]  # fmt: skip


async def test_dream_proposes_asking_less_for_a_kind_whose_answers_leave_its_context_unused(
    settings: Settings, storage: MemoryStore
) -> None:
    """Through the real chat on the policy path: each question about the sister loads up to ten of her
    memories and the answer cites the one that says it (`used`, logged with the turn) → the dream
    proposes four fewer memories for questions about the person → approved, the next one asks for them."""
    uid = storage.accounts.create("ana", "correct-horse").id or 0
    for fact in SISTER:
        storage.memories.add(uid, "fact", fact)
    rt = policy_runtime(settings, storage)
    for i, question in enumerate(ABOUT_ANA):  # a thread each: no question re-asks another
        [e async for e in chat_turn(rt, uid, f"q{i}", question)]
    rows = storage.usage.since(None)
    assert all(r.used is not None for r in rows), "every answer's sources are logged with its turn"
    assert sum(bool(json.loads(r.used or "[]")) for r in rows) >= 10, "most answers cite the memory that says it"
    report = dream(settings, storage)
    assert [(p.dimension, p.proposed_value) for p in report.proposals] == [("policy:personal", -1.0)]
    p = report.proposals[0]
    assert p.rationale.startswith("Questions about you asked for more context than they used: ")
    assert "such turns would have lost nothing their answer used with 4 fewer memories" in p.rationale
    assert loads(p.evidence)["spare"] >= 11 and proposals.headline(p).startswith(
        f"#{p.id} request policy, questions about you: ask for less (4 fewer memories)"
    )
    _, change = proposals.decide(
        storage.dreams, effective_limits(settings, storage), p.id or 0, "approved", "ok", "ana"
    )
    assert change is not None
    asked = await planned(rt, uid, "Where does my sister Ana live now?")
    assert asked.provision.value(Dimension.VECTOR_LIMIT) == 6, "ten less four"
    assert f"asking for less (change #{change.id} approved" in asked.provision.request.reason


CONNECTED = "How is my sister Ana connected to Porto ({i})?"


def log_graph_turns(settings: Settings, storage: MemoryStore) -> None:
    """48 turns as the policy plans them: questions about connections (two hops) whose answers cite a
    named entity or one a hop out, never the four loaded two hops out; questions about the person (one
    hop) whose answers cite the entity a hop out; general chat. Telemetry as memory.assembly writes it."""
    account = next(iter(storage.accounts.list()), None) or storage.accounts.create("ana", "correct-horse")
    uid, limits = account.id or 0, effective_limits(settings, storage)
    for i in range(48):
        text = (CONNECTED, PERSONAL, GENERAL, GENERAL)[i % 4].format(i=i)
        request = plan_request(text, [], limits, adjustments(storage.overrides.active()))
        hop = request.triple_depth
        loaded = [("e1", "named in the question"), ("e2", "1 hop out, relevance 0.50")]
        loaded += [(f"e1{k}", f"{hop} hops out, relevance 0.30") for k in range(1, 5)] if hop > 1 else []
        cited = {0: ["e1" if i % 8 else "e2"], 1: ["e2"]}.get(i % 4, [])
        row = storage.turns.add(uid, f"t{i // 12}", "user", text)
        storage.usage.record(
            UsageRecord(uid, f"t{i // 12}", row.id, text, clamp(request, limits).as_dict(), [], [], request.reason, {},
                        request_ms=1.0, retrieval_ms=3.0, generation_ms=800.0, rss_mb=420.0, used=cited,
                        telemetry={"loaded": [{"ref": r, "score": 0.5, "tokens": 25, "reason": w} for r, w in loaded]})
        )  # fmt: skip


async def test_the_nightly_job_proposes_one_hop_less_for_a_kind_whose_deepest_hop_goes_unused(
    settings: Settings, storage: MemoryStore
) -> None:
    """Through the real scheduler and the app's job: the questions about connections never cite what
    their second hop loaded → one hop less, measured by replaying them; the questions about the person
    cite their one hop → nothing. Approved, the next question about a connection asks one hop less."""
    log_graph_turns(settings, storage)
    report = await scheduled(settings, storage, policy_runtime(settings, storage).backend)
    assert [(p.dimension, p.proposed_value) for p in report.proposals] == [("policy:relational", -2.0)]
    p = report.proposals[0]
    assert "12 of 12 such turns would have lost nothing their answer used with 1 hop less" in p.rationale
    assert "fewer memories" not in p.rationale and "100 tokens a turn, loaded for nothing" in p.rationale
    headline = proposals.headline(p)
    assert headline.startswith(f"#{p.id} request policy, questions about how people and things are connected: "
                               "ask for less depth (1 hop less between related facts)")  # fmt: skip
    sim = loads(p.simulation)
    assert sim["replays"] == 12 and p.risk == "LOW"
    assert any(f.startswith("Questions about you: 0 of 12 such turns would have lost nothing their answer used "
                            "with 1 hop less") for f in report.findings)  # fmt: skip
    limits = effective_limits(settings, storage)
    before = plan_request(CONNECTED.format(i=99), [], limits)
    _, change = proposals.decide(storage.dreams, limits, p.id or 0, "approved", "it never uses them", "ana")
    assert change is not None
    after = plan_request(CONNECTED.format(i=99), [], limits, adjustments(storage.overrides.active()))
    assert after.triple_depth == before.triple_depth - 1 == 1
    assert f"asking for less depth (change #{change.id} approved" in (after.reason or "")
