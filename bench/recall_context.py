"""Retrieval only, on a persona: is the memory holding each answer in the context the chat assembles?

    OMP_NUM_THREADS=1 .venv/bin/python -m bench.recall_context [--persona bench/personas/held.json ...]

`bench/personal_memory.py` measures the whole chat on the embedded model (30-60 min a persona under
load); this measures the step a recall change touches, in a minute. Per persona, in a fresh data
directory: every message of every thread is stored as a user turn and formed as the policy path
forms it (`form_turn`, patterns only), the persona's document is ingested (pattern extractor), then
each question with an expected answer (abstain questions have none) is assembled in a fresh thread
at the policy's request (`plan_request`, the seed's limits, the settings' 1,200-token budget). A
question counts when a loaded memory contains an expected answer (`contains_answer`, whole words).
It runs on whatever code is on PYTHONPATH, so before / after a change is two runs of this file
(`--alone`: loaded turns shown without the turns beside them, as before the sixteenth session).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections import Counter
from datetime import datetime
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from bench.personal_memory import contains_answer, load_persona
from capabilities.request_policy import kind_of, plan_request, room_for_more
from capabilities.resources import Limits, clamp
from memory.assembly import ContextRequest
from memory.documents.ingest import Ingestor
from memory.formation.plan import form_turn
from memory.recall.embedder import get_embedder
from memory.store import MemoryStore, open_memory

BUDGET = 1200  # app/settings.py: context_budget_tokens
MORE = os.environ.get("RECALL_MORE", "1") != "0"  # 0: no memories past the granted count, as before the 24th session
SEEN: Counter[str] = Counter()  # per persona: questions, context tokens, neighbouring lines, answers only in one


def told(store: MemoryStore, user_id: int, threads: list[list[str]]) -> None:
    """Store and form every message as the policy path does (patterns only)."""
    for n, thread in enumerate(threads, 1):
        for line in thread:
            turn = store.turns.add(user_id, f"told-{n}", "user", line)
            form_turn(store, user_id, turn, None)


def asked(
    store: MemoryStore, user_id: int, questions: list[dict[str, object]], misses: bool = False,
    now: datetime | None = None,
) -> Counter[tuple[str, bool]]:  # fmt: skip
    """(question type, answer in context) counts over the questions with an expected answer, asked at
    `now` (default: the clock)."""
    limits = Limits.from_values()
    found: Counter[tuple[str, bool]] = Counter()
    for q in questions:
        expect = [str(e) for e in q.get("expect", []) or []]  # type: ignore[union-attr]
        if not expect:
            continue
        question = str(q["question"])
        wanted = plan_request(question, [], limits)
        fields = clamp(wanted, limits).fields()
        more = room_for_more(kind_of(wanted.reason), fields["vector_limit"], limits) if MORE else 0
        request = ContextRequest(**fields, budget_tokens=BUDGET, more_memories=more)
        context = store.assembler.assemble(user_id, f"ask-{q['id']}", question, request, now=now)
        text = "\n".join(i.full if i.level == "full" else i.summary for i in context.loaded)
        found[(str(q["type"]), contains_answer(text, expect))] += 1
        # A memory's own text: its neighbouring lines are the last len(around) lines of its full text.
        own = "\n".join(
            i.full.rsplit("\n", len(i.around))[0] if i.level == "full" else i.summary for i in context.loaded
        )
        SEEN.update(questions=1, tokens=context.tokens, lines=sum(len(i.around) for i in context.loaded),
                    only_beside=contains_answer(text, expect) and not contains_answer(own, expect))  # fmt: skip
        if misses and not contains_answer(text, expect):
            print(f"  missed {q['id']} ({q['type']}): {question}")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--persona", action="append", default=[], help="repeatable")
    parser.add_argument("--misses", action="store_true", help="print each question whose answer was not loaded")
    parser.add_argument("--alone", action="store_true", help="loaded turns without their neighbouring lines")
    args = parser.parse_args()
    embedder = get_embedder()
    for path in args.persona or ["bench/personas/held.json"]:
        persona = load_persona(Path(path))
        with tempfile.TemporaryDirectory(prefix="recall-context-") as home:
            store = open_memory(Path(home) / "reverie.db", Path(home) / "graph", embedder)
            store.assembler.surround = not args.alone
            began = time.monotonic()
            user = store.accounts.create(persona.name, "bench-only-password").id or 0
            told(store, user, persona.threads)
            if persona.document is not None:
                Ingestor(store.documents, store.memories, embedder).ingest(user, persona.document)
            found = asked(store, user, persona.questions, args.misses)
            store.close()
        kinds = sorted({k for k, _ in found})
        per = ", ".join(f"{k} {found[(k, True)]}/{found[(k, True)] + found[(k, False)]}" for k in kinds)
        right = sum(n for (_, ok), n in found.items() if ok)
        took = time.monotonic() - began
        print(f"{persona.name}: {right}/{sum(found.values())} answers in context ({per}); {took:.0f} s")
        n = max(SEEN["questions"], 1)
        print(f"  per question: {SEEN['tokens'] / n:.0f} context tokens, {SEEN['lines'] / n:.1f} neighbouring lines; "
              f"{SEEN['only_beside']} answers only in a neighbouring line")  # fmt: skip
        SEEN.clear()


if __name__ == "__main__":
    main()
