"""The memory panel: `/memories` lists recent memories, `/memories QUERY` searches; each has Edit and Forget.

Memory text is user-originated, so it is shown escaped (no markdown links, images or HTML can
come out of it; Chainlit's `unsafe_allow_html` stays off). Every action re-checks ownership:
the id in an action's payload is looked up under the logged-in account only.
"""

from __future__ import annotations

import asyncio

import chainlit as cl

from app.runtime import Runtime
from app.turn_view import escape
from app.ui_common import account_id, command, runtime
from memory.models import MemoryRow
from memory.portability import edit_memory, forget_memory
from memory.vectors import MemoryNotFound

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


def _actions(row: MemoryRow) -> list[cl.Action]:
    payload = {"memory_id": row.id}
    return [
        cl.Action(name="memory_edit", payload=payload, label="Edit", icon="pencil"),
        cl.Action(name="memory_forget", payload=payload, label="Forget", icon="trash-2"),
    ]


@command("memories", "List your memories, or search them: /memories where does Ana live", "brain")
async def memories_command(rt: Runtime, user_id: int, thread_id: str, text: str) -> None:
    """Show recent memories, or those matching the text typed after the command."""
    del thread_id
    query = text.strip()
    if query:
        hits = await asyncio.to_thread(rt.store.memories.search, user_id, query, SEARCH_LIMIT, SEARCH_THRESHOLD)
        rows = [h.memory for h in hits]
        header = f"{len(rows)} memories match “{escape(query)}”." if rows else "No memory matches that."
    else:
        rows = await asyncio.to_thread(rt.store.memories.list, user_id, None, "active", LIST_LIMIT)
        header = f"Your {len(rows)} most recent memories:" if rows else "No memories yet."
    await cl.Message(content=header).send()
    for row in rows:
        await cl.Message(content=card(row), actions=_actions(row)).send()


@cl.action_callback("memory_forget")
async def _on_forget(action: cl.Action) -> None:
    rt, user_id = runtime(), account_id()
    memory_id = int(action.payload["memory_id"])
    try:
        gone = await asyncio.to_thread(forget_memory, rt.store, user_id, memory_id)
    except MemoryNotFound:
        await cl.Message(content=f"Memory #{memory_id} no longer exists.").send()
        return
    await action.remove()
    extra = f" (and {len(gone.memory_ids) - 1} fact(s) formed from it)" if len(gone.memory_ids) > 1 else ""
    await cl.Message(content=f"Forgot memory #{memory_id}{extra} everywhere, graph links included.").send()


@cl.action_callback("memory_edit")
async def _on_edit(action: cl.Action) -> None:
    rt, user_id = runtime(), account_id()
    memory_id = int(action.payload["memory_id"])
    if await asyncio.to_thread(rt.store.memories.get, user_id, memory_id) is None:
        await cl.Message(content=f"Memory #{memory_id} no longer exists.").send()
        return
    answer = await cl.AskUserMessage(content=f"New text for memory #{memory_id}:", timeout=300).send()
    new_text = (answer or {}).get("output", "")
    if not new_text.strip():
        return
    try:
        row = await asyncio.to_thread(edit_memory, rt.store, user_id, memory_id, new_text)
    except (MemoryNotFound, ValueError) as exc:
        await cl.Message(content=f"Not changed: {escape(str(exc))}").send()
        return
    await cl.Message(content="Updated:\n\n" + card(row), actions=_actions(row)).send()
