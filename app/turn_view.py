"""Markdown for each reply's collapsible "context" step and its sources (pure; tested without a browser)."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from typing import Any, Protocol

from capabilities.report import neighbour_note
from capabilities.request_policy import REASON_PREFIX
from capabilities.resources import GrantStatus, Provision, format_number

_MARKS = {
    GrantStatus.AS_REQUESTED: "as requested",
    GrantStatus.CLAMPED_TO_MAX: "⚠ clamped to max",
    GrantStatus.CLAMPED_TO_MIN: "⚠ clamped to min",
    GrantStatus.DEFAULTED: "default (not requested)",
}


def plan_markdown(provision: Provision, notes: list[str], telemetry: dict[str, Any], request_ms: float) -> str:
    """In one line what Reverie looked at and why; then what was asked for and got per dimension
    (plain words, the seed names beside them, clamp marks), and what was loaded or left out."""
    got = {g.dimension.name: format_number(g.provided) for g in provision.grants}
    reason = provision.request.reason
    why = (reason.split(" — ", 1)[-1] if reason.startswith(REASON_PREFIX) else reason).rstrip(".")
    lines = [
        f"Looked at the last {got.get('CONTEXT_TURNS', '?')} turns of this chat and up to "
        f"{got.get('VECTOR_LIMIT', '?')} memories at least {got.get('SIMILARITY_THRESHOLD', '?')} relevant, "
        f"following links {got.get('TRIPLE_DEPTH', '?')} step(s) out" + (f": {why}." if why else ".") + "\n",
        "| what | asked | got | |",
        "|---|---|---|---|",
    ]
    for g in provision.grants:
        requested = "—" if g.requested is None else format_number(g.requested)
        label = f"{g.dimension.value.words} ({g.dimension.name})"
        lines.append(f"| {label} | {requested} | {format_number(g.provided)} | {_MARKS[g.status]} |")
    if reason.startswith(REASON_PREFIX):  # the model-free policy asked (app/judgement.py)
        lines.append("\nAsked by the context policy.")
    elif reason:
        lines.append(f"\nReason given: “{reason}”")
    lines += [f"\nNote: {n}" for n in notes]
    loaded = telemetry.get("loaded", [])
    kinds = {"m": "memories", "e": "entities", "r": "relations"}
    counts = {name: sum(1 for i in loaded if str(i["ref"]).startswith(k)) for k, name in kinds.items()}
    summary = ", ".join(f"{n} {name}" for name, n in counts.items()) + neighbour_note(telemetry)
    lines.append(
        f"\n**Loaded**: {telemetry.get('history_turns', 0)} recent turns, {summary} "
        f"({telemetry.get('context_tokens', 0)} tokens, coverage {telemetry.get('coverage', 1.0):.0%})"
    )
    lines += _telemetry_lines(telemetry)
    timings = telemetry.get("timings_ms", {})
    lines.append(f"**Timings**: request {request_ms:.0f} ms · retrieval {sum(timings.values()):.0f} ms")
    return "\n".join(lines)


_SKIP_WORDS = {
    "budget": "for the token budget",
    "relevance": "below the relevance cut",
    "depth": "one step past the depth",
    "limit": "past the memory limit",
    "focus": "outside the focus",
    "superseded": "superseded",
}
SHOWN = 8
"""Items named in each line of the Context step (the telemetry keeps up to 50)."""


def _telemetry_lines(telemetry: dict[str, Any]) -> list[str]:
    """Why things were loaded, how deep the links went, what was left out and why, and what to ask.
    Labels are the person's text (and a document's): escaped, so they show as written."""
    lines: list[str] = []
    depth, reached = telemetry.get("depth"), telemetry.get("depth_reached")
    if depth:
        lines.append(f"**Links followed**: {reached} of {depth} step(s) out had something")
    why = [_entry(i) for i in telemetry.get("loaded", []) if i.get("reason") and i.get("label")]
    if why:
        more = f"; and {len(why) - SHOWN} more" if len(why) > SHOWN else ""
        lines.append("**Why loaded**: " + "; ".join(why[:SHOWN]) + more)
    skipped = telemetry.get("skipped", [])
    if skipped:
        best = telemetry.get("best_unloaded") or skipped
        more = int(telemetry.get("skipped_total", len(skipped))) - min(len(best), SHOWN)
        names = "; ".join(_entry(s) for s in best[:SHOWN])
        lines.append("**Related but not loaded**: " + names + (f"; and {more} more" if more > 0 else ""))
        kinds = telemetry.get("skipped_by_kind", {})
        if kinds:
            lines.append("Left out: " + ", ".join(f"{n} {_SKIP_WORDS.get(k, k)}" for k, n in kinds.items()))
    lines += [f"**Recommendation**: {escape(r)}" for r in telemetry.get("recommendations", [])]
    if looked := telemetry.get("second_look"):  # the policy took a recommended step (request_policy.second_look)
        lines.append(f"**Second look**: the policy {escape(str(looked))}")
    return lines


def _entry(item: dict[str, Any]) -> str:
    return f"{escape(str(item['label']))} ({escape(str(item['reason']))})"


def report_markdown(report: str) -> str:
    """The execution report as the agent will see it next turn, its long lines wrapped so the step
    never runs off the right edge."""
    lines = [wrapped for line in report.splitlines() for wrapped in (textwrap.wrap(line, REPORT_WIDTH) or [""])]
    return "\n\n**Execution report** (shown to the agent next turn):\n```text\n" + "\n".join(lines) + "\n```"


REPORT_WIDTH = 88
"""Characters per line of the execution report in the Context step."""


_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~])")
SOURCE_CHARS = 140
"""How much of a source's text is shown under a reply; `/memories` shows it whole."""


def escape(text: str) -> str:
    """Text shown literally by a markdown renderer (every markdown character backslash-escaped)."""
    return _MARKDOWN.sub(r"\\\1", " ".join(text.split()))


class Cited(Protocol):
    """A source as the chat gives it (app.chat.SourceView)."""

    @property
    def ref(self) -> str: ...
    @property
    def relevance(self) -> float: ...
    @property
    def text(self) -> str: ...


def sources_markdown(sources: Sequence[Cited]) -> str:
    """The sources under a reply, in its own text: what each memory says (escaped: it is the person's
    text), its id for `/memories`, and its relevance. In the message itself, so a reloaded or resumed
    thread shows them as they were (Chainlit keeps no elements without a blob store), and no side
    panel opens by itself on every reply (Chainlit 2.11+ opens one for each "side" element)."""
    if not sources:
        return ""
    lines = [f"- **#{s.ref.lstrip('m')}** {escape(_snippet(s.text))} · relevance {s.relevance:.2f}" for s in sources]
    return "\n\n**Sources**\n" + "\n".join(lines)


def _snippet(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SOURCE_CHARS else text[: SOURCE_CHARS - 1].rstrip() + "…"
