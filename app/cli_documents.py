"""`reverie ingest PATH…` and `reverie documents list|remove ID`.

Ingestion writes the graph, and Kuzu allows one process: run these while the app is stopped
(opening the storage fails fast with the fix if the app holds the graph), or upload the file
in the chat instead.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn

from app.runtime import llm_config, open_storage
from app.settings import Settings
from memory.documents.extraction import EntityExtractor
from memory.documents.ingest import IngestConfig, Ingestor, IngestResult, estimate
from memory.documents.ingest import Progress as IngestProgress
from memory.store import MemoryStore


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:  # pyright: ignore[reportPrivateUsage]
    """Add this area's subcommands; each sets `func(settings, args) -> int`."""
    ingest = sub.add_parser("ingest", help="read .txt/.md documents into memory (graph + chunks)")
    ingest.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    ingest.add_argument("--user", help="whose memory (default: the only account)")
    ingest.add_argument("--no-llm", action="store_true", help="pattern extractor only (fast, no model)")
    ingest.add_argument("--batch", type=int, default=4, help="chunks per extractor call")
    ingest.set_defaults(func=cmd_ingest)
    docs = sub.add_parser("documents", help="list or remove ingested documents")
    docs.add_argument("action", choices=["list", "remove"])
    docs.add_argument("id", nargs="?", type=int)
    docs.add_argument("--user", help="whose documents (default: the only account)")
    docs.set_defaults(func=cmd_documents)


def cmd_documents(settings: Settings, args: argparse.Namespace) -> int:
    """List a user's documents, or remove one with everything it added."""
    store = open_storage(settings)
    try:
        user_id, docs = _resolve(store, args.user), store.documents
        if args.action == "list":
            for d in docs.list(user_id):
                print(
                    f"{d.id}\t{d.status}\t{d.chunks_done}/{d.chunks_total} chunks\t{d.entities} entities\t"
                    f"{d.relations} relations\t{d.name}"
                )
            return 0
        if args.id is None:
            raise SystemExit("usage: reverie documents remove ID")
        if not docs.remove(user_id, args.id):
            print(f"error: no document {args.id}", file=sys.stderr)
            return 2
        print(f"document {args.id} removed (chunks, entities, relations and fusion edges)")
        return 0
    finally:
        store.close()


def _resolve(store: MemoryStore, name: str | None) -> int:
    try:
        return store.accounts.resolve(name)
    except LookupError as exc:
        raise SystemExit(f"error: {exc}") from None


def cmd_ingest(settings: Settings, args: argparse.Namespace) -> int:
    """Ingest files with a progress bar, saying up front how long it will take."""
    missing = [p for p in args.paths if not p.is_file()]
    if missing:
        print(f"error: not a file: {', '.join(map(str, missing))}", file=sys.stderr)
        return 2
    store = open_storage(settings)
    try:
        user_id = _resolve(store, args.user)
        if args.no_llm:
            return _ingest_all(store, user_id, args, None)
        return asyncio.run(_ingest_with_model(settings, store, user_id, args))
    finally:
        store.close()


async def _ingest_with_model(settings: Settings, store: MemoryStore, user_id: int, args: argparse.Namespace) -> int:
    from app.doc_extractor import LLMExtractor
    from app.llm import open_backend

    async with open_backend(llm_config(settings)) as backend:
        extractor = LLMExtractor(backend, asyncio.get_running_loop(), timeout_s=settings.llm_timeout_s)
        # The pipeline is synchronous; it submits model calls back to this loop, one at a time.
        return await asyncio.to_thread(_ingest_all, store, user_id, args, extractor)


def _ingest_all(store: MemoryStore, user_id: int, args: argparse.Namespace, extractor: EntityExtractor | None) -> int:
    docs = store.documents
    ingestor = Ingestor(docs, store.memories, store.embedder, extractor, IngestConfig(batch_chunks=args.batch))
    console = Console(stderr=True)
    failed = 0
    for path in args.paths:
        plan = estimate(path, ingestor.extractor, ingestor.config)
        console.print(
            f"{path.name}: {plan.chunks} chunks, about {_duration(plan.seconds)} "
            f"with the {ingestor.extractor.name} extractor"
        )
        try:
            result = _with_bar(console, ingestor, user_id, path)
        except (OSError, ValueError) as exc:
            console.print(f"[red]error[/red] {path}: {exc}")
            failed += 1
            continue
        d = result.document
        verb = "already ingested, skipped" if result.skipped else f"done in {_duration(result.seconds)}"
        console.print(
            f"document {d.id} {d.name}: {verb} — {d.chunks_done} chunks, {d.entities} entities, {d.relations} relations"
        )
    return 1 if failed else 0


def _with_bar(console: Console, ingestor: Ingestor, user_id: int, path: Path) -> IngestResult:
    columns = (
        TextColumn("{task.description:<9}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn(
            "chunks · {task.fields[entities]} entities · {task.fields[relations]} relations · ETA {task.fields[eta]}"
        ),
    )
    with Progress(*columns, console=console, transient=False) as bar:
        task: TaskID = bar.add_task("chunks", total=None, entities=0, relations=0, eta="?")

        def show(p: IngestProgress) -> None:
            bar.update(
                task,
                description=p.phase,
                completed=p.chunks_done,
                total=p.chunks_total,
                entities=p.entities,
                relations=p.relations,
                eta=_duration(p.eta_s),
            )

        return ingestor.ingest(user_id, path, show)


def _duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    if seconds < 90:
        return f"{seconds} s"
    if seconds < 5400:
        return f"{round(seconds / 60)} min"
    return f"{seconds / 3600:.1f} h"
