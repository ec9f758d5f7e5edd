"""Memories on PostgreSQL: the vector in a pgvector column (HNSW, cosine), the words in a tsvector.

The same `MemoryIndex` and the same hybrid ranking (memory/recall/hybrid.py) as on SQLite; only
the two retrievers and the vector writes differ, so `SIMILARITY_THRESHOLD` keeps its meaning:

- Dense: the exact top k of the user's own active rows (their index, then a sort of the distances),
  as on SQLite, ordered as `(embedding <=> q) + 0` so the planner cannot walk the whole table's HNSW
  index instead: at 10,000 memories a user among 20 it chose that walk with the user filter
  (pgvector's iterative scan), which took 5× the exact sort's time and missed 28% of the true top
  100 (`bench/pg_dense.py`, docs/benchmarks.md, issue 18). A sort costs ~2 ms per 1,000 of the
  user's rows, though, and the walk's cost grows with how little of the table is the user's: so a
  user who holds at least `WALK_MIN` active memories *and* `WALK_SHARE` of the table (a one-person
  installation with a large store) walks the HNSW index instead (`walks`, one bounded count), with
  no kind or document filter, which could leave the walk short of k. Sixteenth session (p95 of
  this walk against the sort's): one user alone 0.24× at 20k, 0.17× at 100k; 40k a user among 5
  (20%) 0.39×; 20k among 10 (10%) 1.16×, 10k among 20 (5%) 5×; recall@100 0.93–1.0 where it
  walks, 0.72 at 5%. Deciding costs ~3 ms (a count of up to 20,000 index entries). Cosine = 1 - cosine distance.
- Lexical: BM25 computed in SQL exactly as SQLite's FTS5 computes it (k1 = 1.2, b = 0.75, IDF
  log((N - n + 0.5) / (n + 0.5)) floored at 1e-6, N and the mean length over every row of every
  user, as FTS5's index holds them), because the calibration was fitted on FTS5's scores.
  PostgreSQL's own `ts_rank` is on another scale and would silently move the threshold. Words are
  split and folded as FTS5's unicode61 does and stemmed by the same Porter stemmer, with no stop
  words (FTS5 keeps every word); the same rarest-terms-first postings budget applies. What still
  differs from FTS5 is written in docs/postgres.md.

One row holds the memory, its vector and its lexemes, so a delete (or an account's cascade)
leaves nothing behind and a status change needs no trigger to reach the vector.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from sqlalchemy import Connection, text

from memory.db.engine import in_clause
from memory.models import MemoryRow
from memory.recall import hybrid as recall
from memory.recall import vectors
from memory.tokens import query_terms

K1, B = 1.2, 0.75  # FTS5's bm25() constants
# (after a bulk load or a change of dimension; the released m002 has its own copy)
CREATE_HNSW = "CREATE INDEX IF NOT EXISTS ix_memories_embedding ON memories USING hnsw (embedding vector_cosine_ops)"
TEXT_CONFIG = "reverie"
# Dense recall walks the HNSW index for a user with at least this many active memories and this share
# of the table; below either, the exact sort is cheaper (bench/pg_dense.py; the module's docstring).
WALK_MIN, WALK_SHARE = 20_000, 0.2

# N and the total length for BM25, kept by the statement triggers of m002 (and of m019, which adds
# each lexeme's count to the same function).
_TEXT_STATS = """        IF TG_OP IN ('INSERT', 'UPDATE') THEN
            UPDATE memory_text_stats SET documents = documents + (SELECT count(*) FROM added),
                tokens = tokens + (SELECT coalesce(sum(tokens), 0) FROM added);
        END IF;
        IF TG_OP IN ('DELETE', 'UPDATE') THEN
            UPDATE memory_text_stats SET documents = documents - (SELECT count(*) FROM removed),
                tokens = tokens - (SELECT coalesce(sum(tokens), 0) FROM removed);
        END IF;
"""
_DDL = [
    "CREATE EXTENSION IF NOT EXISTS vector",
    # The original Porter stemmer (Snowball's `english` is Porter2: "weekly" -> "week", where FTS5's
    # porter says "weekli"), no stop word list: FTS5's porter tokenizer stems and keeps every word.
    "CREATE TEXT SEARCH DICTIONARY reverie_stem (TEMPLATE = snowball, Language = porter)",
    f"CREATE TEXT SEARCH CONFIGURATION {TEXT_CONFIG} (COPY = simple)",
    f"ALTER TEXT SEARCH CONFIGURATION {TEXT_CONFIG} ALTER MAPPING FOR asciiword, word, numword WITH reverie_stem",
    # FTS5's unicode61 folds diacritics ("fiancée" finds "fiancee") and splits at anything that is
    # not a letter or digit ("nanay's", "50/50", "well-known" are two words each); PostgreSQL's
    # parser keeps such tokens whole. This gives it only what unicode61 would keep (unaccent is no
    # part of the server wheel, so the marks are dropped after NFD here).
    r"""CREATE FUNCTION reverie_words(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
        $$ SELECT regexp_replace(regexp_replace(normalize(t, NFD), '[\u0300-\u036f]', '', 'g'),
                                 '[^[:alnum:]]+', ' ', 'g') $$""",
    *vectors.TABLE_DDL,
    "ALTER TABLE memories ADD COLUMN embedding vector(384)",
    "ALTER TABLE memories ADD COLUMN lexemes tsvector NOT NULL DEFAULT ''",
    "ALTER TABLE memories ADD COLUMN tokens INTEGER NOT NULL DEFAULT 0",  # FTS5's document length
    "CREATE INDEX ix_memories_embedding ON memories USING hnsw (embedding vector_cosine_ops)",
    "CREATE INDEX ix_memories_lexemes ON memories USING gin (lexemes)",
    # N and the total length for BM25, kept by statement triggers (one row: FTS5 keeps the same two).
    """CREATE TABLE memory_text_stats (
        id INTEGER PRIMARY KEY CHECK (id = 1), documents BIGINT NOT NULL, tokens BIGINT NOT NULL)""",
    "INSERT INTO memory_text_stats VALUES (1, 0, 0)",
    f"""CREATE FUNCTION memories_lexemes() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
        NEW.lexemes := to_tsvector('{TEXT_CONFIG}', reverie_words(NEW.content));
        NEW.tokens := (SELECT coalesce(sum(array_length(positions, 1)), 0) FROM unnest(NEW.lexemes));
        RETURN NEW; END $$""",
    """CREATE TRIGGER memories_lexemes BEFORE INSERT OR UPDATE OF content ON memories
        FOR EACH ROW EXECUTE FUNCTION memories_lexemes()""",
    f"""CREATE FUNCTION memories_text_stats() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
{_TEXT_STATS}        RETURN NULL; END $$""",
    """CREATE TRIGGER memories_stats_ai AFTER INSERT ON memories REFERENCING NEW TABLE AS added
        FOR EACH STATEMENT EXECUTE FUNCTION memories_text_stats()""",
    """CREATE TRIGGER memories_stats_ad AFTER DELETE ON memories REFERENCING OLD TABLE AS removed
        FOR EACH STATEMENT EXECUTE FUNCTION memories_text_stats()""",
    """CREATE TRIGGER memories_stats_au AFTER UPDATE ON memories
        REFERENCING OLD TABLE AS removed NEW TABLE AS added
        FOR EACH STATEMENT EXECUTE FUNCTION memories_text_stats()""",
]


# How many memories (of every user, any status: FTS5's index holds them all) hold each lexeme: the
# postings count that picks the affordable terms and gives their IDF. Counting it from the GIN index
# read up to 5,001 heap rows per common word (~300 ms a question at 100k memories, 1 KB+ rows with
# their vectors); FTS5 reads the same number from its doclist. Kept by the statement triggers that
# keep N (m002's `memories_text_stats`, replaced here); an update that changes no words (a status,
# a vector) nets to nothing and writes nothing. Rows are upserted in lexeme order, so two writers
# lock shared lexemes in the same order and never deadlock.
_LEXEME_DELTA = """INSERT INTO memory_lexemes AS k (lexeme, documents)
    SELECT lexeme, sum(d) FROM ({rows}) x GROUP BY lexeme HAVING sum(d) <> 0 ORDER BY lexeme
    ON CONFLICT (lexeme) DO UPDATE SET documents = k.documents + excluded.documents"""
_ADDED = "SELECT unnest(tsvector_to_array(lexemes)) AS lexeme, 1 AS d FROM added"
_REMOVED = "SELECT unnest(tsvector_to_array(lexemes)) AS lexeme, -1 AS d FROM removed"
_LEXEME_DDL = [
    "CREATE TABLE memory_lexemes (lexeme TEXT PRIMARY KEY, documents BIGINT NOT NULL)",
    """INSERT INTO memory_lexemes SELECT l, count(*) FROM memories CROSS JOIN LATERAL
        unnest(tsvector_to_array(lexemes)) AS l GROUP BY l""",
    f"""CREATE OR REPLACE FUNCTION memories_text_stats() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
{_TEXT_STATS}        IF TG_OP = 'INSERT' THEN {_LEXEME_DELTA.format(rows=_ADDED)};
        ELSIF TG_OP = 'DELETE' THEN {_LEXEME_DELTA.format(rows=_REMOVED)};
        ELSE {_LEXEME_DELTA.format(rows=f"{_ADDED} UNION ALL {_REMOVED}")};
        END IF;
        RETURN NULL; END $$""",
]


def m002_memories(conn: Connection) -> None:
    """PostgreSQL's `m002_memories`: the memories table with its vector (pgvector, HNSW, cosine) and
    lexemes (a text search configuration like FTS5's), and the two numbers BM25 needs."""
    for statement in _DDL:
        conn.execute(text(statement))


def m009_sketches(conn: Connection) -> None:
    """PostgreSQL's `m009_sketches`: only the column (`MemoryRow` writes it). The sketches are
    SQLite's in-process prefilter; here the HNSW index does that job, so no counters, no triggers."""
    conn.execute(text("ALTER TABLE memories ADD COLUMN sketch BYTEA"))


def m019_lexeme_counts(conn: Connection) -> None:
    """PostgreSQL's `m019_lexeme_counts`: each lexeme's number of memories, counted once for the
    memories already there and kept by the text statistics' triggers from then on."""
    for statement in _LEXEME_DDL:
        conn.execute(text(statement))


def dense_sql(where: str = "", walk: bool = False) -> str:
    """The per-user top k by cosine: exact, or with `walk` ordered by the bare distance, which the
    planner serves with the HNSW index's iterative scan and the user filter once the user is much of
    the table (see the module's docstring for why the exact one orders by `+ 0`). The filter stays
    `user_id = :u`: hidden from the statistics (`user_id + 0`), the user looked 0.5% of the table,
    and the planner sorted all 100,000 rows of a one-user store instead (196 against 8 ms p50)."""
    order = "embedding <=> CAST(:q AS vector)" if walk else "(embedding <=> CAST(:q AS vector)) + 0"
    return (
        "SELECT id, 1 - (embedding <=> CAST(:q AS vector)) FROM memories "
        f"WHERE user_id = :u AND status = 'active' AND embedding IS NOT NULL{where} ORDER BY {order} LIMIT :k"
    )


def walks(conn: Connection, user_id: int) -> bool:
    """Whether the user holds at least `WALK_MIN` active memories and `WALK_SHARE` of the table (the
    planner's row estimate): counted from the user's index, never past that bound."""
    bound = f"greatest({WALK_MIN}, {WALK_SHARE} * (SELECT reltuples FROM pg_class WHERE oid = 'memories'::regclass))"
    sql = (
        f"SELECT count(*) >= {bound} FROM (SELECT 1 FROM memories WHERE user_id = :u AND status = 'active' "
        f"LIMIT ceil({bound})::bigint) x"
    )
    return bool(conn.execute(text(sql), {"u": user_id}).scalar_one())


def literal(vector: np.ndarray) -> str:
    """A vector as pgvector's text form, `[0.1,0.2,…]` (float32 values survive the round trip)."""
    return "[" + ",".join(map(str, np.asarray(vector, dtype=np.float32).tolist())) + "]"


def vector_dim(conn: Connection) -> int:
    """The dimension of `memories.embedding` (384 unless a reindex changed it)."""
    sql = "SELECT atttypmod FROM pg_attribute WHERE attrelid = 'memories'::regclass AND attname = 'embedding'"
    return int(conn.execute(text(sql)).scalar_one())


def set_vector_dim(conn: Connection, dim: int) -> None:
    """`memories.embedding` at `dim` dimensions, every vector cleared (the caller re-embeds)."""
    conn.execute(text("DROP INDEX IF EXISTS ix_memories_embedding"))
    conn.execute(text(f"ALTER TABLE memories ALTER COLUMN embedding TYPE vector({int(dim)}) USING NULL"))
    conn.execute(text(CREATE_HNSW))


class PgSearch(recall.HybridSearch):
    """`HybridSearch` with PostgreSQL's two retrievers; `ranked` and the fusion are inherited."""

    def dense(
        self,
        user_id: int,
        qvec: np.ndarray,
        k: int,
        kinds: Sequence[str] | None = None,
        document_ids: Sequence[int] | None = None,
    ) -> dict[int, float]:
        """Top-k active memories by cosine, exact or, for a large user asking unfiltered, through the
        HNSW index (`walks`): memory id -> cosine."""
        params: dict[str, Any] = {"q": literal(qvec), "u": user_id, "k": k}
        where = in_clause("kind", kinds, params) + in_clause("document_id", document_ids, params)
        with self._engine.connect() as conn:
            walk = not where and walks(conn, user_id)
            found = {int(m): float(c) for m, c in conn.execute(text(dense_sql(where, walk)), params)}
        return dict(sorted(found.items(), key=lambda kv: (-kv[1], -kv[0])))

    def lexical(
        self,
        user_id: int,
        query: str,
        n: int,
        kinds: Sequence[str] | None = None,
        document_ids: Sequence[int] | None = None,
    ) -> dict[int, float]:
        """Top-n active memories by BM25 (FTS5's formula) over the affordable terms: id -> score."""
        terms = query_terms(query)
        if not terms:
            return {}
        with self._engine.connect() as conn:
            postings = _postings(conn, terms)
            kept = recall.affordable({lex: count for lex, count in postings.items()})
            if not kept:
                return {}
            documents, tokens = conn.execute(text("SELECT documents, tokens FROM memory_text_stats")).one()
            idf = [_idf(int(documents), postings[lex]) for lex in kept]
            params: dict[str, Any] = {
                "lex": kept, "idf": idf, "u": user_id, "n": n, "avgdl": int(tokens) / max(int(documents), 1),
            }  # fmt: skip
            where = in_clause("m.kind", kinds, params) + in_clause("m.document_id", document_ids, params)
            sql = (
                "SELECT m.id, sum(w.idf * (array_length(u.positions, 1) * :k1p) / (array_length(u.positions, 1) "
                "  + :k1 * (1 - :b + :b * m.tokens / :avgdl))) AS s "
                "FROM memories m CROSS JOIN LATERAL unnest(m.lexemes) AS u "
                "JOIN unnest(CAST(:lex AS text[]), CAST(:idf AS float8[])) AS w(lexeme, idf) ON w.lexeme = u.lexeme "
                "WHERE m.lexemes @@ (SELECT string_agg(quote_literal(l), ' | ')::tsquery "
                "  FROM unnest(CAST(:lex AS text[])) l) "
                f"AND m.user_id = :u AND m.status = 'active'{where} "
                "GROUP BY m.id ORDER BY s DESC LIMIT :n"
            )
            rows = conn.execute(text(sql), params | {"k1": K1, "k1p": K1 + 1, "b": B})
            return {int(m): float(s) for m, s in rows}

    def cosines(self, user_id: int, qvec: np.ndarray, ids: Sequence[int]) -> dict[int, float]:
        """Cosine of the query with each of these (this user's, active) memories."""
        if not ids:
            return {}
        sql = (
            "SELECT id, 1 - (embedding <=> CAST(:q AS vector)) FROM memories "
            "WHERE id = ANY(CAST(:ids AS bigint[])) AND user_id = :u AND status = 'active' AND embedding IS NOT NULL"
        )
        with self._engine.connect() as conn:
            rows = conn.execute(text(sql), {"q": literal(qvec), "ids": list(ids), "u": user_id})
            return {int(m): float(c) for m, c in rows}


def _postings(conn: Connection, terms: list[str]) -> dict[str, int]:
    """Each term's lexeme -> how many memories (of every user) hold it (`memory_lexemes`), capped at
    LEXICAL_POSTINGS + 1 as FTS5's count is, in query order; a term that stems to no single lexeme is
    left out."""
    sql = (
        "SELECT t.term, l.lexeme, least(coalesce(k.documents, 0), :cap) "
        f"FROM unnest(CAST(:terms AS text[])) WITH ORDINALITY AS t(term, i) "
        "CROSS JOIN LATERAL unnest(tsvector_to_array("
        f"  to_tsvector('{TEXT_CONFIG}', reverie_words(t.term)))) AS l(lexeme) "
        "LEFT JOIN memory_lexemes k ON k.lexeme = l.lexeme "
        "ORDER BY t.i"
    )
    rows = conn.execute(text(sql), {"terms": terms, "cap": recall.LEXICAL_POSTINGS + 1}).all()
    per_term: dict[str, list[tuple[str, int]]] = {}
    for term, lexeme, count in rows:
        per_term.setdefault(str(term), []).append((str(lexeme), int(count)))
    return {found[0][0]: found[0][1] for found in per_term.values() if len(found) == 1}


def _idf(documents: int, hits: int) -> float:
    """FTS5's IDF: log((N - n + 0.5) / (n + 0.5)), and 1e-6 where that is not positive."""
    value = math.log((documents - hits + 0.5) / (hits + 0.5))
    return value if value > 0 else 1e-6


class PgMemoryIndex(vectors.MemoryIndex):
    """`MemoryIndex` on PostgreSQL: the same store, its vectors written to `memories.embedding`."""

    search_class = PgSearch

    def _write_vectors(self, conn: Connection, user_id: int, rows: Sequence[MemoryRow], vectors: np.ndarray) -> None:
        conn.execute(
            text("UPDATE memories SET embedding = CAST(:e AS vector) WHERE id = :id AND user_id = :u"),
            [{"id": r.id, "u": user_id, "e": literal(v)} for r, v in zip(rows, vectors, strict=True)],
        )

    def _rewrite_vector(self, conn: Connection, memory_id: int, vector: np.ndarray) -> None:
        conn.execute(
            text("UPDATE memories SET embedding = CAST(:e AS vector) WHERE id = :id"),
            {"e": literal(vector), "id": memory_id},
        )
