"""One dream as the running app dreams it, for integration tests: the real scheduler's tick picks up
`reverie dream --now`'s request and runs the app's own job (app.runtime.dream_job: the limits in
force, the model meter on the given backend); what it did is read back from the stores."""

from __future__ import annotations

import asyncio
from functools import partial

from app.llm import Backend
from app.runtime import dream_job
from app.scheduler import request_dream_now, start_scheduler, stop_scheduler
from app.settings import Settings
from dreaming.dream import DreamReport, findings
from memory.dreams import DreamStore, loads
from memory.store import MemoryStore


async def scheduled(settings: Settings, storage: MemoryStore, backend: Backend) -> DreamReport:
    """Run one dream through the scheduler and the nightly job; fail unless it completed."""

    async def no_reminders() -> None:
        return None

    dreams = DreamStore(storage.engine)
    last = next(iter(dreams.runs(limit=1)), None)
    run = last
    sched = start_scheduler(data_dir=settings.data_dir, dream_time="03:00", send_due_reminders=no_reminders,
                            run_dream=partial(dream_job, settings, storage, backend), tick_seconds=1)  # fmt: skip
    try:
        request_dream_now(settings.data_dir)
        for _ in range(600):
            run = next(iter(dreams.runs(limit=1)), None)
            if run is not None and run.id != (last.id if last else None) and run.status in ("completed", "failed"):
                break
            await asyncio.sleep(0.1)
    finally:
        stop_scheduler(sched)
    assert run is not None and run.id is not None and run.status == "completed", run
    made = [p for p in dreams.proposals(None, 50) if p.run_id == run.id]
    return DreamReport(run.id, run.usage_rows, made, loads(run.consolidation), findings=findings(run))
