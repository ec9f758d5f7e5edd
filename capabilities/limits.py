"""Effective limits: the `.env` ranges with approved overrides applied in order."""

from __future__ import annotations

from collections.abc import Iterable

from capabilities.request_policy import kind_of
from capabilities.resources import Dimension, Limits, LimitsError, Number
from memory.models import LimitOverrideRow


def _as_number(dim: Dimension, value: float | None) -> Number | None:
    if value is None:
        return None
    return int(value) if dim.value.kind is int else float(value)


def apply_overrides(base: Limits, overrides: Iterable[LimitOverrideRow]) -> Limits:
    """Apply each approved override on top of `base`; one that no longer fits is skipped, not fatal.

    An override can stop fitting when `.env` changed after it was approved (e.g. a new max below
    an approved min). Start-up must not fail for that: the override is skipped and the reason
    shows in `reverie limits`. An approved adjustment of the request policy (`policy:<kind>`) is
    stored among the overrides but changes no range: `request_policy.adjustments` reads it.
    """
    limits = base
    for row in overrides:
        if kind_of(row.dimension) is not None:
            continue
        dim = Dimension[row.dimension]
        when = row.created_at.strftime("%Y-%m-%d")
        source = f"proposal #{row.proposal_id} approved {when}" if row.proposal_id else f"override #{row.id} {when}"
        if row.reason:  # the agent is told why a limit changed, not only that it did
            source += f": {row.reason[:120]}"
        try:
            limits = limits.with_override(
                dim,
                min=_as_number(dim, row.min_value),
                max=_as_number(dim, row.max_value),
                default=_as_number(dim, row.default_value),
                source=source,
            )
        except LimitsError:
            continue
    return limits
