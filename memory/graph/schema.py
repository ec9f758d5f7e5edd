"""DDL of the knowledge graph's SQLite tables (migration `m003_entities`).

`entity_keys` indexes the dedupe key of every name and alias so lookups never scan JSON;
`entity_sources`/`relation_sources` hold per-memory provenance (memory id 0: not from a
memory) for the forget rule in memory/graph/entities.py. Foreign keys cascade, so deleting an
entity takes its keys, provenance and relations with it.
"""

from __future__ import annotations

from sqlalchemy import Connection, text

_DDL = """
CREATE TABLE entities (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    type TEXT NOT NULL
        CHECK (type IN ('Person', 'Organization', 'Location', 'Product', 'Concept', 'Event', 'Role')),
    aliases TEXT NOT NULL DEFAULT '[]',
    summary TEXT,
    mention_count INTEGER NOT NULL DEFAULT 1,
    domain TEXT NOT NULL DEFAULT 'personal',
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'merged')),
    merged_into INTEGER REFERENCES entities(id) ON DELETE SET NULL
);
CREATE INDEX ix_entities_user_status_type ON entities (user_id, status, type);
CREATE INDEX ix_entities_user_domain ON entities (user_id, domain);
CREATE TABLE entity_keys (
    entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    user_id INTEGER NOT NULL,
    key TEXT NOT NULL,
    PRIMARY KEY (entity_id, key)
);
CREATE INDEX ix_entity_keys_user_key ON entity_keys (user_id, key);
CREATE TABLE relations (
    id INTEGER PRIMARY KEY,
    user_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    subject_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    predicate TEXT NOT NULL,
    object_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    weight REAL NOT NULL DEFAULT 1.0,
    source_turn_id INTEGER,
    source_memory_id INTEGER,
    document_id INTEGER,
    valid_from TEXT,
    valid_to TEXT,
    created_at TEXT NOT NULL
);
CREATE INDEX ix_relations_subject ON relations (user_id, subject_id, predicate);
CREATE INDEX ix_relations_object ON relations (user_id, object_id);
CREATE INDEX ix_relations_memory ON relations (user_id, source_memory_id);
CREATE TABLE entity_sources (
    entity_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    memory_id INTEGER NOT NULL,
    amount REAL NOT NULL,
    PRIMARY KEY (entity_id, memory_id)
);
CREATE INDEX ix_entity_sources_memory ON entity_sources (memory_id);
CREATE TABLE relation_sources (
    relation_id INTEGER NOT NULL REFERENCES relations(id) ON DELETE CASCADE,
    memory_id INTEGER NOT NULL,
    amount REAL NOT NULL,
    PRIMARY KEY (relation_id, memory_id)
);
CREATE INDEX ix_relation_sources_memory ON relation_sources (memory_id)
"""


def m003_entities(conn: Connection) -> None:
    """Entities, relations, their lookup keys and per-memory provenance."""
    for statement in _DDL.split(";"):
        if statement.strip():
            conn.execute(text(statement))


_APART = """
CREATE TABLE entity_apart (
    user_id INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    a_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    b_id INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
    reason TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (a_id, b_id),
    CHECK (a_id < b_id)
)
"""


def m014_entity_apart(conn: Connection) -> None:
    """Pairs of same-named entities known to be two (formation read different roles, or the person
    split one): name lookups offer both, and nothing merges them but the person."""
    conn.execute(text(_APART))
