"""A new dimension needs its declaration and memory/'s retrieval of it, nothing else.

Everything else is derived from the declaration: these tests declare a list with an extra, fake
dimension beside the real one (never touching `Dimension`) and build the settings, limits, request,
clamping, report and prompt from it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import create_model

from app.runtime import base_limits
from app.settings import Settings, limit_fields
from capabilities.report import ExecutionReport
from capabilities.resources import (
    PRODUCT_DEFAULTS,
    DeclaredDimension,
    Dimension,
    DimensionSpec,
    GrantStatus,
    Limits,
    LimitsError,
    Range,
    ResourceRequest,
    clamp,
    request_fields,
    request_prompt,
)

FAKE = DimensionSpec(
    field="fake_budget", env_stem="FAKE_BUDGET", kind=int, floor=0, ceiling=None, seed=Range(0, 8, 2),
    description="fake things to include", label="fake things read", words="fake things",
    assembly="loads the N fake things nearest the message",
)  # fmt: skip
Extended = DeclaredDimension("Extended", [(d.name, d.value) for d in Dimension] + [("FAKE_BUDGET", FAKE)])
ExtendedSettings = create_model("ExtendedSettings", __base__=Settings, **limit_fields(Extended))
ExtendedRequest = create_model("ExtendedRequest", __base__=ResourceRequest, **request_fields([Extended.FAKE_BUDGET]))


def _limits(tmp_path: Path) -> Limits:
    env = tmp_path / ".env"
    env.write_text("MAX_FAKE_BUDGET=6\nDEFAULT_FAKE_BUDGET=3\nMAX_TRIPLE_DEPTH=2\n")
    return base_limits(ExtendedSettings(_env_file=env, data_dir=tmp_path), Extended)


def test_declaration_settings_read_a_new_dimension_from_env(tmp_path: Path) -> None:
    limits = _limits(tmp_path)
    assert limits[Extended.FAKE_BUDGET] == Range(0, 6, 3)  # MIN_FAKE_BUDGET from the declared seed
    assert limits[Extended.TRIPLE_DEPTH].max == 2
    assert list(limits) == list(Extended)
    assert limits.as_env()["MAX_FAKE_BUDGET"] == 6


def test_declaration_limits_require_and_check_a_new_dimension(tmp_path: Path) -> None:
    ranges = dict(_limits(tmp_path).ranges)
    with pytest.raises(LimitsError, match="MAX_FAKE_BUDGET must be at least 0"):
        Limits({**ranges, Extended.FAKE_BUDGET: Range(0, -1, 0)})
    del ranges[Extended.FAKE_BUDGET]
    with pytest.raises(LimitsError, match="no limits given for FAKE_BUDGET"):
        Limits(ranges)


def test_declaration_clamping_and_report_cover_a_new_dimension(tmp_path: Path) -> None:
    provision = clamp(ExtendedRequest(context_turns=3, fake_budget=50), _limits(tmp_path))
    grant = provision.grant(Extended.FAKE_BUDGET)
    assert (grant.requested, grant.provided, grant.status) == (50, 6, GrantStatus.CLAMPED_TO_MAX)
    assert provision.fields()["fake_budget"] == 6 and provision.fields()["context_turns"] == 3
    report = ExecutionReport(provision, "2 GB RAM / 1 vCPU", 300, 2048, 12).render(report_violations=True)
    assert "TRIPLE_DEPTH=(not given), FAKE_BUDGET=50" in report
    assert "- FAKE_BUDGET: 6 (clamped to MAX_FAKE_BUDGET)" in report


def test_declaration_prompt_offers_a_new_dimension_with_its_default_in_examples(tmp_path: Path) -> None:
    prompt = request_prompt(_limits(tmp_path), "2 GB RAM / 1 vCPU")
    assert "- fake_budget: 0 to 6, default 3 (fake things to include)" in prompt
    assert prompt.count('"fake_budget": 3') == 4  # no example names it: each gets the default


def test_declaration_real_list_is_untouched_and_derives_the_seed(tmp_path: Path) -> None:
    assert [d.name for d in Dimension] == ["CONTEXT_TURNS", "VECTOR_LIMIT", "SIMILARITY_THRESHOLD", "TRIPLE_DEPTH"]
    assert "fake_budget" not in ResourceRequest.model_fields
    assert base_limits(Settings(_env_file=None, data_dir=tmp_path)).as_env() == dict(PRODUCT_DEFAULTS)
