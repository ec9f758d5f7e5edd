"""`reverie entities show|merge|split` (registered into the main parser by app/cli.py).

Formation keeps two people of one name apart when what they are to the person disagrees, and
merges the rest; the person has the last word. `show NAME` lists every entity the name calls, with
the relation ids (`r12`) and memory ids (`m7`) a split takes; `merge KEEP DROP` folds DROP into
KEEP (they are one); `split ID --relation 12 …` moves what belongs to the other one to a new
entity of the same name (they are two), which a merge undoes. Scoped to one user (`--user NAME`);
a change takes the knowledge graph in turns with the running app (memory/graph/kuzu_graph.py).
"""

from __future__ import annotations

import argparse
import sys

from app.entity_view import entity_lines
from app.runtime import open_storage
from app.settings import Settings
from memory.graph.entities import EntityNotFound, Namesake
from memory.graph.kuzu_graph import GraphError
from memory.store import MemoryStore, StorageError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:  # pyright: ignore[reportPrivateUsage]
    """Add this area's subcommands; each sets `func(settings, args) -> int`."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--user", help="whose memory (default: the first account)")
    parser = sub.add_parser("entities", help="show, merge and split the people and things memory keeps")
    actions = parser.add_subparsers(dest="action", required=True)
    show = actions.add_parser("show", parents=[common], help="every entity a name calls, with ids")
    show.add_argument("name")
    merge = actions.add_parser("merge", parents=[common], help="fold DROP into KEEP: they are one")
    merge.add_argument("keep", type=int)
    merge.add_argument("drop", type=int)
    split = actions.add_parser("split", parents=[common], help="move part of an entity to a new one: they are two")
    split.add_argument("id", type=int)
    split.add_argument("--relation", type=int, action="append", default=[], help="a relation id (r12: 12)")
    split.add_argument("--alias", action="append", default=[], help="an alias that is the other one's")
    split.add_argument("--memory", type=int, action="append", default=[], help="a memory id (m7: 7)")
    split.add_argument("--name", help="the new entity's name (default: the same)")
    parser.set_defaults(func=cmd_entities)


def _show(store: MemoryStore, user_id: int, name: str) -> int:
    found = store.entities.namesakes(user_id, name, domain=None)
    if not found:
        print(f"no entity called {name!r}")
        return 1
    if len(found) > 1:
        print(f"{len(found)} entities are called {name!r}:")
    for n in found:
        print("\n".join(entity_lines(store, user_id, n)))
    return 0


def _one(store: MemoryStore, user_id: int, entity_id: int) -> Namesake:
    row = store.entities.get(user_id, entity_id)
    if row is None:
        raise EntityNotFound(f"no entity #{entity_id} for this user")
    return next((n for n in store.entities.namesakes(user_id, row.name, None) if n.id == entity_id), Namesake(row))


def _change(store: MemoryStore, user_id: int, args: argparse.Namespace) -> int:
    if args.action == "merge":
        kept = store.entities.merge(user_id, args.keep, args.drop)
        print(f"merged #{args.drop} into #{args.keep}:")
        print("\n".join(entity_lines(store, user_id, _one(store, user_id, kept.id or 0))))
        return 0
    new = store.entities.split(
        user_id, args.id, relation_ids=args.relation, aliases=args.alias, memory_ids=args.memory, name=args.name
    )
    print(f"split #{args.id}: the new entity is #{new.id} (`reverie entities merge {args.id} {new.id}` undoes it)")
    for entity_id in (args.id, new.id or 0):
        print("\n".join(entity_lines(store, user_id, _one(store, user_id, entity_id))))
    return 0


def cmd_entities(settings: Settings, args: argparse.Namespace) -> int:
    """Run one `reverie entities` action for one user."""
    try:
        store = open_storage(settings)
    except (StorageError, GraphError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        user_id = store.accounts.resolve(args.user)
        return _show(store, user_id, args.name) if args.action == "show" else _change(store, user_id, args)
    except EntityNotFound as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except (LookupError, ValueError) as exc:  # unknown user, nothing chosen, not the entity's relation
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        store.close()
