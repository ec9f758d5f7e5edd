"""What the person is told when the limits or the request policy changed since their last message.

The agent gets `LIMITS_CHANGED` / `LIMIT_ENDED` / `POLICY_CHANGED` / `POLICY_ENDED` lines in its
next context (app/chat.py); those name settings as the `.env` spells them. The person gets the
same news once, with the next reply, in plain words: what changed (the dimension's label, "at
most 30"), and why — the proposal approved and its reason, or who ended a change (the nightly
dream's trial, or the person) and the reason given. Pure, so it is tested without stores.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from capabilities.report import LimitChange
from capabilities.request_policy import LABEL, kind_of, step_words
from capabilities.resources import Bound, Dimension, format_number
from memory.models import LimitOverrideRow

_BOUND_WORDS: dict[Bound, str] = {"max": "at most", "min": "at least", "default": "by default"}
_REVERTED = re.compile(r"^Reverted #\d+ \(.*?\): ")  # a trial's reason names the change again: said once here


def told(
    changes: Sequence[LimitChange], started: Sequence[LimitOverrideRow] = (), ended: Sequence[LimitOverrideRow] = ()
) -> str:
    """One plain sentence per change since the person's last message ("" when nothing changed).

    Args:
        changes: the bounds that differ from the limits of the person's previous turn.
        started: changes approved since (a limit's shows in `changes`; the request policy's only here).
        ended: changes ended since, with who ended them and why.
    """
    ended_dims = {o.dimension for o in ended}
    lines = [_ended(o, changes) for o in ended]
    lines += [_changed(c) for c in changes if c.dimension.name not in ended_dims]
    lines += [_policy_started(o) for o in started if kind_of(o.dimension) is not None and o.revoked_at is None]
    return " ".join(lines)


def _value(c: LimitChange, which: str) -> str:
    return f"{_BOUND_WORDS[c.bound]} {format_number(c.new if which == 'new' else c.old)}"


def _changed(c: LimitChange) -> str:
    what = f"{c.dimension.label.capitalize()}: now {_value(c, 'new')} (was {format_number(c.old)})"
    if c.source.startswith("proposal #"):  # "proposal #4 approved 2026-11-22: long threads lost context"
        number, _, rest = c.source.partition(" approved ")
        when, _, reason = rest.partition(": ")
        return f"{what}, because {number} was approved on {when}" + (f": {reason}." if reason else ".")
    if c.source == ".env":
        return f"{what}, from the settings file."
    return f"{what} ({c.source})."


def _who(o: LimitOverrideRow) -> str:
    if o.ended_by == "dream":
        return "The nightly dream ended it after watching its trial"
    if o.ended_by == "cli":
        return "You ended it from the command line"
    return f"You ended it ({o.ended_by})" if o.ended_by else "It was ended"


def _ended(o: LimitOverrideRow, changes: Sequence[LimitChange]) -> str:
    why = _REVERTED.sub("", o.end_reason or "no reason given").rstrip(".")
    if (kind := kind_of(o.dimension)) is not None:
        return f"Change #{o.id} is undone: I no longer {_step(o)} on {LABEL[kind]}. {_who(o)}: {why}."
    back = [c for c in changes if c.dimension.name == o.dimension]
    label = Dimension[o.dimension].label if o.dimension in Dimension.__members__ else o.dimension
    now = ", ".join(_value(c, "new") for c in back)
    undone = f"{label} is back to {now}" if now else f"what it changed in {label} is undone"
    return f"Change #{o.id} is undone: {undone}. {_who(o)}: {why}."


def _step(o: LimitOverrideRow) -> str:
    """ "ask for more (+4 recent messages, …)" or "ask for less (4 fewer memories)"."""
    return step_words(o.default_value)


def _policy_started(o: LimitOverrideRow) -> str:
    kind = kind_of(o.dimension)
    label = LABEL[kind] if kind is not None else o.dimension
    return (f"From now on I {_step(o)} on {label}, because proposal #{o.proposal_id} was approved"
            + (f": {o.reason}." if o.reason else "."))  # fmt: skip
