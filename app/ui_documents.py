"""Documents in the chat: ingest uploaded .txt/.md files with live progress; `/documents` to list
and remove them. No business logic here: memory/documents/ingest.py does the work in a worker thread.

app/ui.py calls `ingest_uploads(rt, account_id, message.elements)` when a message carries files.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import chainlit as cl

from app.focus import focus_reply
from app.runtime import Runtime
from app.ui_common import account_id, command, runtime
from memory.documents.extraction import EntityExtractor, PatternExtractor
from memory.documents.ingest import SUPPORTED_SUFFIXES, IngestConfig, Ingestor, IngestResult, Progress, estimate
from memory.documents.store import DocumentStore

MAX_LLM_SECONDS = 600.0  # beyond this the model extractor would keep the box busy too long
REFRESH_S = 1.5


class _Latest:
    """The last progress report, written by the worker thread, read by the UI loop."""

    value: Progress | None = None


def documents(rt: Runtime) -> DocumentStore:
    """The document store over the runtime's storage."""
    return rt.store.documents


def _extractor(rt: Runtime, path: Path, config: IngestConfig) -> EntityExtractor:
    """The model extractor when the document is small enough for it, else the pattern one."""
    from app.doc_extractor import LLMExtractor

    llm = LLMExtractor(rt.backend, asyncio.get_running_loop(), timeout_s=rt.settings.llm_timeout_s)
    return llm if estimate(path, llm, config).seconds <= MAX_LLM_SECONDS else PatternExtractor()


def progress_text(name: str, p: Progress) -> str:
    """One line of progress for the chat."""
    eta = f", about {round(p.eta_s)} s left" if p.phase not in ("done", "writing") else ""
    return (
        f"Ingesting **{name}** — {p.phase}: {p.chunks_done}/{p.chunks_total} chunks, "
        f"{p.entities} entities, {p.relations} relations{eta}"
    )


def summary_text(result: IngestResult) -> str:
    """What the chat says when a document is in memory."""
    d = result.document
    if result.skipped:
        return f"**{d.name}** was already in memory (document {d.id}); nothing to do."
    return (
        f"**{d.name}** is in memory (document {d.id}): {d.chunks_done} chunks, {d.entities} entities, "
        f"{d.relations} relations, in {round(result.seconds)} s. Ask me about it."
    )


async def ingest_uploads(rt: Runtime, account_id: int, elements: Sequence[Any]) -> None:
    """Ingest each uploaded .txt/.md file, showing progress in an updated message."""
    for element in elements:
        name, path = getattr(element, "name", "") or "", getattr(element, "path", None)
        if path is None:
            continue
        if Path(name).suffix.lower() not in SUPPORTED_SUFFIXES:
            await cl.Message(content=f"{name}: only .txt and .md documents can be read into memory.").send()
            continue
        await _ingest_one(rt, account_id, Path(path), name)


async def _ingest_one(rt: Runtime, user_id: int, path: Path, name: str) -> None:
    config = IngestConfig()
    extractor = _extractor(rt, path, config)
    plan = estimate(path, extractor, config)
    message = cl.Message(
        content=f"Reading **{name}**: {plan.chunks} chunks, about {round(plan.seconds)} s "
        f"with the {extractor.name} extractor."
    )
    await message.send()
    ingestor = Ingestor(documents(rt), rt.store.memories, rt.store.embedder, extractor, config)
    latest = _Latest()

    def report(p: Progress) -> None:
        latest.value = p

    job = asyncio.create_task(asyncio.to_thread(ingestor.ingest, user_id, path, report, name))
    shown: Progress | None = None
    while not job.done():
        await asyncio.wait({job}, timeout=REFRESH_S)
        if latest.value is not None and latest.value is not shown:
            shown = latest.value
            message.content = progress_text(name, shown)
            await message.update()
    try:
        result = job.result()
    except (OSError, ValueError) as exc:
        message.content = f"Could not read **{name}**: {exc}"
    else:
        message.content = summary_text(result)
    await message.update()


@command("focus", "Limit recall in this chat: a document id, 'personal', or 'all'", icon="crosshair")
async def _focus_command(rt: Runtime, user_id: int, thread_id: str, text: str) -> None:
    await cl.Message(content=focus_reply(rt, user_id, thread_id, text)).send()


@command("documents", "List the documents in memory, and remove them", icon="file-text")
async def _documents_command(rt: Runtime, user_id: int, thread_id: str, text: str) -> None:
    rows = documents(rt).list(user_id)
    if not rows:
        await cl.Message(content="No documents yet: attach a .txt or .md file to a message.").send()
        return
    lines = ["| id | document | status | chunks | entities | relations |", "|---|---|---|---|---|---|"]
    lines += [
        f"| {d.id} | {d.name} | {d.status} | {d.chunks_done}/{d.chunks_total} | {d.entities} | {d.relations} |"
        for d in rows
    ]
    actions = [cl.Action(name="remove_document", payload={"document_id": d.id}, label=f"Remove {d.name}") for d in rows]
    await cl.Message(content="\n".join(lines), actions=actions).send()


@cl.action_callback("remove_document")
async def _on_remove(action: cl.Action) -> None:
    rt = runtime()
    document_id = int(action.payload["document_id"])
    removed = await asyncio.to_thread(documents(rt).remove, account_id(), document_id)
    await action.remove()
    text = f"Document {document_id} removed from memory." if removed else f"No document {document_id}."
    await cl.Message(content=text).send()
