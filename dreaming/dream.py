"""One dream: analysis → simulation → proposals → consolidation, crash-safe.

Everything is computed before anything is written. One transaction then stores the
proposals and the memory status changes and marks the run `committed`; entity merges and
session summaries follow, each atomic and redoable. A crash before the commit leaves the
previous state exactly as it was, and the run row says `failed` with the error.

One dream at a time, whatever the number of processes on the database: a dream holds the
`dream` lease (memory/leases.py) from start to end, renewed at each phase, and a scheduled dream
also asks whether its night (`DreamConfig.night`) was already dreamt by another process.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from capabilities.resources import Dimension, Limits, Number
from dreaming import consolidation, policy, proposals, trials, unused
from dreaming.analysis import ClampedTurn, UsageAnalysis, analyze
from dreaming.consolidation import STALE_DAYS, aware
from dreaming.simulation import ModelMeter, SimulationResult, simulate, simulate_change
from memory.dreams import DreamStore, loads
from memory.models import DreamRunRow, LimitOverrideRow, ProposalRow, UsageRow, utcnow
from memory.store import MemoryStore

log = logging.getLogger(__name__)
Checkpoint = Callable[[str], None]
DREAM_LEASE = "dream"
# Renewed at every phase; a dreamer that died frees it after this long. Longer than any one phase
# measured (the simulation with the model, at night, takes minutes), short enough for a catch-up.
LEASE_TTL = timedelta(minutes=30)
PROCESS = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"  # who holds a lease, in its row


class DreamSkipped(Exception):
    """No dream ran: another process is dreaming, or this night was already dreamt (the message says which)."""


class LeaseLost(RuntimeError):
    """The dream lease expired mid-dream and another process took it: this dream stops before its commit."""


@dataclass(frozen=True)
class DreamConfig:
    """Plain values a dream needs from the settings."""

    limits: Limits
    memory_limit_mb: float = 2048
    budget_tokens: int = 1200
    stale_days: int = STALE_DAYS
    trigger: str = "schedule"
    meter: ModelMeter | None = None  # runs rebuilt prompts through the model (the app's nightly job)
    night: str = ""  # a scheduled dream's night ("2026-11-28 03:00"): dreamt once, by whichever process
    holder: str = PROCESS  # who holds the dream lease (tests run two "processes" in one)


@dataclass
class DreamReport:
    """What one dream did."""

    run_id: int
    usage_rows: int
    proposals: list[ProposalRow]
    consolidation: dict[str, int]
    analysis: dict[str, Any] = field(default_factory=dict[str, Any])
    findings: list[str] = field(default_factory=list[str])

    def summary(self) -> str:
        """A few lines for the CLI and the log."""
        lines = [f"dream #{self.run_id}: {self.usage_rows} usage rows analysed, {len(self.proposals)} proposal(s)"]
        lines += [f"  {proposals.headline(p)}" for p in self.proposals]
        lines += [f"  - {f}" for f in self.findings]
        done = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in self.consolidation.items())
        lines.append(f"  consolidation: {done}")
        return "\n".join(lines)


def _noop(_: str) -> None:
    return None


def _close_interrupted(dreams: DreamStore) -> None:
    # A run still `running` at start belongs to a process that died mid-dream.
    for run in dreams.runs(limit=5):
        if run.status == "running" and run.id is not None:
            dreams.update_run(run.id, status="failed", error="interrupted: the process ended during the dream")


def _simulator(
    stores: MemoryStore, analysis: UsageAnalysis, rows: list[UsageRow], config: DreamConfig
) -> proposals.Simulator:
    by_id = {r.id: r for r in rows if r.id is not None}

    def run(turns: list[ClampedTurn], dim: Dimension, value: Number) -> SimulationResult:
        return simulate(
            stores.assembler, turns, by_id, dim, value,
            memory_limit_mb=config.memory_limit_mb, log_peak_rss_mb=analysis.peak_rss_mb,
            budget_tokens=config.budget_tokens, meter=config.meter,
        )  # fmt: skip

    return run


def _policy_simulator(
    stores: MemoryStore, analysis: UsageAnalysis, rows: list[UsageRow], config: DreamConfig
) -> policy.PolicySimulator:
    """A policy proposal measured like a limit's: the kind's turns at their grants and adjusted."""
    by_id = {r.id: r for r in rows if r.id is not None}

    def run(kind_rows: Sequence[UsageRow], step: float) -> SimulationResult:
        change = policy.replay_change(config.limits, step)
        return simulate_change(
            stores.assembler, policy.replayed(kind_rows), by_id, change,
            memory_limit_mb=config.memory_limit_mb, log_peak_rss_mb=analysis.peak_rss_mb,
            budget_tokens=config.budget_tokens, meter=config.meter,
        )  # fmt: skip

    return run


Judged = list[tuple[LimitOverrideRow, trials.Verdict]]


def _judge_trials(stores: MemoryStore, config: DreamConfig, now: datetime) -> Judged:
    """Judge every approved change still on trial (see dreaming.trials) and apply the verdicts:
    a revert ends the change at once (its own transaction: right whatever happens next)."""
    watched = [o for o in stores.overrides.active() if o.trial_until is not None and not o.trial_outcome]
    if not watched:
        return []
    earliest = min(aware(o.created_at) - (now - aware(o.created_at)) for o in watched)
    rows = stores.usage.since(earliest)
    sure = stores.queries.confidences(r.turn_id for r in rows if r.turn_id is not None)
    verdicts = [(o, trials.judge(o, rows, config.memory_limit_mb, now, sure)) for o in watched]
    for _, verdict in verdicts:
        if verdict.action == "revert":
            stores.overrides.revoke(verdict.override_id, "dream", verdict.reason)
        elif verdict.action == "keep":
            stores.overrides.conclude(verdict.override_id)
        log.info("trial: %s", verdict.reason)
    return verdicts


def run_dream(
    stores: MemoryStore, config: DreamConfig, *, checkpoint: Checkpoint = _noop, now: datetime | None = None
) -> DreamReport:
    """Run one dream over the usage logged since the last committed dream.

    Args:
        stores: the real stores (the simulation replays queries through `stores.assembler`).
        config: the effective limits and the memory budget.
        checkpoint: called with each phase name ("analysis", "simulation", "consolidation",
            "commit" — inside the transaction, "after_commit"); a test makes it raise to crash there.
        now: the time to judge staleness against (default: now).

    Raises:
        DreamSkipped: another process holds the dream lease, or `config.night` was already dreamt.
        LeaseLost: the lease expired mid-dream and another process took it (nothing was committed).
        Whatever a phase raised, after the run row was marked `failed` with the error.
    """
    leases, holder = stores.leases, config.holder
    # Alone on the SQLite file, a lease someone else holds is a dead process's (kill -9 mid-dream):
    # the next dream need not wait for it to expire. On PostgreSQL only expiry frees it.
    if not leases.take(DREAM_LEASE, holder, LEASE_TTL, steal=stores.alone_everywhere()):
        raise DreamSkipped(f"another process is dreaming ({leases.holder(DREAM_LEASE)})")
    try:
        night = f"dream-night:{config.night}"
        if config.night and leases.done(night):
            raise DreamSkipped(f"the dream of {config.night} already ran ({leases.holder(night)})")
        report = _run(stores, config, checkpoint, now)
        if config.night:
            leases.finish(night, holder)
        return report
    finally:
        leases.release(DREAM_LEASE, holder)


def _renewing(stores: MemoryStore, holder: str, checkpoint: Checkpoint) -> Checkpoint:
    def renew(phase: str) -> None:
        # Not inside the commit's transaction: on SQLite that one holds the write lock.
        if phase != "commit" and not stores.leases.renew(DREAM_LEASE, holder, LEASE_TTL):
            raise LeaseLost(f"the dream lease expired before {phase}; another process holds it")
        checkpoint(phase)

    return renew


def _run(stores: MemoryStore, config: DreamConfig, checkpoint: Checkpoint, now: datetime | None) -> DreamReport:
    # Under the lease: a run still `running` is a dead process's, never a live neighbour's.
    dreams = stores.dreams
    checkpoint = _renewing(stores, config.holder, checkpoint)
    _close_interrupted(dreams)
    previous = dreams.last_committed()
    since = aware(previous.analyzed_until) if previous and previous.analyzed_until else None
    run = dreams.start_run(config.trigger)
    assert run.id is not None
    try:
        return _phases(stores, config, dreams, run.id, since, checkpoint, now or utcnow())
    except Exception as exc:
        dreams.update_run(run.id, status="failed", finished_at=utcnow(), error=f"{type(exc).__name__}: {exc}")
        log.exception("dream #%s failed; the previous state is unchanged up to its last commit", run.id)
        raise


def _phases(
    stores: MemoryStore, config: DreamConfig, dreams: DreamStore, run_id: int, since: datetime | None,
    checkpoint: Checkpoint, now: datetime,
) -> DreamReport:  # fmt: skip
    rows = stores.usage.since(since)
    checkpoint("trials")
    verdicts = _judge_trials(stores, config, now)
    reverted = {o.dimension for o, v in verdicts if v.action == "revert"}
    checkpoint("analysis")
    analysis = analyze(rows)
    checkpoint("simulation")
    simulator = _simulator(stores, analysis, rows, config)
    new, found = proposals.build_proposals(dreams, analysis, config.limits, simulator)
    kinds, spare, deep = policy.kind_stats(rows), unused.unused_stats(rows), unused.unused_stats(rows, "depth")
    asks, found_asks = policy.build_policy_proposals(
        dreams, kinds, stores.overrides.active(), spare, _policy_simulator(stores, analysis, rows, config), deep
    )
    new = [p for p in new + asks if p.dimension not in reverted]  # not proposed again the night it was reverted
    found = [v.reason for _, v in verdicts] + found + found_asks
    checkpoint("consolidation")
    user_ids = [a.id for a in stores.accounts.list() if a.id is not None]
    planned = consolidation.plan(stores.entities, stores.memories, stores.turns, user_ids, now, config.stale_days,
                                 dreams.undone_memories())  # fmt: skip
    until = max((aware(r.created_at) for r in rows), default=since)
    dreams.update_run(run_id, analyzed_from=since, analyzed_until=until, usage_rows=len(rows),
                      findings=json.dumps(found))  # fmt: skip
    saved = dreams.commit(run_id, new, planned.changes, before_commit=lambda: checkpoint("commit"))
    checkpoint("after_commit")
    counts = consolidation.apply_after_commit(planned, stores.memories, stores.entities, run_id, dreams)
    dreams.update_run(run_id, status="completed", finished_at=utcnow(), consolidation=json.dumps(counts))
    figures = {**analysis.as_dict(), "policy": policy.as_dict(kinds), "unused": unused.as_dict(spare),
               "unused_depth": unused.as_dict(deep)}  # fmt: skip
    return DreamReport(run_id, len(rows), saved, counts, figures, found)


def morning_text(dreams: DreamStore, user_id: int) -> str | None:
    """What the latest dream proposed, for an account not yet told about it (then marked seen), or None."""
    runs = [r for r in dreams.runs(limit=5) if r.status in ("committed", "completed") and r.id]
    if not runs or (last := runs[0]).id is None or last.id <= dreams.seen(user_id):
        return None
    dreams.mark_seen(user_id, last.id)
    new = [p for p in dreams.proposals(None, 50) if p.run_id == last.id]
    counts = loads(last.consolidation)
    done = ", ".join(f"{k.replace('_', ' ')}: {v}" for k, v in counts.items() if v)
    text = f"While you were away I dreamt (dream #{last.id}, {last.started_at:%Y-%m-%d %H:%M} UTC). "
    if new:
        text += "I propose: " + "; ".join(proposals.headline(p) for p in new) + ". Type /dreams to review."
    else:
        found = [f for f in findings(last) if not f.startswith(("Reverted", "Kept", "Trial of"))]
        text += "No changes to propose" + (f": {found[0]}" if found else ".")
    text += "".join(f" {f}" for f in findings(last) if f.startswith(("Reverted", "Kept")))
    if done:
        text += f" Memory tidy-up — {done}."
    return text


def findings(run: DreamRunRow) -> list[str]:
    """What a dream found, in plain sentences (an older run has none)."""
    try:
        found = json.loads(run.findings or "[]")
    except ValueError:
        return []
    return [str(f) for f in found] if isinstance(found, list) else []


EARLIER_SHOWN = 7


def _tidy(run: DreamRunRow) -> str:
    counts = {k: v for k, v in loads(run.consolidation).items() if v}
    return ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in counts.items()) or "nothing needed tidying"


def last_night(dreams: DreamStore) -> str:
    """The latest finished dream in two sentences, then what it found, then what the dreams before it
    tidied (and who undid it): the top of `/dreams`."""
    runs = [r for r in dreams.runs(limit=EARLIER_SHOWN + 5) if r.status in ("committed", "completed")]
    if not runs:
        return "No dream has run yet: the first runs tonight, or now with `reverie dream --now`."
    run, earlier = runs[0], runs[1 : EARLIER_SHOWN + 1]
    lines = [
        f"**Last dream** (#{run.id}, {run.started_at:%Y-%m-%d %H:%M} UTC) read {run.usage_rows} turn(s) and "
        f"proposed {run.proposals_created} change(s). Memory tidy-up: {_tidy(run)}.",
        *(f"- {f}" for f in findings(run)),
    ]
    if earlier:
        lines.append("\n**Dreams before** (`reverie dream undo RUN` puts a tidy-up back):")
    for r in earlier:
        undone = " ".join(f for f in findings(r) if f.startswith("Tidy-up undone"))
        lines.append(f"- #{r.id}, {r.started_at:%Y-%m-%d %H:%M}: {_tidy(r)}." + (f" {undone}" if undone else ""))
    return "\n".join(lines)
