"""The composition root: builds every long-lived object once and closes it.

`open_storage` and `open_records` turn the settings into a call to memory's front door
(`memory/store.py`), the synchronous half the CLI needs; `open_runtime` adds the language model,
the scheduler and the formation worker for the chat server.
"""

from __future__ import annotations

import asyncio
import fcntl
import gc
import logging
import os
from collections.abc import AsyncIterator, Iterable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import partial

from app.judgement import JudgementPath, choose_path
from app.llm import Backend, LLMConfig, open_backend
from app.meter import model_meter
from app.ollama_backend import normalize_host
from app.proactive import deliver_due
from app.scheduler import SCHEDULER_DB, start_scheduler, stop_scheduler
from app.settings import Settings
from capabilities.limits import apply_overrides
from capabilities.resources import BOUNDS, Dimension, Limits, Range
from dreaming.dream import DreamConfig, DreamSkipped, run_dream
from memory.models import utcnow
from memory.recall.embedder import Embedder, OllamaEmbedder, get_embedder
from memory.reminders import ReminderStore
from memory.store import MemoryStore, Records, StorageError, job_store_url, open_memory
from memory.store import open_records as memory_records

log = logging.getLogger(__name__)


# Kuzu admits one process per file, so no process keeps the graph (memory/graph/kuzu_graph.py): the app, `reverie
# chat` and every command run side by side. Two things still need to know who else is there, and ask
# the kernel with a lock file each (released when the process ends, kill -9 included):
OPEN_LOCK = "open.lock"  # shared by every process with the stores open; `reverie reindex` needs it alone
APP_LOCK = "app.lock"  # held by the running app, whose scheduler can dream (`reverie dream --now`)


def hold_lock(settings: Settings, name: str, exclusive: bool) -> int | None:
    """An flock on the data dir's file `name`, as a file descriptor to close; None when another
    process holds a lock that excludes it.

    Raises:
        StorageError: the data dir cannot be written.
    """
    path = settings.data_dir / name
    try:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise StorageError(f"cannot write {path} ({exc}). Check the permissions of REVERIE_DATA_DIR.") from exc
    try:
        fcntl.flock(fd, (fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH) | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def app_running(settings: Settings) -> bool:
    """Whether `reverie run` is up on this data dir."""
    fd = hold_lock(settings, APP_LOCK, exclusive=False)
    if fd is not None:
        os.close(fd)
    return fd is None


def embedder_for(settings: Settings, timeout_s: float = 60.0) -> Embedder:
    """The configured embedder: the bundled MiniLM, or an Ollama model (REVERIE_EMBEDDING_BACKEND)
    that gets `timeout_s` per call.

    Raises:
        EmbedderUnavailable: the model cannot be loaded or reached; the message names the fix.
    """
    if settings.embedding_backend == "ollama":
        return OllamaEmbedder(normalize_host(settings.ollama_host), settings.ollama_embedding_model, timeout_s)
    return get_embedder()


def open_records(settings: Settings) -> Records:
    """Open the data directory's SQLite file (migrated), without the embedder or the graph.

    Raises:
        StorageError: the message names the fix.
    """
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    return memory_records(
        settings.db_path,
        reminder_interval_minutes=settings.default_proactive_interval_minutes,
        database_url=settings.database_url,
    )


def open_storage(settings: Settings) -> MemoryStore:
    """Open the data directory through memory's front door: migrations applied, index checked, every
    store built once.

    Works beside the running app and other commands (the graph is taken in turns; see OPEN_LOCK).

    Raises:
        StorageError, GraphLockedError, GraphCorruptError, EmbeddingIndexMismatch,
        EmbedderUnavailable: each message names the fix.
    """
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    embedder = embedder_for(settings)
    presence = hold_lock(settings, OPEN_LOCK, exclusive=False)
    if presence is None:
        raise StorageError("`reverie reindex` is re-embedding every memory: try again when it has finished")
    try:
        return open_memory(
            settings.db_path,
            settings.graph_dir,
            embedder,
            reminder_interval_minutes=settings.default_proactive_interval_minutes,
            presence=presence,
            database_url=settings.database_url,
        )
    except BaseException:
        os.close(presence)
        raise


@contextmanager
def frozen_heap() -> Iterator[None]:
    """Everything start-up built (imported modules, the embedder's weights, the stores) kept out of the
    garbage collector's full passes until exit; its garbage collected first.

    A long request (the maximum: thousands of rows, candidates and graph items alive for its whole
    length) outlives the young generations, so every few requests the collector walked the whole heap,
    200,000-300,000 start-up objects that live as long as the process: 100-290 ms in whichever request
    it fell (docs/benchmarks.md, eighteenth session). What is made later is collected as before.
    """
    gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()  # a process that opens the runtime again (the tests) collects what this one left


def base_limits(settings: Settings, dims: Iterable[Dimension] = Dimension) -> Limits:
    """The `.env` ranges of the declared dimensions, validated (raises LimitsError naming the variable)."""
    ranges = {d: Range(*(getattr(settings, d.env_name(b).lower()) for b in BOUNDS), source=".env") for d in dims}
    return Limits(ranges)


def effective_limits(settings: Settings, store: Records) -> Limits:
    """`.env` ranges with the approved overrides on top: read fresh every turn, so an approval
    takes effect for the next turn without a restart."""
    return apply_overrides(base_limits(settings), store.overrides.active())


def llm_config(settings: Settings) -> LLMConfig:
    """The plain values the LLM layer needs."""
    return LLMConfig(
        backend=settings.llm_backend,
        ollama_host=settings.ollama_host,
        ollama_model=settings.ollama_model,
        embedded_model_path=settings.embedded_model_path,
        embedded_threads=settings.embedded_threads,
        embedded_ctx=settings.embedded_ctx,
        embedded_cache_mb=settings.embedded_cache_mb,
        timeout_s=settings.llm_timeout_s,
        # The web server binds its port only after start-up; `reverie run` puts it here.
        keep_free_port=int(os.environ["CHAINLIT_PORT"]) if os.environ.get("CHAINLIT_PORT") else None,
    )


@dataclass
class Runtime:
    """What a running chat server holds."""

    settings: Settings
    store: MemoryStore
    backend: Backend
    path: JudgementPath = "model"  # who judges (app/judgement.py); open_runtime measures it
    started: datetime = field(default_factory=utcnow)  # a formation job claimed since is this process's own

    @property
    def reminders(self) -> ReminderStore:
        """Proactive follow-ups, with the configured failsafe interval."""
        return self.store.reminders


def dream_config(settings: Settings, store: Records, trigger: str = "schedule") -> DreamConfig:
    """What one dream needs: the effective limits and the memory budget."""
    return DreamConfig(
        limits=effective_limits(settings, store),
        memory_limit_mb=settings.memory_limit_mb,
        budget_tokens=settings.context_budget_tokens,
        trigger=trigger,
    )


async def dream_job(settings: Settings, store: MemoryStore, backend: Backend, night: str = "") -> None:
    """The nightly job the scheduler runs: one dream with the limits in force at that moment, in a worker
    thread; at night the box is idle, so the simulation measures proposals on the model itself.

    With several processes on one database each scheduler calls this for the same `night`; the
    dream lease lets one of them dream it (the others log why they did not)."""
    meter = model_meter(
        backend,
        store,
        asyncio.get_running_loop(),
        include_report=settings.include_execution_report,
        max_info_requests=settings.max_info_requests,
    )
    config = replace(dream_config(settings, store), meter=meter, night=night)
    try:
        await asyncio.to_thread(run_dream, store, config)
    except DreamSkipped as skipped:
        log.info("no dream here: %s", skipped)


async def _formation_worker(rt: Runtime) -> None:
    # Imported here: app.extractor builds on Runtime, so a top-level import would be circular.
    from app.extractor import formation_worker

    await formation_worker(rt)


@asynccontextmanager
async def open_runtime(settings: Settings, *, schedule: bool = True) -> AsyncIterator[Runtime]:
    """Build the storage, the model backend and (unless `schedule` is off) the background work:
    the nightly scheduler and the memory-formation worker.

    The scheduler runs inside this process because Kuzu admits one process (ARCHITECTURE.md).
    """
    store = open_storage(settings)
    try:
        async with open_backend(llm_config(settings)) as backend:
            path, why = await choose_path(settings.judgement, backend, settings.data_dir)
            log.info("judgement: %s (%s)", path, why)
            rt = Runtime(settings=settings, store=store, backend=backend, path=path)

            async def reminders() -> None:
                await asyncio.to_thread(deliver_due, store.turns, store.threads, store.reminders)

            scheduler = (
                start_scheduler(
                    data_dir=settings.data_dir,
                    dream_time=settings.dream_time,
                    run_dream=partial(dream_job, settings, store, backend),
                    send_due_reminders=reminders,
                    job_store_url=job_store_url(settings.data_dir / SCHEDULER_DB, settings.database_url),
                )
                if schedule
                else None
            )
            worker = asyncio.create_task(_formation_worker(rt)) if schedule else None
            try:
                with frozen_heap():
                    yield rt
            finally:
                if worker is not None:
                    worker.cancel()
                    await asyncio.gather(worker, return_exceptions=True)
                if scheduler is not None:
                    stop_scheduler(scheduler)
    finally:
        store.close()
