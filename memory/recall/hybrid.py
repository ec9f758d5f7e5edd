"""Hybrid recall: lexical (FTS5 BM25) and dense (MiniLM cosine) evidence fused into one relevance.

What the threshold means
------------------------
Every hit carries a `relevance` in 0..1 and `SIMILARITY_THRESHOLD` (0.5-0.9, default 0.7) is a
floor on it. Relevance is a *calibrated* probability, not a raw cosine:

    relevance = sigmoid(W_COS * cosine + W_LEX * log1p(bm25) + BIAS)

fitted by logistic regression on LoCoMo-dev question/evidence pairs (positives) against the
other turns of the same conversations (negatives), with the two classes weighted equally
(docs/benchmarks.md has the measurement). So a relevance of r means "at even prior odds,
memories scoring like this one were relevant r of the time": the likelihood ratio of relevant
to unrelated is r / (1 - r): 1:1 at 0.5, 2.3:1 at 0.7, 9:1 at 0.9. Measured there, 0.5 / 0.7 /
0.9 keep 79 / 73 / 56 % of evidence turns and 11.6 / 5.8 / 1.7 % of the others; a raw-cosine
floor of 0.7 would keep 2 % of evidence (a paraphrase's cosine is typically 0.4-0.6). `bm25` is
FTS5's BM25, sign flipped (higher is better, 0 when no term matches). Ranking is by relevance
too, so rank and threshold agree. `VECTOR_LIMIT` 0 returns nothing and embeds nothing.
Every search then lifts memories of the days the question names (memory/recall/dates.py) and
re-ranks by the conversation's structure (memory/recall/conversation.py: session support, neighbour
turns, the speaker prior), and maps that score back to a calibrated relevance (`calibrated`: two
more numbers fitted the same way), so the threshold keeps the meaning above on what is shipped.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any, TypeVar

import numpy as np
from sqlalchemy import Connection, Engine, text

from memory.db.engine import in_clause
from memory.models import MemoryRow
from memory.recall import conversation as conv
from memory.recall import dates
from memory.recall.dates import Span
from memory.recall.embedder import Embedder
from memory.recall.sketches import SketchIndex
from memory.tokens import estimate_tokens, query_terms

DEFAULT_SIMILARITY_THRESHOLD = 0.7
DEFAULT_VECTOR_LIMIT = 5
# 100 candidates per retriever is plenty for a limit of 15, and cheap.
CANDIDATES = 100
LEXICAL_CANDIDATES = 50  # lexical-only candidates need their vectors fetched, so fewer
# Dense candidates are the best CANDIDATES by exact cosine among this many sketch neighbours
# (memory/recall/sketches.py; recall of the exact top-k measured in docs/benchmarks.md).
SKETCH_POOL = 400
# BM25 scores every posting of every OR'ed term (~0.45 µs each: 19 ms for a question whose
# terms sit in 43k of 100k memories). Terms are kept rarest first while their postings fit
# this budget; the commonest words, whose IDF is lowest, are left to the dense side.
# A conversation-sized store (LoCoMo: ~600 turns) never reaches it.
LEXICAL_POSTINGS = 5000

# Fitted on LoCoMo dev (see docs/benchmarks.md, "Calibration"); three numbers, no data copied.
W_COS = 8.096
W_LEX = 1.566
BIAS = -3.891
# The ranked score (fused, date-lifted, re-ranked by conversation structure) mapped back to a
# calibrated relevance: sigmoid(SLOPE * logit(score) + OFFSET), fitted the same way as the three
# numbers above (docs/benchmarks.md, "One recall path"). Monotone: it changes no order.
SLOPE = 0.539
OFFSET = -0.045
# Log-odds a memory of a day the question names gains (memory/recall/dates.py).
DATE_WEIGHT = 2.0
DATED_CANDIDATES = 100  # memories said in a dated question's window, added as candidates


@dataclass(frozen=True)
class MemoryHit:
    """A recalled memory with the evidence behind its rank.

    Attributes:
        memory: the stored row.
        relevance: calibrated 0..1 (see the module docstring); the threshold applies to it.
        cosine: raw MiniLM cosine similarity of query and memory (-1..1).
        lexical: FTS5 BM25 score, higher is better, 0 when no query term matched.
    """

    memory: MemoryRow
    relevance: float
    cosine: float
    lexical: float


def relevance(cosine: float, lexical: float) -> float:
    """Calibrated relevance in 0..1 from a raw cosine and a (non-negative) BM25 score."""
    z = W_COS * cosine + W_LEX * math.log1p(max(lexical, 0.0)) + BIAS
    return 1.0 / (1.0 + math.exp(-z))


def calibrated(score: float) -> float:
    """The ranked score as a calibrated relevance (`SLOPE`, `OFFSET`); the threshold applies to it."""
    return conv.lift(score, 0.0, SLOPE, OFFSET)


def fts_terms(terms: Sequence[str]) -> str | None:
    """An FTS5 MATCH expression that ORs these words, or None for none.

    Each term is double-quoted so user text can never inject FTS5 operators (NEAR, column
    filters, `*`); the porter tokenizer still stems quoted terms.
    """
    return " OR ".join(f'"{t}"' for t in terms) if terms else None


def affordable(postings: dict[str, int], budget: int = LEXICAL_POSTINGS) -> list[str]:
    """The terms worth a BM25 pass: rarest first while their postings fit `budget` (the rarest
    matching term always), in query order; terms no memory contains are dropped."""
    kept: list[str] = []
    spent = 0
    for term in sorted((t for t in postings if postings[t] > 0), key=lambda t: postings[t]):
        if kept and spent + postings[term] > budget:
            break
        kept.append(term)
        spent += postings[term]
    return [t for t in postings if t in kept]


def fuse(dense: dict[int, float], lexical: dict[int, float]) -> list[tuple[int, float, float, float]]:
    """Score every candidate seen by either retriever; best first.

    Args:
        dense: memory id -> cosine similarity (every candidate should have one).
        lexical: memory id -> BM25 score (higher is better); missing means no term matched.

    Returns:
        (memory id, relevance, cosine, lexical) tuples sorted by relevance, newest id first on ties.
    """
    scored = []
    for mid in dense.keys() | lexical.keys():
        cos, lex = dense.get(mid, 0.0), lexical.get(mid, 0.0)
        scored.append((mid, relevance(cos, lex), cos, lex))
    scored.sort(key=lambda s: (-s[1], -s[0]))
    return scored


T = TypeVar("T")


def pack(items: Iterable[T], budget_tokens: int, cost: Callable[[T], int] | None = None) -> list[T]:
    """Items in rank order that fit a token budget; an item too large is skipped, not a stopper.

    Args:
        items: candidates, best first (e.g. `MemoryHit`s or their texts).
        budget_tokens: the budget; 0 or less packs nothing.
        cost: tokens an item costs; by default `estimate_tokens` of its text (`memory.content`
            for hits, `str(item)` otherwise).
    """
    measure = cost or _default_cost
    out: list[T] = []
    left = budget_tokens
    for item in items:
        if left <= 0:
            break
        n = measure(item)
        if n <= left:
            out.append(item)
            left -= n
    return out


def _default_cost(item: object) -> int:
    if isinstance(item, MemoryHit):
        return estimate_tokens(item.memory.content)
    return estimate_tokens(str(item))


def blob(vector: np.ndarray) -> bytes:
    """A vector as the little-endian float32 bytes vec0 stores."""
    return np.asarray(vector, dtype=np.float32).tobytes()


class HybridSearch:
    """Candidate generation over sign sketches + `memory_vec` (dense) and `memory_fts` (BM25), always per user."""

    def __init__(self, engine: Engine, embedder: Embedder) -> None:
        self._engine = engine
        self._embedder = embedder
        self._sketches = SketchIndex(engine)
        self.conversation = conv.ConversationLookups(engine)
        self._last: tuple[str, np.ndarray] | None = None

    def query_vector(self, query: str) -> np.ndarray:
        """The query's embedding; the last one is kept, since context assembly, the agent's
        SEARCH_MEMORIES and dedupe often ask for the same text in a row (~10 ms each)."""
        last = self._last  # read once: another thread (a prepare, formation) may replace it
        if last is None or last[0] != query:
            last = self._last = (query, self._embedder.embed_one(query))
        return last[1]

    def ranked(
        self,
        user_id: int,
        query: str,
        kinds: Sequence[str] | None = None,
        document_ids: Sequence[int] | None = None,
        today: date | None = None,
    ) -> list[tuple[int, float, float, float]]:
        """(id, relevance, cosine, bm25) of the candidates, best first: dense and lexical evidence
        fused, a memory of the days the query names lifted (`DATE_WEIGHT`), re-ranked by the
        conversation's structure (memory/recall/conversation.py), the result calibrated again
        (`calibrated`). `today` is the day the query is asked (default: today, UTC)."""
        named = self.conversation.named_speakers(user_id, query) if conv.SPEAKER_WEIGHT else set()
        window = dates.question_window(query, today or datetime.now(UTC).date())
        qvec = self.query_vector(conv.without_names(query, named))
        dense = self.dense(user_id, qvec, CANDIDATES, kinds, document_ids)
        lexical = self.lexical(user_id, query, LEXICAL_CANDIDATES, kinds, document_ids)
        dated = self.dated(user_id, window, kinds, document_ids) if window else []
        dense.update(self.cosines(user_id, qvec, [m for m in [*lexical, *dated] if m not in dense]))
        scored = [(m, rel) for m, rel, _, _ in fuse(dense, lexical)]
        if window:
            scored = self.lift_dated(user_id, scored, window)
        names = {w for name in named for w in query_terms(name)}
        terms = [t for t in query_terms(query) if t not in names]
        ranked = conv.rerank(self.conversation, user_id, scored, named, terms)
        return [(m, calibrated(rel), dense.get(m, 0.0), lexical.get(m, 0.0)) for m, rel in ranked]

    def lift_dated(self, user_id: int, scored: list[tuple[int, float]], window: Span) -> list[tuple[int, float]]:
        """Each candidate about a day in `window` (said then, or its words point there) gains
        `DATE_WEIGHT` log-odds; best first."""
        days = self.conversation.dates(user_id, [m for m, _ in scored])
        inside = {m for m, spans in days.items() if any(dates.overlaps(s, window) for s in spans)}
        lifted = [(m, conv.lift(rel, DATE_WEIGHT) if m in inside else rel) for m, rel in scored]
        return sorted(lifted, key=lambda kv: (-kv[1], -kv[0]))

    def dated(
        self, user_id: int, window: Span, kinds: Sequence[str] | None = None, document_ids: Sequence[int] | None = None
    ) -> list[int]:
        """Up to DATED_CANDIDATES active memories said on a day in `window` (newest first): a dated
        question's evidence need not share a word or a meaning with it ("what did she do on 8 May?")."""
        after = window[1] + timedelta(days=1)
        params: dict[str, Any] = {"u": user_id, "lo": window[0].isoformat(), "hi": after.isoformat()}
        sql = (
            "SELECT id FROM memories WHERE user_id = :u AND status = 'active' "
            "AND created_at >= :lo AND created_at < :hi"
        )
        sql += in_clause("kind", kinds, params) + in_clause("document_id", document_ids, params)
        params["n"] = DATED_CANDIDATES
        with self._engine.connect() as conn:
            return [int(m) for (m,) in conn.execute(text(sql + " ORDER BY created_at DESC LIMIT :n"), params)]

    def dense(
        self,
        user_id: int,
        qvec: np.ndarray,
        k: int,
        kinds: Sequence[str] | None = None,
        document_ids: Sequence[int] | None = None,
    ) -> dict[int, float]:
        """Top-k active memories by exact cosine among the sketch neighbours: memory id -> cosine."""
        pool = self._sketches.nearest(user_id, qvec, max(SKETCH_POOL, 4 * k), kinds, document_ids)
        exact = self.cosines(user_id, qvec, pool)
        return dict(sorted(exact.items(), key=lambda kv: (-kv[1], -kv[0]))[:k])

    def lexical(
        self,
        user_id: int,
        query: str,
        n: int,
        kinds: Sequence[str] | None = None,
        document_ids: Sequence[int] | None = None,
    ) -> dict[int, float]:
        """Top-n active memories by FTS5 BM25 over the affordable terms: memory id -> score (higher is better)."""
        terms = query_terms(query)
        if not terms:
            return {}
        with self._engine.connect() as conn:
            match = fts_terms(affordable({t: _postings(conn, t) for t in terms}))
            if match is None:
                return {}
            sql = (
                "SELECT m.id, -bm25(memory_fts) AS s FROM memory_fts JOIN memories m ON m.id = memory_fts.rowid "
                "WHERE memory_fts MATCH :q AND m.user_id = :u AND m.status = 'active'"
            )
            params: dict[str, Any] = {"q": match, "u": user_id, "n": n}
            sql += in_clause("m.kind", kinds, params) + in_clause("m.document_id", document_ids, params)
            rows = conn.execute(text(sql + " ORDER BY s DESC LIMIT :n"), params)
            return {int(m): float(s) for m, s in rows}

    def cosines(self, user_id: int, qvec: np.ndarray, ids: Sequence[int]) -> dict[int, float]:
        """Cosine of the query with each of these (this user's, active) memories."""
        if not ids:
            return {}
        # The hot path of dense recall (a sketch pool of 400 ids), so the driver's own cursor:
        # SQLAlchemy's row handling doubled it (5.2 against 2.7 ms at 100k memories). By primary
        # key: the unary `+` keeps SQLite from walking the user's (user_id, status) index instead
        # (7 against 0.3 ms for 50 ids), and `user_id = ?` on vec0 would scan the partition per id.
        sql = (
            "SELECT m.id, v.embedding FROM memories m JOIN memory_vec v ON v.memory_id = m.id "
            f"WHERE +m.user_id = ? AND +m.status = 'active' AND m.id IN ({', '.join('?' * len(ids))})"
        )
        with self._engine.connect() as conn:
            found = conn.exec_driver_sql(sql, (user_id, *ids)).fetchall()
        if not found:
            return {}
        vectors = np.frombuffer(b"".join(e for _, e in found), dtype=np.float32).reshape(len(found), -1)
        return dict(zip((int(m) for m, _ in found), (vectors @ qvec).tolist(), strict=True))


def _postings(conn: Connection, term: str) -> int:
    """How many memories (of every user) contain `term`, counted up to LEXICAL_POSTINGS + 1."""
    sql = "SELECT count(*) FROM (SELECT 1 FROM memory_fts WHERE memory_fts MATCH :t LIMIT :cap)"
    return int(conn.execute(text(sql), {"t": fts_terms([term]), "cap": LEXICAL_POSTINGS + 1}).scalar_one())
