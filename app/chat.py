"""One chat turn as a stream of events, independent of any UI.

The turn: validate and store the user's message → the agent asks for context (four
dimensions) → clamp against the effective limits → assemble exactly what was granted →
stream the answer → store it, log the usage row with the execution report that the next
turn's context will show. The Chainlit handlers only render these events.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx
from pydantic_ai.exceptions import AgentRunError

from app.agent import history_messages
from app.answer_loop import AnswerDelta, Answered, InfoRound, answer_question
from app.extractor import enqueue_formation, form_waiting
from app.grounded import GROUNDED_KINDS, Search, answer_grounded, first_evidence
from app.metrics import rss_mb
from app.proactive import ReminderReply, set_reminder
from app.request_step import request_resources
from app.runtime import Runtime, effective_limits
from capabilities.answer import Answer
from capabilities.context import TwoLevelContext
from capabilities.notices import told
from capabilities.report import ExecutionReport, changed_limits_notice, context_lines, diff_limits
from capabilities.request_policy import (
    MORE_MEMORIES,
    adjustments,
    asking,
    kind_of,
    more_of,
    plan_request,
    room_for_more,
    second_look,
)
from capabilities.resources import Dimension, Limits, Provision, ResourceRequest, clamp
from capabilities.signals import followup_signal
from capabilities.situation import Kind, Situation, read
from memory.assembly import AssembledContext, ContextRequest
from memory.models import LimitOverrideRow, QueryRow, TurnRow, UsageRow, utcnow
from memory.queries import QueryConfig
from memory.recall.hybrid import MemoryHit
from memory.turns import InvalidMessage, storable_text, validate_message
from memory.usage import UsageRecord

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Rejected:
    """The message was not accepted (nothing was stored, nothing sent to the model)."""

    message: str


@dataclass(frozen=True)
class ContextPlanned:
    """What the agent asked for, what it got, and what was loaded (shown as a step)."""

    provision: Provision
    notes: list[str]
    telemetry: dict[str, Any]
    request_ms: float
    retrieval_ms: float
    limits_notice: str = ""  # what the agent is told changed (settings as `.env` names them)
    told: str = ""  # the same news for the person, in plain words (capabilities/notices.py)


@dataclass(frozen=True)
class Token:
    """A new piece of the streamed reply."""

    text: str


@dataclass(frozen=True)
class SourceView:
    """A piece of context the answer cites, with its text for the user to open."""

    ref: str
    contribution: str
    relevance: float
    text: str


@dataclass(frozen=True)
class Finished:
    """The reply is complete and stored."""

    reply: str
    turn_id: int
    report: str = ""
    usage_id: int = 0
    timings_ms: dict[str, float] = field(default_factory=dict)
    confidence: str = "medium"
    sources: tuple[SourceView, ...] = ()
    follow_ups: tuple[str, ...] = ()
    rounds: int = 0
    forced: bool = False
    told: str = ""  # limits or policy changed since the person's last message, in plain words (shown once)


@dataclass(frozen=True)
class Failed:
    """The model failed; the user's turn is stored and a retry will work."""

    message: str
    user_turn_id: int


TurnEvent = Rejected | ContextPlanned | InfoRound | Token | Finished | Failed


def model_failure_message(exc: BaseException) -> str:
    """The one place a model or infrastructure failure becomes words for the user."""
    return (
        "The language model did not answer this time "
        f"({type(exc).__name__}: {str(exc)[:200] or 'no details'}). "
        "Your message is saved; send it again or press Retry."
    )


async def chat_turn(rt: Runtime, user_id: int, thread_id: str, text: str) -> AsyncIterator[TurnEvent]:
    """Validate and store the user's message, then stream and store the reply."""
    try:
        text = validate_message(storable_text(text))
    except InvalidMessage as exc:
        yield Rejected(str(exc))
        return
    earlier = [t.content for t in rt.store.turns.recent(user_id, thread_id, 20) if t.role == "user"]
    signal = followup_signal(text, earlier)
    user_turn = rt.store.turns.add(user_id, thread_id, "user", text)
    reminder = set_reminder(rt.reminders, user_id, thread_id, text, utcnow(), rt.settings.zone)
    async for event in reply_to(rt, user_id, thread_id, user_turn.id or 0, signal, reminder):
        yield event


def unanswered_turn(rt: Runtime, user_id: int, thread_id: str) -> int | None:
    """The id of the thread's last turn when it is the user's and has no reply (the server
    stopped mid-answer), so a reopened thread can offer to answer it; else None."""
    last = rt.store.turns.recent(user_id, thread_id, 1)
    return last[0].id if last and last[0].role == "user" else None


UNANSWERED = (
    "Your last message got no reply: Reverie stopped before answering. It is saved; press Retry to answer it now."
)


def limits_notice(
    last: UsageRow | None, limits: Limits, ended: Sequence[LimitOverrideRow] = (),
    started: Sequence[LimitOverrideRow] = (),
) -> tuple[str, str]:  # fmt: skip
    """What changed since the user's previous turn, for the agent and for the person: LIMITS_CHANGED
    text when the limits differ from that turn's, a POLICY_CHANGED line for each adjustment of the
    request policy approved since (it changes no range, so no diff shows it), and a LIMIT_ENDED (or
    POLICY_ENDED) line for each approved change ended since (who ended it and why); and the same
    news in plain words (`capabilities.notices.told`)."""
    if last is None:
        return "", ""
    try:
        before = Limits.from_values(json.loads(last.limits))
    except (ValueError, TypeError):
        return "", ""
    changes = diff_limits(before, limits)
    lines = [changed_limits_notice(changes)] if changes else []
    lines += [_started(o, kind) for o in started if (kind := kind_of(o.dimension)) is not None]
    lines += [_ended(o) for o in ended]
    return "\n".join(lines), told(changes, started, ended)


def _started(o: LimitOverrideRow, kind: Kind) -> str:
    return (f"POLICY_CHANGED: change #{o.id}, {asking(kind, more_of(o.default_value))} "
            f"(proposal #{o.proposal_id} approved: {o.reason or 'no reason given'})")  # fmt: skip


def _ended(o: LimitOverrideRow) -> str:
    why = f"ended by {o.ended_by or '?'}: {o.end_reason or 'no reason given'}"
    if (kind := kind_of(o.dimension)) is not None:
        return f"POLICY_ENDED: change #{o.id}, {asking(kind, more_of(o.default_value))}, {why}"
    return f"LIMIT_ENDED: override #{o.id} {why}"


def _context_request(rt: Runtime, provision: Provision, user_id: int, thread_id: str, more: int = 0) -> ContextRequest:
    """The assembly's request: the granted values, the chat's budget, the thread's focus, and (`more`) the
    memories past the granted count the policy lets the budget's room take (`room_for_more`)."""
    domains = rt.store.focus.get(user_id, thread_id)  # set with /focus; None = everything
    docs = [int(d[4:]) for d in domains or [] if d.startswith("doc:")]
    return ContextRequest(
        **provision.fields(),
        budget_tokens=rt.settings.context_budget_tokens,
        document_ids=docs if domains and "personal" not in domains else None,
        domains=domains,
        more_memories=more,
    )


async def reply_to(
    rt: Runtime,
    user_id: int,
    thread_id: str,
    user_turn_id: int,
    signal: str | None = None,
    reminder: ReminderReply | None = None,
) -> AsyncIterator[TurnEvent]:
    """Plan the context, stream the reply to a stored user turn, and log the turn's usage.

    Also the retry path: the user's turn is never stored twice. `reminder`: the message asked for
    one (app/proactive.py); the agent is told, and on the policy path it is the reply.
    """
    user_turn = rt.store.turns.get(user_id, user_turn_id)
    if user_turn is None:
        yield Rejected("That message no longer exists.")
        return
    settings = rt.settings
    limits = effective_limits(settings, rt.store)
    last = rt.store.usage.last(user_id, thread_id)
    previous_report = last.report if last is not None and settings.include_execution_report else ""
    previous = rt.store.usage.last_for_user(user_id)
    ended = rt.store.overrides.ended_since(previous.created_at) if previous is not None else []
    started = rt.store.overrides.started_since(previous.created_at) if previous is not None else []
    changed, news = limits_notice(previous, limits, ended, started)
    notice = "\n".join(n for n in (changed, reminder.notice if reminder else "") if n)
    started = time.perf_counter()
    situation: Situation | None = None  # read on the policy path only
    if rt.path == "policy":
        situation, request, notes, request_ms = _planned(rt, user_id, thread_id, user_turn, limits)
        # What they said a moment ago is memory too, for any question: "Who is Tiago?" read as going on
        # from the thread is answered from memory when memory knows Tiago (`grounded._known_after_a_look`),
        # and the model, asked before the telling was formed, invented "a Brazilian-American artist".
        if situation.kind in GROUNDED_KINDS or situation.question:
            await form_waiting(rt, user_id)
    else:
        # The message's embedding does not depend on the request: compute it while the model plans.
        embedding = asyncio.create_task(asyncio.to_thread(rt.store.memories.prepare, user_turn.content))
        try:
            request, notes, request_ms = await request_resources(
                rt.backend, limits, settings.hardware_label, user_turn.content, previous_report
            )
        finally:
            await embedding
    provision = clamp(request, limits)
    # On the policy path, a question's kind may take memories past the granted count while the budget has room.
    granted = int(provision.fields()["vector_limit"])
    more = room_for_more(situation.kind, granted, limits) if situation is not None else 0
    asked = _context_request(rt, provision, user_id, thread_id, more)
    ctx = rt.store.assembler.assemble(user_id, thread_id, user_turn.content, asked, before_turn_id=user_turn_id)
    hits, looked = list(ctx.hits), None
    if situation is not None and reminder is None:
        ctx, hits, looked = _second_look(rt, user_id, thread_id, user_turn, situation, ctx, asked, limits)
    telemetry = ctx.telemetry()
    if looked:
        telemetry["second_look"] = looked
    yield ContextPlanned(provision, notes, telemetry, request_ms, ctx.retrieval_ms, changed, news)
    record = UsageRecord(
        user_id=user_id,
        thread_id=thread_id,
        turn_id=user_turn_id,
        message_excerpt=user_turn.content[:500],
        request=provision.as_dict(),
        clamped=[g.dimension.name for g in provision.clamped],
        defaulted=[g.dimension.name for g in provision.defaulted],
        reason=request.reason,
        limits={k: float(v) for k, v in limits.as_env().items()},
        request_ms=request_ms,
        retrieval_ms=ctx.retrieval_ms,
        context_tokens=ctx.tokens,
        followup_signal=signal,
        telemetry=telemetry,
    )
    query = rt.store.queries.create(
        user_id,
        user_turn.content,
        QueryConfig(max_info_requests=settings.max_info_requests, initial_context_size=settings.context_budget_tokens),
        thread_id=thread_id,
        turn_id=user_turn_id,
    )
    preamble = "\n\n".join(p for p in (previous_report, notice) if p)
    two_level = TwoLevelContext.from_assembled(ctx)
    history = history_messages(ctx.history)
    if situation is not None and reminder is not None:
        loop = _reminder_reply(rt, user_id, query, reminder.reply, two_level)
    elif situation is not None:
        search = Search(int(limits[Dimension.VECTOR_LIMIT].max) or 5, settings.max_info_requests)
        loop = answer_grounded(rt.backend, rt.store, user_id, query, two_level, hits, situation,
                               user_turn.content, history, search, utcnow().date())  # fmt: skip
    else:
        loop = answer_question(rt.backend, rt.store, user_id, query, two_level, user_turn.content, history, preamble)
    answered: Answered | None = None
    generating = time.perf_counter()
    first_token: float | None = None
    try:
        async for event in loop:
            if isinstance(event, InfoRound):
                yield event
            elif isinstance(event, AnswerDelta):
                if first_token is None:
                    first_token = (time.perf_counter() - started) * 1000
                yield Token(event.text)
            else:
                answered = event
    except (AgentRunError, httpx.HTTPError, OSError, TimeoutError) as exc:
        log.warning("model failed on turn %s: %r", user_turn_id, exc)
        _finish_record(rt, record, provision, [*notes, f"generation failed: {type(exc).__name__}"], None)
        yield Failed(model_failure_message(exc), user_turn_id)
        return
    generation_ms = (time.perf_counter() - generating) * 1000
    assert answered is not None  # the loop always ends with exactly one Answered
    answer = answered.answer
    turn = rt.store.turns.add(user_id, thread_id, "assistant", answer.content)
    enqueue_formation(rt, user_id, user_turn_id)  # formed in the background; the reply never waits
    record.used = list(answer.refs)  # what the dream tells used context from unused by
    row = _finish_record(rt, record, provision, notes, generation_ms)
    total_ms = (time.perf_counter() - started) * 1000
    timings = {"request": request_ms, "retrieval": ctx.retrieval_ms, "generation": generation_ms,
               "first_token": first_token if first_token is not None else total_ms, "total": total_ms}  # fmt: skip
    sources = [
        SourceView(s.ref, s.contribution, s.relevance, _source_text(rt, user_id, ctx, s.ref)) for s in answer.sources
    ]
    yield Finished(
        answer.content, turn.id or 0, row.report, row.id or 0, timings,
        answer.confidence, tuple(sources), tuple(answer.follow_ups), answered.rounds, answered.forced, news,
    )  # fmt: skip


async def _reminder_reply(
    rt: Runtime, user_id: int, query: QueryRow, reply: str, context: TwoLevelContext
) -> AsyncIterator[AnswerDelta | Answered]:
    """The policy path's reply to a reminder request: the fixed words of app/proactive.py with the
    time as stored. The grounded answer would read "remind me … to call the vet" as a question
    about memory, and the small model must not restate a time it could get wrong."""
    rt.store.queries.start(user_id, query.id or 0)
    yield AnswerDelta(reply)
    rt.store.queries.complete(user_id, query.id or 0, "high")
    yield Answered(Answer(content=reply, confidence="high"), 0, False, context.stats())


def _second_look(
    rt: Runtime,
    user_id: int,
    thread_id: str,
    user_turn: TurnRow,
    sit: Situation,
    ctx: AssembledContext,
    asked: ContextRequest,
    limits: Limits,
) -> tuple[AssembledContext, list[MemoryHit], str | None]:
    """On the policy path, the step the telemetry recommends, taken once when the evidence is weak
    (`capabilities.request_policy.second_look`): the context assembled again, the notes behind the
    relations the deeper hop loaded added to the recalled ones, and what it did in words (None: no step)."""
    evidence = first_evidence(rt.store, user_id, sit, ctx.hits)
    max_depth, max_memories = int(limits[Dimension.TRIPLE_DEPTH].max), int(limits[Dimension.VECTOR_LIMIT].max)
    step = second_look(ctx, asked, evidence, max_depth, max_memories) if evidence is not None else None
    if step is None:
        return ctx, list(ctx.hits), None
    message, turn_id = user_turn.content, user_turn.id
    again = rt.store.assembler.assemble(user_id, thread_id, message, step.request, before_turn_id=turn_id)
    again.timings_ms["first_look"] = ctx.retrieval_ms
    known = {h.memory.id for h in again.hits if h.memory.id is not None}
    hits = [*again.hits, *rt.store.assembler.behind(user_id, message, again, known, MORE_MEMORIES)]
    log.info("turn %s: %s", turn_id, step.said)
    return again, hits, step.said


def _planned(
    rt: Runtime, user_id: int, thread_id: str, user_turn: TurnRow, limits: Limits
) -> tuple[Situation, ResourceRequest, list[str], float]:
    """The message read, and the policy's request with the approved adjustments in force (no model call)."""
    t0 = time.perf_counter()
    earlier = [t.content for t in rt.store.turns.recent(user_id, thread_id, 20, before_id=user_turn.id)]
    situation = read(user_turn.content, earlier)
    adjusted = adjustments(rt.store.overrides.active())  # read fresh: an approval applies to the next turn
    request = plan_request(user_turn.content, earlier, limits, adjusted, situation)
    return situation, request, [], (time.perf_counter() - t0) * 1000


def _source_text(rt: Runtime, user_id: int, ctx: AssembledContext, ref: str) -> str:
    """What a cited ref says, for the source element the user can open."""
    for item in ctx.loaded:
        if item.ref == ref:
            return item.full
    number = int(ref[1:]) if ref[1:].isdigit() else 0
    if ref.startswith("m") and (memory := rt.store.memories.get(user_id, number)) is not None:
        return f"({memory.created_at:%Y-%m-%d}, {memory.kind}) {memory.content}"
    if ref.startswith("e") and (entity := rt.store.entities.get(user_id, number)) is not None:
        return f"{entity.name} ({entity.type}){' — ' + entity.summary if entity.summary else ''}"
    return ref


def _finish_record(
    rt: Runtime, record: UsageRecord, provision: Provision, notes: list[str], generation_ms: float | None
) -> UsageRow:
    settings = rt.settings
    report = ExecutionReport(
        provision=provision,
        hardware_label=settings.hardware_label,
        rss_mb=rss_mb(),
        memory_limit_mb=settings.memory_limit_mb,
        retrieval_ms=record.retrieval_ms or 0.0,
        generation_ms=generation_ms,
        notes=tuple(notes),
        context=context_lines(record.telemetry),  # the agent's next context names what was left out
    )
    record.generation_ms = generation_ms
    record.rss_mb = report.rss_mb
    record.report = report.render(settings.report_constraint_violations)
    return rt.store.usage.record(record)
