"""The `reverie` command line: run the app, manage users, inspect the installation."""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from app import (
    cli_chat,
    cli_documents,
    cli_dream,
    cli_entities,
    cli_memories,
    cli_migrate,
    cli_queries,
    cli_reminders,
)
from app.settings import Settings

if TYPE_CHECKING:  # imported where used: the CLI starts fast
    from memory.usage import OverrideStore

REPO_ROOT = Path(__file__).resolve().parent.parent


def _single_thread_numerics() -> None:
    # On one vCPU, BLAS/OpenMP thread pools only add contention (STACK-NOTES: 2 threads were
    # slower). Set before numpy is imported anywhere.
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "TOKENIZERS_PARALLELISM"):
        os.environ.setdefault(var, "false" if var == "TOKENIZERS_PARALLELISM" else "1")


def cmd_run(settings: Settings, args: argparse.Namespace) -> int:
    """Start the web app on the embedded model (or Ollama when it answers)."""
    from app.credentials import auth_secret, ensure_first_user
    from app.runtime import APP_LOCK, hold_lock, open_storage
    from memory.graph.kuzu_graph import GraphError
    from memory.recall.embedder import EmbedderUnavailable, EmbeddingIndexMismatch
    from memory.store import StorageError

    try:
        store = open_storage(settings)
        # held until this process ends: `reverie dream --now` asks this app's scheduler instead of dreaming
        running = hold_lock(settings, APP_LOCK, exclusive=True) is None
    except (StorageError, GraphError, EmbeddingIndexMismatch, EmbedderUnavailable) as exc:
        print(f"error: Reverie cannot start: {exc}", file=sys.stderr)  # each message names its fix
        return 2
    if running:
        store.close()
        print(f"error: Reverie is already running on {settings.data_dir}", file=sys.stderr)
        return 2
    password = ensure_first_user(store.accounts, settings.data_dir)
    store.close()
    host = args.host or settings.host
    port = args.port or settings.port
    if password:
        print(
            f"\n  First run: created user 'admin' with password: {password}\n"
            f"  (also saved in {settings.data_dir / 'first-run-password.txt'}; change it with "
            "`reverie users passwd admin`)\n",
            flush=True,
        )
    os.environ["CHAINLIT_AUTH_SECRET"] = auth_secret(settings.data_dir)
    os.environ["CHAINLIT_APP_ROOT"] = str(REPO_ROOT)
    os.environ["CHAINLIT_HOST"] = host
    os.environ["CHAINLIT_PORT"] = str(port)
    os.environ["REVERIE_DATA_DIR"] = str(settings.data_dir.resolve())
    print(f"  Reverie is starting on http://{host}:{port}", flush=True)
    from chainlit.cli import run_chainlit  # noqa: TID251 - starting the server is the CLI's job

    run_chainlit(str(REPO_ROOT / "app" / "ui.py"))
    return 0


def _read_password(args: argparse.Namespace) -> str:
    if args.password_stdin:
        return sys.stdin.readline().rstrip("\n")
    first = getpass.getpass("Password: ")
    if getpass.getpass("Again: ") != first:
        raise SystemExit("passwords differ")
    return first


def cmd_users(settings: Settings, args: argparse.Namespace) -> int:
    """Add, list or change users (SQLite only: this works while the app runs)."""
    from app.runtime import open_records
    from memory.accounts import AccountError

    store = open_records(settings)
    try:
        if args.action == "list":
            for row in store.accounts.list():
                print(f"{row.id}\t{row.name}\t{row.created_at:%Y-%m-%d}")
        elif args.action == "add":
            store.accounts.create(args.name, _read_password(args))
            print(f"user {args.name!r} created")
        else:
            store.accounts.set_password(args.name, _read_password(args))
            print(f"password of {args.name!r} changed")
    except AccountError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        store.close()
    return 0


def cmd_doctor(settings: Settings, args: argparse.Namespace) -> int:
    """Print what is active and what is missing, with the fix."""
    from app.doctor import report

    lines, ok = report(settings)
    print("\n".join(lines))
    return 0 if ok else 1


def cmd_models(settings: Settings, args: argparse.Namespace) -> int:
    """List or pull Ollama models."""
    from app.models_cli import models_command

    return models_command(settings, args.action)


def cmd_limits(settings: Settings, args: argparse.Namespace) -> int:
    """Print the effective ranges of the four dimensions and the source of each bound (SQLite only);
    `revert ID --reason …` ends an approved change now, `history` lists every change and its end."""
    from app.runtime import effective_limits, open_records
    from capabilities.resources import BOUNDS, format_number

    store = open_records(settings)
    try:
        if args.action == "revert":
            return _revert(store.overrides, args.id, args.reason)
        if args.action == "history":
            for o in store.overrides.history():
                print(cli_dream.change_line(o))
            return 0
        limits = effective_limits(settings, store)
    finally:
        store.close()
    print(f"{'dimension':<22}{'min':>6}{'max':>6}{'default':>9}  source")
    for dim, rng in limits.items():
        sources = {b: rng.source_of(b) for b in BOUNDS}
        where = "; ".join(f"{b} from {src}" for b, src in sources.items() if src != rng.source) or rng.source
        values = "".join(f"{format_number(rng.value_of(b)):>{w}}" for b, w in zip(BOUNDS, (6, 6, 9), strict=True))
        print(f"{dim.name:<22}{values}  {where}")
    return 0


def _revert(overrides: OverrideStore, override_id: int | None, reason: str) -> int:
    from capabilities.request_policy import kind_of

    if override_id is None or not reason.strip():
        print("usage: reverie limits revert ID --reason WHY (ids: `reverie limits history`)", file=sys.stderr)
        return 2
    ended = overrides.revoke(override_id, "cli", reason.strip())
    if ended is None:
        print(f"error: no active override #{override_id} (see `reverie limits history`)", file=sys.stderr)
        return 2
    after = "The request policy asks as before" if kind_of(ended.dimension) else "The .env range applies again"
    print(f"{cli_dream.change_line(ended)}\n{after} from the next turn.")
    return 0


def cmd_graph(settings: Settings, args: argparse.Namespace) -> int:
    """Regenerate the Kuzu graph from SQLite, the system of record (the fix GraphCorruptError names)."""
    from app.runtime import open_storage

    store = open_storage(settings)
    try:
        nodes, edges = store.entities.rebuild()
    finally:
        store.close()
    if settings.database_url:  # no projection there: the graph's questions go to the tables themselves
        print(f"nothing to rebuild on PostgreSQL: the graph is its tables ({nodes} entities, {edges} relations)")
    else:
        print(f"graph rebuilt from SQLite: {nodes} entities, {edges} relations")
    return 0


def cmd_reindex(settings: Settings, args: argparse.Namespace) -> int:
    """Re-embed every memory with the configured embedder (the fix EmbeddingIndexMismatch names).

    Runs alone: a running app or chat would go on writing vectors of the old model, so it is
    refused while any process has the stores open (and they wait while it runs).
    """
    from app.runtime import OPEN_LOCK, embedder_for, hold_lock
    from memory.recall.embedder import EmbedderUnavailable
    from memory.store import StorageError, reembed

    def progress(done: int, total: int) -> None:
        print(f"\r  {done}/{total} memories", end="\n" if done == total else "", file=sys.stderr, flush=True)

    alone = hold_lock(settings, OPEN_LOCK, exclusive=True)
    if alone is None:
        print(
            "error: Reverie is running (the app, `reverie chat` or another command): stop it, then run "
            "`reverie reindex` again",
            file=sys.stderr,
        )
        return 2
    try:
        embedder = embedder_for(settings)
        done = reembed(settings.db_path, embedder, progress=progress, database_url=settings.database_url)
    except (StorageError, EmbedderUnavailable) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        os.close(alone)
    print(f"re-embedded {done} memories with {embedder.name} ({embedder.dim} dimensions)")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every `reverie` command."""
    parser = argparse.ArgumentParser(prog="reverie", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="start the web app")
    run.add_argument("--host")
    run.add_argument("--port", type=int)
    run.set_defaults(func=cmd_run)
    users = sub.add_parser("users", help="manage users")
    users.add_argument("action", choices=["add", "list", "passwd"])
    users.add_argument("name", nargs="?")
    users.add_argument("--password-stdin", action="store_true", help="read the password from stdin")
    users.set_defaults(func=cmd_users)
    doctor = sub.add_parser("doctor", help="check the installation")
    doctor.set_defaults(func=cmd_doctor)
    models = sub.add_parser("models", help="Ollama models")
    models.add_argument("action", choices=["list", "pull"])
    models.set_defaults(func=cmd_models)
    limits = sub.add_parser("limits", help="the effective resource ranges and where each comes from")
    limits.add_argument("action", nargs="?", choices=["show", "revert", "history"], default="show")
    limits.add_argument("id", nargs="?", type=int, help="the override to revert")
    limits.add_argument("--reason", default="", help="why the change ends (revert)")
    limits.set_defaults(func=cmd_limits)
    graph = sub.add_parser("graph", help="the knowledge-graph projection")
    graph.add_argument("action", choices=["rebuild"])
    graph.set_defaults(func=cmd_graph)
    reindex = sub.add_parser("reindex", help="re-embed every memory with the configured embedder")
    reindex.set_defaults(func=cmd_reindex)
    areas = (cli_chat, cli_memories, cli_entities, cli_documents, cli_dream, cli_queries, cli_reminders, cli_migrate)
    for area in areas:
        area.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `reverie` script."""
    _single_thread_numerics()
    args = build_parser().parse_args(argv)
    if args.command == "users" and args.action != "list" and not args.name:
        raise SystemExit("reverie users add|passwd NAME")
    command: Callable[[Settings, argparse.Namespace], int] = args.func
    return command(Settings(), args)


if __name__ == "__main__":
    raise SystemExit(main())
