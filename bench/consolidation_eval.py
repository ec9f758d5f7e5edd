"""Does the dream's tidy-up cost recall? A persona's memory before and after one consolidation.

    .venv/bin/python -m bench.consolidation_eval --persona bench/personas/held.json --data KEPT_DATA_DIR [--days 120]

KEPT_DATA_DIR is a data directory `bench.personal_memory --keep` left behind (the persona told
through `reverie chat`). A copy of it is asked every question of the persona through `reverie chat
--json` (the baseline, same run), then one dream runs over it as if `--days` had passed since the
telling (so raw turns are old enough to be archived, and every exact and near duplicate, entity
and long thread is there to consolidate), then the same questions are asked again. Printed: active
memories before and after, the dream's changes by kind and its time, and the answers right before
and after per question type. The tidy-up must not lose a right answer.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

from app.runtime import effective_limits, open_storage
from app.settings import Settings
from bench.machine import print_machine
from bench.personal_memory import Run, ask, load_persona
from dreaming.dream import DreamConfig, run_dream
from memory.models import utcnow


def _active(data_dir: Path) -> int:
    store = open_storage(Settings(_env_file=None, data_dir=data_dir))  # pyright: ignore[reportCallIssue]
    try:
        return sum(len(store.memories.list(a.id or 0, status="active", limit=100_000)) for a in store.accounts.list())
    finally:
        store.close()


def _score(results: list[dict[str, Any]]) -> dict[str, str]:
    right, total = Counter[str](), Counter[str]()
    for r in results:
        total[r["type"]] += 1
        right[r["type"]] += bool(r["right"])
    return {**{k: f"{right[k]}/{total[k]}" for k in total}, "all": f"{sum(right.values())}/{sum(total.values())}"}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--persona", type=Path, required=True)
    parser.add_argument("--data", type=Path, required=True, help="a data dir kept by bench.personal_memory --keep")
    parser.add_argument("--days", type=int, default=120, help="how long after the telling the dream runs")
    args = parser.parse_args()
    persona = load_persona(args.persona)
    print_machine()
    root = Path(tempfile.mkdtemp(prefix="reverie-consolidate-"))
    data = root / "data"
    shutil.copytree(args.data, data)
    try:
        with (root / "reverie.log").open("w") as log:
            run = Run("policy", persona, data, log, time.monotonic())
            before_memories = _active(data)
            before = ask(run, 8)
            settings = Settings(_env_file=None, data_dir=data)  # pyright: ignore[reportCallIssue]
            store = open_storage(settings)
            try:
                started = time.perf_counter()
                config = DreamConfig(limits=effective_limits(settings, store), trigger="bench")
                report = run_dream(store, config, now=utcnow() + timedelta(days=args.days))
                took = time.perf_counter() - started
            finally:
                store.close()
            after_memories = _active(data)
            after = ask(run, 8)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    lost = [r["id"] for r, s in zip(before, after, strict=True) if r["right"] and not s["right"]]
    gained = [r["id"] for r, s in zip(before, after, strict=True) if s["right"] and not r["right"]]
    print(f"persona {args.persona.name}, dream as if {args.days} days later: {took:.1f} s")
    print(f"changes {report.consolidation}")
    print(f"active memories {before_memories} → {after_memories}")
    print("| | " + " | ".join(_score(before)) + " |")
    print("|---|" + "---|" * len(_score(before)))
    print("| before | " + " | ".join(_score(before).values()) + " |")
    print("| after | " + " | ".join(_score(after).values()) + " |")
    print(f"right before, wrong after: {lost or 'none'}; wrong before, right after: {gained or 'none'}")


if __name__ == "__main__":
    main()
