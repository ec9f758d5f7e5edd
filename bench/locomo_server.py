"""LoCoMo memory server: the harness's JSON-lines protocol on top of the real `MemoryIndex`.

    cd /work/main && python3 /work/shared/bench/locomo_retrieval.py eval \\
        --data /work/shared/bench/locomo_dev.json --retrievers bm25 \\
        --retriever 'jsonl:.venv/bin/python bench/locomo_server.py'

Each conversation gets a fresh SQLite file (real sqlite-vec, FTS5, migrations). Each turn
becomes a `turn` memory dated by its session, in a thread per session, its speaker in `meta`
(conversation mode's speaker prior reads it); ranking is
`MemoryIndex.recall` exactly as the app uses it. No benchmark data is stored in the repo.
"""

from __future__ import annotations

import os

# Entry point: one BLAS thread must be chosen before numpy is first imported.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import json
import re
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import Engine, text

from memory.db.engine import migrate, open_engine
from memory.db.migrations import MIGRATIONS
from memory.recall import conversation as conv
from memory.recall.embedder import Embedder, get_embedder
from memory.recall.hybrid import pack
from memory.recall.vectors import MemoryIndex, NewMemory

USER = 1
NEIGHBOURS = os.environ.get("LOCOMO_NEIGHBOURS", "1") == "1"
# Conversation-mode weights can be swept from the environment; 0 turns a step off.
conv.SESSION_WEIGHT = float(os.environ.get("LOCOMO_SESSION_WEIGHT", conv.SESSION_WEIGHT))
conv.SPEAKER_WEIGHT = float(os.environ.get("LOCOMO_SPEAKER_WEIGHT", conv.SPEAKER_WEIGHT))
_TOK = re.compile(r"\w+|[^\w\s]")  # the harness's token count, so packing matches its scoring


def harness_tokens(turn: dict[str, Any]) -> int:
    """Tokens the harness charges for a turn (its render_turn + 1)."""
    s = f"[{turn['dia_id']}] ({turn['date']}) {turn['speaker']}: {turn['text']}"
    if turn.get("caption"):
        s += f" [shares image: {turn['caption']}]"
    return len(_TOK.findall(s)) + 1


def memory_text(turn: dict[str, Any]) -> str:
    """What is stored: date and speaker in the text, so both lexical and dense recall see them."""
    s = f"({turn['date_time']}) {turn['speaker']}: {turn['text']}"
    if turn.get("caption"):
        s += f" [shares an image: {turn['caption']}]"
    return s


def _date(turn: dict[str, Any]) -> datetime:
    try:
        return datetime.strptime(turn["date"], "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError:
        return datetime.now(UTC)


class Server:
    """One conversation at a time in a throwaway SQLite file."""

    def __init__(self) -> None:
        self.tmp = tempfile.TemporaryDirectory(prefix="locomo-")
        self.engine: Engine | None = None
        self.index: MemoryIndex | None = None
        self.pending: list[dict[str, Any]] = []
        self.turns: dict[int, dict[str, Any]] = {}
        self.n = 0

    def reset(self) -> None:
        if self.engine is not None:
            self.engine.dispose()
        self.n += 1
        self.engine = open_engine(Path(self.tmp.name) / f"conv{self.n}.db")
        migrate(self.engine, MIGRATIONS)
        with self.engine.begin() as conn:
            conn.execute(
                text("INSERT INTO accounts (id, name, password_hash, created_at) VALUES (:i, 'bench', '-', :t)"),
                {"i": USER, "t": datetime.now(UTC).isoformat()},
            )
        self.index = MemoryIndex(self.engine, get_embedder())
        self.pending, self.turns = [], {}

    def flush(self) -> None:
        if not self.pending or self.index is None:
            return
        meta = [{"dia": t["dia_id"], "speaker": t["speaker"]} for t in self.pending]
        items = [
            NewMemory("turn", memory_text(t), _date(t), thread_id=f"session-{t['session']}", meta=m)
            for t, m in zip(self.pending, meta, strict=True)
        ]
        rows = self.index.add_many(USER, items)
        for row, turn in zip(rows, self.pending, strict=True):
            assert row.id is not None
            self.turns[row.id] = dict(turn, _tok=harness_tokens(turn))
        self.pending = []

    def query(self, question: str, budget: int | None, k: int | None) -> list[str]:
        self.flush()
        assert self.index is not None
        # ~100 turns fill the largest budget (2,048 tokens); more would only cost row loading.
        hits = self.index.search(USER, question, limit=max(k or 0, 100), threshold=0.0, neighbours=NEIGHBOURS)
        ids = [h.memory.id for h in hits if h.memory.id in self.turns]
        if budget is None:
            return [self.turns[m]["dia_id"] for m in ids[: max(k or 25, 25)]]
        packed = pack(ids, budget, cost=lambda m: self.turns[m]["_tok"])
        return [self.turns[m]["dia_id"] for m in packed]


def latency(n: int, queries: int = 200) -> None:
    """Print p50/p95 `MemoryIndex.search` latency and RSS with `n` synthetic memories.

    Stored vectors come from a seeded random unit-vector embedder (embedding 100k texts for
    real would take hours on one vCPU and does not change KNN cost); queries use the real model.
    """
    import random
    import time

    import numpy as np
    import psutil

    rand = np.random.default_rng(0)

    class RandomEmbedder(Embedder):
        def embed(self, texts: list[str]) -> np.ndarray:
            v = rand.standard_normal((len(texts), 384)).astype(np.float32)
            return v / np.linalg.norm(v, axis=1, keepdims=True)

    words = ["garden", "piano", "holiday", "sister", "doctor", "recipe", "train", "budget", "movie", "dog"]
    rng = random.Random(0)
    server = Server()
    server.reset()
    assert server.engine is not None
    filler = MemoryIndex(server.engine, RandomEmbedder())
    for start in range(0, n, 5000):
        texts = [" ".join(rng.choices(words, k=12)) + f" note {i}" for i in range(start, min(n, start + 5000))]
        filler.add_many(USER, [NewMemory("fact", t) for t in texts])
    index = MemoryIndex(server.engine, get_embedder())
    index.search(USER, "warm-up", limit=5, threshold=0.0)
    times = []
    for i in range(queries):
        q = f"what did my {rng.choice(words)} say about the {rng.choice(words)} {i}?"
        t0 = time.perf_counter()
        index.search(USER, q, limit=5, threshold=0.7)
        times.append(1000 * (time.perf_counter() - t0))
    p50, p95 = np.percentile(times, [50, 95])
    rss = psutil.Process().memory_info().rss / 2**20
    print(json.dumps({"memories": n, "p50_ms": round(p50, 1), "p95_ms": round(p95, 1), "rss_mb": round(rss)}))
    server.tmp.cleanup()


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--latency":
        latency(int(sys.argv[2]))
        return
    server = Server()
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        op = msg.get("op")
        out: dict[str, Any] = {"ok": True}
        if op == "reset":
            server.reset()
        elif op == "add":
            server.pending.append(msg["turn"])
        elif op == "flush":
            server.flush()
        elif op == "query":
            out = {"dia_ids": server.query(msg["question"], msg.get("budget_tokens"), msg.get("k"))}
        elif op == "close":
            break
        else:
            out = {"error": f"unknown op {op!r}"}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()
    server.tmp.cleanup()


if __name__ == "__main__":
    main()
