"""`reverie memories list|search|forget|edit|export|import` (registered into the main parser by app/cli.py).

Every action is scoped to one user: `--user NAME`, or the first account when there is only
the one a first run creates. Reading (list, search, export) opens SQLite only, so it works while
the app runs; a change (forget, edit, import) also changes the knowledge graph, which it takes
in turns with the running app (memory/graph/kuzu_graph.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from app.runtime import embedder_for, open_records, open_storage
from app.settings import Settings
from memory.graph.kuzu_graph import GraphError
from memory.models import MemoryRow
from memory.portability import FORMAT, edit_memory, export_user, forget_memory, import_user
from memory.recall.vectors import KINDS, MemoryIndex, MemoryNotFound
from memory.store import MemoryStore, Records, StorageError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:  # pyright: ignore[reportPrivateUsage]
    """Add this area's subcommands; each sets `func(settings, args) -> int`."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--user", help="whose memories (default: the first account)")
    parser = sub.add_parser("memories", help="list, search, edit, forget, export and import memories")
    actions = parser.add_subparsers(dest="action", required=True)
    listing = actions.add_parser("list", parents=[common], help="newest first, with dates and ids")
    listing.add_argument("--all", action="store_true", help="also superseded and archived memories")
    listing.add_argument("--kind", choices=KINDS)
    listing.add_argument("--limit", type=int, default=50)
    search = actions.add_parser("search", parents=[common], help="recall as the assistant does")
    search.add_argument("query")
    search.add_argument("--limit", type=int, default=10)
    search.add_argument("--threshold", type=float, default=0.5, help="relevance floor, 0..1")
    forget = actions.add_parser("forget", parents=[common], help="delete a memory everywhere")
    forget.add_argument("id", type=int)
    edit = actions.add_parser("edit", parents=[common], help="replace a memory's text")
    edit.add_argument("id", type=int)
    edit.add_argument("text")
    export = actions.add_parser("export", parents=[common], help=f"write JSON ({FORMAT}); '-' for stdout")
    export.add_argument("file")
    importing = actions.add_parser("import", parents=[common], help="add memories from an export")
    importing.add_argument("file")
    parser.set_defaults(func=cmd_memories)


def line(row: MemoryRow) -> str:
    """One memory as a line: id, date, kind, status (and what superseded it), text."""
    status = row.status
    if row.status == "superseded":
        status += f" by #{row.superseded_by or '?'}" + (f" on {row.valid_to:%Y-%m-%d}" if row.valid_to else "")
    text = " ".join(row.content.split())
    return f"#{row.id}\t{row.created_at:%Y-%m-%d %H:%M}\t{row.kind}\t{status}\t{text}"


READS = ("list", "search", "export")
"""The actions that read SQLite only."""


def _read(store: Records, memories: MemoryIndex, user_id: int, args: argparse.Namespace) -> int:
    match args.action:
        case "list":
            kinds = [args.kind] if args.kind else None
            for row in memories.list(user_id, kinds, None if args.all else "active", args.limit):
                print(line(row))
        case "search":
            for hit in memories.search(user_id, args.query, args.limit, args.threshold):
                print(f"{hit.relevance:.2f}\t{line(hit.memory)}")
        case _:
            payload = json.dumps(export_user(store, user_id), ensure_ascii=False, indent=2)
            if args.file == "-":
                print(payload)
            else:
                Path(args.file).write_text(payload + "\n", encoding="utf-8")
    return 0


def _change(store: MemoryStore, user_id: int, args: argparse.Namespace) -> int:
    match args.action:
        case "forget":
            gone = forget_memory(store, user_id, args.id)
            print(f"forgot memories {list(gone.memory_ids)}, {len(gone.relation_ids)} relation(s), "
                  f"{len(gone.entity_ids)} entity(ies)")  # fmt: skip
        case "edit":
            print(line(edit_memory(store, user_id, args.id, args.text)))
        case _:
            report = import_user(store, user_id, json.loads(Path(args.file).read_text(encoding="utf-8")))
            print(f"imported {report.memories} memories, {report.entities} entities, {report.relations} relations")
    return 0


def cmd_memories(settings: Settings, args: argparse.Namespace) -> int:
    """Run one `reverie memories` action for one user."""
    memories: MemoryIndex | None = None
    try:
        if args.action in READS:
            store: Records = open_records(settings)
            try:
                memories = store.recall(embedder_for(settings))
            except BaseException:
                store.close()
                raise
        else:
            store = open_storage(settings)
    except (StorageError, GraphError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        user_id = store.accounts.resolve(args.user)
        if isinstance(store, MemoryStore):
            return _change(store, user_id, args)
        assert memories is not None  # a read opened the records with their index
        return _read(store, memories, user_id, args)
    except MemoryNotFound:
        print(f"error: no memory #{args.id} for this user", file=sys.stderr)
        return 1
    except (LookupError, ValueError, OSError) as exc:  # unknown user, bad file or JSON, empty text
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        store.close()
