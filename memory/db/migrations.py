"""Named schema migrations, applied in order and recorded in `_migrations` (no Alembic).

Each area of memory/ owns the DDL of its tables; this list is the one order they run in.
A released migration is never edited: change the schema with a new one.
"""

from __future__ import annotations

from sqlalchemy import Connection, text

from memory import dreams, leases, queries, usage
from memory.db.engine import Migration
from memory.documents import store as documents
from memory.formation import queue as formation_queue
from memory.graph import entities, entity_vectors
from memory.recall import pg_index, sketches, vectors


def _run(conn: Connection, script: str) -> None:
    for statement in script.split(";"):
        if statement.strip():
            conn.execute(text(statement))


def m001_core(conn: Connection) -> None:
    """Accounts, episodic turns, meta, and the tables Chainlit's SQLAlchemy data layer needs.

    Chainlit does not create its own schema (STACK-NOTES); its column names are quoted
    camelCase and must match chainlit/data/sql_alchemy.py exactly.
    """
    _run(
        conn,
        """
        CREATE TABLE accounts (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            password_hash TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE TABLE turns (
            id INTEGER PRIMARY KEY,
            user_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
            thread_id TEXT NOT NULL,
            role TEXT NOT NULL CHECK (role IN ('user', 'assistant')),
            content TEXT NOT NULL,
            created_at TEXT NOT NULL,
            tokens INTEGER NOT NULL
        );
        CREATE INDEX ix_turns_user_thread ON turns (user_id, thread_id, id);
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE users (
            "id" TEXT PRIMARY KEY,
            "identifier" TEXT NOT NULL UNIQUE,
            "metadata" TEXT NOT NULL,
            "createdAt" TEXT
        );
        CREATE TABLE threads (
            "id" TEXT PRIMARY KEY,
            "createdAt" TEXT,
            "name" TEXT,
            "userId" TEXT,
            "userIdentifier" TEXT,
            "tags" TEXT,
            "metadata" TEXT,
            FOREIGN KEY ("userId") REFERENCES users("id") ON DELETE CASCADE
        );
        CREATE TABLE steps (
            "id" TEXT PRIMARY KEY,
            "name" TEXT NOT NULL,
            "type" TEXT NOT NULL,
            "threadId" TEXT NOT NULL,
            "parentId" TEXT,
            "streaming" BOOLEAN NOT NULL,
            "waitForAnswer" BOOLEAN,
            "isError" BOOLEAN,
            "metadata" TEXT,
            "tags" TEXT,
            "input" TEXT,
            "output" TEXT,
            "createdAt" TEXT,
            "command" TEXT,
            "modes" TEXT,
            "start" TEXT,
            "end" TEXT,
            "generation" TEXT,
            "showInput" TEXT,
            "language" TEXT,
            "indent" INT,
            "defaultOpen" BOOLEAN,
            "autoCollapse" BOOLEAN,
            "icon" TEXT,
            FOREIGN KEY ("threadId") REFERENCES threads("id") ON DELETE CASCADE
        );
        CREATE TABLE elements (
            "id" TEXT PRIMARY KEY,
            "threadId" TEXT,
            "type" TEXT,
            "url" TEXT,
            "chainlitKey" TEXT,
            "name" TEXT NOT NULL,
            "display" TEXT,
            "objectKey" TEXT,
            "size" TEXT,
            "page" INT,
            "language" TEXT,
            "forId" TEXT,
            "mime" TEXT,
            "props" TEXT,
            "autoPlay" BOOLEAN,
            "playerConfig" TEXT,
            FOREIGN KEY ("threadId") REFERENCES threads("id") ON DELETE CASCADE
        );
        CREATE TABLE feedbacks (
            "id" TEXT PRIMARY KEY,
            "forId" TEXT NOT NULL,
            "threadId" TEXT NOT NULL,
            "value" INT NOT NULL,
            "comment" TEXT,
            FOREIGN KEY ("threadId") REFERENCES threads("id") ON DELETE CASCADE
        )
        """,
    )


MIGRATIONS: list[tuple[str, Migration]] = [
    ("m001_core", m001_core),
    ("m002_memories", vectors.m002_memories),
    ("m003_entities", entities.m003_entities),
    ("m004_usage", usage.m004_usage),
    ("m005_queries", queries.m005_queries),
    ("m006_dreams", dreams.m006_dreams),
    ("m007_formation", formation_queue.m007_formation),
    ("m008_documents", documents.m008_documents),
    ("m009_sketches", sketches.m009_sketches),
    ("m010_dream_findings", dreams.m010_dream_findings),
    ("m011_trials", usage.m011_trials),
    ("m012_dream_changes", dreams.m012_dream_changes),
    ("m013_policy_adjustments", usage.m013_policy_adjustments),
    ("m014_entity_apart", entities.m014_entity_apart),
    ("m015_memories_by_date", vectors.m015_memories_by_date),
    ("m016_dream_merges", dreams.m016_dream_merges),
    ("m017_usage_used", usage.m017_usage_used),
    ("m018_leases", leases.m018_leases),
    ("m019_lexeme_counts", vectors.m019_lexeme_counts),
    ("m020_entity_vectors", entity_vectors.m020_entity_vectors),
]

# On PostgreSQL these run instead (memory/db/postgres.py translates the others' DDL): SQLite's
# virtual tables and triggers have no meaning there.
PG_VARIANTS: dict[str, Migration] = {
    "m002_memories": pg_index.m002_memories,
    "m009_sketches": pg_index.m009_sketches,
    "m019_lexeme_counts": pg_index.m019_lexeme_counts,
}
