"""Markdown for the collapsible "context" step of each reply (pure; tested without a browser)."""

from __future__ import annotations

from typing import Any

from capabilities.request_policy import REASON_PREFIX
from capabilities.resources import GrantStatus, Provision, format_number

_MARKS = {
    GrantStatus.AS_REQUESTED: "as requested",
    GrantStatus.CLAMPED_TO_MAX: "⚠ clamped to max",
    GrantStatus.CLAMPED_TO_MIN: "⚠ clamped to min",
    GrantStatus.DEFAULTED: "default (not requested)",
}


def plan_markdown(provision: Provision, notes: list[str], telemetry: dict[str, Any], request_ms: float) -> str:
    """What the agent asked for, what it got (with clamp marks), and what was loaded or skipped."""
    lines = ["| dimension | requested | provided | |", "|---|---|---|---|"]
    for g in provision.grants:
        requested = "—" if g.requested is None else format_number(g.requested)
        lines.append(f"| {g.dimension.name} | {requested} | {format_number(g.provided)} | {_MARKS[g.status]} |")
    reason = provision.request.reason
    if reason.startswith(REASON_PREFIX):  # the model-free policy asked (app/judgement.py)
        lines.append(f"\nAsked by the context policy: {reason.split(' — ', 1)[-1]}")
    elif reason:
        lines.append(f"\nReason given: “{reason}”")
    lines += [f"\nNote: {n}" for n in notes]
    loaded = telemetry.get("loaded", [])
    kinds = {"m": "memories", "e": "entities", "r": "relations"}
    counts = {name: sum(1 for i in loaded if str(i["ref"]).startswith(k)) for k, name in kinds.items()}
    summary = ", ".join(f"{n} {name}" for name, n in counts.items())
    lines.append(
        f"\n**Loaded**: {telemetry.get('history_turns', 0)} recent turns, {summary} "
        f"({telemetry.get('context_tokens', 0)} tokens, coverage {telemetry.get('coverage', 1.0):.0%})"
    )
    skipped = telemetry.get("skipped", [])
    if skipped:
        more = int(telemetry.get("skipped_total", len(skipped))) - min(len(skipped), 8)
        names = "; ".join(f"{s['label']} ({s['reason']})" for s in skipped[:8])
        lines.append("**Related but not loaded**: " + names + (f"; and {more} more" if more > 0 else ""))
    timings = telemetry.get("timings_ms", {})
    lines.append(f"**Timings**: request {request_ms:.0f} ms · retrieval {sum(timings.values()):.0f} ms")
    return "\n".join(lines)


def report_markdown(report: str) -> str:
    """The execution report as the agent will see it next turn."""
    return f"\n\n**Execution report** (shown to the agent next turn):\n```text\n{report}\n```"
