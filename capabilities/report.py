"""The execution report the agent reads in its next context, and the notice of changed limits."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from capabilities.resources import (
    BOUNDS,
    Bound,
    Dimension,
    Grant,
    GrantStatus,
    Limits,
    Number,
    Provision,
    ResourceRequest,
    format_number,
)

HEADER = "SYSTEM_EXECUTION_REPORT"

# What to do instead, per dimension and clamp direction. Each points at another dimension or an
# info capability that reaches the same context more cheaply, because "ask again" would be clamped again.
_SUGGESTIONS: dict[tuple[Dimension, GrantStatus], str] = {
    (Dimension.CONTEXT_TURNS, GrantStatus.CLAMPED_TO_MAX): (
        "you asked for more turns than allowed; raise TRIPLE_DEPTH or VECTOR_LIMIT to reach older "
        "context through memory instead."
    ),
    (Dimension.CONTEXT_TURNS, GrantStatus.CLAMPED_TO_MIN): (
        "the most recent turns are always included; lower VECTOR_LIMIT or TRIPLE_DEPTH to keep the "
        "context small instead."
    ),
    (Dimension.VECTOR_LIMIT, GrantStatus.CLAMPED_TO_MAX): (
        "you asked for more memories than allowed; raise SIMILARITY_THRESHOLD so the allowed slots "
        "hold the closest matches, or use SEARCH_MEMORIES with a narrower query."
    ),
    (Dimension.VECTOR_LIMIT, GrantStatus.CLAMPED_TO_MIN): (
        "some memories are always searched; raise SIMILARITY_THRESHOLD to keep weak matches out instead."
    ),
    (Dimension.SIMILARITY_THRESHOLD, GrantStatus.CLAMPED_TO_MAX): (
        "you asked for a stricter match than allowed; lower VECTOR_LIMIT to keep only the top matches instead."
    ),
    (Dimension.SIMILARITY_THRESHOLD, GrantStatus.CLAMPED_TO_MIN): (
        "you asked for a looser match than allowed; raise VECTOR_LIMIT or TRIPLE_DEPTH to gather more "
        "related memories instead."
    ),
    (Dimension.TRIPLE_DEPTH, GrantStatus.CLAMPED_TO_MAX): (
        "you asked for a deeper graph walk than allowed; use FIND_PATH or EXPAND_ENTITY on the entities "
        "you need to go further."
    ),
    (Dimension.TRIPLE_DEPTH, GrantStatus.CLAMPED_TO_MIN): (
        "some graph expansion is always done; lower VECTOR_LIMIT to keep the context small instead."
    ),
}


def suggestion(grant: Grant) -> str | None:
    """What the agent could do instead of the clamped request, or None if the grant was not clamped."""
    return _SUGGESTIONS.get((grant.dimension, grant.status))


def _provided_line(grant: Grant, report_violations: bool) -> str:
    dim, value = grant.dimension, format_number(grant.provided)
    if grant.status is GrantStatus.AS_REQUESTED:
        return f"- {dim.name}: {value} (as requested)"
    if grant.status is GrantStatus.DEFAULTED:
        return f"- {dim.name}: {value} (default: {dim.env_name('default')}, not requested)"
    if not report_violations:
        return f"- {dim.name}: {value}"
    bound: Bound = "max" if grant.status is GrantStatus.CLAMPED_TO_MAX else "min"
    return f"- {dim.name}: {value} (clamped to {dim.env_name(bound)})"


def _constraint_reason(provision: Provision, hardware_label: str) -> str:
    limits = provision.limits
    bases = ", ".join(dict.fromkeys(rng.source for rng in limits.values()))
    # Name an override only where it decided a clamp: that is what the agent ran into.
    origins: list[str] = []
    for grant in provision.clamped:
        rng = limits[grant.dimension]
        bound: Bound = "max" if grant.status is GrantStatus.CLAMPED_TO_MAX else "min"
        if rng.source_of(bound) != rng.source:
            origins.append(f"{grant.dimension.name} {bound} from {rng.source_of(bound)}")
    detail = f" ({', '.join(origins)})" if origins else ""
    return f"Constraint reason: hardware {hardware_label}; limits from {bases}{detail}"


@dataclass(frozen=True)
class ExecutionReport:
    """What was asked, what was provided and what it cost, for the agent's next context and the UI.

    The request is not stored twice: it is the one the provision was decided from.
    """

    provision: Provision
    hardware_label: str
    rss_mb: float
    memory_limit_mb: float
    retrieval_ms: float
    generation_ms: float | None = None
    notes: tuple[str, ...] = ()
    context: tuple[str, ...] = ()
    """What the context held and left out, in plain words (`context_lines` of the turn's telemetry)."""

    @property
    def requested(self) -> ResourceRequest:
        """The request as parsed from the model's output."""
        return self.provision.request

    def _performance(self) -> str:
        share = f" ({self.rss_mb / self.memory_limit_mb * 100:.1f}%)" if self.memory_limit_mb > 0 else ""
        line = f"Performance: RSS {self.rss_mb:.0f} MB of {self.memory_limit_mb:.0f} MB{share}"
        line += f", retrieval {self.retrieval_ms:.0f} ms"
        if self.generation_ms is not None:
            line += f", generation {self.generation_ms:.0f} ms"
        return line

    def render(self, report_violations: bool) -> str:
        """The block that opens with ``SYSTEM_EXECUTION_REPORT``.

        Args:
            report_violations: REPORT_CONSTRAINT_VIOLATIONS; when False, clamp marks, the constraint
                reason and the suggestions are left out (the values shown are still the clamped ones).
        """
        grants = self.provision.grants
        asked = (
            f"{g.dimension.name}={'(not given)' if g.requested is None else format_number(g.requested)}" for g in grants
        )
        lines = [HEADER, f"Requested: {', '.join(asked)}", "Provided:"]
        lines += [_provided_line(g, report_violations) for g in grants]
        clamped = self.provision.clamped if report_violations else []
        if clamped:
            lines.append(_constraint_reason(self.provision, self.hardware_label))
        lines.append(self._performance())
        lines += self.context
        tips = [f"- {g.dimension.name}: {tip}" for g in clamped if (tip := suggestion(g))]
        if tips:
            lines += ["Suggestions:", *tips]
        if self.notes:
            lines += ["Notes:", *(f"- {note}" for note in self.notes)]
        return "\n".join(lines)


@dataclass(frozen=True)
class LimitChange:
    """One bound that an approved override (or a new .env) changed since the agent last saw the limits."""

    dimension: Dimension
    bound: Bound
    old: Number
    new: Number
    source: str


def diff_limits(old: Limits, new: Limits) -> list[LimitChange]:
    """Every bound whose value differs between two limits, described by the new bound's source."""
    return [
        LimitChange(dim, bound, old[dim].value_of(bound), new[dim].value_of(bound), new[dim].source_of(bound))
        for dim in Dimension
        for bound in BOUNDS
        if old[dim].value_of(bound) != new[dim].value_of(bound)
    ]


def changed_limits_notice(changes: Sequence[LimitChange]) -> str:
    """One ``LIMITS_CHANGED:`` line per change, or "" when nothing changed.

    Example: ``LIMITS_CHANGED: MAX_EPISODIC_CONTEXT_TURNS 20 → 25 (proposal #4 approved 2026-11-22: …)``.
    """
    return "\n".join(
        f"LIMITS_CHANGED: {c.dimension.env_name(c.bound)} {format_number(c.old)} → {format_number(c.new)} ({c.source})"
        for c in changes
    )


_LEFT_OUT = {
    "budget": "for the token budget",
    "relevance": "below the relevance cut",
    "depth": "past TRIPLE_DEPTH",
    "limit": "past VECTOR_SEARCH_LIMIT",
    "focus": "outside the focus",
    "superseded": "superseded (no longer true)",
}

_KINDS = (("m", "memory", "memories"), ("e", "entity", "entities"), ("r", "relation", "relations"))


def neighbour_note(telemetry: Mapping[str, Any]) -> str:
    """The turns shown beside the loaded ones, as " (with 14 neighbouring lines)": they are no memories
    of their own (VECTOR_SEARCH_LIMIT counts the memories ranked in), but they are in the context."""
    n = int(telemetry.get("neighbour_lines", 0))
    return f" (with {n} neighbouring line{'' if n == 1 else 's'})" if n else ""


def context_lines(telemetry: Mapping[str, Any]) -> tuple[str, ...]:
    """A turn's telemetry (memory.assembly `AssembledContext.telemetry`) in plain words, for the
    agent's next context: what was loaded, how far links were followed, what was left out and why,
    and what to ask for. Names appear only inside the recommendations (short entity labels).
    """
    if not telemetry:
        return ()
    refs = [str(i.get("ref", "")) for i in telemetry.get("loaded", [])]
    counts = [(sum(r.startswith(k) for r in refs), one, many) for k, one, many in _KINDS]
    said = ", ".join(f"{n} {one if n == 1 else many}" for n, one, many in counts)
    said += neighbour_note(telemetry)
    depth, reached = int(telemetry.get("depth", 0)), int(telemetry.get("depth_reached", 0))
    links = f"links followed {reached} of {depth} step(s) out" if depth else "no links followed (TRIPLE_DEPTH 0)"
    lines = [f"Context: {said} loaded ({telemetry.get('context_tokens', 0)} tokens); {links}"]
    left = telemetry.get("skipped_by_kind", {})
    if left:
        lines.append("Left out: " + ", ".join(f"{n} {_LEFT_OUT.get(k, k)}" for k, n in left.items()))
    lines += [f"Recommendation: {r}" for r in telemetry.get("recommendations", [])]
    if looked := telemetry.get("second_look"):
        lines.append(f"Second look: the policy {looked}")
    return tuple(lines)
