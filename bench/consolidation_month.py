"""Consolidation on a synthetic month of chat: memory count, recall before and after, time taken.

    OMP_NUM_THREADS=1 .venv/bin/python -m bench.consolidation_month [--persona bench/personas/held.json]

In a fresh data directory, a month of chat stored as the policy path stores it (each user message a
turn, formed by `form_turn` with patterns only; the assistant's replies as turns), every message
dated on its day: one conversation a day, the persona's threads (the personal-memory benchmark's)
told on twelve of the days, and every day the small talk of a month ("morning!", "ok thanks"), a
routine said again and again in other words (near duplicates: "Walked along the harbour before
breakfast." / "walked along the harbour before breakfast btw") and questions to the assistant. Then
the dreams of that month, one each night (session summaries, duplicates merged), and one dream as
if `--late` days had passed (raw turns old enough to decay). Measured before the first dream, after
the month's dreams, after the late one, and after every dream was undone (`DreamStore.undo`):
active memories, and recall on the persona's questions as `bench.recall_context` counts it (an
expected answer in the context assembled at the policy's request), all asked at the same moment so
only the tidy-up differs. Time: the telling, each dream, and the recall passes.
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from sqlalchemy import text

from bench.machine import print_machine
from bench.personal_memory import load_persona
from bench.recall_context import asked
from capabilities.resources import Limits
from dreaming.dream import DreamConfig, run_dream
from memory.formation.plan import form_turn
from memory.recall.embedder import get_embedder
from memory.store import MemoryStore, open_memory
from memory.turns import Role

GREETINGS = ("morning!", "hiya", "evening :)", "back again", "hey there")
SMALL = ("ok thanks", "haha fair", "cheers", "night!", "makes sense", "lol ok", "sounds good")
ROUTINE = (
    "Walked along the harbour before breakfast, about forty minutes.",
    "Did the weekly shop at the market on the way home.",
    "Cooked a big pot of lentil soup for the week.",
    "Spent the evening reading the new crime novel from the library.",
    "Went for a swim at the community pool after work.",
    "Watered the balcony plants and repotted the basil.",
)
FILLERS = ("btw", "again", "as usual", "lol")
ASKS = (
    "any idea what I could cook tonight with leeks and potatoes?",
    "how long should I rest after a long run?",
    "what is a good stretch for a stiff neck?",
    "can you suggest a film for a rainy evening?",
)
REPLIES = ("Noted.", "Sounds good, enjoy it.", "Got it.", "Glad to hear it.")


def said_again(line: str, rng: random.Random) -> str:
    """The same routine in other words: case, punctuation or a filler changed (a near duplicate)."""
    how = rng.randrange(3)
    if how == 0:
        return line
    if how == 1:
        return line.lower().rstrip(".") + f" {rng.choice(FILLERS)}"
    return line.rstrip(".") + "!"


def day_messages(day: int, told: list[str], rng: random.Random) -> list[str]:
    """What the person types on one day: a greeting, the persona's thread if told that day, routines
    (some said before), a question, small talk."""
    lines = [rng.choice(GREETINGS), *told]
    lines += [said_again(r, rng) for r in rng.sample(ROUTINE, 3)]
    lines += [rng.choice(ASKS), rng.choice(SMALL), f"Day {day + 1} of the month done, {rng.choice(SMALL)}"]
    lines += [rng.choice(SMALL) for _ in range(max(0, 10 - len(lines)))]
    return lines


def store_day(store: MemoryStore, user_id: int, thread: str, lines: list[str], start: datetime) -> None:
    """Each line a user turn (formed) and a reply, a minute apart, dated on the day."""
    for i, line in enumerate(lines):
        said: tuple[tuple[int, Role, str], ...] = ((0, "user", line), (30, "assistant", REPLIES[i % len(REPLIES)]))
        for offset, role, content in said:
            turn = store.turns.add(user_id, thread, role, content)
            turn.created_at = start + timedelta(minutes=i, seconds=offset)
            with store.engine.begin() as conn:  # the turn store dates a turn now; a month ago is set here
                stamp = turn.created_at.strftime("%Y-%m-%d %H:%M:%S.%f")
                conn.execute(text("UPDATE turns SET created_at = :t WHERE id = :i"), {"t": stamp, "i": turn.id})
            if role == "user":
                form_turn(store, user_id, turn, None)


def measure(store: MemoryStore, user_id: int, questions: list[dict[str, object]], at: datetime) -> tuple[int, str]:
    """Active memories and recall (answers in context / questions with an answer)."""
    active = len(store.memories.list(user_id, status="active", limit=100_000))
    found: Counter[tuple[str, bool]] = asked(store, user_id, questions, now=at)
    right = sum(n for (_, ok), n in found.items() if ok)
    return active, f"{right}/{sum(found.values())}"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--persona", type=Path, default=Path("bench/personas/held.json"))
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--late", type=int, default=120, help="days after the month's start of the last dream")
    args = parser.parse_args()
    print_machine()
    persona, rng = load_persona(args.persona), random.Random(15)
    start = datetime.now(UTC).replace(hour=8, minute=0, second=0, microsecond=0) - timedelta(days=args.late + 10)
    at = start + timedelta(days=args.late)  # every recall pass asks at this moment
    told_on = {round(k * args.days / len(persona.threads)): t for k, t in enumerate(persona.threads)}
    rows: list[tuple[str, int, str, float]] = []
    with tempfile.TemporaryDirectory(prefix="consolidation-month-") as home:
        store = open_memory(Path(home) / "reverie.db", Path(home) / "graph", get_embedder())
        uid = store.accounts.create(persona.name, "bench-only-password").id or 0
        began = time.perf_counter()
        for day in range(args.days):
            lines = day_messages(day, told_on.get(day, []), rng)
            store_day(store, uid, f"day-{day + 1:02d}", lines, start + timedelta(days=day))
        telling = time.perf_counter() - began
        turns = sum(len(store.turns.recent(uid, t, 100_000)) for t in store.turns.threads(uid))
        print(f"{args.days} days told: {turns} turns in {telling:.0f} s")
        config = DreamConfig(limits=Limits.from_values(), trigger="bench")

        def stage(name: str, dream_s: float) -> None:
            began = time.perf_counter()
            active, recall = measure(store, uid, persona.questions, at)
            rows.append((name, active, recall, dream_s))
            print(f"{name}: {active} active memories, recall {recall} ({time.perf_counter() - began:.0f} s)")

        stage("before any dream", 0.0)
        changes: Counter[str] = Counter()
        nightly: list[float] = []
        for day in range(1, args.days + 1):
            began = time.perf_counter()
            report = run_dream(store, config, now=start + timedelta(days=day, hours=19))  # 03:00 the next night
            nightly.append(time.perf_counter() - began)
            changes.update(report.consolidation)
        stage(f"after the month's {args.days} nightly dreams", sum(nightly))
        print(f"  changes {dict(changes)}; slowest night {max(nightly):.1f} s")
        began = time.perf_counter()
        late = run_dream(store, config, now=at)
        stage(f"after a dream {args.late - args.days} days after the month", time.perf_counter() - began)
        print(f"  changes {late.consolidation}")
        began = time.perf_counter()
        undone = sum(store.dreams.undo(r.id or 0) for r in store.dreams.runs(limit=1000))
        stage(f"after undoing every dream ({undone} changes)", time.perf_counter() - began)
        store.close()
    print("\n| stage | active memories | recall (answer in context) | dream s |")
    print("|---|---|---|---|")
    for name, active, recall, took in rows:
        print(f"| {name} | {active} | {recall} | {took:.1f} |")


if __name__ == "__main__":
    main()
