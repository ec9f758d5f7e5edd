"""`reverie migrate-to URL`: copy this embedded installation into PostgreSQL, then check the copy.

The data directory's SQLite file is the source (REVERIE_DATABASE_URL must not be set: that names
where the installation already is). Nothing may write the file meanwhile, so the command runs
alone, like `reverie reindex`. Run it again after an interruption: it resumes. Afterwards, set
REVERIE_DATABASE_URL=URL and start the app: it opens the server instead of the file.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from app.settings import Settings


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:  # pyright: ignore[reportPrivateUsage]
    """Add `migrate-to`; it sets `func(settings, args) -> int`."""
    move = sub.add_parser("migrate-to", help="copy this installation into PostgreSQL (resumable), then verify it")
    move.add_argument("url", help="postgresql://user:password@host/database (an empty database with pgvector)")
    move.add_argument("--questions", type=int, default=10, metavar="N", help="recall questions per user to compare")
    move.set_defaults(func=cmd_migrate_to)


def cmd_migrate_to(settings: Settings, args: argparse.Namespace) -> int:
    """Copy, verify, and say how it went; 0 only when the counts and recall agree."""
    from app.runtime import OPEN_LOCK, embedder_for, hold_lock
    from memory.recall.embedder import EmbedderUnavailable, EmbeddingIndexMismatch
    from memory.store import StorageError, migrate_to

    if settings.database_url:
        print("error: REVERIE_DATABASE_URL is set, so this installation is already on a server", file=sys.stderr)
        return 2
    if not settings.db_path.exists():
        print(f"error: no installation at {settings.db_path} (check REVERIE_DATA_DIR)", file=sys.stderr)
        return 2
    alone = hold_lock(settings, OPEN_LOCK, exclusive=True)
    if alone is None:
        print("error: Reverie is running (the app, `reverie chat` or another command): stop it first", file=sys.stderr)
        return 2

    def progress(table: str, done: int, total: int) -> None:
        print(f"\r  {table}: {done}/{total}", end="\n" if done >= total else "", file=sys.stderr, flush=True)

    started = time.perf_counter()
    try:
        copied, found = migrate_to(settings.db_path, args.url, embedder_for(settings), progress, args.questions)
    except (StorageError, EmbedderUnavailable, EmbeddingIndexMismatch) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        os.close(alone)
    seconds = time.perf_counter() - started
    rows = sum(copied.values())
    print(f"copied {rows} rows in {seconds:.1f} s (verification included)")
    for table, (here, there) in found.counts.items():
        if here or there:
            print(f"  {table}: {here} in the file, {there} on the server{'' if here == there else '  ✗ DIFFERENT'}")
    print(
        f"recall: {found.same_answers} of {found.questions} questions gave the same answers on both, "
        f"{found.tied_answers} others as relevant at every rank (near-identical memories), "
        f"{len(found.differing)} differ"
    )
    for line in found.differing[:10]:
        print(f"  ✗ {line}")
    if not found.counts_match or found.differing:
        print("error: the copy differs from the file (above); run migrate-to again to resume", file=sys.stderr)
        return 1
    print("done: set REVERIE_DATABASE_URL to that URL and start Reverie (this file is left as it was)")
    return 0
