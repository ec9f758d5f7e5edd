"""Footprint: whole-stack resident memory and speed over a scripted 50-turn conversation.

    .venv/bin/python -m bench.footprint [--turns 50] [--max-seconds 1500] [--no-server]

Pinned to one core (the same as `taskset -c 0`: the affinity is set before anything starts and
the embedded model's child process inherits it). The real composition root (`open_runtime`)
with the real embedded llama.cpp model drives `chat_turn` in process; a sampler thread reads
the RSS of this process and of its children every 100 ms. Per turn: time to first token and
the usage row's request / retrieval / generation / formation times.

The runtime is the app's own (`open_runtime`: storage, model child, nightly scheduler and the
memory-formation worker). After each reply the turn's memory formation (the app's durable
queue and LLM extractor) is awaited and timed, and written to the usage row's `formation_ms`.

Baselines in the same run: RSS after `open_storage` alone (the app without model), the model
child alone, and the bare model's time to first token on the same messages (no request step,
no retrieval). With `--server`, the real `reverie run` is also started idle under the same pin.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import argparse
import asyncio
import json
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

from bench.machine import print_machine

MB = 1024 * 1024
FACTS = [
    "My name is Ana and I live in Porto.",
    "I work as a nurse at Santo António hospital.",
    "My brother Rui is a carpenter in Braga.",
    "I am allergic to peanuts.",
    "My dog is called Pimenta.",
    "I am training for the Porto marathon in November.",
    "My favourite food is bacalhau with cream.",
    "I play the cello on Sundays.",
    "My manager at the hospital is Dr. Lima.",
    "I want to visit Japan next spring.",
]
QUESTIONS = [
    "Where do I live?",
    "What is my job?",
    "What does my brother do?",
    "What should I avoid eating?",
    "What is my dog's name?",
    "Which race am I training for?",
    "Suggest a dinner I would like.",
    "What instrument do I play?",
    "Who is my manager?",
    "Where do I want to travel?",
]


def conversation(turns: int) -> list[str]:
    """A deterministic chat: facts first, then questions about them, then mixed."""
    base = FACTS + QUESTIONS + [f"Remind me: {q.lower()}" for q in QUESTIONS] + [f"Also, {f}" for f in FACTS]
    base += [f"Thanks. {q}" for q in QUESTIONS]
    return (base * (turns // len(base) + 1))[:turns]


class Sampler(threading.Thread):
    """RSS of this process (app) and of its children (the model) every `period` seconds."""

    def __init__(self, period: float = 0.1, root: psutil.Process | None = None) -> None:
        super().__init__(daemon=True)
        self.period, self.root = period, root or psutil.Process()
        self.peak_total = self.peak_app = self.peak_children = 0.0
        self.samples = 0
        self._halt = threading.Event()

    def sample(self) -> tuple[float, float]:
        app = self.root.memory_info().rss / MB
        children = 0.0
        for child in self.root.children(recursive=True):
            try:
                children += child.memory_info().rss / MB
            except psutil.Error:
                continue
        self.peak_app, self.peak_children = max(self.peak_app, app), max(self.peak_children, children)
        self.peak_total = max(self.peak_total, app + children)
        self.samples += 1
        return app, children

    def run(self) -> None:
        while not self._halt.wait(self.period):
            try:
                self.sample()
            except psutil.Error:
                return

    def stop(self) -> None:
        self._halt.set()
        self.join(timeout=2)


@dataclass
class Results:
    """Everything measured, for the report."""

    rss: dict[str, float] = field(default_factory=dict)
    startup_s: dict[str, float] = field(default_factory=dict)
    ttft_ms: list[float] = field(default_factory=list)
    turn_ms: list[float] = field(default_factory=list)
    bare_ttft_ms: list[float] = field(default_factory=list)
    formation_ms: list[float] = field(default_factory=list)
    rows: list[dict[str, float | None]] = field(default_factory=list)
    failed: int = 0


async def bare_ttft(model: object, messages: list[str]) -> list[float]:
    """The model's own time to first token on these messages: no request step, no retrieval."""
    from pydantic_ai import Agent

    out = []
    agent = Agent(model, output_type=str)  # pyright: ignore[reportArgumentType]
    for text in messages:
        start = time.perf_counter()
        async with agent.run_stream(text) as result:
            async for _ in result.stream_text(delta=True, debounce_by=None):
                out.append((time.perf_counter() - start) * 1000)
                break
    return out


async def form(rt: Any, uid: int) -> float:
    """Memory formation of the turn just answered (the app's queue and extractor), timed and logged."""
    from app.extractor import form_memories
    from memory.formation.queue import FormationQueue

    turn_id = next(t.id for t in rt.store.turns.recent(uid, "bench", 2) if t.role == "user")
    start, queue = time.perf_counter(), FormationQueue(rt.store.engine)
    await form_memories(rt, uid, turn_id)
    while queue.status(turn_id) in ("pending", "running") and time.perf_counter() - start < 300:
        await asyncio.sleep(0.2)  # the app's background worker took it first
    ms = (time.perf_counter() - start) * 1000
    rt.store.usage.set_formation_ms(turn_id, ms)  # the wait in the queue included
    return ms


async def chat(data_dir: Path, turns: int, max_seconds: float, res: Results, sampler: Sampler) -> None:
    """Open the real runtime and drive the scripted conversation."""
    from app.chat import Failed, Finished, Token, chat_turn
    from app.runtime import open_runtime, open_storage
    from app.settings import Settings

    settings = Settings(_env_file=None, data_dir=data_dir, llm_backend="embedded")  # pyright: ignore[reportCallIssue]
    start = time.perf_counter()
    store = open_storage(settings)
    res.startup_s["open_storage (cold, new dir)"] = time.perf_counter() - start
    uid = store.accounts.create("bench", "bench-password").id or 0
    store.memories.add(uid, "fact", "warm-up: load the embedder weights")
    res.rss["app without model (storage + embedder loaded)"] = sampler.sample()[0]
    store.close()
    start = time.perf_counter()
    async with open_runtime(settings) as rt:
        res.startup_s["open_runtime (storage + model child)"] = time.perf_counter() - start
        _app, model = sampler.sample()
        res.rss["model child alone, idle"] = model
        deadline = time.monotonic() + max_seconds
        for i, text in enumerate(conversation(turns)):
            if time.monotonic() > deadline:
                print(f"time bound reached after {i} turns", flush=True)
                break
            t0, first = time.perf_counter(), None
            finished: Finished | None = None
            async for ev in chat_turn(rt, uid, "bench", text):
                if isinstance(ev, Token) and first is None:
                    first = (time.perf_counter() - t0) * 1000
                elif isinstance(ev, Finished):
                    finished = ev
                elif isinstance(ev, Failed):
                    res.failed += 1
            res.turn_ms.append((time.perf_counter() - t0) * 1000)
            if first is not None:
                res.ttft_ms.append(first)
            if finished is not None:
                res.formation_ms.append(await form(rt, uid))
            print(f"turn {i + 1}: ttft {first or 0:.0f} ms, total {res.turn_ms[-1]:.0f} ms", flush=True)
        res.bare_ttft_ms = await bare_ttft(rt.backend.model, conversation(turns)[:5])
        for row in rt.store.usage.recent(uid, limit=1000):
            res.rows.append(
                {k: getattr(row, k) for k in ("request_ms", "retrieval_ms", "generation_ms", "formation_ms")}
            )


def server_idle(data_dir: Path, seconds: float, core: int) -> dict[str, float]:
    """Start the real `reverie run` pinned to core 0, wait until it answers, sample its tree idle."""
    sock = __import__("socket").socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    env = {**os.environ, "REVERIE_DATA_DIR": str(data_dir), "REVERIE_LLM_BACKEND": "embedded"}
    cmd = ["taskset", "-c", str(core), sys.executable, "-m", "app.cli", "run", "--port", str(port)]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        while time.perf_counter() - start < 240:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=2).close()
                break
            except OSError:
                time.sleep(0.5)
        ready = time.perf_counter() - start
        sampler = Sampler(root=psutil.Process(proc.pid))
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            sampler.sample()
            time.sleep(0.1)
        return {"ready_s": ready, "total": sampler.peak_total, "app": sampler.peak_app, "model": sampler.peak_children}
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


def _p(values: list[float], q: float) -> str:
    if not values:
        return "n/a"
    ordered = sorted(values)
    return f"{ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]:.0f}"


def report(res: Results, sampler: Sampler, server: dict[str, float] | None) -> None:
    """Print markdown tables."""
    print(f"\n{len(res.turn_ms)} turns, {res.failed} failed, {sampler.samples} RSS samples (100 ms)\n")
    print("| resident memory | MB |\n|---|---|")
    print(f"| **peak total (app + model child)** | **{sampler.peak_total:.0f}** |")
    print(f"| peak app process | {sampler.peak_app:.0f} |\n| peak model child | {sampler.peak_children:.0f} |")
    for name, mb in res.rss.items():
        print(f"| baseline: {name} | {mb:.0f} |")
    if server:
        print(
            f"| `reverie run` idle (Chainlit + model child), total / app / model | {server['total']:.0f} / "
            f"{server['app']:.0f} / {server['model']:.0f} |"
        )
    print("\n| per turn (ms) | p50 | p95 | max |\n|---|---|---|---|")
    print(f"| time to first token | {_p(res.ttft_ms, 50)} | {_p(res.ttft_ms, 95)} | {_p(res.ttft_ms, 100)} |")
    print(
        f"| baseline: bare model TTFT (5 msgs) | {_p(res.bare_ttft_ms, 50)} | {_p(res.bare_ttft_ms, 95)} "
        f"| {_p(res.bare_ttft_ms, 100)} |"
    )
    print(f"| whole turn | {_p(res.turn_ms, 50)} | {_p(res.turn_ms, 95)} | {_p(res.turn_ms, 100)} |")
    for key in ("request_ms", "retrieval_ms", "generation_ms", "formation_ms"):
        vals = [float(v) for r in res.rows if (v := r[key]) is not None]
        print(f"| {key.removesuffix('_ms')} | {_p(vals, 50)} | {_p(vals, 95)} | {_p(vals, 100)} |")
    for name, s in {
        **res.startup_s,
        **({"reverie run until HTTP answers": server["ready_s"]} if server else {}),
    }.items():
        print(f"\nstart-up: {name}: {s:.1f} s", end="")
    print()
    means = {k: statistics.fmean([float(v) for r in res.rows if (v := r[k]) is not None] or [0.0]) for k in res.rows[0]}
    print("\nmean breakdown (ms): " + json.dumps({k: round(v) for k, v in means.items()}) if res.rows else "")


def main() -> None:
    """Pin to core 0, run the conversation, print the report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=50)
    parser.add_argument("--max-seconds", type=float, default=1500)
    parser.add_argument("--no-server", action="store_true", help="skip the idle `reverie run` measurement")
    parser.add_argument("--core", type=int, default=0, help="the one core to pin to (taskset -c CORE)")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.core})  # = taskset -c CORE; the model child inherits it
    print_machine()
    sampler = Sampler()
    sampler.start()
    res = Results()
    with tempfile.TemporaryDirectory(prefix="reverie-footprint-") as tmp:
        asyncio.run(chat(Path(tmp) / "data", args.turns, args.max_seconds, res, sampler))
        sampler.stop()
        server = None if args.no_server else server_idle(Path(tmp) / "server-data", 10, args.core)
    report(res, sampler, server)


if __name__ == "__main__":
    main()
