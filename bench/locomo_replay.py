"""LoCoMo in process: the server's answers scored the harness's way, and where the misses go.

    .venv/bin/python bench/locomo_replay.py /work/shared/bench [--store DIR] [--budget 1024]

Loads the harness's split with the harness's own loader (nothing of the data is stored here),
stores each conversation once through `bench/locomo_server.py`'s `Server` (kept in `--store`, so a
change to ranking re-runs in minutes without re-embedding), then asks every question the way the
chat does (`LOCOMO_REQUEST`, default `policy`) and prints evidence recall at the budget per
category with per-conversation figures (the only split there is: a change that moves one
conversation is not a change), R@1 of the ranking, recall latency p50/p95, and for the
multi-hop evidence the assembly misses, where it was in the ranking (11-25, 26-100, absent),
how many of the loaded memories were a neighbour of a loaded memory, and how many sessions the
question's evidence spans.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import argparse
import importlib.util
import json
import sys
import time
from collections import Counter
from datetime import UTC
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import text

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.locomo_server import FILL, Server, harness_tokens
from bench.machine import print_machine
from memory.store import open_memory

ACCOUNT = "INSERT INTO accounts (id, name, password_hash, created_at) VALUES (1, 'bench', '-', '2026-01-01')"
NAMES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


def harness(folder: Path) -> Any:
    """The harness module (its loader and scoring), read from where it lives."""
    spec = importlib.util.spec_from_file_location("locomo_retrieval", folder / "locomo_retrieval.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def stored(server: Server, conv: dict[str, Any], home: Path) -> None:
    """Open this conversation's store, filling it the server's way the first time."""
    if server.store is not None:
        server.store.close()
    fresh = not (home / "reverie.db").exists()
    home.mkdir(parents=True, exist_ok=True)
    server.store = open_memory(home / "reverie.db", home / "graph", server.embedder)
    if fresh:
        with server.store.engine.begin() as conn:
            conn.execute(text(ACCOUNT))
        server.pending, server.turns = list(conv["turns"]), {}
        server.flush()
        return
    rows = server.index.by_ids(1, list(range(1, len(conv["turns"]) + 1)))
    by_dia = {t["dia_id"]: t for t in conv["turns"]}
    dia = {m: json.loads(r.meta or "{}")["dia"] for m, r in rows.items()}
    server.turns = {m: dict(by_dia[d], _tok=harness_tokens(by_dia[d])) for m, d in dia.items()}
    server.now = max(r.created_at for r in rows.values()).replace(tzinfo=UTC)


def position(ranking: list[str], dia: str) -> str:
    """Where a missed evidence turn sat in the ranking: "1-10", "11-25", "26-100" or "absent"."""
    if dia not in ranking:
        return "absent"
    at = ranking.index(dia) + 1
    return "1-10" if at <= 10 else "11-25" if at <= 25 else "26-100"


def adjacent(loaded: list[tuple[int, int]]) -> int:
    """How many of the loaded (session, turn index) pairs sit next to another loaded one."""
    chosen = set(loaded)
    return sum((s, i - 1) in chosen or (s, i + 1) in chosen for s, i in chosen)


def lexical(h: Any, conv: dict[str, Any]) -> Any:
    """The harness's own BM25 over this conversation's turns: the baseline of R@1, in the same run."""
    bm25 = h.BM25Retriever()
    bm25.reset(conv["sample_id"], conv["speakers"])
    for turn in conv["turns"]:
        bm25.add(turn)
    return bm25


def answer(
    server: Server, h: Any, conv: dict[str, Any], qa: dict[str, Any], budget: int, bm25: Any
) -> dict[str, Any]:
    """One question the chat's way, scored the harness's way, with where its misses sat, and
    what ranked first here and under BM25 (for the adversarial questions' R@1)."""
    t0 = time.perf_counter()
    packed = server.query(qa["question"], budget, None)
    assembly_ms = 1000 * (time.perf_counter() - t0)
    t0 = time.perf_counter()  # the query vector is the assembly's, kept by HybridSearch
    hits = server.index.search(1, qa["question"], FILL, 0.0, today=server.now.date())
    search_ms = 1000 * (time.perf_counter() - t0)
    ranking = [server.turns[x.memory.id]["dia_id"] for x in hits if x.memory.id in server.turns]
    ev = set(qa["evidence"])
    cov, _, _ = h.context_cover(packed, conv, budget)
    where = [conv["by_id"][d] for d in packed]
    return {
        "ci": conv["ci"],
        "cat": qa["category"],
        "recall": len(ev & cov) / len(ev),
        "r1": len(ev & set(ranking[:1])) / len(ev),
        "n_ev": len(ev),
        "loaded": len(packed),
        "adjacent": adjacent([(t["session"], t["index"]) for t in where]),
        "missed": [position(ranking, d) for d in ev - cov],
        "ms": (assembly_ms, search_ms),
        "question": qa["question"],
        "evidence": sorted(ev),
        "top": ranking[:1],
        "top_speaker": [conv["by_id"][d]["speaker"] for d in ranking[:1]],
        "bm25_top": bm25.retrieve(qa["question"])[:1],
        "bm25_r1": len(ev & set(bm25.retrieve(qa["question"])[:1])) / len(ev),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("bench", type=Path)
    ap.add_argument("--store", type=Path, default=Path("/tmp/locomo-replay"))
    ap.add_argument("--budget", type=int, default=1024)
    ap.add_argument("--out", type=Path)
    args = ap.parse_args()
    print_machine()
    h = harness(args.bench)
    server = Server()
    recs = []
    for conv in h.load_locomo(str(args.bench / "locomo_dev.json")):
        stored(server, conv, args.store / conv["sample_id"])
        bm25 = lexical(h, conv)
        recs += [answer(server, h, conv, qa, args.budget, bm25) for qa in conv["qa"] if qa["evidence"]]
        print(f"  {conv['sample_id']}: {len(conv['qa'])} questions", file=sys.stderr, flush=True)
    report(recs)
    if args.out:
        args.out.write_text(json.dumps(recs))


def mean(values: list[float]) -> float:
    return round(100 * float(np.mean(values)), 1) if values else float("nan")


def report(recs: list[dict[str, Any]]) -> None:
    """Recall at the budget overall, per category and per conversation; misses; latency."""
    main_ = [r for r in recs if r["cat"] != 5]
    multi = [r for r in recs if r["cat"] == 1]
    convs = sorted({r["ci"] for r in recs})
    table: dict[str, Any] = {"R@budget": mean([r["recall"] for r in main_]), "R@1": mean([r["r1"] for r in main_])}
    table |= {name: mean([r["recall"] for r in recs if r["cat"] == c]) for c, name in NAMES.items()}
    table["adversarial R@1"] = mean([r["r1"] for r in recs if r["cat"] == 5])
    table["adversarial R@1, BM25"] = mean([r["bm25_r1"] for r in recs if r["cat"] == 5])
    table["adversarial R@1 per conversation"] = [
        mean([r["r1"] for r in recs if r["cat"] == 5 and r["ci"] == c]) for c in convs
    ]
    table["adversarial R@1 per conversation, BM25"] = [
        mean([r["bm25_r1"] for r in recs if r["cat"] == 5 and r["ci"] == c]) for c in convs
    ]
    table["per conversation"] = [mean([r["recall"] for r in main_ if r["ci"] == c]) for c in convs]
    table["multi-hop per conversation"] = [mean([r["recall"] for r in multi if r["ci"] == c]) for c in convs]
    table["multi-hop missed evidence by ranking position"] = dict(Counter(p for r in multi for p in r["missed"]))
    table["multi-hop loaded / next to another loaded / evidence turns"] = [
        sum(r["loaded"] for r in multi),
        sum(r["adjacent"] for r in multi),
        sum(r["n_ev"] for r in multi),
    ]
    for i, what in enumerate(("assembly", "search")):
        table[f"{what} ms p50/p95"] = [round(float(x), 1) for x in np.percentile([r["ms"][i] for r in recs], [50, 95])]
    print(json.dumps(table, indent=1))


if __name__ == "__main__":
    main()
