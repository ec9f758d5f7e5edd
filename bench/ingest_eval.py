"""Issue 7 benchmark: extractor quality, ingestion rate, and graph vs flat retrieval on Dracula.

    OMP_NUM_THREADS=1 .venv/bin/python -m bench.ingest_eval --data-dir /tmp/dracula-bench [--llm] [--reselect]

1. Precision/recall of the pattern extractor (and, with --llm, the embedded-model extractor) on
   tests/data/dracula_labeled.json, after core selection with min_mentions=1 ("all") and with
   the defaults ("core").
2. The whole novel (../shared/data/dracula.txt, read at run time) ingested with the pattern
   extractor — skipped if that data dir already holds it (ingestion is idempotent); --reselect
   re-runs selection, relations and the graph write from the stored chunks with current code.
3. bench/dracula_questions.json through five context configurations at the same token budget:
   none, flat (top-k chunks, no graph), graph (fewer chunks + names → entities → expansion)
   scored as before issue 19 (`STRUCTURE`: seed, centrality, recency), the same graph scored
   with relevance to the question (`RELEVANCE`), and as shipped (`GRAPH_WEIGHTS`: the order of
   `STRUCTURE` with a relevance cut), reporting answer-entity coverage,
   the share of questions with every required name in context, tokens and retrieval time,
   overall and on multi-hop questions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path

from sqlalchemy import text

from app.runtime import open_storage
from app.settings import Settings
from capabilities.context import TwoLevelContext
from memory.assembly import ContextRequest
from memory.attention import GRAPH_WEIGHTS, RELEVANCE, STRUCTURE, Weights
from memory.documents.chunking import chunk_stream
from memory.documents.core_entities import CoreConfig, select_core
from memory.documents.extraction import EntityExtractor, PatternExtractor
from memory.documents.ingest import Ingestor, ground
from memory.documents.store import DocumentStore
from memory.graph.names import name_key
from memory.store import MemoryStore

ROOT = Path(__file__).resolve().parent.parent
NOVEL = ROOT.parent / "shared" / "data" / "dracula.txt"
EXCERPT = ROOT / "tests" / "data" / "dracula_ch4_excerpt.txt"
LABELS = ROOT / "tests" / "data" / "dracula_labeled.json"
QUESTIONS = ROOT / "bench" / "dracula_questions.json"
BUDGET = 800
GRAPH = ContextRequest(0, 2, 0.5, 2, BUDGET)
CONFIGS: dict[str, tuple[ContextRequest | None, Weights]] = {
    "none": (None, GRAPH_WEIGHTS),
    "flat": (ContextRequest(0, 6, 0.5, 0, BUDGET), GRAPH_WEIGHTS),
    "graph (before issue 19)": (GRAPH, STRUCTURE),
    "graph (relevance weighted)": (GRAPH, RELEVANCE),
    "graph (shipped: relevance cut)": (GRAPH, GRAPH_WEIGHTS),
}


def quality(extractor: EntityExtractor, store: MemoryStore) -> dict[str, object]:
    """Name-level precision/recall of an extractor on the labeled excerpt, all and core."""
    labels = json.loads(LABELS.read_text())["entities"]
    keys = [{name_key(e["name"]), *map(name_key, e["aliases"])} for e in labels]
    with EXCERPT.open() as f:
        chunks = list(chunk_stream(f))
    t0 = time.monotonic()
    found = [extractor.entities(chunks[i : i + 4]) for i in range(0, len(chunks), 4)]
    seconds = time.monotonic() - t0
    mentions = [m for batch in found for m in (batch or [[] for _ in range(4)])]
    staged = [(c.seq, ground(ms, c)) for c, ms in zip(chunks, mentions, strict=False)]
    out: dict[str, object] = {"extractor": extractor.name, "chunks_per_s": round(len(chunks) / seconds, 2)}
    for label, cfg in (("all", CoreConfig(min_mentions=1, min_salience=1)), ("core", CoreConfig())):
        names = [e.name for e in select_core(staged, cfg, store.embedder)]
        hits = sum(any(name_key(n) in k for k in keys) for n in names)
        covered = sum(any(name_key(n) in k for n in names) for k in keys)
        out[label] = {
            "n": len(names),
            "precision": round(hits / max(1, len(names)), 2),
            "recall": round(covered / len(keys), 2),
        }
    return out


def ingest_novel(store: MemoryStore, user: int, reselect: bool) -> dict[str, object]:
    """Ingest the novel with the pattern extractor (or reuse it); return its numbers."""
    docs = DocumentStore(store.engine, store.entities)
    if reselect:
        with store.engine.begin() as conn:
            conn.execute(text("DELETE FROM relations WHERE document_id IS NOT NULL"))
            conn.execute(text("DELETE FROM entities WHERE domain LIKE 'doc:%'"))
            conn.execute(text("UPDATE documents SET status = 'failed', relations_done = 0"))
    t0 = time.monotonic()
    result = Ingestor(docs, store.memories, store.embedder).ingest(user, NOVEL)
    d = result.document
    total_s = (d.finished_at - d.created_at).total_seconds() if d.finished_at else None
    return {
        "chunks": d.chunks_total,
        "entities": d.entities,
        "relations": d.relations,
        "first_run_wall_s": total_s,
        "this_run_s": round(time.monotonic() - t0, 1),
        "chunks_per_s_first_run": round(d.chunks_total / total_s, 2) if total_s else None,
    }


def covered(expect: list[str], context: str) -> float:
    """Share of the expected names (any word-complete form) present in the context."""
    low = context.casefold()
    return sum(any(part.casefold() in low for part in (e, e.split()[-1])) for e in expect) / len(expect)


def _loaded_only(block: str) -> str:
    """The block without the names of what was not loaded (they are in the context, as pointers)."""
    return "\n".join(ln for ln in block.splitlines() if not ln.startswith(("Related but not loaded", "Recommendation")))


def retrieval(store: MemoryStore, user: int) -> dict[str, dict[str, float]]:
    """Coverage, tokens and time of each configuration, overall and on multi-hop questions."""
    questions = json.loads(QUESTIONS.read_text())
    table: dict[str, dict[str, float]] = {}
    for name, (req, weights) in CONFIGS.items():
        store.assembler.weights = weights
        rows = []
        for q in questions:
            if req is None:
                rows.append((q["multi_hop"], 0.0, 0, 0.0, 0.0))
                continue
            ctx = store.assembler.assemble(user, "bench", q["q"], req)
            block = TwoLevelContext.from_assembled(ctx).block()  # the block the model is sent
            rows.append((q["multi_hop"], covered(q["expect"], block), ctx.tokens, ctx.retrieval_ms,
                         covered(q["expect"], _loaded_only(block))))  # fmt: skip
        multi = [r for r in rows if r[0]]
        table[name] = {
            "coverage": round(sum(r[1] for r in rows) / len(rows), 3),
            "coverage_multi_hop": round(sum(r[1] for r in multi) / len(multi), 3),
            "coverage_loaded_only": round(sum(r[4] for r in rows) / len(rows), 3),
            "coverage_loaded_only_multi_hop": round(sum(r[4] for r in multi) / len(multi), 3),
            "every_name": round(sum(r[1] == 1.0 for r in rows) / len(rows), 3),
            "every_name_multi_hop": round(sum(r[1] == 1.0 for r in multi) / len(multi), 3),
            "tokens": round(sum(r[2] for r in rows) / len(rows)),
            "ms": round(sum(r[3] for r in rows) / len(rows), 1),
        }
    store.assembler.weights = GRAPH_WEIGHTS
    return table


async def _llm_quality(settings: Settings, store: MemoryStore) -> dict[str, object]:
    from app.doc_extractor import LLMExtractor
    from app.llm import open_backend
    from app.runtime import llm_config

    async with open_backend(llm_config(settings)) as backend:
        extractor = LLMExtractor(backend, asyncio.get_running_loop())
        result = await asyncio.to_thread(quality, extractor, store)
        result["failures"] = extractor.failures
        return result


def main() -> None:
    """Run the evaluation and print one JSON report."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", type=Path, default=Path("/tmp/reverie-dracula-bench"))
    parser.add_argument("--llm", action="store_true", help="also measure the embedded-model extractor")
    parser.add_argument("--reselect", action="store_true")
    parser.add_argument("--retrieval-only", action="store_true", help="only step 3, on an ingested data dir")
    args = parser.parse_args()
    settings = Settings(_env_file=None, data_dir=args.data_dir, llm_backend="embedded")  # pyright: ignore[reportCallIssue]
    store = open_storage(settings)
    try:
        accounts = store.accounts.list()  # reuse whoever ingested the novel in this data dir
        account = accounts[0] if accounts else store.accounts.create("bench", "bench-password")
        assert account.id is not None
        report: dict[str, object] = {}
        if not args.retrieval_only:
            report["pattern_quality"] = quality(PatternExtractor(), store)
            if args.llm:
                report["llm_quality"] = asyncio.run(_llm_quality(settings, store))
            report["novel"] = ingest_novel(store, account.id, args.reselect)
        report["retrieval"] = retrieval(store, account.id)
        print(json.dumps(report, indent=2))
    finally:
        store.close()


if __name__ == "__main__":
    main()
