"""Memory formation: one stored user turn becomes dated memories, entities and relations.

Steps, for one turn:
1. Write-time filter (`prepare`): greetings and filler are dropped; questions are dropped (they
   state nothing, and stay in the episodic log); a sentence that gives the assistant orders
   ("from now on…", "ignore previous…", "you must…") is kept only as a quoted statement,
   `User said: "…"`, a fact with meta `quoted_instruction`, and never reaches the extractor.
2. `plan_turn`: the kept text becomes one `turn` memory; the extractor's facts and triples are
   grounded in the text (memory/formation/patterns.py) and the pattern extractor takes over when the
   model returns nothing usable. Each triple is tied to the fact that states it (a fact is
   written from the triple if none does), so forgetting a fact takes its edges with it.
3. `apply_plan`: exact and near-duplicate facts are skipped (the triple credits the old
   memory instead); entities are upserted, near names reused ("Ana" → "Ana Lima"); relations
   added; a functional predicate's older object is superseded with the turn's date, and so is
   the fact that stated it (history is kept, `superseded_by` links the two).

Idempotent by turn id: the plan is saved before any write (memory/formation/queue.py keeps
it with the job), memories are looked up by `source_turn_id` and content hash, and an entity
or relation already credited to the same memory is not credited again. Rerunning a turn after
a crash at any point finishes it without doubling anything.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from memory.formation.graph_writes import entity, link, user_roles
from memory.formation.grounding import grounded, restates
from memory.formation.patterns import USER, Extraction, Extractor, Triple, extract_patterns, sentences, third_person
from memory.graph.entities import EntityStore
from memory.graph.names import name_key
from memory.models import MemoryRow, TurnRow
from memory.recall.vectors import MemoryIndex, NewMemory, content_hash
from memory.turns import TurnStore

NEAR_DUPLICATE = 0.95
_INSTRUCTION = re.compile(
    r"\b(from now on|ignore (all |any |the |your )?(previous|prior|above|earlier|these|those|my)\b|disregard|"
    r"system prompt|you (must|should|shall|have to|need to|will now|are now|are to)\b|new instructions?|"
    r"forget (all|everything|your|previous)|do not (tell|answer|reply|respond|mention)|"
    r"don't (tell|answer|reply|respond|mention)|pretend (to be|you)|act as\b|respond only|reply only|answer only)",
    re.I,
)
_IMPERATIVE_START = re.compile(r"^\s*(always|never|stop|only) (answer|respond|reply|say|use|talk|speak|write)", re.I)
# A question said without its question mark ("Tell me about my family", "what do I drive"): asked, not told
# ("what time do i see the physio"; not "When I was young I lived in Rome": a question word starts a
# statement too, its subject before the verb; nor "Which is cruel, because I'm coeliac.", a clause going on)
_REQUEST = re.compile(
    r"^\W*(?:(?:can|could|would|will) you\s+)?(?:please\s+)?"
    r"(?:tell me|remind me|show me|give me|list|summari[sz]e|recap"
    r"|(?:what|who|where|when|how)(?:['’]?s\b|(?:\s+(?!i\b|you\b|he\b|she\b|we\b|they\b|it\b)\w+){0,3}?"
    r"\s+(?:do|does|did|is|are|was|were|am|can|should|will|would|many|much|old)\b)"
    r"|(?:do|does|did|can|could|would|will)\s+(?:you|i)\b)",
    re.I,
)
_FILLER = frozenset(
    re.findall(
        r"\S+",
        """hi hello hey yo hiya thanks thank thx ty ok okay k cool great nice lol haha hahaha bye goodbye
        good morning night evening afternoon how are you doing what's whats up sure yes no yeah yep nope hmm hm
        please welcome cheers wow oh ah right fine alright there again much very so well just it is
        that's thats awesome that this helps help helpful got see understand makes sense perfect noted
        interesting exactly indeed true agreed""",
    )
)
_NAME_WORD = re.compile(r"\b[A-ZÀ-Þ][\w'’-]+")
_WORDS = re.compile(r"[0-9A-Za-zÀ-ÿ']+")


class Stores(Protocol):
    """The stores formation writes to (app.runtime.Storage has them all)."""

    engine: Engine
    turns: TurnStore
    memories: MemoryIndex
    entities: EntityStore


@dataclass(frozen=True)
class Prepared:
    """A message after the write-time filter: text worth remembering, quoted instructions."""

    text: str
    quoted: tuple[str, ...] = ()


def is_instruction(sentence: str) -> bool:
    """Whether a sentence gives the assistant orders (stored only as a quotation)."""
    return bool(_INSTRUCTION.search(sentence) or _IMPERATIVE_START.search(sentence))


_GREETED = re.compile(
    r"^\W*(?:(?:hi|hello|hey) there|hiya|heya|hello|hey|hi|good (?:morning|afternoon|evening))[,!.]*\s+(?=\S)",
    re.IGNORECASE,
)


def asks(text: str) -> bool:
    """Whether a text opens by asking, with or without its question mark ("what time do i see the physio")."""
    return _REQUEST.match(text) is not None


def is_request(sentence: str) -> bool:
    """Whether a sentence asks rather than tells, with or without its question mark."""
    return sentence.rstrip().endswith("?") or asks(sentence)


def is_junk(sentence: str) -> bool:
    """Greetings and filler: fewer than two words that are not small talk."""
    words = [w for w in _WORDS.findall(sentence.casefold()) if w not in _FILLER and len(w) > 1]
    return len(words) < 2


def prepare(message: str) -> Prepared:
    """Split a message into what may be remembered and what is only quoted (see module docstring)."""
    kept: list[str] = []
    quoted: list[str] = []
    for sentence in sentences(message):
        if is_instruction(sentence):
            quoted.append(" ".join(sentence.split())[:500])
        elif not is_request(sentence) and not is_junk(sentence):
            kept.append(_GREETED.sub("", sentence))  # "Hi, I'm Sam." is remembered as "I'm Sam."
    return Prepared(" ".join(kept), tuple(quoted))


@dataclass(frozen=True)
class PlannedMemory:
    """A memory the turn will produce."""

    kind: Literal["turn", "fact"]
    content: str
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Plan:
    """Everything one turn will write, decided before any write so a rerun repeats it exactly."""

    memories: tuple[PlannedMemory, ...] = ()
    triples: tuple[tuple[Triple, int], ...] = ()  # the triple, index of the memory that states it
    mentions: tuple[tuple[str, str], ...] = ()
    extractor: str = "none"

    def to_json(self) -> str:
        """The plan as JSON (stored with the queue job)."""
        return json.dumps(
            {
                "memories": [[m.kind, m.content, m.meta] for m in self.memories],
                "triples": [[*t.__dict__.values(), i] for t, i in self.triples],
                "mentions": [list(m) for m in self.mentions],
                "extractor": self.extractor,
            }
        )

    @classmethod
    def from_json(cls, raw: str) -> Plan:
        """The plan `to_json` wrote."""
        data = json.loads(raw)
        return cls(
            tuple(PlannedMemory(k, c, m) for k, c, m in data["memories"]),
            tuple((Triple(*t[:5]), int(t[5])) for t in data["triples"]),
            tuple((n, k) for n, k in data["mentions"]),
            data["extractor"],
        )


@dataclass(frozen=True)
class FormationResult:
    """What forming one turn stored."""

    turn_id: int
    memory_ids: tuple[int, ...] = ()  # every memory the plan maps to (new, existing or duplicate)
    duplicates: int = 0
    relation_ids: tuple[int, ...] = ()
    superseded_memory_ids: tuple[int, ...] = ()
    extractor: str = "none"


def plan_turn(
    message: str, extractor: Extractor | None, when: datetime, roles: Mapping[str, str] | None = None
) -> Plan:
    """Filter, extract (patterns first, the model adds what no pattern read: `_merged`) and tie each triple to its fact.

    Args:
        message: the user's turn as they wrote it.
        extractor: the model extractor; None uses the patterns only.
        when: when the turn was said.
        roles: what each person is to the user, by name key (`formation_graph.user_roles`):
            "Ana moved to Lisbon" is stored as "The user's sister Ana moved to Lisbon", so a
            question about "my sister" finds it.
    """
    prep = prepare(message)
    memories = [PlannedMemory("fact", f'User said: "{q}"', {"quoted_instruction": True}) for q in prep.quoted]
    if not prep.text:
        return Plan(tuple(memories))
    memories.append(PlannedMemory("turn", prep.text, {"role": "user"}))
    turn_index = len(memories) - 1
    patterns = extract_patterns(prep.text)
    found, source = patterns, "patterns"
    if extractor is not None:
        raw = extractor.extract(prep.text, "user", when)
        model = grounded(raw, prep.text) if raw is not None else None
        if model is not None and (model.facts or model.triples):
            found, source = _merged(model, patterns), type(extractor).__name__
    facts = [_with_role(f, roles or {}) for f in found.facts if not is_instruction(f)]
    triples: list[tuple[Triple, int]] = []
    for triple in found.triples:
        index = _stating(facts, triple)
        if index is None:
            facts.append(_fact_of(triple))
            index = len(facts) - 1
        triples.append((triple, turn_index + 1 + index))
    memories += [PlannedMemory("fact", f, {"extractor": source}) for f in facts]
    mentions = found.mentions or patterns.mentions
    return Plan(tuple(memories), tuple(triples), tuple(mentions), source)


def _merged(model: Extraction, patterns: Extraction) -> Extraction:
    """Patterns first, then what the model adds. A pattern reads a sentence exactly or not at all;
    a small model reads "I hate running but I love swimming" as "The user loves running" and
    skips "my sister Ana moved to Porto". So a model fact that restates a sentence the patterns
    read is dropped, and so is a model triple between two ends a pattern triple already links."""
    facts = [*patterns.facts, *(f for f in model.facts if not any(restates(f, p) for p in patterns.facts))]
    linked = {(t.subject.casefold(), t.object.casefold()) for t in patterns.triples}
    extra = tuple(t for t in model.triples if (t.subject.casefold(), t.object.casefold()) not in linked)
    return Extraction(tuple(facts), patterns.triples + extra, model.mentions)


def _with_role(fact: str, roles: Mapping[str, str]) -> str:
    """The fact with the first known person's role to the user put before their name."""
    if "user" in fact.casefold():
        return fact
    for m in _NAME_WORD.finditer(fact):
        role = roles.get(name_key(m.group(0)))
        if role:
            return f"{fact[: m.start()]}{'T' if m.start() == 0 else 't'}he user's {role} {fact[m.start() :]}"
    return fact


def _stating(facts: list[str], triple: Triple) -> int | None:
    """The first fact naming the triple's object and (unless it is the user) its subject."""
    for i, fact in enumerate(facts):
        key = f" {name_key(fact)} "
        names = [n for n in (triple.subject, triple.object) if n != USER]
        if all(f" {name_key(n)} " in key for n in names):
            return i
    return None


def _fact_of(triple: Triple) -> str:
    words = triple.predicate.lower().replace("_", " ")
    if triple.subject == USER and triple.predicate.startswith("HAS_"):
        return f"The user's {words.removeprefix('has ')} is {triple.object}."
    return third_person(f"{'the user' if triple.subject == USER else triple.subject} {words} {triple.object}")


def form_turn(stores: Stores, user_id: int, turn: TurnRow, extractor: Extractor | None) -> FormationResult:
    """Plan and apply one turn in one go (the queue saves the plan in between; see formation_queue)."""
    plan = plan_turn(turn.content, extractor, turn.created_at, user_roles(stores.engine, user_id))
    return apply_plan(stores, user_id, turn, plan)


def apply_plan(stores: Stores, user_id: int, turn: TurnRow, plan: Plan) -> FormationResult:
    """Write a plan's memories, entities and relations; safe to rerun (module docstring)."""
    assert turn.id is not None
    with stores.entities.writing():  # one turn at the graph for the whole plan
        return _apply(stores, user_id, turn, plan)


def _apply(stores: Stores, user_id: int, turn: TurnRow, plan: Plan) -> FormationResult:
    assert turn.id is not None
    ids, duplicates = _store_memories(stores, user_id, turn, plan)
    relation_ids: list[int] = []
    superseded: list[int] = []
    seen: dict[str, int] = {}  # who each name meant earlier in this turn: "My colleague Ana… Ana's at Globex"
    employers = {name_key(t.subject): t.object for t, _ in plan.triples if t.predicate == "WORKS_AT"}
    # who the person says someone is goes first, whatever order the extractor gave: "my sister Ana lives in
    # Lyon" must find the sister Ana before "Ana LIVES_IN Lyon" picks the most recent Ana (a colleague)
    for triple, index in sorted(
        plan.triples, key=lambda t: not (t[0].subject == USER and t[0].predicate.startswith("HAS_"))
    ):
        rel_id, gone = link(stores, user_id, triple, ids[index], turn.id, turn.created_at, seen, employers)
        relation_ids.append(rel_id)
        superseded += gone
    turn_memory = next((ids[i] for i, m in enumerate(plan.memories) if m.kind == "turn"), None)
    for name, kind in plan.mentions:
        if turn_memory is not None:
            entity(stores, user_id, name, kind, turn_memory, seen=seen)
    return FormationResult(turn.id, tuple(ids), duplicates, tuple(relation_ids), tuple(superseded), plan.extractor)


def _store_memories(stores: Stores, user_id: int, turn: TurnRow, plan: Plan) -> tuple[list[int], int]:
    """Memory ids for the plan: this turn's rows if a previous run stored them, else duplicates, else new."""
    with Session(stores.engine) as s:
        query = select(MemoryRow).where(MemoryRow.user_id == user_id, MemoryRow.source_turn_id == turn.id)
        mine = {r.content_hash: r.id for r in s.exec(query) if r.id is not None}
    ids: list[int | None] = []
    todo: list[NewMemory] = []
    duplicates = 0
    for pm in plan.memories:
        found = mine.get(content_hash(pm.content)) or _duplicate(stores.memories, user_id, pm)
        duplicates += found is not None and content_hash(pm.content) not in mine
        ids.append(found)
        if found is None:
            meta = pm.meta | {"formed_from": "turn"}
            todo.append(NewMemory(pm.kind, pm.content, turn.created_at, turn.thread_id, turn.id, None, meta))
    added = iter(r.id for r in stores.memories.add_many(user_id, todo)) if todo else iter(())
    out = [i if i is not None else next(added) for i in ids]
    _stamp(stores.engine, user_id, turn)
    assert all(i is not None for i in out)
    return [int(i or 0) for i in out], duplicates


def _duplicate(memories: MemoryIndex, user_id: int, pm: PlannedMemory) -> int | None:
    """An active memory saying the same: exact text, or (facts only) cosine ≥ 0.95 naming the same things."""
    near = NEAR_DUPLICATE if pm.kind == "fact" and "quoted_instruction" not in pm.meta else 1.01
    row = memories.find_duplicate(user_id, pm.content, near)
    if row is None or (row.content_hash != content_hash(pm.content) and _salient(row.content) != _salient(pm.content)):
        return None  # "lives in Porto" and "lives in Lisbon" embed close; the names tell them apart
    return row.id


def _salient(content: str) -> set[str]:
    return {w for w in re.findall(r"\b(?:[A-ZÀ-Þ][\w'’-]+|\d+)", content) if w not in ("The", "User")}


def _stamp(engine: Engine, user_id: int, turn: TurnRow) -> None:
    """Facts hold from the moment they were said (`valid_from` = the turn's time)."""
    with Session(engine) as s:
        query = select(MemoryRow).where(
            MemoryRow.user_id == user_id, MemoryRow.source_turn_id == turn.id, col(MemoryRow.valid_from).is_(None)
        )
        for row in s.exec(query.where(MemoryRow.kind == "fact")):
            row.valid_from = turn.created_at
            s.add(row)
        s.commit()


__all__ = ["Extraction", "Extractor", "FormationResult", "Plan", "Stores", "apply_plan", "form_turn", "plan_turn"]
