"""LoCoMo memory server: the harness's JSON-lines protocol on top of the real `MemoryIndex`.

    cd /work/main && python3 /work/shared/bench/locomo_retrieval.py eval \\
        --data /work/shared/bench/locomo_dev.json --retrievers bm25 \\
        --retriever 'jsonl:.venv/bin/python bench/locomo_server.py'

Each conversation gets a fresh data directory opened by memory's front door (`open_memory`: SQLite
with sqlite-vec and FTS5, migrations, the Kuzu graph). Each turn becomes a `turn` memory dated by
its session, in a thread per session, its speaker in `meta` (the speaker prior reads it).

A question is answered the way the chat answers it (issue 14): the policy path's context request
for it (`plan_request`, fitted into the seed's default limits, then `clamp`), the harness's budget
as the token budget, and `ContextAssembler.assemble` asked at the conversation's end (the day of
its last session); the memories it loaded, in the order it packed them, then the neighbouring turns
it showed beside them with the budget left (`LOCOMO_AROUND=0`: none; `after` or `before`: one side;
`LOCOMO_RINGS=1`: one turn on each side; `LOCOMO_FOLD=0`: a ranked turn next to a chosen one takes a
place of its own), are the answer. The request takes the memories past its granted count the policy lets
the budget's room take (`room_for_more`; `LOCOMO_MORE=N`: N instead, `0` none, as before the
twenty-fourth session).
`LOCOMO_REQUEST=default` asks for the seed's defaults instead (5 memories at 0.7), `fill` for as
many memories as fit at threshold 0 (the chat's packer then orders them: relevance, recency and
kind), and `rank` packs `MemoryIndex.search`'s ranking itself in its order (how this benchmark
scored before issue 14: the ranking alone). A ranked list (`budget_tokens` null) is always
`MemoryIndex.search`, the function assembly calls. No benchmark data is stored in the repo.
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

from sqlalchemy import text

from capabilities.request_policy import kind_of, plan_request, room_for_more
from capabilities.resources import Limits, ResourceRequest, clamp
from memory.assembly import ContextRequest
from memory.recall import conversation as conv
from memory.recall import hybrid
from memory.recall.embedder import Embedder, get_embedder
from memory.recall.hybrid import pack
from memory.recall.vectors import MemoryIndex, NewMemory
from memory.store import MemoryStore, open_memory

USER = 1
REQUEST = os.environ.get("LOCOMO_REQUEST", "policy")  # policy | default | fill | rank (module docstring)
FILL = 100  # memories asked for by `fill`: ~100 turns fill the largest budget (2,048 tokens)
LIMITS = Limits.from_values()  # the seed's ranges and defaults
# Ranking weights can be swept from the environment; 0 turns a step off.
conv.SESSION_WEIGHT = float(os.environ.get("LOCOMO_SESSION_WEIGHT", conv.SESSION_WEIGHT))
conv.SPEAKER_WEIGHT = float(os.environ.get("LOCOMO_SPEAKER_WEIGHT", conv.SPEAKER_WEIGHT))
conv.SPEAKER_MARGIN = float(os.environ.get("LOCOMO_SPEAKER_MARGIN", conv.SPEAKER_MARGIN))  # "inf": no yielding
conv.CONTENT_LEAD = int(os.environ.get("LOCOMO_CONTENT_LEAD", conv.CONTENT_LEAD))  # 99: the content rule off
conv.STEM = int(os.environ.get("LOCOMO_STEM", conv.STEM))
hybrid.DATE_WEIGHT = float(os.environ.get("LOCOMO_DATE_WEIGHT", hybrid.DATE_WEIGHT))
_AROUND = os.environ.get("LOCOMO_AROUND", "after,before")  # 0: loaded turns without their neighbouring lines
AROUND = _AROUND != "0"
if AROUND:
    import memory.assembly

    memory.assembly.AROUND = tuple(_AROUND.split(","))
    # Controls of the seventeenth session: 1 ring (the turns just before and after only); 0: no ranked
    # turn next to a chosen one gives its place to the next.
    memory.assembly.RINGS = int(os.environ.get("LOCOMO_RINGS", memory.assembly.RINGS))
    memory.assembly.FOLD = int(os.environ.get("LOCOMO_FOLD", memory.assembly.FOLD))
# Memories past the granted count while the budget has room: the policy's (`room_for_more`) unless set
# (`LOCOMO_MORE=0`: none, as before the twenty-fourth session).
_MORE = os.environ.get("LOCOMO_MORE")
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


def request(question: str, budget: int) -> ContextRequest:
    """The context the chat would ask for this question (`REQUEST`), with the harness's budget."""
    if REQUEST == "fill":
        return ContextRequest(0, FILL, 0.0, 0, budget)
    if REQUEST == "default":
        wanted = ResourceRequest.model_validate({d.value.field: LIMITS[d].default for d in LIMITS})
    else:
        wanted = plan_request(question, [], LIMITS)
    fields = clamp(wanted, LIMITS).fields()
    more = room_for_more(kind_of(wanted.reason), fields["vector_limit"], LIMITS) if _MORE is None else int(_MORE)
    return ContextRequest(**fields, budget_tokens=budget, more_memories=more)


def _date(turn: dict[str, Any]) -> datetime:
    try:
        return datetime.strptime(turn["date"], "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError:
        return datetime.now(UTC)


class Server:
    """One conversation at a time in a throwaway data directory."""

    def __init__(self) -> None:
        self.tmp = tempfile.TemporaryDirectory(prefix="locomo-")
        self.store: MemoryStore | None = None
        self.embedder = get_embedder()
        self.pending: list[dict[str, Any]] = []
        self.turns: dict[int, dict[str, Any]] = {}
        self.now = datetime.now(UTC)
        self.n = 0

    @property
    def index(self) -> MemoryIndex:
        assert self.store is not None
        return self.store.memories

    def reset(self) -> None:
        if self.store is not None:
            self.store.close()
        self.n += 1
        home = Path(self.tmp.name) / f"conv{self.n}"
        home.mkdir()
        self.store = open_memory(home / "reverie.db", home / "graph", self.embedder)
        with self.store.engine.begin() as conn:
            conn.execute(
                text("INSERT INTO accounts (id, name, password_hash, created_at) VALUES (:i, 'bench', '-', :t)"),
                {"i": USER, "t": datetime.now(UTC).isoformat()},
            )
        self.pending, self.turns = [], {}

    def flush(self) -> None:
        if not self.pending or self.store is None:
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
        self.now = max(r.created_at for r in rows).replace(tzinfo=UTC)  # asked at the conversation's end
        self.pending = []

    def query(self, question: str, budget: int | None, k: int | None) -> list[str]:
        self.flush()
        assert self.store is not None
        if budget is None:
            hits = self.index.search(USER, question, max(k or 25, 25), 0.0, today=self.now.date())
            return [self.turns[m]["dia_id"] for h in hits if (m := h.memory.id) in self.turns]
        if REQUEST == "rank":
            ids = [h.memory.id for h in self.index.search(USER, question, FILL, 0.0, today=self.now.date())]
        else:
            asked = request(question, budget)
            self.store.assembler.surround = AROUND
            context = self.store.assembler.assemble(USER, "locomo-question", question, asked, now=self.now)
            ids = [int(i.ref[1:]) for i in context.loaded if i.ref.startswith("m")]
            # Then the turns shown around them, as the budget went to them: every memory's first line, then its second…
            ids += [i.around[k] for k in range(4) for i in context.loaded if len(i.around) > k]
        # The harness renders and counts turns its own way: pack its count in the assembly's order.
        packed = pack([m for m in ids if m in self.turns], budget, cost=lambda m: self.turns[m]["_tok"])
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
    assert server.store is not None
    filler = MemoryIndex(server.store.engine, RandomEmbedder())
    for start in range(0, n, 5000):
        texts = [" ".join(rng.choices(words, k=12)) + f" note {i}" for i in range(start, min(n, start + 5000))]
        filler.add_many(USER, [NewMemory("fact", t) for t in texts])
    index = MemoryIndex(server.store.engine, get_embedder())
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
