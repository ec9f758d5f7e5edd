"""Document ingestion: chunk → extract → select core entities → dedupe → relations → graph.

Three passes, each resumable from a watermark stored with its results (memory/documents/store.py):

1. chunks: stream the file (memory/documents/chunking.py), batch the chunks for the extractor, store each
   batch's chunk memories (embedded, linked to the document) and stage their mentions.
2. relations: select the core entities from all staged mentions (memory/documents/core_entities.py),
   then read the stored chunks back and extract relations among the selected names only;
   stage them per chunk.
3. write: entities, weighted relations and CROSS_DOMAIN fusion edges in one transaction.

Selection is a pure function of the staged mentions, so a resumed run selects the same set.
Nothing here knows about pydantic-ai: extractors come in through the `EntityExtractor` protocol,
and a batch the extractor fails on (None) goes to the fallback.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path

from memory.documents.chunking import CHUNK_CHARS, OVERLAP_CHARS, Chunk, chunk_stream, count_chunks
from memory.documents.core_entities import CoreConfig, aggregate_relations, select_core
from memory.documents.extraction import EntityExtractor, Mention, PatternExtractor, Triple
from memory.documents.store import CoreEntity, DocumentStore
from memory.models import DocumentChunkRow, DocumentRow
from memory.recall.embedder import Embedder
from memory.recall.vectors import MemoryIndex, NewMemory

EMBED_SECONDS_PER_CHUNK = 0.45  # measured: MiniLM (numpy) on a shared vCPU, 1,000-character chunks
SUPPORTED_SUFFIXES = (".txt", ".md", ".markdown")


@dataclass(frozen=True)
class IngestConfig:
    """How to cut and batch a document, and how to pick its core entities."""

    chunk_chars: int = CHUNK_CHARS
    overlap_chars: int = OVERLAP_CHARS
    batch_chunks: int = 4
    core: CoreConfig = field(default_factory=CoreConfig)


@dataclass(frozen=True)
class Progress:
    """Where an ingestion is: phase 'chunks', 'relations', 'writing' or 'done'."""

    phase: str
    chunks_done: int
    chunks_total: int
    entities: int
    relations: int
    elapsed_s: float
    eta_s: float


@dataclass(frozen=True)
class Estimate:
    """What an ingestion will cost before it starts."""

    chunks: int
    seconds: float


@dataclass(frozen=True)
class IngestResult:
    """The document row after ingestion; `skipped` when the same content was already ingested."""

    document: DocumentRow
    skipped: bool
    seconds: float


ProgressFn = Callable[[Progress], None]


def file_digest(path: Path) -> tuple[str, int]:
    """SHA-256 of the file's bytes and its size, read in blocks (constant memory)."""
    digest, size = hashlib.sha256(), 0
    with path.open("rb") as f:
        while block := f.read(1 << 16):
            digest.update(block)
            size += len(block)
    return digest.hexdigest(), size


def estimate(path: Path, extractor: EntityExtractor, config: IngestConfig | None = None) -> Estimate:
    """Chunks and seconds an ingestion of `path` will take (two extractor passes plus embedding)."""
    cfg = config or IngestConfig()
    with path.open(encoding="utf-8", errors="replace") as f:
        chunks = count_chunks(f, cfg.chunk_chars, cfg.overlap_chars)
    return Estimate(chunks, chunks * (2 * extractor.seconds_per_chunk + EMBED_SECONDS_PER_CHUNK) + 2.0)


def ground(mentions: Sequence[Mention], chunk: Chunk) -> list[Mention]:
    """Keep mentions whose name occurs in the chunk's new text, with the count measured there.

    A model may name things the text never says; counting the literal name is also what makes
    mention counts comparable between extractors.
    """
    fresh = chunk.text[chunk.fresh_from :]
    kept: list[Mention] = []
    for m in mentions:
        name = " ".join(m.name.split())
        if len(name) < 2:
            continue
        n = len(re.findall(rf"(?<![^\W_]){re.escape(name)}(?![^\W_])", fresh))  # "_Demeter_" is emphasis
        if n:
            kept.append(Mention(name, m.type, m.description, max(1, min(5, m.salience)), n))
    return kept


def _batches(items: Iterable[Chunk], size: int) -> Iterator[list[Chunk]]:
    it = iter(items)
    while batch := list(islice(it, size)):
        yield batch


class Ingestor:
    """Runs the pipeline for one document at a time, writing through the stores it is given."""

    def __init__(
        self,
        documents: DocumentStore,
        memories: MemoryIndex,
        embedder: Embedder,
        extractor: EntityExtractor | None = None,
        config: IngestConfig | None = None,
    ) -> None:
        self._docs, self._memories, self._embedder = documents, memories, embedder
        self._fallback = PatternExtractor()
        self.extractor: EntityExtractor = extractor or self._fallback
        self.config = config or IngestConfig()

    def ingest(
        self, user_id: int, path: Path, progress: ProgressFn | None = None, name: str | None = None
    ) -> IngestResult:
        """Ingest (or resume, or skip) one document file.

        Raises:
            ValueError: not a .txt or .md file.
            OSError: the file cannot be read.
        """
        label = name or path.name
        if Path(label).suffix.lower() not in SUPPORTED_SUFFIXES:
            raise ValueError(f"{label}: only {', '.join(SUPPORTED_SUFFIXES)} documents can be ingested")
        started = time.monotonic()
        digest, size = file_digest(path)
        doc = self._docs.by_hash(user_id, digest)
        if doc is not None and doc.status == "done":
            return IngestResult(doc, True, 0.0)
        if doc is None:
            total = estimate(path, self.extractor, self.config).chunks
            doc = self._docs.create(user_id, label, digest, size, total, self.extractor.name)
        else:
            self._docs.purge_unstaged(user_id, doc.id or 0)
            self._docs.set_status(doc.id or 0, "ingesting")
        run = _Run(self, user_id, doc, progress or (lambda p: None))
        try:
            run.chunk_pass(path)
            run.relation_pass()
            run.write()
        except Exception as exc:
            self._docs.set_status(doc.id or 0, "failed", f"{type(exc).__name__}: {exc}")
            raise
        final = self._docs.get(user_id, doc.id or 0)
        assert final is not None
        return IngestResult(final, False, time.monotonic() - started)

    def entities_of(self, batch: Sequence[Chunk]) -> list[list[Mention]]:
        """Mentions per chunk from the extractor, or from the fallback where it failed."""
        found = self.extractor.entities(batch)
        if found is None or len(found) != len(batch):
            found = [[] for _ in batch]
        if self.extractor is not self._fallback:
            # A small model misses most names: the patterns fill in what it did not name.
            extra = self._fallback.entities(batch)
            found = [[*ms, *(x for x in xs if x.name not in {m.name for m in ms})]
                     for ms, xs in zip(found, extra, strict=True)]
        return [ground(ms, c) for ms, c in zip(found, batch, strict=True)]

    def relations_of(self, batch: Sequence[Chunk], names: dict[str, list[str]]) -> list[Triple]:
        """Relations among the core names present in the batch (extractor, else fallback)."""
        text = "\n".join(c.text for c in batch)
        present = {n: forms for n, forms in names.items() if any(f in text for f in (n, *forms))}
        if len(present) < 2:
            return []
        found = self.extractor.relations(batch, present)
        if found is None:
            found = self._fallback.relations(batch, present)
        seqs = {c.seq for c in batch}
        return [t for t in found if t.subject in present and t.object in present and t.seq in seqs]


class _Run:
    """The state of one ingestion run: the document, timing, and running counts for progress."""

    def __init__(self, owner: Ingestor, user_id: int, doc: DocumentRow, progress: ProgressFn) -> None:
        self.o, self.user_id, self.doc, self.report = owner, user_id, doc, progress
        self.doc_id = doc.id or 0
        self.t0 = self.pass_t0 = time.monotonic()
        self.names: set[str] = set()  # distinct names seen so far (progress only)
        self.triples: set[tuple[str, str, str]] = set()
        self.selected: list[CoreEntity] = []
        self.n_entities = self.n_relations = 0

    def _progress(self, phase: str, done: int, total: int, units_done: int) -> None:
        """Report, with an ETA from the observed rate of this pass plus the passes still to run."""
        elapsed = time.monotonic() - self.t0
        rate = (time.monotonic() - self.pass_t0) / units_done if units_done else 0.0
        relation_pass = self.o.extractor.seconds_per_chunk * total
        eta = rate * (total - done) + (relation_pass if phase == "chunks" else 0.0)
        entities = self.n_entities or len(self.selected) or len(self.names)
        relations = self.n_relations or len(self.triples)
        self.report(Progress(phase, done, total, entities, relations, elapsed, eta))

    def chunk_pass(self, path: Path) -> None:
        cfg, start_seq, total = self.o.config, self.doc.chunks_done, self.doc.chunks_total
        for _, payload in self.o._docs.staged(self.doc_id, "mentions"):
            self.names.update(m[0] for m in json.loads(payload or "[]"))
        with path.open(encoding="utf-8", errors="replace") as f:
            fresh = (c for c in chunk_stream(f, cfg.chunk_chars, cfg.overlap_chars) if c.seq >= start_seq)
            for n, batch in enumerate(_batches(fresh, cfg.batch_chunks), start=1):
                self._store_batch(batch)
                done = batch[-1].seq + 1
                self._progress("chunks", done, total, n * len(batch))

    def _store_batch(self, batch: list[Chunk]) -> None:
        mentions = self.o.entities_of(batch)
        meta = {"document": self.doc.name}
        items = [
            NewMemory("chunk", c.text, document_id=self.doc_id, meta={**meta, "seq": c.seq, "start": c.start})
            for c in batch
        ]
        rows = self.o._memories.add_many(self.user_id, items)
        staged = [
            DocumentChunkRow.model_validate(
                {
                    "document_id": self.doc_id,
                    "seq": c.seq,
                    "memory_id": r.id,
                    "start": c.start,
                    "fresh_from": c.fresh_from,
                    "mentions": json.dumps([[m.name, m.type, m.description, m.salience, m.count] for m in ms]),
                }
            )
            for c, r, ms in zip(batch, rows, mentions, strict=True)
        ]
        self.o._docs.stage_chunks(self.doc_id, staged, batch[-1].seq + 1)
        self.names.update(m.name for ms in mentions for m in ms)

    def _select(self) -> dict[str, list[str]]:
        mentions = (
            (seq, [Mention(*m) for m in json.loads(p or "[]")])
            for seq, p in self.o._docs.staged(self.doc_id, "mentions")
        )
        self.selected = select_core(mentions, self.o.config.core, self.o._embedder)
        return {e.name: e.aliases for e in self.selected}

    def relation_pass(self) -> None:
        names = self._select()
        self.pass_t0 = time.monotonic()
        total, seq = self.doc.chunks_total, self._relations_start()
        units = 0
        while batch := self.o._docs.chunks(self.doc_id, seq, self.o.config.batch_chunks):
            found = self.o.relations_of(batch, names)
            per_seq = {c.seq: [t for t in found if t.seq == c.seq] for c in batch}
            payload = {
                s: json.dumps([[t.subject, t.predicate, t.object, t.weight] for t in ts]) for s, ts in per_seq.items()
            }
            seq = batch[-1].seq + 1
            self.o._docs.stage_triples(self.doc_id, payload, seq)
            self.triples.update((t.subject, t.predicate, t.object) for t in found)
            units += len(batch)
            self._progress("relations", seq, total, units)

    def _relations_start(self) -> int:
        fresh = self.o._docs.get(self.user_id, self.doc_id)
        return fresh.relations_done if fresh is not None else 0

    def write(self) -> None:
        staged = (
            (seq, [Triple(t[0], t[1], t[2], seq, float(t[3])) for t in json.loads(p or "[]")])
            for seq, p in self.o._docs.staged(self.doc_id, "triples")
        )
        relations = aggregate_relations(staged, self.selected, self.o.config.core)
        total = self.doc.chunks_total
        self._progress("writing", total, total, 1)
        self.n_entities, self.n_relations = self.o._docs.commit_graph(
            self.user_id, self.doc_id, self.selected, relations
        )
        self._progress("done", total, total, 1)
