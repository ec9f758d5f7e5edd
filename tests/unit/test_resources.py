"""Resource dimensions, limits, request parsing, clamping and the request prompt."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from capabilities.resources import (
    PRODUCT_DEFAULTS,
    TRIPLE_DEPTH_CEILING,
    Bound,
    Dimension,
    GrantStatus,
    Limits,
    LimitsError,
    Number,
    Range,
    ResourceRequest,
    clamp,
    parse_request,
    request_prompt,
)

SEED = Limits.from_values()
# Request values the ranges' sanity bounds make reachable, plus generous room beyond them.
_INT_SPAN = 60


@st.composite
def limits(draw: st.DrawFn) -> Limits:
    """Any valid limits: floats in hundredths, ints within each dimension's sanity bounds."""
    ranges: dict[Dimension, Range] = {}
    for dim in Dimension:
        if dim.spec.kind is float:
            lo = draw(st.integers(0, 100))
            hi = draw(st.integers(lo, 100))
            ranges[dim] = Range(lo / 100, hi / 100, draw(st.integers(lo, hi)) / 100)
        else:
            ceiling = _INT_SPAN if dim.spec.ceiling is None else int(dim.spec.ceiling)
            lo = draw(st.integers(int(dim.spec.floor), ceiling))
            hi = draw(st.integers(lo, ceiling))
            ranges[dim] = Range(lo, hi, draw(st.integers(lo, hi)))
    return Limits(ranges)


def _any_value(dim: Dimension) -> st.SearchStrategy[Number | None]:
    if dim.spec.kind is float:
        return st.none() | st.floats(-3, 3, allow_nan=False)
    return st.none() | st.integers(-1000, 1000)


requests = st.fixed_dictionaries({dim.spec.field: _any_value(dim) for dim in Dimension}).map(
    ResourceRequest.model_validate
)


def _request(**values: Any) -> ResourceRequest:
    return ResourceRequest.model_validate(values)


# --- dimensions and limits -------------------------------------------------------------------


def test_dimension_env_names_match_the_seed() -> None:
    assert [dim.env_name("max") for dim in Dimension] == [
        "MAX_EPISODIC_CONTEXT_TURNS",
        "MAX_VECTOR_SEARCH_LIMIT",
        "MAX_SIMILARITY_THRESHOLD",
        "MAX_TRIPLE_DEPTH",
    ]
    assert Dimension.CONTEXT_TURNS.env_name("default") == "DEFAULT_EPISODIC_CONTEXT_TURNS"


def test_limits_from_values_defaults_are_the_seed_values() -> None:
    assert SEED.as_env() == dict(PRODUCT_DEFAULTS)
    assert SEED[Dimension.SIMILARITY_THRESHOLD] == Range(0.5, 0.9, 0.7, ".env")
    assert isinstance(SEED[Dimension.CONTEXT_TURNS].max, int)


def test_limits_from_values_accepts_seed_names_in_any_case() -> None:
    built = Limits.from_values({"MAX_TRIPLE_DEPTH": 2}, max_vector_search_limit=9.0, source="test")
    assert built[Dimension.TRIPLE_DEPTH].max == 2
    assert built[Dimension.VECTOR_LIMIT].max == 9
    assert isinstance(built[Dimension.VECTOR_LIMIT].max, int)
    assert built[Dimension.VECTOR_LIMIT].source == "test"


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (
            {"max_episodic_context_turns": 3, "min_episodic_context_turns": 5},
            "MAX_EPISODIC_CONTEXT_TURNS (3) is below MIN_EPISODIC_CONTEXT_TURNS (5)",
        ),
        ({"default_triple_depth": 7}, "DEFAULT_TRIPLE_DEPTH=7 is outside [0, 3]"),
        ({"default_similarity_threshold": 0.95}, "DEFAULT_SIMILARITY_THRESHOLD=0.95 is outside [0.5, 0.9]"),
        ({"min_similarity_threshold": 1.5}, "MIN_SIMILARITY_THRESHOLD must be within 0..1 (got 1.5)"),
        ({"min_similarity_threshold": -0.1}, "MIN_SIMILARITY_THRESHOLD must be within 0..1 (got -0.1)"),
        ({"max_triple_depth": 9}, f"MAX_TRIPLE_DEPTH must be within 0..{TRIPLE_DEPTH_CEILING} (got 9)"),
        ({"min_episodic_context_turns": 0}, "MIN_EPISODIC_CONTEXT_TURNS must be at least 1 (got 0)"),
        ({"min_vector_search_limit": -1}, "MIN_VECTOR_SEARCH_LIMIT must be at least 0 (got -1)"),
        ({"max_vector_search_limit": 2.5}, "MAX_VECTOR_SEARCH_LIMIT=2.5 must be a whole number"),
        ({"max_similarity_threshold": 0.855}, "MAX_SIMILARITY_THRESHOLD=0.855 has more than 2 decimals"),
        ({"max_triple_depth": math.nan}, "MAX_TRIPLE_DEPTH=nan is not a number"),
        ({"max_triple_depth": True}, "MAX_TRIPLE_DEPTH=True is not a number"),
        ({"max_triple_depth": "3"}, "MAX_TRIPLE_DEPTH='3' is not a number"),
        ({"max_tripel_depth": 2}, "unknown limit variable MAX_TRIPEL_DEPTH"),
    ],
)
def test_limits_error_names_the_variable(values: dict[str, Any], message: str) -> None:
    with pytest.raises(LimitsError) as caught:
        Limits.from_values(**values)
    assert str(caught.value) == message


def test_limits_from_values_huge_integer_does_not_overflow() -> None:
    # Only a floor bounds turns and memories; a huge value is odd but must not crash validation.
    assert Limits.from_values(max_vector_search_limit=10**400)[Dimension.VECTOR_LIMIT].max == 10**400


def test_limits_error_when_a_dimension_is_missing() -> None:
    with pytest.raises(LimitsError, match="no limits given for TRIPLE_DEPTH"):
        Limits({dim: SEED[dim] for dim in Dimension if dim is not Dimension.TRIPLE_DEPTH})


def test_limits_is_a_read_only_mapping() -> None:
    assert len(SEED) == 4 and list(SEED) == list(Dimension)
    with pytest.raises(TypeError):
        SEED.ranges[Dimension.TRIPLE_DEPTH] = Range(0, 1, 0)  # type: ignore[index]
    assert hash(SEED) == hash(Limits.from_values())


def test_limits_with_override_records_the_source_per_bound() -> None:
    source = "override #3 approved 2026-11-21"
    overridden = SEED.with_override(Dimension.CONTEXT_TURNS, max=25, source=source)
    rng = overridden[Dimension.CONTEXT_TURNS]
    assert (rng.min, rng.max, rng.default) == (1, 25, 10)
    assert rng.source_of("max") == source
    assert rng.source_of("min") == ".env"
    assert SEED[Dimension.CONTEXT_TURNS].max == 20  # the original is untouched


def test_limits_with_override_later_override_wins() -> None:
    first = SEED.with_override(Dimension.TRIPLE_DEPTH, max=2, source="override #1")
    second = first.with_override(Dimension.TRIPLE_DEPTH, max=3, min=1, source="override #2")
    rng = second[Dimension.TRIPLE_DEPTH]
    assert (rng.min, rng.max) == (1, 3)
    assert rng.source_of("max") == rng.source_of("min") == "override #2"


def test_limits_with_override_pulls_the_default_into_a_narrowed_range() -> None:
    narrowed = SEED.with_override(Dimension.CONTEXT_TURNS, max=5, source="override #4")
    rng = narrowed[Dimension.CONTEXT_TURNS]
    assert (rng.max, rng.default, rng.source_of("default")) == (5, 5, "override #4")


def test_limits_with_override_invalid_range_names_variable_and_override() -> None:
    with pytest.raises(LimitsError) as caught:
        SEED.with_override(Dimension.CONTEXT_TURNS, min=25, source="override #5")
    assert str(caught.value) == (
        "MAX_EPISODIC_CONTEXT_TURNS (20) is below MIN_EPISODIC_CONTEXT_TURNS (25) (in override #5)"
    )


def test_limits_with_override_that_sets_nothing_is_an_error() -> None:
    with pytest.raises(LimitsError, match="sets no bound"):
        SEED.with_override(Dimension.VECTOR_LIMIT, source="override #6")


# --- parse_request ---------------------------------------------------------------------------


def test_parse_request_reads_json_with_extra_keys_and_wrong_types() -> None:
    raw = (
        '{"context_turns": "five", "vector_limit": 7.9, "similarity_threshold": "0.8", '
        '"triple_depth": "deep", "mood": "curious", "reason": "debugging"}'
    )
    request, notes = parse_request(raw)
    assert request == _request(context_turns=5, vector_limit=8, similarity_threshold=0.8, reason="debugging")
    assert notes == [
        "rounded vector_limit=7.9 to 8",
        "dropped triple_depth='deep': not a usable number",
        "ignored unknown key 'mood'",
    ]


def test_parse_request_tolerates_prose_code_fences_and_dimension_names() -> None:
    raw = 'Sure!\n```json\n{"CONTEXT_TURNS": 25, "Vector_Search_Limit": 3, "triple-depth": 2}\n```'
    assert parse_request(raw) == (_request(context_turns=25, vector_limit=3, triple_depth=2), [])


def test_parse_request_unwraps_one_level_of_nesting() -> None:
    request, _ = parse_request({"resources": {"triple_depth": 2}})
    assert request.triple_depth == 2


@pytest.mark.parametrize("raw", [None, "", "garbage", "[1, 2]", "42", "{" * 10_000, '{"a": ' * 3000])
def test_parse_request_unreadable_input_gives_empty_request_and_a_note(raw: str | None) -> None:
    request, notes = parse_request(raw)
    assert request == ResourceRequest()
    assert len(notes) == 1


@pytest.mark.parametrize("value", [True, None, math.nan, math.inf, 10**400, [3], {"n": 3}, "1e999", "9" * 50])
def test_parse_request_unusable_number_is_dropped_with_a_note(value: object) -> None:
    request, notes = parse_request({"vector_limit": value, "similarity_threshold": value})
    assert (request.vector_limit, request.similarity_threshold) == (None, None)
    assert len(notes) == 2 and all(note.startswith("dropped") for note in notes)


def test_parse_request_rounds_half_up_for_integer_dimensions() -> None:
    request, notes = parse_request({"triple_depth": 2.5, "context_turns": 3.0})
    assert (request.triple_depth, request.context_turns) == (3, 3)
    assert notes == ["rounded triple_depth=2.5 to 3"]


def test_parse_request_cuts_a_long_reason() -> None:
    request, notes = parse_request({"reason": "x" * 500})
    assert len(request.reason) == 200
    assert notes == ["reason cut to 200 characters"]


def test_parse_request_returns_a_validated_request_unchanged() -> None:
    request = _request(context_turns=4)
    assert parse_request(request) == (request, [])


@given(st.text())
def test_parse_request_never_raises_on_any_text(raw: str) -> None:
    request, notes = parse_request(raw)
    assert isinstance(request, ResourceRequest) and isinstance(notes, list)


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=20,
)
_keys = st.sampled_from(["context_turns", "VECTOR_LIMIT", "similarity_threshold", "triple_depth", "reason"])


@given(st.dictionaries(_keys | st.text(max_size=10), _json_values, max_size=8))
def test_parse_request_never_raises_on_any_mapping(raw: dict[str, Any]) -> None:
    request, _ = parse_request(raw)
    assert isinstance(request, ResourceRequest)
    parse_request(json.dumps(raw))  # and the same as JSON text


# --- clamp -----------------------------------------------------------------------------------


@given(limits(), requests)
def test_clamp_provided_value_is_always_inside_the_range(active: Limits, request: ResourceRequest) -> None:
    provision = clamp(request, active)
    for dim in Dimension:
        rng = active[dim]
        assert rng.min <= provision.value(dim) <= rng.max
        assert isinstance(provision.value(dim), dim.spec.kind)


@given(st.data(), limits())
def test_clamp_value_inside_the_range_passes_unchanged(data: st.DataObject, active: Limits) -> None:
    values: dict[str, Number] = {}
    for dim in Dimension:
        rng = active[dim]
        if dim.spec.kind is float:
            values[dim.spec.field] = data.draw(st.integers(round(rng.min * 100), round(rng.max * 100))) / 100
        else:
            values[dim.spec.field] = data.draw(st.integers(int(rng.min), int(rng.max)))
    provision = clamp(_request(**values), active)
    for grant in provision.grants:
        assert grant.status is GrantStatus.AS_REQUESTED
        assert grant.provided == grant.requested


@given(st.data(), limits())
def test_clamp_float_inside_the_range_is_rounded_to_two_decimals(data: st.DataObject, active: Limits) -> None:
    rng = active[Dimension.SIMILARITY_THRESHOLD]
    wanted = data.draw(st.floats(rng.min, rng.max))
    grant = clamp(_request(similarity_threshold=wanted), active).grant(Dimension.SIMILARITY_THRESHOLD)
    assert grant.status is GrantStatus.AS_REQUESTED
    assert abs(grant.provided - wanted) <= 0.005 + 1e-9
    assert grant.provided == round(grant.provided, 2)


@pytest.mark.parametrize("dim", list(Dimension))
@pytest.mark.parametrize("bound", ["min", "max"])
def test_clamp_value_at_either_end_is_as_requested(dim: Dimension, bound: Bound) -> None:
    edge = SEED[dim].value_of(bound)
    grant = clamp(_request(**{dim.spec.field: edge}), SEED).grant(dim)
    assert (grant.provided, grant.status) == (edge, GrantStatus.AS_REQUESTED)


@pytest.mark.parametrize("dim", list(Dimension))
@given(excess=st.integers(1, 10_000))
def test_clamp_value_beyond_either_end_is_clamped_to_that_end(dim: Dimension, excess: int) -> None:
    step = 0.01 if dim.spec.kind is float else 1
    rng = SEED[dim]
    above = clamp(_request(**{dim.spec.field: rng.max + excess * step}), SEED).grant(dim)
    below = clamp(_request(**{dim.spec.field: rng.min - excess * step}), SEED).grant(dim)
    assert (above.provided, above.status) == (rng.max, GrantStatus.CLAMPED_TO_MAX)
    assert (below.provided, below.status) == (rng.min, GrantStatus.CLAMPED_TO_MIN)


def test_clamp_float_tolerance_absorbs_noise_but_not_real_excess() -> None:
    def status(value: float) -> tuple[Number, GrantStatus]:
        grant = clamp(_request(similarity_threshold=value), SEED).grant(Dimension.SIMILARITY_THRESHOLD)
        return grant.provided, grant.status

    assert status(0.9 + 1e-12) == (0.9, GrantStatus.AS_REQUESTED)
    assert status(0.1 + 0.2 + 0.3 + 0.2) == (0.8, GrantStatus.AS_REQUESTED)  # 0.7999999999999999
    assert status(0.904) == (0.9, GrantStatus.AS_REQUESTED)
    assert status(0.906) == (0.9, GrantStatus.CLAMPED_TO_MAX)


@given(limits())
def test_clamp_missing_dimension_gets_the_default(active: Limits) -> None:
    provision = clamp(ResourceRequest(), active)
    assert provision.defaulted == list(provision.grants)
    for grant in provision.grants:
        assert (grant.requested, grant.provided) == (None, active[grant.dimension].default)


def test_clamp_provision_exposes_values_clamps_and_a_log_form() -> None:
    request = _request(context_turns=25, vector_limit=5, similarity_threshold=0.85, reason="long thread")
    provision = clamp(request, SEED)
    assert [g.dimension for g in provision.clamped] == [Dimension.CONTEXT_TURNS]
    assert [g.dimension for g in provision.defaulted] == [Dimension.TRIPLE_DEPTH]
    assert provision.value(Dimension.CONTEXT_TURNS) == 20
    fields = provision.fields()  # what memory/ is asked to load
    assert fields == {"context_turns": 20, "vector_limit": 5, "similarity_threshold": 0.85, "triple_depth": 1}
    assert [type(v) for v in fields.values()] == [int, int, float, int]
    assert provision.as_dict() == {
        "reason": "long thread",
        "CONTEXT_TURNS": {"requested": 25, "provided": 20, "status": "clamped_to_max"},
        "VECTOR_LIMIT": {"requested": 5, "provided": 5, "status": "as_requested"},
        "SIMILARITY_THRESHOLD": {"requested": 0.85, "provided": 0.85, "status": "as_requested"},
        "TRIPLE_DEPTH": {"requested": None, "provided": 1, "status": "defaulted"},
    }
    json.dumps(provision.as_dict())


# --- request_prompt --------------------------------------------------------------------------


def test_request_prompt_states_hardware_ranges_and_defaults() -> None:
    prompt = request_prompt(SEED, "2 GB RAM / 1 vCPU")
    assert "2 GB RAM / 1 vCPU" in prompt
    for line in (
        "- context_turns: 1 to 20, default 10",
        "- vector_limit: 0 to 15, default 5",
        "- similarity_threshold: 0.5 to 0.9, default 0.7",
        "- triple_depth: 0 to 3, default 1",
    ):
        assert line in prompt
    assert len(prompt) < 1500  # read by a 135M-parameter model every turn


def test_request_prompt_examples_cover_the_four_situations() -> None:
    examples = {line.split(": {")[0]: json.loads("{" + line.split(": {", 1)[1])
                for line in request_prompt(SEED, "hw").splitlines() if ": {" in line}
    assert examples["- long debugging thread"]["context_turns"] == 20
    assert examples['- "what do I like?"']["vector_limit"] == 15
    assert examples['- "what do I like?"']["similarity_threshold"] < 0.7
    assert examples['- "thanks!"'] | {"reason": ""} == {
        "context_turns": 1, "vector_limit": 0, "similarity_threshold": 0.9, "triple_depth": 0, "reason": ""
    }
    assert examples['- "how is Anna connected to Berlin?"']["triple_depth"] in (2, 3)


@given(limits())
def test_request_prompt_examples_are_always_grantable(active: Limits) -> None:
    for line in request_prompt(active, "hw").splitlines():
        if ": {" in line:
            request, notes = parse_request(line.split(": ", 1)[1])
            assert notes == []
            assert clamp(request, active).clamped == []
