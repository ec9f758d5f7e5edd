"""The info capabilities: declared as data, offered per round from the context, validated, fulfilled.

Each round `build_round` turns the current `TwoLevelContext` into pydantic models whose JSON
schema carries the constraints — enums of the entity ids in context, of the expandable ids,
of the entity types the user has — so a grammar-constrained model cannot even write a
hallucinated id, and any other model's hallucinated id fails validation before any database
call. A capability with nothing to offer (no expandable entity: no EXPAND) is left out.
`fulfil` answers a validated request from memory/'s stores and returns a `ContextDelta`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model, model_validator

from capabilities.answer import MAX_REASON_CHARS, NeedsMoreInfo, answer_model, str_enum
from capabilities.context import (
    ContextDelta,
    EntitySummary,
    MemoryNote,
    RelationFact,
    TwoLevelContext,
    entity_detail,
    summarize,
)
from memory.graph.cypher import Subgraph
from memory.graph.entities import EntityStore
from memory.graph.entity_vectors import EntityVectors
from memory.graph.names import ENTITY_TYPES, name_key
from memory.recall.vectors import MemoryIndex

__all__ = ["CAPABILITIES", "Capability", "InfoRequestInvalid", "InfoResult", "InfoStores", "Round", "build_round"]

Direction = Literal["incoming", "outgoing", "both"]
MAX_QUERY_CHARS = 120
MAX_BATCH = 3
MAX_HOPS = 4
SEARCH_LIMIT = 5
SEARCH_THRESHOLD = 0.5  # the floor of the allowed range: the model asked, so show near misses too
LIST_LIMIT = 10
SHARED_POOL = 200
"""Shared-neighbour rows read per entity: enough that the other entity is among them."""
ENTITY_SEARCH_FLOOR = 0.2
"""SEARCH_ENTITIES leaves out entities less like the query than this (MiniLM: unrelated ≈ 0-0.15)."""


class InfoRequestInvalid(ValueError):
    """A request for more context that is not allowed this round (the message says why)."""


@dataclass(frozen=True)
class Offer:
    """What the context offers this round, as the allowed values of each kind of parameter."""

    entity_refs: tuple[str, ...]
    expandable_refs: tuple[str, ...]
    types: tuple[str, ...]
    include_relationships: bool


@dataclass(frozen=True)
class Capability:
    """One capability: its name, a one-sentence description for the model, and its parameters.

    `params` builds the parameter fields from the offer (enums of allowed values); `offered`
    says whether the capability has anything to offer this round.
    """

    name: str
    description: str
    example: str
    params: Callable[[Offer, dict[str, type[StrEnum]]], dict[str, Any]]
    offered: Callable[[Offer], bool]


def _ids(offer: Offer, enums: dict[str, type[StrEnum]], key: str) -> type[StrEnum]:
    values = offer.expandable_refs if key == "ExpandableId" else offer.entity_refs
    return enums.setdefault(key, str_enum(key, values))


def _types(offer: Offer, enums: dict[str, type[StrEnum]]) -> type[StrEnum]:
    return enums.setdefault("EntityType", str_enum("EntityType", offer.types))


CAPABILITIES: tuple[Capability, ...] = (
    Capability(
        "SEARCH_MEMORIES",
        "Search the user's memories for a phrase or question.",
        '{"query": "Ana birthday"}',
        lambda o, e: {"query": (str, Field(min_length=1, max_length=MAX_QUERY_CHARS))},
        lambda o: True,
    ),
    Capability(
        "GET_ENTITY_BY_NAME",
        "Find the people, places or things called by a name or alias.",
        '{"name": "Ana"}',
        lambda o, e: {"name": (str, Field(min_length=1, max_length=MAX_QUERY_CHARS))},
        lambda o: bool(o.types),
    ),
    Capability(
        "EXPAND_ENTITY",
        "Show one entity in full: aliases, properties, relationships and source memories.",
        '{"entity_id": "e4"}',
        lambda o, e: {"entity_id": (_ids(o, e, "ExpandableId"), ...)},
        lambda o: bool(o.expandable_refs),
    ),
    Capability(
        "EXPAND_ENTITIES",
        "Show several entities in full.",
        '{"entity_ids": ["e4", "e7"]}',
        lambda o, e: {"entity_ids": (list[_ids(o, e, "ExpandableId")], Field(min_length=1, max_length=MAX_BATCH))},  # pyright: ignore[reportInvalidTypeForm]
        lambda o: len(o.expandable_refs) > 1,
    ),
    Capability(
        "GET_RELATIONSHIPS",
        "List an entity's relationships in one direction or both.",
        '{"entity_id": "e4", "direction": "both"}',
        lambda o, e: {"entity_id": (_ids(o, e, "EntityId"), ...), "direction": (Direction, ...)},
        lambda o: o.include_relationships and bool(o.entity_refs),
    ),
    Capability(
        "FIND_PATH",
        "Find how two entities are connected.",
        '{"from_id": "e4", "to_id": "e7", "max_hops": 3}',
        lambda o, e: {
            "from_id": (_ids(o, e, "EntityId"), ...),
            "to_id": (_ids(o, e, "EntityId"), ...),
            "max_hops": (int, Field(ge=1, le=MAX_HOPS)),
        },
        lambda o: o.include_relationships and len(o.entity_refs) > 1,
    ),
    Capability(
        "FIND_SHARED_CONNECTIONS",
        "Find the entities linked to both of two entities (their shared neighbours).",
        '{"first_id": "e4", "second_id": "e7"}',
        lambda o, e: {"first_id": (_ids(o, e, "EntityId"), ...), "second_id": (_ids(o, e, "EntityId"), ...)},
        lambda o: o.include_relationships and len(o.entity_refs) > 1,
    ),
    Capability(
        "SEARCH_ENTITIES",
        "Find the people, places or things whose name or description is closest in meaning to a phrase.",
        '{"query": "the Dutch professor", "type": "Person"}',
        lambda o, e: {
            "query": (str, Field(min_length=1, max_length=MAX_QUERY_CHARS)),
            "type": (_types(o, e) | None, None),
        },
        lambda o: bool(o.types),
    ),
    Capability(
        "LIST_ENTITY_TYPES",
        "List the kinds of entities known and how many of each.",
        "{}",
        lambda o, e: {},
        lambda o: bool(o.types),
    ),
    Capability(
        "GET_ENTITIES_BY_TYPE",
        "List the known entities of one type.",
        '{"type": "Person"}',
        lambda o, e: {"type": (_types(o, e), ...)},
        lambda o: bool(o.types),
    ),
)
BY_NAME = {c.name: c for c in CAPABILITIES}


@dataclass(frozen=True)
class InfoResult:
    """A fulfilled request: what was asked, one line saying what came back, and the new context."""

    capability: str
    args: dict[str, Any]
    summary: str
    delta: ContextDelta


def _args_model(cap: Capability, offer: Offer, enums: dict[str, type[StrEnum]]) -> type[BaseModel]:
    title = "".join(w.title() for w in cap.name.split("_")) + "Args"
    return create_model(title, __config__=ConfigDict(extra="forbid"), **cap.params(offer, enums))


def _request_model(args_models: dict[str, type[BaseModel]]) -> type[BaseModel]:
    """`NeedsMoreInfo` for this round; its schema is one branch per capability, pairing the
    capability name with its own argument model so a grammar cannot mix them up."""
    names = tuple(args_models)
    capability: Any = Literal[names]  # pyright: ignore[reportInvalidTypeForm]
    args_union: Any = args_models[names[0]]
    for model in list(args_models.values())[1:]:
        args_union = args_union | model

    def pair_branches(schema: dict[str, Any]) -> None:
        props = schema.pop("properties")
        arg_schemas = props["args"].get("anyOf") or [props["args"]]
        for key in ("required", "additionalProperties"):  # each branch has its own ("type" stays: object)
            schema.pop(key, None)
        schema["anyOf"] = [
            {
                "type": "object",
                "properties": {"capability": {"type": "string", "const": name}, "args": ref, "reason": props["reason"]},
                "required": ["capability", "args", "reason"],
            }
            for name, ref in zip(names, arg_schemas, strict=True)
        ]

    def args_of_capability(data: Any) -> Any:
        # Validate args against the named capability's model only: a clear message, no union guessing.
        if isinstance(data, dict) and data.get("capability") in args_models and isinstance(data.get("args"), dict):
            model = args_models[data["capability"]]
            try:
                data = {**data, "args": model.model_validate(data["args"])}
            except ValidationError as exc:
                problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
                example = BY_NAME[data["capability"]].example
                raise ValueError(f"args of {data['capability']} ({problems}); e.g. {example}") from None
        return data

    return create_model(
        "NeedsMoreInfo",
        __config__=ConfigDict(extra="forbid", json_schema_extra=pair_branches),
        __validators__={"by_capability": model_validator(mode="before")(args_of_capability)},  # pyright: ignore[reportArgumentType]
        capability=(capability, ...),
        args=(args_union, ...),
        reason=(str, Field(max_length=MAX_REASON_CHARS)),
    )


@dataclass(frozen=True)
class Round:
    """One round's offer: the capabilities, their argument models, and the reply schema."""

    offered: tuple[str, ...]
    args_models: dict[str, type[BaseModel]]
    answer: type[BaseModel]
    request: type[BaseModel] | None
    offer: Offer

    @property
    def output(self) -> Any:
        """The reply type to give the agent: `Answer | NeedsMoreInfo`, or `Answer` alone."""
        return self.answer if self.request is None else self.answer | self.request

    def menu(self) -> str:
        """The capabilities as text for the prompt, one line each, examples using ids in context."""
        o = self.offer
        first = {
            "e4": (o.expandable_refs or o.entity_refs or ("e4",))[0],
            "e7": ([*o.expandable_refs[1:], *o.entity_refs[1:]] or ["e7"])[0],
            "Person": (o.types or ("Person",))[0],
        }
        lines = []
        for name in self.offered:
            example = BY_NAME[name].example
            for placeholder, value in first.items():
                example = example.replace(f'"{placeholder}"', f'"{value}"')
            lines.append(f"- {name} {example}: {BY_NAME[name].description}")
        return "\n".join(lines)

    def validated(self, output: BaseModel) -> NeedsMoreInfo:
        """The canonical request for this round's parsed `NeedsMoreInfo` output."""
        data = output.model_dump(mode="json")
        return NeedsMoreInfo(capability=data["capability"], args=data["args"], reason=data["reason"])


def build_round(
    ctx: TwoLevelContext,
    known_types: Mapping[str, int] | Sequence[str],
    *,
    allow_requests: bool = True,
    include_relationships: bool = True,
) -> Round:
    """This round's capabilities and reply models, rebuilt from the current context.

    Args:
        ctx: The context as it is now.
        known_types: Entity types the user has (from `EntityStore.types`); others are not offered.
        allow_requests: False once the request budget is spent: the reply must be an Answer.
        include_relationships: The query's config; False drops GET_RELATIONSHIPS and FIND_PATH.
    """
    types = tuple(t for t in ENTITY_TYPES if t in set(known_types))
    offer = Offer(
        entity_refs=tuple(f"e{i}" for i in ctx.entity_ids),
        expandable_refs=tuple(f"e{i}" for i in ctx.expandable_ids),
        types=types,
        include_relationships=include_relationships,
    )
    answer = answer_model(ctx.refs)
    if not allow_requests:
        return Round((), {}, answer, None, offer)
    enums: dict[str, type[StrEnum]] = {}
    models = {c.name: _args_model(c, offer, enums) for c in CAPABILITIES if c.offered(offer)}
    return Round(tuple(models), models, answer, _request_model(models), offer)


@dataclass(frozen=True)
class InfoStores:
    """The stores info requests read (`vectors`: SEARCH_ENTITIES fails without them)."""

    entities: EntityStore
    memories: MemoryIndex
    vectors: EntityVectors | None = None


Handler = Callable[[InfoStores, int, TwoLevelContext, dict[str, Any]], tuple[str, ContextDelta]]


def _num(ref: str) -> int:
    return int(ref[1:])


def _search(st: InfoStores, user_id: int, ctx: TwoLevelContext, a: dict[str, Any]) -> tuple[str, ContextDelta]:
    hits = st.memories.search(user_id, a["query"], SEARCH_LIMIT, SEARCH_THRESHOLD)
    notes = [MemoryNote(h.memory.id or 0, h.memory.content) for h in hits]
    found = ", ".join(f"m{n.id}" for n in notes)
    return (f"{len(notes)} memories: {found}" if notes else f"no memory matched {a['query']!r}"), ContextDelta(notes)


def _by_name(st: InfoStores, user_id: int, ctx: TwoLevelContext, a: dict[str, Any]) -> tuple[str, ContextDelta]:
    rows = st.entities.find_by_name(user_id, a["name"], fuzzy=True, limit=LIST_LIMIT)
    found = [summarize(r) for r in rows]
    delta = ContextDelta(summaries=found)
    if len(found) > 1:
        delta.ambiguous[name_key(a["name"])] = tuple(s.id for s in found)
    listed = "; ".join(s.line() for s in found)
    if not found:
        return f"no entity called {a['name']!r}", delta
    return (f"{len(found)} candidates (ambiguous): {listed}" if len(found) > 1 else listed), delta


def _expand(st: InfoStores, user_id: int, ctx: TwoLevelContext, a: dict[str, Any]) -> tuple[str, ContextDelta]:
    refs = a["entity_ids"] if "entity_ids" in a else [a["entity_id"]]
    details = [d for ref in refs if (d := entity_detail(st.entities, st.memories, user_id, _num(ref)))]
    delta = ContextDelta(details=details, summaries=[s for d in details for s in _ends(st, user_id, d.relations)])
    lines = [f"{d.entity.name}: {len(d.relations)} relations, {len(d.memories)} source memories" for d in details]
    return "; ".join(lines) or "entity no longer exists", delta


def _ends(st: InfoStores, user_id: int, relations: Sequence[RelationFact]) -> list[EntitySummary]:
    ids = dict.fromkeys(i for r in relations for i in (r.subject_id, r.object_id))
    return [summarize(row) for i in ids if (row := st.entities.get(user_id, i)) is not None]


def _facts(sub: Subgraph) -> list[RelationFact]:
    names = {n.id: n.name for n in sub.nodes}
    return [
        RelationFact(e.relation_id, e.subject_id, e.predicate, e.object_id,
                     f"{names.get(e.subject_id, e.subject_id)} {e.predicate} {names.get(e.object_id, e.object_id)}")
        for e in sub.edges
    ]  # fmt: skip


def _relationships(st: InfoStores, user_id: int, ctx: TwoLevelContext, a: dict[str, Any]) -> tuple[str, ContextDelta]:
    facts = _facts(st.entities.relationships(user_id, _num(a["entity_id"]), a["direction"]))
    delta = ContextDelta(summaries=_ends(st, user_id, facts), relations=facts)
    return (f"{len(facts)} relations: " + "; ".join(f.text for f in facts[:5])) if facts else "no relations", delta


def _path(st: InfoStores, user_id: int, ctx: TwoLevelContext, a: dict[str, Any]) -> tuple[str, ContextDelta]:
    sub = st.entities.shortest_path(user_id, _num(a["from_id"]), _num(a["to_id"]), a["max_hops"])
    if sub is None:
        note = f"no connection between {a['from_id']} and {a['to_id']} within {a['max_hops']} hops"
        return note, ContextDelta(notes=[note])
    facts = _facts(sub)
    note = f"path {a['from_id']}→{a['to_id']}: " + (" / ".join(f.text for f in facts) or "same entity")
    return note, ContextDelta(summaries=_ends(st, user_id, facts), relations=facts, notes=[note])


def _types_list(st: InfoStores, user_id: int, ctx: TwoLevelContext, a: dict[str, Any]) -> tuple[str, ContextDelta]:
    counts = st.entities.types(user_id)
    note = "entity types: " + (", ".join(f"{t} ({n})" for t, n in sorted(counts.items())) or "none")
    return note, ContextDelta(notes=[note])


def _of_type(st: InfoStores, user_id: int, ctx: TwoLevelContext, a: dict[str, Any]) -> tuple[str, ContextDelta]:
    found = [summarize(r) for r in st.entities.by_type(user_id, a["type"], limit=LIST_LIMIT)]
    listed = ", ".join(f"{s.name} [e{s.id}]" for s in found)
    return (f"{len(found)} {a['type']}: {listed}" if found else f"no {a['type']}"), ContextDelta(summaries=found)


def _shared(st: InfoStores, user_id: int, ctx: TwoLevelContext, a: dict[str, Any]) -> tuple[str, ContextDelta]:
    first, second = _num(a["first_id"]), _num(a["second_id"])
    if first == second:
        raise InfoRequestInvalid("FIND_SHARED_CONNECTIONS needs two different entities")
    # Entities both are linked to: the `via` of the second one's row among the first's shared
    # neighbours (read from the other side too: a hub may list the other past the pool).
    common: set[int] = set()
    for one, other in ((first, second), (second, first)):
        rows = st.entities.shared_neighbours(user_id, one, SHARED_POOL)
        common |= {v for n in rows if n.node.id == other for v in n.via}
    rows = st.entities.get_many(user_id, sorted(common)).values()
    found = [summarize(r) for r in rows if r.status == "active"][:LIST_LIMIT]
    names = {s.id: s.name for s in ctx.summaries.values()} | {s.id: s.name for s in found}
    pair = f"{names.get(first, a['first_id'])} and {names.get(second, a['second_id'])}"
    if not found:
        note = f"{pair} share no connection"
        return note, ContextDelta(notes=[note])
    note = f"{pair} are both linked to " + ", ".join(f"{s.name} [e{s.id}]" for s in found)
    return note, ContextDelta(summaries=found, notes=[note])


def _search_entities(st: InfoStores, user_id: int, ctx: TwoLevelContext, a: dict[str, Any]) -> tuple[str, ContextDelta]:
    if st.vectors is None:
        raise InfoRequestInvalid("SEARCH_ENTITIES is not available here")
    matches = st.vectors.search(user_id, a["query"], SEARCH_LIMIT, a.get("type"), ENTITY_SEARCH_FLOOR)
    found = [summarize(m.entity) for m in matches]
    what = f"{a['type']} entities" if a.get("type") else "entities"
    if not found:
        return f"no {what} close to {a['query']!r}", ContextDelta()
    listed = ", ".join(f"{s.name} [e{s.id}] ({m.relevance:.2f})" for s, m in zip(found, matches, strict=True))
    return f"{len(found)} {what}: {listed}", ContextDelta(summaries=found)


FULFILMENT: dict[str, Handler] = {
    "SEARCH_MEMORIES": _search,
    "GET_ENTITY_BY_NAME": _by_name,
    "EXPAND_ENTITY": _expand,
    "EXPAND_ENTITIES": _expand,
    "GET_RELATIONSHIPS": _relationships,
    "FIND_PATH": _path,
    "FIND_SHARED_CONNECTIONS": _shared,
    "SEARCH_ENTITIES": _search_entities,
    "LIST_ENTITY_TYPES": _types_list,
    "GET_ENTITIES_BY_TYPE": _of_type,
}


def fulfil(request: NeedsMoreInfo, stores: InfoStores, user_id: int, ctx: TwoLevelContext) -> InfoResult:
    """Answer a validated request from the stores (it does not change `ctx`; merge the delta).

    Raises:
        InfoRequestInvalid: the capability is unknown (a request not validated by a `Round`).
    """
    handler = FULFILMENT.get(request.capability)
    if handler is None:
        raise InfoRequestInvalid(f"unknown capability {request.capability!r}")
    summary, delta = handler(stores, user_id, ctx, request.args)
    return InfoResult(request.capability, dict(request.args), summary, delta)
