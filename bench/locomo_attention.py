"""Graph attention on LoCoMo (issue 19): depth-2 context with each node scoring, at one budget.

    PYTHONPATH=. OMP_NUM_THREADS=1 .venv/bin/python -m bench.locomo_attention \\
        [--harness /work/shared/bench] [--budget 1024] [--conversations 5]

The harness's own loader (`locomo_retrieval.load_locomo`) reads `locomo_dev.json`: its turns,
token counts and normalised evidence.

Each conversation is stored as `bench/locomo_server.py` stores it (one dated `turn` memory per
turn, its speaker in `meta`), and its graph is formed from the same turns the way the policy path
forms one (`plan_turn` with the patterns, no model; entities and relations credited to the turn's
memory, the writes of `memory/formation/plan.py`'s `_apply` without its extra fact memories).
Every question of categories 1-4 is then assembled as the LoCoMo server assembles it (the
policy's request, the budget, asked at the conversation's end) with TRIPLE_DEPTH 2, once per node
scoring of `memory/attention.py`: `STRUCTURE` (before issue 19), `NO_DOMAIN` (relevance as a cut),
`RELEVANCE` (relevance weighted), `GRAPH_WEIGHTS` (shipped: `NO_DOMAIN` with the domain term) and
`SEED_ORDER` (relevance, domain, centrality, recency); `--scorings 1,3` runs some of them.

Scored per question, as the harness scores evidence (share of its gold turns found), averaged:
- memories: gold turns among the loaded turn memories, packed in the assembly's order under the
  harness's token count (the server's number, R@budget);
- graph: gold turns that a loaded entity or relation was formed from (what the graph part of the
  context brings back);
- either: gold turns found by one or the other.
With the graph items and the budget they take. No benchmark data is stored in the repo.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import argparse
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import text

from bench.locomo_server import USER, _date, memory_text, request  # pyright: ignore[reportPrivateUsage]
from bench.machine import load_average, machine
from memory.attention import GRAPH_WEIGHTS, NO_DOMAIN, RELEVANCE, SEED_ORDER, STRUCTURE, Weights
from memory.formation.graph_writes import entity, link
from memory.formation.plan import plan_turn
from memory.graph.names import name_key
from memory.recall.embedder import get_embedder
from memory.recall.hybrid import pack
from memory.recall.vectors import NewMemory
from memory.store import MemoryStore, open_memory

SCORINGS: dict[str, Weights] = {
    "before: 0.5 seed + 0.3 centrality + 0.2 recency": STRUCTURE,
    "before's weights, relevance as a cut (0.1)": NO_DOMAIN,
    "0.35 seed + 0.35 relevance + 0.15 + 0.15, cut 0.15": RELEVANCE,
    "shipped: the same with another domain losing up to 0.1": GRAPH_WEIGHTS,
    "0.3 seed + 0.25 relevance + 0.15 + 0.1, cut 0.1, domain 0.2": SEED_ORDER,
}
DEPTH = 2


@dataclass
class Tally:
    """One scoring's sums over the questions."""

    memories: list[float] = field(default_factory=list)
    graph: list[float] = field(default_factory=list)
    either: list[float] = field(default_factory=list)
    graph_items: list[int] = field(default_factory=list)
    graph_tokens: list[int] = field(default_factory=list)
    ms: list[float] = field(default_factory=list)
    multi_hop: list[float] = field(default_factory=list)
    differ: int = 0  # questions scored otherwise than under the first scoring


def _store(home: Path, conversation: dict[str, Any]) -> tuple[MemoryStore, dict[int, dict[str, Any]], datetime]:
    """The conversation's turns as memories, its graph formed from them; memory id → turn; its end."""
    store = open_memory(home / "reverie.db", home / "graph", get_embedder())
    with store.engine.begin() as conn:
        conn.execute(
            text("INSERT INTO accounts (id, name, password_hash, created_at) VALUES (:i, 'bench', '-', :t)"),
            {"i": USER, "t": datetime.now().isoformat()},
        )
    turns: list[dict[str, Any]] = [conversation["by_id"][t["dia_id"]] for t in conversation["turns"]]  # with _tok
    items = [
        NewMemory("turn", memory_text(t), _date(t), thread_id=f"session-{t['session']}",
                  meta={"dia": t["dia_id"], "speaker": t["speaker"]})
        for t in turns
    ]  # fmt: skip
    rows = store.memories.add_many(USER, items)
    dia: dict[int, dict[str, Any]] = {}
    for row, turn in zip(rows, turns, strict=True):
        assert row.id is not None
        dia[row.id] = turn
        _form_graph(store, row.id, turn)
    end = max(r.created_at for r in rows)
    return store, dia, end


def _form_graph(store: MemoryStore, memory_id: int, turn: dict[str, Any]) -> None:
    """The graph writes of formation for one turn, credited to its memory."""
    when = _date(turn)
    plan = plan_turn(turn["text"], None, when)
    seen: dict[str, int] = {}
    employers = {name_key(t.subject): t.object for t, _ in plan.triples if t.predicate == "WORKS_AT"}
    with store.entities.writing():
        for triple, _ in plan.triples:
            link(store, USER, triple, memory_id, None, when, seen, employers)
        for name, kind in plan.mentions:
            entity(store, USER, name, kind, memory_id, seen=seen)


def _sources(store: MemoryStore, refs: list[str]) -> dict[str, set[int]]:
    """The memories each loaded graph item ("e4", "r9") was formed from."""
    out: dict[str, set[int]] = {r: set() for r in refs}
    with store.engine.connect() as conn:
        for ref in refs:
            table, key = ("entity_sources", "entity_id") if ref[0] == "e" else ("relation_sources", "relation_id")
            rows = conn.execute(text(f"SELECT memory_id FROM {table} WHERE {key} = :i"), {"i": int(ref[1:])})
            out[ref] = {int(r[0]) for r in rows}
    return out


def _ask(store: MemoryStore, dia: dict[int, dict[str, Any]], qa: dict[str, Any], end: datetime, budget: int,
         weights: Weights) -> tuple[float, float, float, int, int, float]:  # fmt: skip
    gold = {str(e) for e in qa["evidence"]}
    store.assembler.weights = weights
    asked = replace(request(qa["question"], budget), triple_depth=DEPTH)
    started = time.perf_counter()
    ctx = store.assembler.assemble(USER, "locomo-question", qa["question"], asked, now=end)
    ms = (time.perf_counter() - started) * 1000
    ids = [int(i.ref[1:]) for i in ctx.loaded if i.ref.startswith("m")]
    packed = pack([m for m in ids if m in dia], budget, cost=lambda m: dia[m]["_tok"])
    by_memory = {dia[m]["dia_id"] for m in packed}
    graph = [i for i in ctx.loaded if i.kind in ("entity", "relation")]
    sources = _sources(store, [i.ref for i in graph]).values()
    by_graph = {dia[m]["dia_id"] for found in sources for m in found if m in dia}
    tokens = sum(i.cost(i.level or "full") for i in graph)
    return _share(gold, by_memory), _share(gold, by_graph), _share(gold, by_memory | by_graph), len(graph), tokens, ms


def _share(gold: set[str], found: set[str]) -> float:
    return len(gold & found) / len(gold) if gold else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description="Graph attention on LoCoMo (issue 19)")
    parser.add_argument("--harness", type=Path, default=Path("/work/shared/bench"))
    parser.add_argument("--budget", type=int, default=1024)
    parser.add_argument("--conversations", type=int, default=5)
    parser.add_argument("--scorings", default="", help="comma-separated SCORINGS indexes (default: all)")
    args = parser.parse_args()
    if args.scorings:  # the names are long: pick by position
        keep = {int(i) for i in args.scorings.split(",")}
        for i, name in enumerate(list(SCORINGS)):
            if i not in keep:
                del SCORINGS[name]
    sys.path.insert(0, str(args.harness))
    from locomo_retrieval import load_locomo  # pyright: ignore[reportMissingImports]

    data: list[dict[str, Any]] = load_locomo(str(args.harness / "locomo_dev.json"))[: args.conversations]
    tallies = {name: Tally() for name in SCORINGS}
    graph_sizes: list[str] = []
    started, differ = time.monotonic(), 0
    with tempfile.TemporaryDirectory(prefix="locomo-attention-") as tmp:
        for n, conversation in enumerate(data):
            home = Path(tmp) / f"conv{n}"
            home.mkdir()
            t0 = time.monotonic()
            store, dia, end = _store(home, conversation)
            with store.engine.connect() as conn:
                ents = conn.execute(text("SELECT count(*) FROM entities WHERE user_id = :u"), {"u": USER}).scalar()
                rels = conn.execute(text("SELECT count(*) FROM relations WHERE user_id = :u"), {"u": USER}).scalar()
            graph_sizes.append(f"{conversation['sample_id']}: {len(dia)} turns, {ents} entities, {rels} relations "
                               f"(stored and formed in {time.monotonic() - t0:.0f} s)")  # fmt: skip
            print(graph_sizes[-1], file=sys.stderr, flush=True)
            for qa in conversation["qa"]:
                if qa["category"] not in (1, 2, 3, 4) or not qa["evidence"]:
                    continue
                seen: set[tuple[float, float]] = set()
                first: tuple[float, float] | None = None
                for name, weights in SCORINGS.items():
                    mem, graph, either, items, tokens, ms = _ask(store, dia, qa, end, args.budget, weights)
                    t = tallies[name]
                    t.memories.append(mem)
                    t.graph.append(graph)
                    t.either.append(either)
                    t.graph_items.append(items)
                    t.graph_tokens.append(tokens)
                    t.ms.append(ms)
                    if qa["category"] == 1:
                        t.multi_hop.append(either)
                    seen.add((mem, graph))
                    first = first or (mem, graph)
                    t.differ += (mem, graph) != first
                differ += len(seen) > 1
            store.close()
    _report(args, tallies, graph_sizes, differ, time.monotonic() - started)
    return 0


def _report(args: argparse.Namespace, tallies: dict[str, Tally], sizes: list[str], differ: int, took: float) -> None:
    print(machine().markdown())
    print(f"- budget {args.budget} tokens, TRIPLE_DEPTH {DEPTH}, {args.conversations} conversations; "
          f"load average at the end {load_average()}; {took / 60:.1f} min\n")  # fmt: skip
    print("| node scoring | gold turns in loaded memories (R@budget) | via loaded graph items | either | "
          "multi-hop, either | graph items loaded (mean) | graph tokens (mean) | assemble ms (mean) | "
          "questions scored otherwise than the first row |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|")
    for name, t in tallies.items():
        print(f"| {name} | {100 * statistics.mean(t.memories):.1f} | {100 * statistics.mean(t.graph):.1f} | "
              f"{100 * statistics.mean(t.either):.1f} | {100 * statistics.mean(t.multi_hop or [0.0]):.1f} | "
              f"{statistics.mean(t.graph_items):.1f} | {statistics.mean(t.graph_tokens):.0f} | "
              f"{statistics.mean(t.ms):.0f} | {t.differ} |")  # fmt: skip
    n = len(next(iter(tallies.values())).memories)
    print(f"\n{n} questions (categories 1-4 with evidence); scores differ between scorings on {differ}.")
    print("\n".join(f"- {s}" for s in sizes))


if __name__ == "__main__":
    raise SystemExit(main())
