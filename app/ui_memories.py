"""The memory panel: `/memories` lists recent memories, `/memories QUERY` searches; each has Edit and
Forget. Forget strikes the card through in place and offers Undo for as long as the chat is open.
`/people NAME` shows every person (or thing) the name calls, as `reverie entities show` does, with
Merge (they are one) and Split (part of it is someone else: the relations, aliases and memories
typed in answer move to a new entity); a split offers Merge back.

Memory text is user-originated, so it is shown escaped (no markdown links, images or HTML can
come out of it; Chainlit's `unsafe_allow_html` stays off). Every action re-checks ownership:
the id in an action's payload is looked up under the logged-in account only.
"""

from __future__ import annotations

import asyncio
import json
import re
from datetime import date
from pathlib import Path

import chainlit as cl

from app.entity_view import entity_lines
from app.runtime import Runtime
from app.turn_view import escape
from app.ui_common import account_id, ask_text, command, runtime
from memory.graph.entities import EntityNotFound, Namesake
from memory.models import MemoryRow
from memory.portability import FORMAT, edit_memory, export_user, forget_memory, import_user
from memory.recall.vectors import MemoryNotFound

LIST_LIMIT = 20
SEARCH_LIMIT = 10
SEARCH_THRESHOLD = 0.5


def card(row: MemoryRow) -> str:
    """One memory as markdown: id, date, kind, status, then the escaped text."""
    status = ""
    if row.status == "superseded":
        when = f" on {row.valid_to:%Y-%m-%d}" if row.valid_to else ""
        status = f" · superseded by #{row.superseded_by or '?'}{when}"
    return f"**#{row.id}** · {row.created_at:%Y-%m-%d %H:%M} · {row.kind}{status}\n\n> {escape(row.content)}"


def _actions(memory_id: int | None) -> list[cl.Action]:
    """Edit and Forget, with ids of their own, so the buttons of a memory's card can be taken away."""
    payload = {"memory_id": memory_id}
    return [
        cl.Action(id=f"memory-edit-{memory_id}", name="memory_edit", payload=payload, label="Edit", icon="pencil"),
        cl.Action(
            id=f"memory-forget-{memory_id}", name="memory_forget", payload=payload, label="Forget", icon="trash-2"
        ),
    ]


def _count(n: int) -> str:
    return f"{n} memory" if n == 1 else f"{n} memories"


async def _retire(memory_id: int, card_id: str | None, note: str) -> None:
    """A card whose memory is gone keeps its place, struck through, without its buttons."""
    for action in _actions(memory_id):
        await action.remove()
    if card_id:
        await cl.Message(id=card_id, content=f"~~Memory #{memory_id}~~ · {note}").update()


@command("memories", "List or search your memories (/memories where does Ana live); export or import them", "brain")
async def memories_command(rt: Runtime, user_id: int, thread_id: str, text: str) -> None:
    """Show recent memories, or those matching the text typed after the command."""
    del thread_id
    query = text.strip()
    if query.casefold() == "export":
        await _export(rt, user_id)
        return
    if query.casefold() == "import":
        await cl.Message(content="Attach the JSON file a `/memories export` (or `reverie memories export`) wrote, "
                         "and send it with `/memories import`.").send()  # fmt: skip
        return
    if query:
        hits = await asyncio.to_thread(rt.store.memories.search, user_id, query, SEARCH_LIMIT, SEARCH_THRESHOLD)
        rows = [h.memory for h in hits]
        header = (
            f"{_count(len(rows))} {'matches' if len(rows) == 1 else 'match'} “{escape(query)}”."
            if rows
            else "No memory matches that."
        )
    else:
        rows = await asyncio.to_thread(rt.store.memories.list, user_id, None, "active", LIST_LIMIT)
        header = f"Your {_count(len(rows))}, most recent first:" if rows else "No memories yet."
    await cl.Message(content=header).send()
    for row in rows:
        await cl.Message(content=card(row), actions=_actions(row.id)).send()


async def _export(rt: Runtime, user_id: int) -> None:
    """Everything this person remembers, as the CLI's JSON (`reverie memories export`), to download."""
    doc = await asyncio.to_thread(export_user, rt.store, user_id)
    payload = json.dumps(doc, ensure_ascii=False, indent=2).encode()
    file = cl.File(name=f"reverie-memories-{date.today():%Y-%m-%d}.json", content=payload, display="inline")
    await cl.Message(content=f"Your {_count(len(doc['memories']))}, as JSON ({FORMAT}):", elements=[file]).send()


async def import_files(rt: Runtime, user_id: int, files: list[tuple[str, Path]]) -> None:
    """`/memories import` with JSON files attached (name as uploaded, where Chainlit keeps it): add what
    they hold that is not here yet."""
    for name, path in files:
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            report = await asyncio.to_thread(import_user, rt.store, user_id, doc)
        except (OSError, ValueError) as exc:  # not JSON, not the format, unreadable
            await cl.Message(content=f"Not imported ({escape(name)}): {escape(str(exc))}").send()
            continue
        await cl.Message(
            content=f"Imported from {escape(name)}: {_count(report.memories)}, {report.entities} entities, "
            f"{report.relations} graph links (what was already here was skipped)."
        ).send()


@cl.action_callback("memory_forget")
async def _on_forget(action: cl.Action) -> None:
    rt, user_id = runtime(), account_id()
    memory_id = int(action.payload["memory_id"])
    try:
        before = await asyncio.to_thread(export_user, rt.store, user_id)  # what Undo puts back
        gone = await asyncio.to_thread(forget_memory, rt.store, user_id, memory_id)
    except MemoryNotFound:
        await cl.Message(content=f"Memory #{memory_id} no longer exists.").send()
        return
    await _retire(memory_id, action.forId, "forgotten")
    cl.user_session.set(f"forgotten:{memory_id}", before)
    extra = f" (and {len(gone.memory_ids) - 1} fact(s) formed from it)" if len(gone.memory_ids) > 1 else ""
    undo = cl.Action(name="memory_undo", payload={"memory_id": memory_id}, label="Undo", icon="undo-2")
    await cl.Message(
        content=f"Forgot memory #{memory_id}{extra} everywhere, graph links included.", actions=[undo]
    ).send()


@cl.action_callback("memory_undo")
async def _on_undo(action: cl.Action) -> None:
    """Put a forgotten memory back, with the facts and graph links it had (an import of the state
    just before the forget: everything still there is skipped). Possible while the chat is open."""
    rt, user_id = runtime(), account_id()
    memory_id = int(action.payload["memory_id"])
    before = cl.user_session.get(f"forgotten:{memory_id}")
    await action.remove()
    if before is None:
        await cl.Message(content=f"Memory #{memory_id} can no longer be restored (the chat was closed).").send()
        return
    cl.user_session.set(f"forgotten:{memory_id}", None)
    report = await asyncio.to_thread(import_user, rt.store, user_id, before)
    await cl.Message(
        content=f"Restored memory #{memory_id} as a new memory ({report.memories} memory(ies), "
        f"{report.relations} graph link(s)); `/memories` lists it."
    ).send()


@cl.action_callback("memory_edit")
async def _on_edit(action: cl.Action) -> None:
    rt, user_id = runtime(), account_id()
    memory_id = int(action.payload["memory_id"])
    if await asyncio.to_thread(rt.store.memories.get, user_id, memory_id) is None:
        await cl.Message(content=f"Memory #{memory_id} no longer exists.").send()
        return
    new_text = await ask_text(f"New text for memory #{memory_id}:", 300)
    if not new_text:
        return
    try:
        row = await asyncio.to_thread(edit_memory, rt.store, user_id, memory_id, new_text)
    except (MemoryNotFound, ValueError) as exc:
        await cl.Message(content=f"Not changed: {escape(str(exc))}").send()
        return
    await cl.Message(content="Updated:\n\n" + card(row), actions=_actions(row.id)).send()


@command("people", "Everyone memory knows by a name (/people Ana): merge two that are one, split one", "users")
async def people_command(rt: Runtime, user_id: int, thread_id: str, text: str) -> None:
    """Show every entity the name typed after the command calls, each with Split (and Merge when several)."""
    del thread_id
    name = text.strip()
    if not name:
        await cl.Message(content="Type a name after the command: `/people Ana`.").send()
        return
    found = await asyncio.to_thread(rt.store.entities.namesakes, user_id, name, None)
    if not found:
        await cl.Message(content=f"I don't know anyone called “{escape(name)}”.").send()
        return
    many = f"{len(found)} are called “{escape(name)}”. If two are one person, merge them." if len(found) > 1 else ""
    await cl.Message(content=many or f"“{escape(name)}”:").send()
    for n in found:
        await _person(rt, user_id, n, found[0].id)


async def _person(rt: Runtime, user_id: int, n: Namesake, into: int, note: str = "") -> None:
    """One entity's card: its lines escaped, Split, and Merge into `into` when that is another."""
    head, *rest = await asyncio.to_thread(entity_lines, rt.store, user_id, n)
    body = "\n".join(f"- {escape(line.strip())}" for line in rest)
    actions = [cl.Action(name="entity_split", payload={"entity_id": n.id}, label="Split", icon="split")]
    if into != n.id:
        label = f"Merge into #{into}"
        actions.append(cl.Action(name="entity_merge", payload={"keep": into, "drop": n.id}, label=label, icon="merge"))
    await cl.Message(content=f"{note}**{escape(head)}**\n\n{body}", actions=actions).send()


async def _named(rt: Runtime, user_id: int, entity_id: int) -> Namesake:
    row = await asyncio.to_thread(rt.store.entities.get, user_id, entity_id)
    if row is None:
        raise EntityNotFound(f"no entity #{entity_id}")
    found = await asyncio.to_thread(rt.store.entities.namesakes, user_id, row.name, None)
    return next((n for n in found if n.id == entity_id), Namesake(row))


@cl.action_callback("entity_merge")
async def _on_merge(action: cl.Action) -> None:
    rt, user_id = runtime(), account_id()
    keep, drop = int(action.payload["keep"]), int(action.payload["drop"])
    try:
        await asyncio.to_thread(rt.store.entities.merge, user_id, keep, drop)
        merged = await _named(rt, user_id, keep)
    except (EntityNotFound, ValueError) as exc:
        await cl.Message(content=f"Not merged: {escape(str(exc))}").send()
        return
    await action.remove()
    await _person(rt, user_id, merged, keep, f"Merged #{drop} into #{keep}:\n\n")


@cl.action_callback("entity_split")
async def _on_split(action: cl.Action) -> None:
    """Ask what belongs to the other one (`r12` relations, `m7` memories, alias words), then split."""
    rt, user_id = runtime(), account_id()
    entity_id = int(action.payload["entity_id"])
    answer = await ask_text(
        f"What of #{entity_id} is someone else's? Type its relations, memories and aliases, e.g. `r3 r4 m4 colleague`.",
        300,
    )
    words = [w for w in re.split(r"[\s,]+", answer) if w]
    chosen = {kind: [int(w[1:]) for w in words if re.fullmatch(rf"{kind}\d+", w)] for kind in "rm"}
    aliases = [w for w in words if not re.fullmatch(r"[rm]\d+", w)]
    if not words:
        return
    try:
        new = await asyncio.to_thread(
            rt.store.entities.split, user_id, entity_id, relation_ids=chosen["r"], aliases=aliases,
            memory_ids=chosen["m"],
        )  # fmt: skip
        old, other = await _named(rt, user_id, entity_id), await _named(rt, user_id, new.id or 0)
    except (EntityNotFound, ValueError) as exc:
        await cl.Message(content=f"Not split: {escape(str(exc))}").send()
        return
    await _person(rt, user_id, old, old.id, f"Split #{entity_id} in two:\n\n")
    await _person(rt, user_id, other, old.id)  # its Merge button puts it back
