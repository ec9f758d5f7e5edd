"""`reverie queries recent`: a user's latest questions with their status and info rounds.

It reads only SQLite (WAL admits other processes), so it works while the app is running.
"""

from __future__ import annotations

import argparse
import sys

from app.settings import Settings
from memory.store import open_records


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:  # pyright: ignore[reportPrivateUsage]
    """Add this area's subcommands; each sets `func(settings, args) -> int`."""
    queries = sub.add_parser("queries", help="questions through the answer loop")
    actions = queries.add_subparsers(dest="queries_action", required=True)
    recent = actions.add_parser("recent", help="a user's recent queries, newest first")
    recent.add_argument("--user", help="user name (default: the only user)")
    recent.add_argument("--limit", type=int, default=20, help="how many (default 20)")
    recent.set_defaults(func=cmd_recent)


def cmd_recent(settings: Settings, args: argparse.Namespace) -> int:
    """Print a user's recent queries: id, time, status, info requests, confidence, text."""
    if args.limit < 1:
        print("error: --limit must be at least 1", file=sys.stderr)
        return 2
    store = open_records(settings.db_path, database_url=settings.database_url)
    try:
        try:
            user_id = store.accounts.resolve(args.user)
        except LookupError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        rows = store.queries.recent(user_id, args.limit)
    finally:
        store.close()
    print(f"{'id':>5}  {'created (UTC)':<16}  {'status':<10}  {'info':>4}  {'confidence':<10}  text")
    for row in rows:
        info = f"{row.info_requests}/{row.max_info_requests}"
        confidence = (row.confidence or "-") + (" forced" if row.forced else "")
        text = " ".join(row.text.split())
        text = text[:60] + ("…" if len(text) > 60 else "")
        print(f"{row.id:>5}  {row.created_at:%Y-%m-%d %H:%M}  {row.status:<10}  {info:>4}  {confidence:<10}  {text}")
        if row.error:
            print(f"{'':>7}error: {row.error[:200]}")
    if not rows:
        print("(no queries yet)")
    return 0
