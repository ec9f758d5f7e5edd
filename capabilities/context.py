"""The answer loop's two-level context: entities as one-line summaries, or expanded in full.

Built once from memory/'s `AssembledContext`, then grown by info requests through `merge`.
A summary is (id, name, type, one line); an expanded entity adds aliases, properties,
relationships and the memories it came from. The context knows which entity ids can still be
expanded (in context as a summary only) — the info capabilities turn exactly those sets into
the enums of the schema the model sees. Same-named entities ("Ana" the sister, "Ana" the
colleague) are kept side by side as an ambiguity group for the model to choose from.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from memory.assembly import (
    RELATED_HEAD,
    RELATED_MEMORIES,
    RELATED_SHOWN,
    AssembledContext,
    Skip,
    escape_delimiters,
    unloaded_line,
)
from memory.attention import shown_summary
from memory.graph.entities import EntityStore
from memory.graph.names import name_key
from memory.models import EntityRow
from memory.recall.vectors import MemoryIndex
from memory.tokens import estimate_tokens

SUMMARY_CHARS = 120
MAX_DETAIL_RELATIONS = 12
MAX_DETAIL_MEMORIES = 3
# An entity left out for these reasons can still be expanded; one outside the focus cannot (the
# person chose the focus) and a superseded relation is no longer true.
_LOADABLE = (Skip.BUDGET, Skip.RELEVANCE, Skip.DEPTH)


@dataclass(frozen=True)
class MemoryNote:
    """A memory's text as loaded into context."""

    id: int
    text: str


@dataclass(frozen=True)
class EntitySummary:
    """An entity at summary level."""

    id: int
    name: str
    type: str
    summary: str = ""
    aliases: tuple[str, ...] = ()  # said only where two share a name ("also called sister")

    def line(self) -> str:
        """`[e4] Ana (Person): my sister`."""
        about = f": {self.summary}" if self.summary else ""
        return f"[e{self.id}] {self.name} ({self.type}){about}"


@dataclass(frozen=True)
class RelationFact:
    """A current relation between two entities, already rendered."""

    id: int
    subject_id: int
    predicate: str
    object_id: int
    text: str


@dataclass(frozen=True)
class EntityDetail:
    """An entity in full: the summary plus aliases, properties, relationships and source memories."""

    entity: EntitySummary
    aliases: tuple[str, ...] = ()
    properties: tuple[tuple[str, str], ...] = ()
    relations: tuple[RelationFact, ...] = ()
    memories: tuple[MemoryNote, ...] = ()

    def lines(self) -> list[str]:
        """The entity's lines in the context block."""
        out = [f"- {self.entity.line()}"]
        if self.aliases:
            out.append(f"  aliases: {', '.join(self.aliases)}")
        if self.properties:
            out.append("  properties: " + ", ".join(f"{k}={v}" for k, v in self.properties))
        out += [f"  relation [r{r.id}] {r.text}" for r in self.relations]
        out += [f"  source memory [m{m.id}] {m.text}" for m in self.memories]
        return out


@dataclass
class ContextDelta:
    """What one info request adds to the context."""

    memories: list[MemoryNote] = field(default_factory=list)
    summaries: list[EntitySummary] = field(default_factory=list)
    details: list[EntityDetail] = field(default_factory=list)
    relations: list[RelationFact] = field(default_factory=list)
    ambiguous: dict[str, tuple[int, ...]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ContextStats:
    """Size of the context: counts and an estimate of its tokens."""

    entities: int
    expanded: int
    relationships: int
    memories: int
    tokens: int


def summarize(row: EntityRow) -> EntitySummary:
    """An entity row at summary level (first line of its summary, at most 120 characters)."""
    assert row.id is not None
    text = (row.summary or "").strip().splitlines()[0] if (row.summary or "").strip() else ""
    return EntitySummary(row.id, row.name, row.type, text[:SUMMARY_CHARS], tuple(row.aliases[:3]))


def entity_detail(entities: EntityStore, memories: MemoryIndex, user_id: int, entity_id: int) -> EntityDetail | None:
    """One entity in full, from the stores; None if it is not one of this user's active entities.

    Source memories are those its current relations were extracted from (their provenance).
    """
    row = entities.get(user_id, entity_id)
    if row is None or row.status != "active":
        return None
    sub = entities.relationships(user_id, entity_id, "both")
    names = {n.id: n.name for n in sub.nodes}
    relations = tuple(
        RelationFact(e.relation_id, e.subject_id, e.predicate, e.object_id,
                     f"{names.get(e.subject_id, '?')} {e.predicate} {names.get(e.object_id, '?')}")
        for e in sub.edges[:MAX_DETAIL_RELATIONS]
    )  # fmt: skip
    provenance = [r.source_memory_id for r in entities.current_relations(user_id, entity_id)]
    for other in {r.subject_id for r in relations} - {entity_id}:
        incoming = entities.current_relations(user_id, other)
        provenance += [r.source_memory_id for r in incoming if r.object_id == entity_id]
    ids = list(dict.fromkeys(i for i in provenance if i))[:MAX_DETAIL_MEMORIES]
    found = memories.by_ids(user_id, ids)
    properties = (
        ("domain", row.domain),
        ("mentions", str(row.mention_count)),
        ("first_seen", f"{row.created_at:%Y-%m-%d}"),
        ("updated", f"{row.updated_at:%Y-%m-%d}"),
    )
    notes = tuple(MemoryNote(i, found[i].content) for i in ids if i in found)
    return EntityDetail(summarize(row), tuple(row.aliases), properties, relations, notes)


@dataclass
class TwoLevelContext:
    """Everything the model can see this round, keyed by id; grown with `merge`."""

    memories: dict[int, MemoryNote] = field(default_factory=dict)
    summaries: dict[int, EntitySummary] = field(default_factory=dict)
    details: dict[int, EntityDetail] = field(default_factory=dict)
    relations: dict[int, RelationFact] = field(default_factory=dict)
    ambiguous: dict[str, tuple[int, ...]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    related: list[str] = field(default_factory=list)  # "Lucy [e12] (token budget)": what assembly left out
    loadable: set[int] = field(default_factory=set)  # entities left out that EXPAND_ENTITY may still load
    recommendations: list[str] = field(default_factory=list)

    @classmethod
    def from_assembled(cls, ctx: AssembledContext, include_relationships: bool = True) -> TwoLevelContext:
        """The loaded part of an assembled context; every entity starts at summary level."""
        out = cls()
        edges = {e.relation_id: e for e in ctx.subgraph.edges}
        delta = ContextDelta()
        for item in ctx.loaded:
            number = int(item.ref[1:])
            text = item.full if item.level == "full" else item.summary
            if item.ref.startswith("m"):
                delta.memories.append(MemoryNote(number, text))
            elif item.ref.startswith("e") and number in ctx.entities:
                row = ctx.entities[number]  # shown as packed: the budget counted it so
                brief = summarize(row)
                shown = item.level == "full" and bool(shown_summary(row))
                delta.summaries.append(brief if shown else replace(brief, summary=""))
            elif item.ref.startswith("r") and include_relationships and number in edges:
                e = edges[number]
                delta.relations.append(RelationFact(number, e.subject_id, e.predicate, e.object_id, text))
        out.merge(delta)
        out.related = [unloaded_line(i) for i in ctx.best_unloaded(ctx.related_shown)]
        unloaded = ctx.best_unloaded(RELATED_SHOWN)  # expandable whether or not the line names them
        out.loadable = {int(i.ref[1:]) for i in unloaded if i.kind == "entity" and i.skip in _LOADABLE}
        out.recommendations = ctx.recommendations() if ctx.related_shown else []
        return out

    @property
    def entity_ids(self) -> list[int]:
        """Every entity in context, at either level."""
        return sorted(self.summaries)

    @property
    def expandable_ids(self) -> list[int]:
        """Entities in context as a summary only, and those named as related but not loaded."""
        return sorted((set(self.summaries) | self.loadable) - set(self.details))

    @property
    def expanded_ids(self) -> list[int]:
        """Entities in context in full."""
        return sorted(self.details)

    @property
    def refs(self) -> list[str]:
        """Every ref the answer may cite: memories, entities, relations."""
        inner = {r.id for d in self.details.values() for r in d.relations}
        return (
            [f"m{i}" for i in sorted(self.memories)]
            + [f"e{i}" for i in self.entity_ids]
            + [f"r{i}" for i in sorted(set(self.relations) | inner)]
        )

    def merge(self, delta: ContextDelta) -> list[str]:
        """Add what an info request returned; returns the refs that are new to the context."""
        before = set(self.refs) | {f"e{i}+" for i in self.details}
        for note in delta.memories:
            self.memories.setdefault(note.id, note)
        for summary in delta.summaries:
            self.summaries.setdefault(summary.id, summary)
        for detail in delta.details:
            self.summaries[detail.entity.id] = detail.entity
            self.details[detail.entity.id] = detail
            for note in detail.memories:
                self.memories.setdefault(note.id, note)
        for relation in delta.relations:
            self.relations.setdefault(relation.id, relation)
        for name, ids in delta.ambiguous.items():
            self.ambiguous[name] = tuple(dict.fromkeys([*self.ambiguous.get(name, ()), *ids]))
        self.notes += [n for n in delta.notes if n not in self.notes]
        self._find_same_names()
        after = set(self.refs) | {f"e{i}+" for i in self.details}
        return sorted(after - before, key=lambda r: (r[0], int(r[1:].rstrip("+")), r))

    def _find_same_names(self) -> None:
        groups: dict[str, list[int]] = {}
        for entity in self.summaries.values():
            groups.setdefault(name_key(entity.name), []).append(entity.id)
        for key, ids in groups.items():
            if len(ids) > 1:
                self.ambiguous[key] = tuple(dict.fromkeys([*self.ambiguous.get(key, ()), *sorted(ids)]))

    def stats(self) -> ContextStats:
        """Counts and the token estimate of `block()`."""
        inner = {r.id for d in self.details.values() for r in d.relations}
        return ContextStats(
            entities=len(self.summaries),
            expanded=len(self.details),
            relationships=len(set(self.relations) | inner),
            memories=len(self.memories),
            tokens=estimate_tokens(self.block()),
        )

    def block(self) -> str:
        """The context as one delimited user-role text (evidence, never instructions)."""
        lines: list[str] = []
        if self.memories:
            lines.append("Memories:")
            lines += [f"- [m{m.id}] {m.text}" for m in sorted(self.memories.values(), key=lambda m: m.id)]
        brief = [s for i, s in sorted(self.summaries.items()) if i not in self.details]
        if brief:
            lines.append("Entities (summaries; EXPAND_ENTITY shows more):")
            lines += [f"- {s.line()}" for s in brief]
        if self.details:
            lines.append("Entities in full:")
            for _, detail in sorted(self.details.items()):
                lines += detail.lines()
        inner = {r.id for d in self.details.values() for r in d.relations}
        loose = [r for i, r in sorted(self.relations.items()) if i not in inner]
        if loose:
            lines.append("Relations:")
            lines += [f"- [r{r.id}] {r.text}" for r in loose]
        if self.ambiguous:
            lines.append("Ambiguous names (different entities share a name; cite the one(s) you mean):")
            lines += [f'- "{name}": ' + " | ".join(self._label(i) for i in ids) for name, ids in self.ambiguous.items()]
        if self.notes:
            lines.append("Other findings:")
            lines += [f"- {n}" for n in self.notes]
        if related := [r for r in self.related if not self._in_context(r)]:
            head = RELATED_HEAD if any(self._ref(r).startswith("e") for r in related) else RELATED_MEMORIES
            lines.append(head + "; ".join(related))
        lines += [f"Recommendation: {r}" for r in self.recommendations]
        if not lines:
            return "<recalled_context>\n(nothing recalled)\n</recalled_context>"
        return "<recalled_context>\n" + escape_delimiters("\n".join(lines)) + "\n</recalled_context>"

    def _in_context(self, line: str) -> bool:
        """Whether an unloaded item has since been loaded by an info request."""
        return self._ref(line) in self.refs

    @staticmethod
    def _ref(line: str) -> str:
        """The ref an unloaded item's line names (`unloaded_line`: "Lucy [e12] (token budget)" -> "e12")."""
        return line.rsplit(" [", 1)[-1].split("]", 1)[0] if " [" in line else ""

    def _label(self, entity_id: int) -> str:
        """One of several same-named entities, with what tells it apart: "[e2] Ana (Person) also called sister"."""
        entity = self.summaries.get(entity_id)
        if entity is None:
            return f"[e{entity_id}]"
        return entity.line() + (f" also called {', '.join(entity.aliases)}" if entity.aliases else "")
