"""One entity as plain lines, for `reverie entities show` and the `/people` panel: who it is to the
person, its aliases, its current relations (with the ids a split takes) and the memories that
mention it. Text is the person's own and is not escaped here; the browser escapes it."""

from __future__ import annotations

from memory.graph.entities import Namesake
from memory.graph.names import USER
from memory.store import MemoryStore

MAX_MEMORIES = 5


def entity_lines(store: MemoryStore, user_id: int, n: Namesake) -> list[str]:
    """`#2 Ana (Person) — your sister`, then aliases, `r5 you HAS_SISTER Ana` lines and `m3 …` lines."""
    e = n.entity
    head = f"#{e.id} {e.name} ({e.type})" + (f" — your {', '.join(n.roles)}" if n.roles else "")
    lines = [head + (f", works at {', '.join(n.employers)}" if n.employers else "")]
    if e.aliases:
        lines.append(f"  also called: {', '.join(e.aliases)}")
    links = store.entities.links(user_id, n.id)
    ends = store.entities.get_many(user_id, [i for r in links for i in (r.subject_id, r.object_id)])
    for r in links:
        subject, obj = (ends[i].name if i in ends else f"#{i}" for i in (r.subject_id, r.object_id))
        lines.append(f"  r{r.id}  {'you' if subject == USER else subject} {r.predicate} {obj}")
    for memory_id in store.entities.source_memories(user_id, n.id)[-MAX_MEMORIES:]:
        memory = store.memories.get(user_id, memory_id)
        if memory is not None and memory.status == "active":
            lines.append(f"  m{memory_id}  {' '.join(memory.content.split())}")
    return lines
