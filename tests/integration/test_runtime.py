"""open_runtime, the served app's start-up: what it holds while it serves."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

import app.runtime as runtime
from app.settings import Settings

pytestmark = pytest.mark.anyio


class _Cycle:
    def __init__(self) -> None:
        self.me = self


@asynccontextmanager
async def _no_model(_cfg: Any) -> AsyncIterator[Any]:
    yield object()  # the model is not what this test is about; start-up and the stores are


async def _policy(*_args: Any) -> tuple[str, str]:
    return "policy", "test"


async def test_open_runtime_keeps_start_up_out_of_full_collections_and_still_collects_new_garbage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runtime, "open_backend", _no_model)
    monkeypatch.setattr(runtime, "choose_path", _policy)
    settings = Settings(_env_file=None, data_dir=tmp_path / "data", llm_backend="embedded")  # pyright: ignore[reportCallIssue]
    before = _Cycle()
    async with runtime.open_runtime(settings, schedule=False) as rt:
        frozen = gc.get_freeze_count()
        assert frozen > 10_000  # the imported modules, the embedder and the stores
        assert rt.store.memories is not None
        made = _Cycle()
        seen = len(gc.get_objects())  # the frozen ones are not among them
        del made
        assert gc.collect() >= 1  # garbage made while serving is collected as before
        assert len(gc.get_objects()) < seen
        assert gc.get_freeze_count() == frozen
    assert gc.get_freeze_count() == 0  # nothing left out of the collector once it is closed
    assert any(o is before for o in gc.get_objects())
