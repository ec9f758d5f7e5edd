"""What memory formation stores from plain personal statements on the embedded model.

    OMP_NUM_THREADS=1 .venv/bin/python -m bench.formation_quality [--runs 3]

Each statement goes through `plan_turn` with the real extractor (the bundled SmolLM2-135M, which
samples, so each run can differ) `--runs` times. For each statement the table gives how often
the model's output was used at all and every distinct set of facts and triples that would be
stored, with its count: junk shows up as a line of its own. The statements are written for this
check; they are no benchmark's data. docs/architecture.md ("The model's extraction is grounded")
has the numbers of the last run.
"""

from __future__ import annotations

import argparse
from collections import Counter
from datetime import UTC, datetime

import anyio
import anyio.to_thread

from app.extractor import LLMExtractor
from app.llm import LLMConfig, open_backend
from bench.machine import print_machine
from memory.formation.plan import plan_turn

STATEMENTS = [
    "My sister Ana moved to Porto last spring.",
    "I'm allergic to peanuts.",
    "Ana moved back to Lisbon.",
    "I started a new job at Siemens as a data engineer last week.",
    "My dog Rex loves the beach.",
    "We went hiking in the Alps with my brother Tom.",
    "I prefer tea over coffee.",
    "My wife Clara is a doctor at São João hospital.",
    "I've been learning Portuguese for two years now.",
    "My son Leo turns seven in June.",
    "I live in Berlin with my partner Sam.",
    "I hate running but I love swimming.",
    "My best friend Marta works at the Louvre.",
    "We adopted a cat called Miso in March.",
    "I'm from Valencia originally.",
    "My boss Karen is very demanding.",
    "I play the piano every evening.",
    "My parents live in Seville.",
    "I broke my wrist skiing last winter.",
    "My favourite book is Dune.",
]


async def _outcomes(runs: int) -> dict[str, Counter[str]]:
    seen: dict[str, Counter[str]] = {s: Counter() for s in STATEMENTS}
    async with open_backend(LLMConfig(backend="embedded")) as backend:
        extractor = LLMExtractor.for_backend(backend)
        for _ in range(runs):
            for statement in STATEMENTS:
                plan = await anyio.to_thread.run_sync(plan_turn, statement, extractor, datetime.now(UTC))
                facts = [m.content for m in plan.memories if m.kind == "fact"]
                triples = [f"({t.subject}, {t.predicate}, {t.object})" for t, _ in plan.triples]
                seen[statement][f"[{plan.extractor}] facts {facts} triples {triples}"] += 1
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print_machine()
    seen = anyio.run(_outcomes, args.runs)
    used = sum(n for outcomes in seen.values() for line, n in outcomes.items() if not line.startswith("[patterns]"))
    print(f"\n{len(STATEMENTS)} statements x {args.runs} runs; the model's output was used in {used} plans\n")
    print("| statement | times | what would be stored |\n|---|---|---|")
    for statement, outcomes in seen.items():
        for line, n in outcomes.most_common():
            print(f"| {statement} | {n} | {line.replace('|', '/')} |")


if __name__ == "__main__":
    main()
