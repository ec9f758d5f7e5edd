"""SQLModel table rows. Tables are created by named migrations (memory/db/migrations.py), not here.

A `table=True` model does not validate on `__init__`: build rows with `Row.model_validate(...)`.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    """Aware UTC now: SQLModel stores aware datetimes (and refuses naive ones)."""
    return datetime.now(UTC)


class AccountRow(SQLModel, table=True):
    """A person who can log in; every stored thing is scoped by this id."""

    __tablename__ = "accounts"  # pyright: ignore[reportAssignmentType]
    id: int | None = Field(default=None, primary_key=True)
    name: str
    password_hash: str
    created_at: datetime


class TurnRow(SQLModel, table=True):
    """One message of a conversation, as the episodic memory keeps it."""

    __tablename__ = "turns"  # pyright: ignore[reportAssignmentType]
    id: int | None = Field(default=None, primary_key=True)
    user_id: int
    thread_id: str
    role: str
    content: str
    created_at: datetime
    tokens: int


class MemoryRow(SQLModel, table=True):
    """One semantic memory (a turn, fact, document chunk or summary) with its vector elsewhere.

    The embedding lives in the `memory_vec` vec0 table and the text is indexed by the
    `memory_fts` FTS5 table, both keyed by this id (memory/recall/vectors.py keeps them in step).
    """

    __tablename__ = "memories"  # pyright: ignore[reportAssignmentType]
    id: int | None = Field(default=None, primary_key=True)
    user_id: int
    kind: str
    content: str
    created_at: datetime
    thread_id: str | None = None
    source_turn_id: int | None = None
    document_id: int | None = None
    status: str = "active"
    superseded_by: int | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    content_hash: str
    meta: str | None = None
    sketch: bytes | None = None  # sign bits of the embedding (memory/recall/sketches.py)


# -- knowledge graph records (memory/graph/entities.py owns their DDL and writes) -------------------
from sqlmodel import JSON  # noqa: E402  (appended section: keeps the shared header untouched)


class EntityRow(SQLModel, table=True):
    """A person, place, thing or idea the user talks about; a node of the knowledge graph.

    `type` is one of memory.graph.names.ENTITY_TYPES; `domain` is 'personal' or 'doc:<id>';
    a merged entity keeps its row (`status='merged'`, `merged_into` the survivor).
    """

    __tablename__ = "entities"  # pyright: ignore[reportAssignmentType]
    id: int | None = Field(default=None, primary_key=True)
    user_id: int
    name: str
    type: str
    aliases: list[str] = Field(default_factory=list, sa_type=JSON)
    summary: str | None = None
    mention_count: int = 1
    domain: str = "personal"
    created_at: datetime
    updated_at: datetime
    status: str = "active"
    merged_into: int | None = None


class RelationRow(SQLModel, table=True):
    """A (subject, PREDICATE, object) triple; `valid_to` set means superseded, kept as history."""

    __tablename__ = "relations"  # pyright: ignore[reportAssignmentType]
    id: int | None = Field(default=None, primary_key=True)
    user_id: int
    subject_id: int
    predicate: str
    object_id: int
    weight: float = 1.0
    source_turn_id: int | None = None
    source_memory_id: int | None = None
    document_id: int | None = None
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    created_at: datetime


class UsageRow(SQLModel, table=True):
    """One turn of the resource-usage log (JSON columns are text; see memory/usage.py)."""

    __tablename__ = "usage_log"  # pyright: ignore[reportAssignmentType]
    id: int | None = Field(default=None, primary_key=True)
    user_id: int
    thread_id: str
    turn_id: int | None = None
    created_at: datetime
    message_excerpt: str = ""
    request: str
    clamped: str = "[]"
    defaulted: str = "[]"
    reason: str = ""
    request_ms: float | None = None
    retrieval_ms: float | None = None
    generation_ms: float | None = None
    formation_ms: float | None = None
    rss_mb: float | None = None
    context_tokens: int | None = None
    followup_signal: str | None = None
    followed_by_signal: str | None = None
    limits: str = "{}"
    report: str = ""
    telemetry: str = "{}"
    used: str | None = None  # the refs the answer cited, JSON (m017; None: not recorded)


class LimitOverrideRow(SQLModel, table=True):
    """An approved change of one dimension's range (from a dream proposal or by hand).

    A change named `policy:<kind>` is instead an approved adjustment of the request policy: that
    kind of message asks for more (`capabilities.request_policy.MORE`) while it is in force. It
    changes no range, and shares the trial, the revert, the history and the notices of the others.
    """

    __tablename__ = "limit_overrides"  # pyright: ignore[reportAssignmentType]
    id: int | None = Field(default=None, primary_key=True)
    dimension: str
    min_value: float | None = None
    max_value: float | None = None
    default_value: float | None = None
    proposal_id: int | None = None
    reason: str = ""
    created_at: datetime
    revoked_at: datetime | None = None
    trial_until: datetime | None = None  # an approved proposal's trial: the dreams watch it until then
    trial_outcome: str = ""  # "" while on trial (or never on one), "kept" or "reverted"
    ended_by: str = ""  # who ended it: the account's name, "cli", or "dream"
    end_reason: str = ""


# -- dreaming records (memory/dreams.py owns their DDL) ---------------------------------------


class DreamRunRow(SQLModel, table=True):
    """One nightly dream: `running` → `committed` (proposals written) → `completed`, or `failed`."""

    __tablename__ = "dream_runs"  # pyright: ignore[reportAssignmentType]
    id: int | None = Field(default=None, primary_key=True)
    started_at: datetime
    finished_at: datetime | None = None
    status: str = "running"
    trigger: str = "schedule"
    analyzed_from: datetime | None = None
    analyzed_until: datetime | None = None
    usage_rows: int = 0
    proposals_created: int = 0
    consolidation: str = "{}"
    error: str | None = None
    findings: str = "[]"  # JSON list of plain sentences: what the dream found, why it proposed nothing


class ProposalRow(SQLModel, table=True):
    """A proposed change of one bound of one dimension, with its evidence and measured simulation.

    `evidence`, `simulation` and `alternative` are JSON text; `evidence_count` (clamped turns in
    the direction of the change) decides whether a rejected proposal may come back.

    A proposal about the request policy (`dreaming.policy`) has `dimension` `policy:<kind>`, bound
    `default` (it changes what that kind asks for, not a range), values 0 → 1 (steps of asking
    for more), and `evidence_count` the kind's turns followed by a missing-context signal.
    """

    __tablename__ = "proposals"  # pyright: ignore[reportAssignmentType]
    id: int | None = Field(default=None, primary_key=True)
    run_id: int | None = None
    created_at: datetime
    dimension: str
    bound: str
    current_value: float
    proposed_value: float
    status: str = "pending"
    rationale: str
    evidence: str = "{}"
    evidence_count: int = 0
    simulation: str = "{}"
    risk: str = "LOW"
    alternative: str = "{}"
    trial: str = ""
    decided_at: datetime | None = None


class ProposalDecisionRow(SQLModel, table=True):
    """One decision on a proposal (approve, reject, supersede), kept forever as history."""

    __tablename__ = "proposal_decisions"  # pyright: ignore[reportAssignmentType]
    id: int | None = Field(default=None, primary_key=True)
    proposal_id: int
    decision: str
    reason: str
    decided_by: str = ""
    override_id: int | None = None
    created_at: datetime


class ReminderRow(SQLModel, table=True):
    """Something the user asked to be reminded of, and when to follow up in its thread."""

    __tablename__ = "reminders"  # pyright: ignore[reportAssignmentType]
    id: int | None = Field(default=None, primary_key=True)
    user_id: int
    thread_id: str
    text: str
    created_at: datetime
    due_at: datetime
    interval_source: str = "failsafe"
    status: str = "pending"
    sent_at: datetime | None = None


# -- documents (issue 7; memory/documents/store.py owns their DDL and writes) -----------------------


class DocumentRow(SQLModel, table=True):
    """An ingested (or ingesting) document; its graph lives in domain `doc:<id>`.

    `status` is 'ingesting' (also: interrupted, resumable), 'done' or 'failed' (resumable);
    `chunks_done` and `relations_done` are the resume watermarks of the two passes.
    """

    __tablename__ = "documents"  # pyright: ignore[reportAssignmentType]
    id: int | None = Field(default=None, primary_key=True)
    user_id: int
    name: str
    content_hash: str
    size_bytes: int = 0
    status: str = "ingesting"
    extractor: str = ""
    chunks_total: int = 0
    chunks_done: int = 0
    relations_done: int = 0
    entities: int = 0
    relations: int = 0
    created_at: datetime
    finished_at: datetime | None = None
    error: str | None = None


class DocumentChunkRow(SQLModel, table=True):
    """One stored chunk of a document: its memory, position, and the staged extraction results."""

    __tablename__ = "document_chunks"  # pyright: ignore[reportAssignmentType]
    document_id: int = Field(primary_key=True)
    seq: int = Field(primary_key=True)
    memory_id: int
    start: int
    fresh_from: int = 0
    mentions: str = "[]"
    triples: str | None = None


class QueryRow(SQLModel, table=True):
    """One user question through the answer loop (memory/queries.py owns its DDL and transitions).

    `status` goes pending → processing → completed | failed; `choices` is JSON: for each
    ambiguous name, the candidate entity ids and the ones the model chose.
    """

    __tablename__ = "queries"  # pyright: ignore[reportAssignmentType]
    id: int | None = Field(default=None, primary_key=True)
    user_id: int
    thread_id: str | None = None
    turn_id: int | None = None
    text: str
    status: str = "pending"
    max_info_requests: int = 3
    initial_context_size: int = 1200
    include_relationships: bool = True
    temperature: float = 0.0
    info_requests: int = 0
    confidence: str | None = None
    forced: bool = False
    choices: str = "{}"
    error: str | None = None
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
