"""Issue 7 benchmark: extractor quality, ingestion rate, and graph vs flat retrieval on Dracula.

    OMP_NUM_THREADS=1 .venv/bin/python -m bench.ingest_eval --data-dir /tmp/dracula-bench [--llm] [--reselect]

1. Precision/recall of the pattern extractor (and, with --llm, the embedded-model extractor) on
   tests/data/dracula_labeled.json, after core selection with min_mentions=1 ("all") and with
   the defaults ("core").
2. The whole novel (../shared/data/dracula.txt, read at run time) ingested with the pattern
   extractor — skipped if that data dir already holds it (ingestion is idempotent); --reselect
   re-runs selection, relations and the graph write from the stored chunks with current code.
3. bench/dracula_questions.json through context configurations at the same token budget (`--budget`,
   default 1,024): none, flat (top chunks, no graph), graph as before issue 14 (bare relation lines,
   every co-occurrence, nothing when no entity matches), graph as shipped (each document relation
   with the sentence joining its ends, no bare co-occurrence, chunks fill the budget when no entity
   matches, and the sentences of further chunks holding the question's words beside a name it does
   not say; fifteenth session: a co-occurrence line ranked by the share of the question its sentence
   holds, a chunk packed short shown by its sentences holding the question's words; eighteenth
   session: an excerpt's sentence that names nothing read under its heading or beside its
   neighbour, the question's own entities no answer, no sentence shown twice; nineteenth session:
   that neighbour the nearest naming sentence of its paragraph, up to two away; twentieth session:
   the next chunk read too when the passage asked about runs past a read chunk's end, a writer's
   sentence read under its heading, an irregular verb's past joined to its base), each step of the
   fifteenth session alone, the shipped graph without the eighteenth's, the nineteenth's and the
   twentieth's steps ("before"), the same without the excerpts, the same with the evidence ranking
   term, and a bare list of every entity name of the novel (a control). For each: answer-name coverage and the share
   of questions with every required name, on the whole block, on the loaded items only (no "Related
   but not loaded" pointers), and with the bare co-occurrence (RELATED_TO) lines or every one
   removed (the control of issue 14), tokens packed and tokens of the block, and time.

--namesakes stores a person's own life beside the novel (`NAMESAKES`, kept in the data dir): the
domain term of node scoring is measured where a question's expansion reaches two domains.

--reextract re-runs the current extractor over the stored chunks (no re-embedding), then does
what --reselect does: the way to measure a new extractor on the novel in seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import text

from app.runtime import open_storage
from app.settings import Settings
from bench.machine import print_machine
from capabilities.context import TwoLevelContext
from memory.assembly import ContextRequest
from memory.attention import GRAPH_WEIGHTS, SEED_ORDER, Weights
from memory.documents.chunking import chunk_stream
from memory.documents.core_entities import CoreConfig, select_core
from memory.documents.extraction import COOCCURS, EntityExtractor, PatternExtractor
from memory.documents.ingest import Ingestor, ground
from memory.documents.joins import REACH
from memory.documents.store import DocumentStore
from memory.formation.graph_writes import entity, link
from memory.formation.plan import plan_turn
from memory.graph.names import name_key
from memory.recall.vectors import NewMemory
from memory.store import MemoryStore
from memory.tokens import estimate_tokens

ROOT = Path(__file__).resolve().parent.parent
NOVEL = ROOT.parent / "shared" / "data" / "dracula.txt"
if not NOVEL.exists():  # a worktree outside /work: the shared data stays where the main checkout has it
    NOVEL = Path("/work/shared/data/dracula.txt")
EXCERPT = ROOT / "tests" / "data" / "dracula_ch4_excerpt.txt"
LABELS = ROOT / "tests" / "data" / "dracula_labeled.json"
QUESTIONS = ROOT / "bench" / "dracula_questions.json"
EVIDENCE_TERM = replace(GRAPH_WEIGHTS, evidence=0.3)
UNWEIGHED = replace(GRAPH_WEIGHTS, fit=0.0)  # co-occurrence lines ranked as before the fifteenth session


NAMESAKES = (
    "My sister Lucy lives in Leeds with her husband Tom.",
    "Lucy works at Northwind as a nurse.",
    "My friend Arthur plays football with Tom every Sunday.",
    "My colleague Jonathan works at Globex in Manchester.",
    "Jonathan moved to Exeter last spring.",
    "Mina is my neighbour and she teaches piano to Priya.",
    "We spent August in Whitby with Lucy and Mina.",
    "Seward is my dentist in Leeds.",
    "Arthur married Priya in June.",
    "Quincey is my cousin from Texas.",
    "Our cat is called Renfield.",
    "My friend Mina visited Varna last year.",
)
"""A person's own life beside the novel (`--namesakes`): friends and places named as the novel's
are, so that a question's expansion crosses CROSS_DOMAIN edges into another domain."""


def configs(budget: int) -> dict[str, tuple[ContextRequest | None, Weights, bool, bool, bool, bool, int, bool]]:
    """Each configuration: the request (None: no context), the graph weights, issue 14's evidence,
    the further chunks' excerpts (thirteenth session), a chunk packed short shown by its asked
    sentences (fifteenth session; the weights' `fit` weighs co-occurrence lines by their sentence),
    an excerpt's nameless sentence read under its heading or beside its neighbour (eighteenth
    session, `around`), how many sentences away that neighbour may be (nineteenth session,
    `reach`: 1, the next or previous sentence only), and an excerpt read on into the next chunk
    and a writer's sentence under its heading (twentieth session, `continued`)."""
    graph = ContextRequest(0, 2, 0.5, 2, budget)
    flat = ContextRequest(0, 15, 0.5, 0, budget)
    return {
        "none": (None, GRAPH_WEIGHTS, True, True, True, True, REACH, True),
        "flat, before (a chunk packed short: its first characters)": (flat, GRAPH_WEIGHTS, True, True, False, True,
                                                                      REACH, True),
        "flat (top chunks to the budget)": (flat, GRAPH_WEIGHTS, True, True, True, True, REACH, True),
        "graph, before issue 14 (bare relation lines)": (graph, UNWEIGHED, False, False, False, False, 1, False),
        "graph, before (thirteenth session's)": (graph, UNWEIGHED, True, True, False, False, 1, False),
        "graph, before + co-occurrence × its sentence's fit": (graph, GRAPH_WEIGHTS, True, True, False, False, 1,
                                                               False),
        "graph, before + asked sentences for a chunk packed short": (graph, UNWEIGHED, True, True, True, False, 1,
                                                                     False),
        "graph, before (fifteenth session's: each sentence alone)": (graph, GRAPH_WEIGHTS, True, True, True, False, 1,
                                                                     False),
        "graph, before (eighteenth session's: the next or previous sentence)": (graph, GRAPH_WEIGHTS, True, True, True,
                                                                                True, 1, False),
        "graph, before (nineteenth session's: the nearest naming sentence)": (graph, GRAPH_WEIGHTS, True, True, True,
                                                                              True, REACH, False),
        "graph, shipped (evidence)": (graph, GRAPH_WEIGHTS, True, True, True, True, REACH, True),
        "graph, shipped without the further chunks' excerpts": (graph, GRAPH_WEIGHTS, True, False, True, True, REACH,
                                                                True),
        "graph, shipped with the evidence term (0.3)": (graph, EVIDENCE_TERM, True, True, True, True, REACH, True),
        "graph, the seed's order (`SEED_ORDER`)": (graph, SEED_ORDER, True, True, True, True, REACH, True),
    }  # fmt: skip


def add_namesakes(store: MemoryStore, user: int) -> int:
    """The person's own life (`NAMESAKES`) as turn memories with their graph formed as the policy
    path forms it (patterns, no model), then fused with the novel's entities; returns the
    CROSS_DOMAIN edges added (0 on a second run: it is stored once)."""
    with store.engine.connect() as conn:
        if conn.execute(text("SELECT 1 FROM memories WHERE user_id = :u AND document_id IS NULL"), {"u": user}).first():
            return 0
    when = datetime(2026, 9, 1, tzinfo=UTC)
    rows = store.memories.add_many(user, [NewMemory("turn", t, when, thread_id="life") for t in NAMESAKES])
    for row, said in zip(rows, NAMESAKES, strict=True):
        assert row.id is not None
        plan, seen = plan_turn(said, None, when), {}
        employers = {name_key(t.subject): t.object for t, _ in plan.triples if t.predicate == "WORKS_AT"}
        with store.entities.writing():
            for triple, _ in plan.triples:
                link(store, user, triple, row.id, None, when, seen, employers)
            for name, kind in plan.mentions:
                entity(store, user, name, kind, row.id, seen=seen)
    return DocumentStore(store.engine, store.entities).fuse(user)


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


def _no_cooccurrence(block: str, bare_only: bool = False) -> str:
    """The loaded block without its co-occurrence lines (issue 14's control): every one, or only
    the bare ones (a line with no sentence quoted)."""
    lines = _loaded_only(block).splitlines()
    return "\n".join(ln for ln in lines if f" {COOCCURS} " not in ln or (bare_only and "“" in ln))


def reextract(store: MemoryStore) -> int:
    """Re-stage every stored chunk's mentions with the current extractor; returns chunks read."""
    docs = DocumentStore(store.engine, store.entities)
    ingestor = Ingestor(docs, store.memories, store.embedder)
    with store.engine.connect() as conn:
        doc_ids = [r[0] for r in conn.execute(text("SELECT id FROM documents")).all()]
    done = 0
    for doc in doc_ids:
        seq = 0
        while batch := docs.chunks(doc, seq, 16):
            found = zip(batch, ingestor.entities_of(batch), strict=True)
            rows = [{"d": doc, "s": c.seq, "m": json.dumps([[m.name, m.type, m.description, m.salience, m.count]
                                                            for m in ms])} for c, ms in found]  # fmt: skip
            with store.engine.begin() as conn:
                conn.execute(text("UPDATE document_chunks SET mentions = :m WHERE document_id = :d AND seq = :s"), rows)
            seq, done = batch[-1].seq + 1, done + len(batch)
    return done


def _names_block(store: MemoryStore, user: int) -> str:
    with store.engine.connect() as conn:
        names = conn.execute(text("SELECT name FROM entities WHERE user_id = :u AND domain LIKE 'doc:%'"), {"u": user})
        return "\n".join(r[0] for r in names)


def _row(q: dict[str, object], block: str, tokens: int, ms: float) -> dict[str, object]:
    expect = list(q["expect"])  # type: ignore[call-overload]
    return {
        "multi_hop": q["multi_hop"], "block": covered(expect, block), "loaded": covered(expect, _loaded_only(block)),
        "no_bare": covered(expect, _no_cooccurrence(block, bare_only=True)),
        "no_cooc": covered(expect, _no_cooccurrence(block)), "tokens": tokens, "block_tokens": estimate_tokens(block),
        "ms": ms,
    }  # fmt: skip


def _summary(rows: list[dict[str, object]]) -> dict[str, float]:
    def mean(key: str, rs: list[dict[str, object]]) -> float:
        return round(sum(float(r[key]) for r in rs) / len(rs), 3)  # type: ignore[arg-type]

    def every(key: str, rs: list[dict[str, object]]) -> float:
        return round(sum(r[key] == 1.0 for r in rs) / len(rs), 3)

    multi = [r for r in rows if r["multi_hop"]]
    kinds = ("block", "loaded", "no_bare", "no_cooc")
    out = {f"coverage_{k}": mean(k, rows) for k in kinds}
    out |= {f"every_name_{k}": every(k, rows) for k in kinds}
    out |= {f"every_name_{k}_multi_hop": every(k, multi) for k in kinds}
    out |= {"tokens": round(mean("tokens", rows)), "block_tokens": round(mean("block_tokens", rows))}
    out["ms"] = mean("ms", rows)
    return out


def _where(store: MemoryStore, user: int, question: str, name: str) -> str:
    """A missing name with the rank and relevance of the best-ranked chunk naming it, at any
    threshold: where the answer would have to come from (past the granted 2 and the 10 excerpted
    chunks, below relevance 0.5, it cannot)."""
    ranked = store.memories.search(user, question, 200, 0.0, kinds=["chunk"])
    at = next((r for r, h in enumerate(ranked) if covered([name], h.memory.content) == 1.0), None)
    return f"{name} [no ranked chunk]" if at is None else f"{name} [chunk rank {at}, {ranked[at].relevance:.2f}]"


def retrieval(store: MemoryStore, user: int, budget: int) -> dict[str, dict[str, float]]:
    """Coverage, tokens and time of each configuration, overall and on multi-hop questions."""
    questions = json.loads(QUESTIONS.read_text())
    table: dict[str, dict[str, float]] = {}
    misses: dict[str, list[str]] = {}
    for name, (req, weights, evidence, excerpts, asked, around, reach, continued) in configs(budget).items():
        store.assembler.weights, store.assembler.evidence, store.assembler.excerpts = weights, evidence, excerpts
        store.assembler.asked_summaries, store.assembler.around, store.assembler.reach = asked, around, reach
        store.assembler.continued = continued
        rows = []
        for q in questions:
            if req is None:
                rows.append(_row(q, "", 0, 0.0))
                continue
            ctx = store.assembler.assemble(user, "bench", q["q"], req)
            block = TwoLevelContext.from_assembled(ctx).block()  # the block the model is sent
            rows.append(_row(q, block, ctx.tokens, ctx.retrieval_ms))
            if name == "graph, shipped (evidence)" and rows[-1]["loaded"] < 1.0:
                gone = [_where(store, user, q["q"], e) for e in q["expect"] if covered([e], _loaded_only(block)) < 1.0]
                misses.setdefault(name, []).append(f"{q['q']} (missing: {', '.join(gone)})")
        table[name] = _summary(rows)
    names = _names_block(store, user)
    listed = [_row(q, names, estimate_tokens(names), 0.0) for q in questions]
    table["control: every entity name, a bare list"] = _summary(listed)
    store.assembler.weights, store.assembler.evidence, store.assembler.excerpts = GRAPH_WEIGHTS, True, True
    store.assembler.asked_summaries, store.assembler.around, store.assembler.reach = True, True, REACH
    store.assembler.continued = True
    table["misses (shipped, loaded items)"] = misses  # type: ignore[assignment]
    return table


def print_table(table: dict[str, dict[str, float]]) -> None:
    """The retrieval table as markdown."""
    print("| context | every name: block / loaded / no bare co-occurrence / no co-occurrence at all | "
          "multi-hop (no bare co-occ.) | coverage (no bare co-occ.) | tokens packed / block | ms |")
    print("|---|---|---|---|---|---|")
    for name, r in table.items():
        if name.startswith("misses"):
            continue
        print(f"| {name} | {r['every_name_block']:.3f} / {r['every_name_loaded']:.3f} / "
              f"{r['every_name_no_bare']:.3f} / {r['every_name_no_cooc']:.3f} | "
              f"{r['every_name_no_bare_multi_hop']:.3f} | {r['coverage_no_bare']:.3f} | "
              f"{r['tokens']:.0f} / {r['block_tokens']:.0f} | {r['ms']:.0f} |")  # fmt: skip


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
    parser.add_argument("--reextract", action="store_true", help="re-extract mentions from the stored chunks")
    parser.add_argument("--retrieval-only", action="store_true", help="only step 3, on an ingested data dir")
    parser.add_argument("--budget", type=int, default=1024)
    parser.add_argument("--namesakes", action="store_true", help="add a personal life beside the novel (kept)")
    args = parser.parse_args()
    print_machine()
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
            if args.reextract:
                report["reextracted_chunks"] = reextract(store)
            report["novel"] = ingest_novel(store, account.id, args.reselect or args.reextract)
        if args.namesakes:
            report["cross_domain_edges_added"] = add_namesakes(store, account.id)
        report["retrieval"] = retrieval(store, account.id, args.budget)
        print(json.dumps(report, indent=2))
        print_table(report["retrieval"])  # type: ignore[arg-type]
    finally:
        store.close()


if __name__ == "__main__":
    main()
