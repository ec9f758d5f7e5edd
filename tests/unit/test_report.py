"""The execution report's exact text, its suggestions, and the notice of changed limits."""

from __future__ import annotations

import pytest

from capabilities.report import (
    ExecutionReport,
    LimitChange,
    changed_limits_notice,
    context_lines,
    diff_limits,
    suggestion,
)
from capabilities.resources import Dimension, Grant, GrantStatus, Limits, ResourceRequest, clamp

SEED = Limits.from_values()
HARDWARE = "2 GB RAM / 1 vCPU"


def _report(**overrides: object) -> ExecutionReport:
    limits = SEED.with_override(Dimension.CONTEXT_TURNS, max=20, source="override #3")
    request = ResourceRequest(context_turns=25, vector_limit=5, similarity_threshold=0.85)
    fields: dict[str, object] = dict(
        provision=clamp(request, limits),
        hardware_label=HARDWARE,
        rss_mb=412,
        memory_limit_mb=2048,
        retrieval_ms=12,
        generation_ms=840,
    )
    return ExecutionReport(**{**fields, **overrides})  # type: ignore[arg-type]


# Exact snapshots: this text is the contract with the model and with the UI step that shows it.
WITH_VIOLATIONS = """\
SYSTEM_EXECUTION_REPORT
Requested: CONTEXT_TURNS=25, VECTOR_LIMIT=5, SIMILARITY_THRESHOLD=0.85, TRIPLE_DEPTH=(not given)
Provided:
- CONTEXT_TURNS: 20 (clamped to MAX_EPISODIC_CONTEXT_TURNS)
- VECTOR_LIMIT: 5 (as requested)
- SIMILARITY_THRESHOLD: 0.85 (as requested)
- TRIPLE_DEPTH: 1 (default: DEFAULT_TRIPLE_DEPTH, not requested)
Constraint reason: hardware 2 GB RAM / 1 vCPU; limits from .env (CONTEXT_TURNS max from override #3)
Performance: RSS 412 MB of 2048 MB (20.1%), retrieval 12 ms, generation 840 ms
Suggestions:
- CONTEXT_TURNS: you asked for more turns than allowed; raise TRIPLE_DEPTH or VECTOR_LIMIT to reach older context through memory instead."""  # noqa: E501

WITHOUT_VIOLATIONS = """\
SYSTEM_EXECUTION_REPORT
Requested: CONTEXT_TURNS=25, VECTOR_LIMIT=5, SIMILARITY_THRESHOLD=0.85, TRIPLE_DEPTH=(not given)
Provided:
- CONTEXT_TURNS: 20
- VECTOR_LIMIT: 5 (as requested)
- SIMILARITY_THRESHOLD: 0.85 (as requested)
- TRIPLE_DEPTH: 1 (default: DEFAULT_TRIPLE_DEPTH, not requested)
Performance: RSS 412 MB of 2048 MB (20.1%), retrieval 12 ms, generation 840 ms"""


def test_report_render_with_violations_matches_snapshot() -> None:
    assert _report().render(report_violations=True) == WITH_VIOLATIONS


def test_report_render_without_violations_matches_snapshot() -> None:
    assert _report().render(report_violations=False) == WITHOUT_VIOLATIONS


def test_report_render_without_clamps_has_no_reason_and_shows_notes() -> None:
    request = ResourceRequest(context_turns=3, vector_limit=0, similarity_threshold=0.9, triple_depth=0)
    report = _report(
        provision=clamp(request, SEED),
        rss_mb=300.4,
        generation_ms=None,
        notes=("rounded vector_limit=0.2 to 0",),
    )
    assert report.render(report_violations=True) == (
        "SYSTEM_EXECUTION_REPORT\n"
        "Requested: CONTEXT_TURNS=3, VECTOR_LIMIT=0, SIMILARITY_THRESHOLD=0.9, TRIPLE_DEPTH=0\n"
        "Provided:\n"
        "- CONTEXT_TURNS: 3 (as requested)\n"
        "- VECTOR_LIMIT: 0 (as requested)\n"
        "- SIMILARITY_THRESHOLD: 0.9 (as requested)\n"
        "- TRIPLE_DEPTH: 0 (as requested)\n"
        "Performance: RSS 300 MB of 2048 MB (14.7%), retrieval 12 ms\n"
        "Notes:\n"
        "- rounded vector_limit=0.2 to 0"
    )


def test_report_render_clamped_to_min_names_the_min_variable_and_env_source() -> None:
    request = ResourceRequest(similarity_threshold=0.2)
    text = _report(provision=clamp(request, SEED)).render(report_violations=True)
    assert "- SIMILARITY_THRESHOLD: 0.5 (clamped to MIN_SIMILARITY_THRESHOLD)" in text
    assert "Constraint reason: hardware 2 GB RAM / 1 vCPU; limits from .env\n" in text
    assert "- SIMILARITY_THRESHOLD: you asked for a looser match than allowed;" in text


def test_report_requested_is_the_provisions_request() -> None:
    report = _report()
    assert report.requested is report.provision.request


@pytest.mark.parametrize("dim", list(Dimension))
@pytest.mark.parametrize("status", [GrantStatus.CLAMPED_TO_MAX, GrantStatus.CLAMPED_TO_MIN])
def test_report_suggestion_exists_for_every_clamp_and_names_an_alternative(
    dim: Dimension, status: GrantStatus
) -> None:
    tip = suggestion(Grant(dim, 0, 0, status))
    assert tip is not None and tip.endswith(".")
    alternatives = [d.name for d in Dimension if d is not dim] + ["SEARCH_MEMORIES", "FIND_PATH"]
    assert any(name in tip for name in alternatives)


@pytest.mark.parametrize("status", [GrantStatus.AS_REQUESTED, GrantStatus.DEFAULTED])
def test_report_suggestion_is_none_when_not_clamped(status: GrantStatus) -> None:
    assert suggestion(Grant(Dimension.VECTOR_LIMIT, 5, 5, status)) is None


def test_report_changed_limits_notice_matches_snapshot() -> None:
    change = LimitChange(
        Dimension.CONTEXT_TURNS, "max", 20, 25, "proposal #4 approved 2026-11-22: long threads lost context"
    )
    assert changed_limits_notice([change]) == (
        "LIMITS_CHANGED: MAX_EPISODIC_CONTEXT_TURNS 20 → 25 "
        "(proposal #4 approved 2026-11-22: long threads lost context)"
    )
    assert changed_limits_notice([]) == ""


def test_report_diff_limits_lists_every_changed_bound_with_its_source() -> None:
    source = "proposal #4 approved 2026-11-22: long threads lost context"
    new = SEED.with_override(Dimension.CONTEXT_TURNS, max=5, source=source)
    assert diff_limits(SEED, new) == [
        LimitChange(Dimension.CONTEXT_TURNS, "max", 20, 5, source),
        LimitChange(Dimension.CONTEXT_TURNS, "default", 10, 5, source),
    ]
    assert changed_limits_notice(diff_limits(SEED, new)).splitlines() == [
        f"LIMITS_CHANGED: MAX_EPISODIC_CONTEXT_TURNS 20 → 5 ({source})",
        f"LIMITS_CHANGED: DEFAULT_EPISODIC_CONTEXT_TURNS 10 → 5 ({source})",
    ]
    assert diff_limits(SEED, SEED) == []


def test_report_context_lines_say_what_was_left_out_and_what_to_ask() -> None:
    telemetry = {
        "loaded": [{"ref": "m1"}, {"ref": "m2"}, {"ref": "e4"}],
        "context_tokens": 57,
        "depth": 1,
        "depth_reached": 1,
        "skipped_by_kind": {"depth": 5, "budget": 1},
        "recommendations": ["ask TRIPLE_DEPTH 2 for Forklift, Pallet, Truck and 2 more"],
    }
    lines = context_lines(telemetry)
    assert lines == (
        "Context: 2 memories, 1 entity, 0 relations loaded (57 tokens); links followed 1 of 1 step(s) out",
        "Left out: 5 past TRIPLE_DEPTH, 1 for the token budget",
        "Recommendation: ask TRIPLE_DEPTH 2 for Forklift, Pallet, Truck and 2 more",
    )
    rendered = _report(context=lines).render(True).split("\n")
    after = rendered.index(next(line for line in rendered if line.startswith("Performance:"))) + 1
    assert rendered[after : after + 3] == list(lines)  # the agent reads them in its next context
    assert context_lines({}) == ()
    assert context_lines({"depth": 0})[0].endswith("no links followed (TRIPLE_DEPTH 0)")
