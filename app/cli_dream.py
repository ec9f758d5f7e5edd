"""`reverie dream …`: run a dream now, list proposals, approve or reject them.

`--now` runs the dream in this process when the app is stopped. When the app is running, its
scheduler dreams (one dreamer at a time, measured where the person's chat runs): the command
leaves a request file that the app's minute tick turns into an immediate run of its own dream
job, and with `--wait` follows the run in SQLite. Listing and deciding proposals touch only
SQLite (WAL admits other processes), so they work either way.
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import UTC, datetime

from app.settings import Settings
from capabilities.request_policy import adjustment_words, kind_of
from capabilities.resources import Dimension, Limits
from dreaming import policy, proposals
from dreaming.consolidation import aware
from memory.dreams import DreamStore, ProposalError, loads
from memory.models import LimitOverrideRow
from memory.usage import OverrideStore


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:  # pyright: ignore[reportPrivateUsage]
    """Add this area's subcommands; each sets `func(settings, args) -> int`."""
    dream = sub.add_parser("dream", help="the nightly dream: run it now, review its proposals")
    dream.add_argument("--now", action="store_true", help="dream now (directly, or through the running app)")
    dream.add_argument("--wait", type=float, default=0, metavar="S", help="with the app running: wait S seconds")
    dream.set_defaults(func=cmd_dream_now)
    actions = dream.add_subparsers(dest="dream_action")
    listing = actions.add_parser("proposals", help="list proposals (pending first)")
    listing.add_argument("--all", action="store_true", help="include decided ones")
    listing.set_defaults(func=cmd_proposals)
    for name in ("approve", "reject"):
        decide = actions.add_parser(name, help=f"{name} a pending proposal, with a written reason")
        decide.add_argument("id", type=int)
        decide.add_argument("--reason", required=True)
        decide.set_defaults(func=cmd_decide)
    history = actions.add_parser("history", help="every decision and dream run")
    history.set_defaults(func=cmd_history)
    undo = actions.add_parser(
        "undo", help="undo one dream's memory tidy-up (merged duplicates and entities, archived turns, summaries)"
    )
    undo.add_argument("run", type=int, help="the dream run (see `reverie dream history`)")
    undo.set_defaults(func=cmd_undo)


def _sqlite_only(settings: Settings) -> tuple[DreamStore, OverrideStore, Limits]:
    from app.runtime import effective_limits, open_records

    store = open_records(settings)
    return store.dreams, store.overrides, effective_limits(settings, store)


def cmd_dream_now(settings: Settings, args: argparse.Namespace) -> int:
    """Run one dream now: here if the app is stopped, else through the running app."""
    if not args.now:
        print("usage: reverie dream --now | proposals | approve ID --reason … | reject ID --reason … | history")
        return 2
    from app.runtime import app_running, effective_limits, open_storage
    from dreaming.dream import DreamConfig, DreamSkipped, run_dream

    if app_running(settings):
        return _through_app(settings, args.wait)
    store = open_storage(settings)
    try:
        config = DreamConfig(
            limits=effective_limits(settings, store), memory_limit_mb=settings.memory_limit_mb,
            budget_tokens=settings.context_budget_tokens, trigger="cli",
        )  # fmt: skip
        print(run_dream(store, config).summary())
    except DreamSkipped as skipped:
        print(f"no dream: {skipped}", file=sys.stderr)
        return 1
    finally:
        store.close()
    return 0


def _through_app(settings: Settings, wait_s: float) -> int:
    from app.scheduler import request_dream_now

    asked = datetime.now(UTC)
    path = request_dream_now(settings.data_dir)
    print(
        "Reverie is running, so its scheduler dreams rather than this process.\n"
        f"Asked the running app to dream now ({path.name}); its scheduler picks it up within a minute."
    )
    if wait_s <= 0:
        return 0
    dreams, _, _ = _sqlite_only(settings)
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        run = next(iter(dreams.runs(limit=1)), None)
        started = aware(run.started_at) if run is not None else None
        if run is not None and started is not None and started >= asked and run.status in ("completed", "failed"):
            print(f"dream #{run.id} {run.status}: {run.proposals_created} proposal(s); {run.error or ''}".rstrip())
            return 0 if run.status == "completed" else 1
        time.sleep(2)
    print(
        f"error: no dream finished within {wait_s:g} s. The app's scheduler looks for the request once a "
        "minute; `reverie dream history` shows the run when it comes.",
        file=sys.stderr,
    )
    return 1


def cmd_proposals(settings: Settings, args: argparse.Namespace) -> int:
    """List proposals with rationale, risk and the chart of requested values."""
    dreams, _, _ = _sqlite_only(settings)
    rows = dreams.proposals(None if args.all else ["pending"])
    if not rows:
        print("no proposals" if args.all else "no pending proposals (use --all for decided ones)")
    for row in rows:
        sim = loads(row.simulation)
        print(proposals.headline(row))
        print(f"  {row.rationale}")
        if sim:  # a policy proposal is measured too (older ones were not)
            print(
                f"  measured: +{sim.get('extra_memory_mb', 0)} MB, p95 retrieval +{sim.get('extra_p95_ms', 0)} ms, "
                f"projected peak {sim.get('projected_peak_mb', 0)} MB of {sim.get('memory_limit_mb', 0)} MB"
            )
        if policy.is_policy(row):
            print(f"  trial: {row.trial}\n")
            continue
        print("  " + proposals.requested_chart(row).replace("\n", "\n  ") + "\n")
    return 0


def cmd_decide(settings: Settings, args: argparse.Namespace) -> int:
    """Approve or reject one pending proposal."""
    dreams, _, limits = _sqlite_only(settings)
    decision = "approved" if args.dream_action == "approve" else "rejected"
    try:
        row, override = proposals.decide(dreams, limits, args.id, decision, args.reason, "cli")
    except ProposalError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(proposals.headline(row))
    if override is not None:
        shown = "reverie limits history" if policy.is_policy(row) else "reverie limits"
        print(f"change #{override.id} is active from the next turn (see `{shown}`)")
    return 0


def cmd_undo(settings: Settings, args: argparse.Namespace) -> int:
    """Take apart what one dream merged, make active again what it superseded or archived, and archive
    the summaries it wrote (the graph is taken in turns, so this works beside the running app)."""
    from app.runtime import open_storage
    from dreaming.consolidation import undo

    store = open_storage(settings)
    try:
        if not any(r.id == args.run for r in store.dreams.runs(limit=1000)):
            print(f"error: no dream run #{args.run} (see `reverie dream history`)", file=sys.stderr)
            return 2
        memories, merges = undo(store.dreams, store.entities, args.run, "cli")
    finally:
        store.close()
    print(f"dream #{args.run}: {memories} memory change(s) undone, {merges} entity merge(s) taken apart")
    return 0


def cmd_history(settings: Settings, args: argparse.Namespace) -> int:
    """Every dream run (what it tidied, and who undid it), every decision and every limit change with
    how it ended, oldest first."""
    from dreaming.dream import findings

    dreams, overrides, _ = _sqlite_only(settings)
    for run in reversed(dreams.runs(limit=20)):
        done = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in loads(run.consolidation).items() if v)
        print(f"run #{run.id} {run.started_at:%Y-%m-%d %H:%M} by {run.trigger}, {run.status}; memory tidy-up: "
              f"{done or 'nothing'}")  # fmt: skip
        print("".join(f"  {f}\n" for f in findings(run) if f.startswith("Tidy-up undone")), end="")
    for d in dreams.decisions():
        print(f"{d.created_at:%Y-%m-%d %H:%M} proposal #{d.proposal_id} {d.decision} by {d.decided_by}: {d.reason}")
    for o in overrides.history():
        print(change_line(o))
    return 0


def change_line(o: LimitOverrideRow) -> str:
    """One change as history shows it: what, from where, when, and how it ended."""
    values = ", ".join(f"{b} {v:g}" for b, v in (("min", o.min_value), ("max", o.max_value),
                                                 ("default", o.default_value)) if v is not None)  # fmt: skip
    if (kind := kind_of(o.dimension)) is not None:  # an adjustment of the request policy
        what = f"change #{o.id} {adjustment_words(kind, o.default_value)}"
    else:
        what = f"override #{o.id} {Dimension[o.dimension].label} ({o.dimension} {values})"
    made = f"proposal #{o.proposal_id}" if o.proposal_id else "by hand"
    state = "active" + (f", on trial until {o.trial_until:%Y-%m-%d}" if o.trial_until and not o.trial_outcome else "")
    if o.trial_outcome == "kept":
        state = "active, kept after its trial"
    if o.revoked_at is not None:
        state = f"ended {o.revoked_at:%Y-%m-%d %H:%M} by {o.ended_by or '?'}: {o.end_reason or 'no reason given'}"
    return f"{what} ({made}, {o.created_at:%Y-%m-%d %H:%M}) — {state}"

