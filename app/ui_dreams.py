"""The dream channel in the browser: `/dreams` lists proposals with their evidence and a chart of
requested values against the limit; Approve / Reject ask for a written reason; the morning
summary tells a person what the last dream proposed, once.

Rendering only: the decisions themselves are dreaming.proposals.decide (one transaction with
the override), and the effective limits are read fresh every turn, so an approval applies to
the next message with no restart.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any, Literal

import chainlit as cl

from app.runtime import Runtime, effective_limits
from app.ui_common import account_id, ask_text, command, runtime
from dreaming import policy, proposals
from dreaming.charts import requested_spec, usage_spec
from dreaming.dream import last_night, morning_text
from dreaming.plot import render
from memory.dreams import ProposalError
from memory.models import LimitOverrideRow, ProposalRow, utcnow

PAST_SHOWN = 10
CHART_DAYS = 28  # the usage chart's window: the last four weeks
REASON_TIMEOUT_S = 600


def _actions(row: ProposalRow, active: dict[int, LimitOverrideRow]) -> list[cl.Action]:
    if row.id in active:  # an approved change in force: the person may end it early
        override = active[row.id]
        return [cl.Action(name="dream_end", payload={"override_id": override.id}, label="End this change", icon="undo")]
    if row.status != "pending":
        return []
    payload = {"proposal_id": row.id}
    return [
        cl.Action(name="dream_approve", payload=payload, label="Approve", icon="check"),
        cl.Action(name="dream_reject", payload=payload, label="Reject", icon="x"),
    ]


@command("dreams", "Review what the nightly dream proposed", icon="moon")
async def show_dreams(rt: Runtime, user_id: int, thread_id: str, text: str) -> None:
    """List pending proposals (with buttons) and past ones (with their decision)."""
    dreams = rt.store.dreams
    rows = await asyncio.to_thread(dreams.proposals, None, 50)
    pending = [r for r in rows if r.status == "pending"]
    past = [r for r in rows if r.status != "pending"][:PAST_SHOWN]
    usage = await asyncio.to_thread(rt.store.usage.since, utcnow() - timedelta(days=CHART_DAYS))
    charts = await _charts(usage_spec(usage, rt.settings.memory_limit_mb), pending + past)
    await cl.Message(content=await asyncio.to_thread(last_night, dreams), elements=charts.get(0, [])).send()
    if not rows:
        await cl.Message(content="The dream has not proposed anything yet.").send()
        return
    await cl.Message(content=f"**Dream proposals**: {len(pending)} pending, {len(past)} past shown.").send()
    overrides = await asyncio.to_thread(rt.store.overrides.history)
    active = {o.proposal_id: o for o in overrides if o.proposal_id is not None and o.revoked_at is None}
    ended = {o.proposal_id: o for o in overrides if o.proposal_id is not None and o.revoked_at is not None}
    for row in pending + past:
        content = proposals.proposal_markdown(row)
        if row.status != "pending":
            decided = await asyncio.to_thread(dreams.decisions, row.id)
            content += "\n\n" + "\n".join(f"- {d.decision} by {d.decided_by or '?'}: {d.reason}" for d in decided)
        if (o := ended.get(row.id or 0)) is not None and o.revoked_at is not None:
            content += f"\n- ended {o.revoked_at:%Y-%m-%d %H:%M} by {o.ended_by or '?'}: {o.end_reason}"
        elif (o := active.get(row.id or 0)) is not None and o.trial_until is not None and not o.trial_outcome:
            content += f"\n- on trial until {o.trial_until:%Y-%m-%d}: each night's dream compares it with before"
        await cl.Message(content=content, actions=_actions(row, active), elements=charts.get(row.id or 0, [])).send()


async def _charts(usage: dict[str, Any] | None, rows: list[ProposalRow]) -> dict[int, list[cl.Image]]:
    """The usage chart (key 0) and each limit proposal's requested values (key: its id), drawn as PNG
    in one child process; none when it cannot draw (the words carry the same figures)."""
    specs = {0: usage} if usage is not None else {}
    # a policy adjustment has no requested values to chart
    specs |= {row.id: requested_spec(row) for row in rows if row.id is not None and not policy.is_policy(row)}
    try:
        pngs = await asyncio.to_thread(render, list(specs.values()))
    except OSError:
        return {}
    name = {0: "usage.png"}
    return {key: [cl.Image(name=name.get(key, f"requested-{key}.png"), content=png, mime="image/png",
                           display="inline", size="large")] for key, png in zip(specs, pngs, strict=True)}  # fmt: skip


async def _decide(action: cl.Action, decision: Literal["approved", "rejected"]) -> None:
    rt = runtime()
    proposal_id = int(action.payload["proposal_id"])
    verb = "approve" if decision == "approved" else "reject"
    reason = await ask_text(
        f"Why {verb} proposal #{proposal_id}? Your reason is kept in the decision history.", REASON_TIMEOUT_S
    )
    if not reason:
        await cl.Message(content=f"No reason given, so proposal #{proposal_id} is unchanged.").send()
        return
    user = cl.user_session.get("user")
    who = user.identifier if user is not None else str(account_id())
    dreams = rt.store.dreams
    limits = effective_limits(rt.settings, rt.store)
    try:
        row, override = await asyncio.to_thread(proposals.decide, dreams, limits, proposal_id, decision, reason, who)
    except ProposalError as exc:
        await cl.ErrorMessage(content=str(exc)).send()
        return
    await action.remove()
    note = f"Proposal {proposals.headline(row)}."
    if override is not None:
        shown = "." if policy.is_policy(row) else "; `reverie limits` shows it."
        note += f" It applies from your next message{shown}"
    await cl.Message(content=note).send()


@cl.action_callback("dream_approve")
async def _on_approve(action: cl.Action) -> None:
    await _decide(action, "approved")


@cl.action_callback("dream_reject")
async def _on_reject(action: cl.Action) -> None:
    await _decide(action, "rejected")


@cl.action_callback("dream_end")
async def _on_end(action: cl.Action) -> None:
    rt = runtime()
    override_id = int(action.payload["override_id"])
    reason = await ask_text(f"Why end change #{override_id}? What it changed goes back to before.", REASON_TIMEOUT_S)
    if not reason:
        await cl.Message(content=f"No reason given, so change #{override_id} stays.").send()
        return
    user = cl.user_session.get("user")
    who = user.identifier if user is not None else str(account_id())
    ended = await asyncio.to_thread(rt.store.overrides.revoke, override_id, who, reason)
    await action.remove()
    if ended is None:
        await cl.ErrorMessage(content=f"Change #{override_id} had already ended.").send()
        return
    await cl.Message(content=f"Change #{override_id} ended. It no longer applies from your next message.").send()


async def morning_summary(rt: Runtime, account_id: int) -> str | None:
    """A short summary of the latest dream this account has not yet been told about (shown once), or None."""
    return await asyncio.to_thread(morning_text, rt.store.dreams, account_id)
