"""Memory consolidation: merge duplicates, archive stale low-value memories, summarise long threads.

Planning reads only. The memory status changes go into the dream's single commit; entity
merges and new session summaries run after it, each atomic on its own and safe to redo
(the next plan finds only what is still to do), so a crash never leaves half a merge.
Nothing is deleted: duplicates become `superseded`, stale ones `archived`.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta

from capabilities.situation import STOP, stem, word_set, words
from memory.dreams import DreamStore, EntityMerge, MemoryChange
from memory.graph.entities import EntityNotFound, EntityStore
from memory.graph.names import name_key
from memory.models import EntityRow, MemoryRow, TurnRow
from memory.recall.vectors import MemoryIndex, NewMemory
from memory.turns import TurnStore

LONG_THREAD_TURNS = 20
MIN_SESSION_TURNS = 2
STALE_DAYS = 90
SHORT_WORDS = 6  # "thanks!", "ok see you": a raw turn this short carries nothing worth recalling
MAX_MEMORIES = 5000
_SENTENCE = re.compile(r"(?<=[.!?])\s")


def aware(value: datetime) -> datetime:
    """SQLite hands datetimes back naive; they were stored as UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


@dataclass
class ConsolidationPlan:
    """What one dream will change in memory."""

    changes: list[MemoryChange] = field(default_factory=list[MemoryChange])
    merges: list[tuple[int, int, int]] = field(default_factory=list[tuple[int, int, int]])  # user, keep, drop
    summaries: list[tuple[int, NewMemory]] = field(default_factory=list[tuple[int, NewMemory]])

    def counts(self) -> dict[str, int]:
        """Planned counts by kind of change."""
        return {
            "duplicate_memories": sum(1 for c in self.changes if c.status == "superseded"),
            "archived_memories": sum(1 for c in self.changes if c.status == "archived"),
            "merged_entities": len(self.merges),
            "session_summaries": len(self.summaries),
        }


def _summary_keys(rows: Sequence[MemoryRow]) -> set[tuple[str, str]]:
    keys: set[tuple[str, str]] = set()
    for row in rows:
        try:
            meta = json.loads(row.meta or "{}")
        except ValueError:
            continue
        if isinstance(meta, dict) and meta.get("source") == "dream":
            keys.add((str(meta.get("thread_id")), str(meta.get("date"))))
    return keys


def duplicate_changes(user_id: int, active: Sequence[MemoryRow]) -> list[MemoryChange]:
    """Same text (case and spacing aside) stored twice: the oldest stays, the others are superseded."""
    by_hash: dict[str, list[MemoryRow]] = defaultdict(list)
    for row in active:
        by_hash[row.content_hash].append(row)
    changes: list[MemoryChange] = []
    for rows in by_hash.values():
        keep, *dupes = sorted(rows, key=lambda r: r.id or 0)
        changes += [MemoryChange(user_id, d.id, "superseded", keep.id) for d in dupes if d.id is not None]
    return changes


_NEGATIONS = word_set("not no never nor don't doesn't didn't isn't wasn't aren't won't can't cannot")
_FILLERS = word_set("btw lol tbh haha actually really just oh ok okay anyway honestly basically literally")
MIN_KEY_WORDS = 3  # "ok thanks" and "yes" repeat by nature: no near-duplicate from fewer content words


def near_key(content: str) -> tuple[str, ...]:
    """The content words of a text in order, as stems: what two near-duplicates share whatever their
    fillers, case and punctuation ("My sister Ana lives in Lisbon." / "my sister ana lives in lisbon
    btw"). Negations count ("I don't like olives" is no duplicate of "I like olives")."""
    return tuple(stem(w) for w in words(content) if (w not in STOP or w in _NEGATIONS) and w not in _FILLERS)


def near_duplicate_changes(user_id: int, active: Sequence[MemoryRow]) -> list[MemoryChange]:
    """The same content words in the same order, stored twice (of one kind): the oldest stays, the
    others are superseded by it. A correction says another word ("moved to Porto"), so it stays."""
    groups: dict[tuple[str, tuple[str, ...]], list[MemoryRow]] = defaultdict(list)
    for row in active:
        key = near_key(row.content)
        if len(key) >= MIN_KEY_WORDS:
            groups[(row.kind, key)].append(row)
    changes: list[MemoryChange] = []
    for rows in groups.values():
        keep, *dupes = sorted(rows, key=lambda r: r.id or 0)
        changes += [MemoryChange(user_id, d.id, "superseded", keep.id) for d in dupes if d.id is not None]
    return changes


def stale_changes(
    user_id: int, active: Sequence[MemoryRow], now: datetime, stale_days: int, named: Collection[int] = ()
) -> list[MemoryChange]:
    """Small talk older than `stale_days`: a raw turn of fewer than SHORT_WORDS words from which no
    entity was drawn (`named`: "Biscuit's our beagle." stays). A turn a session summary also says is
    kept: the summary is one long memory that recalls it worse (on a synthetic month of chat, archiving
    those turns took recall from 37 to 33 of 57; bench/consolidation_month.py)."""
    cutoff = now - timedelta(days=stale_days)
    return [
        MemoryChange(user_id, row.id, "archived")
        for row in active
        if row.kind == "turn" and row.id is not None and aware(row.created_at) < cutoff
        and len(row.content.split()) < SHORT_WORDS and row.id not in named
    ]  # fmt: skip


def entity_merges(
    user_id: int, entities: Sequence[EntityRow], apart: Collection[tuple[int, int]] = ()
) -> list[tuple[int, int, int]]:
    """Active entities with the same name key and domain and compatible types (equal, or one a Concept),
    never two known to be two (`EntityStore.apart`: the sister Ana and the colleague Ana; a split)."""
    groups: dict[tuple[str, str], list[EntityRow]] = defaultdict(list)
    for row in entities:
        groups[(name_key(row.name), row.domain)].append(row)
    two = {frozenset(pair) for pair in apart}
    merges: list[tuple[int, int, int]] = []
    for rows in groups.values():
        rows.sort(key=lambda r: (-r.mention_count, r.id or 0))
        kept: list[tuple[EntityRow, set[int]]] = []  # each survivor and who is merged into it
        for drop in rows:
            home = next(
                (
                    (keep, members)
                    for keep, members in kept
                    if (drop.type == keep.type or "Concept" in (drop.type, keep.type))
                    and not any(frozenset((m, drop.id)) in two for m in members)
                ),
                None,
            )
            if home is None or home[0].id is None or drop.id is None:
                kept.append((drop, {drop.id or 0}))
                continue
            home[1].add(drop.id)
            merges.append((user_id, home[0].id, drop.id))
    return merges


def session_summary(thread_id: str, day: date, turns: Sequence[TurnRow]) -> str:
    """An extractive summary of one day of a thread: the first sentence of each user message."""
    asked = [_SENTENCE.split(t.content.strip(), maxsplit=1)[0][:100] for t in turns if t.role == "user"]
    said = [_SENTENCE.split(t.content.strip(), maxsplit=1)[0][:80] for t in turns if t.role == "assistant"]
    text = f"Session summary for {day.isoformat()} ({len(turns)} messages): the user talked about "
    text += "; ".join(asked[:8]) or "nothing in particular"
    if said:
        text += ". The assistant covered: " + "; ".join(said[:4])
    return text[:1200]


def summaries(
    user_id: int, turns_store: TurnStore, thread_ids: Sequence[str], summarised: set[tuple[str, str]], today: date
) -> list[tuple[int, NewMemory]]:
    """Dated session summaries for long threads, one per past day not yet summarised."""
    planned: list[tuple[int, NewMemory]] = []
    for thread_id in thread_ids:
        turns = turns_store.recent(user_id, thread_id, 100_000)
        if len(turns) < LONG_THREAD_TURNS:
            continue
        by_day: dict[date, list[TurnRow]] = defaultdict(list)
        for turn in turns:
            by_day[aware(turn.created_at).date()].append(turn)
        for day, rows in sorted(by_day.items()):
            # Today's session may still be going on: it is summarised by the next dream.
            if day >= today or len(rows) < MIN_SESSION_TURNS or (thread_id, day.isoformat()) in summarised:
                continue
            meta = {"source": "dream", "thread_id": thread_id, "date": day.isoformat(),
                    "turn_ids": [rows[0].id, rows[-1].id]}  # fmt: skip
            when = datetime.combine(day, datetime.min.time(), UTC)
            memory = NewMemory("summary", session_summary(thread_id, day, rows), when, thread_id, meta=meta)
            planned.append((user_id, memory))
    return planned


def plan(
    entities: EntityStore, memories: MemoryIndex, turns: TurnStore, user_ids: Sequence[int], now: datetime,
    stale_days: int = STALE_DAYS, undone: Collection[int] = (),
) -> ConsolidationPlan:  # fmt: skip
    """Read everything and decide what to change; writes nothing. A memory in `undone` (a dream's change
    to it was undone: `DreamStore.undone_memories`) is never changed again."""
    result = ConsolidationPlan()
    for user_id in user_ids:
        active = memories.list(user_id, status="active", limit=MAX_MEMORIES)
        summary_rows = memories.list(user_id, kinds=["summary"], status=None, limit=MAX_MEMORIES)
        summarised = _summary_keys(summary_rows)
        dupes = duplicate_changes(user_id, active)
        gone = {c.memory_id for c in dupes}
        near = near_duplicate_changes(user_id, [r for r in active if r.id not in gone])
        dupes += near
        gone |= {c.memory_id for c in near}
        fresh = [r for r in active if r.id not in gone]
        stale = stale_changes(user_id, fresh, now, stale_days, entities.sources(user_id))
        result.changes += [c for c in dupes + stale if c.memory_id not in undone]
        result.merges += entity_merges(user_id, entities.active(user_id), entities.apart(user_id))
        result.summaries += summaries(user_id, turns, turns.threads(user_id), summarised, now.date())
    return result


def apply_after_commit(
    plan: ConsolidationPlan, memories: MemoryIndex, entities: EntityStore, run_id: int = 0,
    dreams: DreamStore | None = None,
) -> dict[str, int]:  # fmt: skip
    """Entity merges and new session summaries (each its own transaction; a merge recorded in `dreams`
    with what the dropped entity brought, a summary marked with the run that wrote it, so `reverie
    dream undo` can take the one apart and archive the other); returns what was done."""
    merged = 0
    for user_id, keep, drop in plan.merges:
        dropped = entities.get(user_id, drop)
        if dropped is None:
            continue
        # a relation between the two is deleted by the merge: only the dropped one's own can come back
        own = [r.id for r in entities.links(user_id, drop) if r.id and keep not in (r.subject_id, r.object_id)]
        brought = EntityMerge(user_id, keep, drop, dropped.name, tuple(dropped.aliases), tuple(own),
                              tuple(entities.source_memories(user_id, drop)))  # fmt: skip
        try:
            entities.merge(user_id, keep, drop)
            merged += 1
        except EntityNotFound:  # merged or deleted since planning: nothing left to do
            continue
        if dreams is not None:
            dreams.record_merge(run_id, brought)
    by_user: dict[int, list[NewMemory]] = defaultdict(list)
    for user_id, memory in plan.summaries:
        by_user[user_id].append(replace(memory, meta={**(memory.meta or {}), "run_id": run_id}))
    written = sum(len(memories.add_many(user_id, items)) for user_id, items in by_user.items())
    return {**plan.counts(), "merged_entities": merged, "session_summaries": written}


def undo(dreams: DreamStore, entities: EntityStore, run_id: int, by: str) -> tuple[int, int]:
    """Undo one dream's tidy-up: its entity merges taken apart again (`EntityStore.split` of what each
    dropped entity brought and its keeper still holds: a new entity of that name, kept apart so no
    dream merges them again), then its memory changes (`DreamStore.undo`). Returns (memory changes,
    merges) undone."""
    merges = 0
    for merge in dreams.merges(run_id):
        keeper = entities.get(merge.user_id, merge.keep_id)
        if keeper is None or keeper.status != "active":
            continue
        names = {name_key(a) for a in keeper.aliases}
        held = set(entities.source_memories(merge.user_id, merge.keep_id))
        relations = [r.id for r in entities.links(merge.user_id, merge.keep_id) if r.id in merge.relation_ids]
        aliases = [a for a in merge.aliases if name_key(a) in names]
        memory_ids = [m for m in merge.memory_ids if m in held]
        if not (relations or aliases or memory_ids):
            continue  # nothing it brought is left to take back
        split = entities.split(merge.user_id, merge.keep_id, relation_ids=[r for r in relations if r is not None],
                               aliases=aliases, memory_ids=memory_ids, name=merge.name)  # fmt: skip
        dreams.merge_undone(merge.id or 0, split.id)
        merges += 1
    return dreams.undo(run_id, by, merges), merges
