"""The evidence policy replayed offline on recorded questions: a change to it measured in seconds.

    .venv/bin/python -m bench.evidence_replay --inputs /tmp/inputs [--diff /tmp/before.json] [--save /tmp/after.json]

`bench/evidence_audit.py --inputs DIR` pickles, for every question of every persona, the arguments of
the answer path's last call to `capabilities.evidence.choose` (the question as read and every note
recalled for it). This re-runs `choose` on them with the code on PYTHONPATH (after
`capabilities.arithmetic.worked_out`, as the answer path does: a sum or difference worked out is scored
by its sentence, and so is a change `capabilities.change` works out from the chosen notes) and scores
its verdict the way `bench/personal_memory.py` scores a reply, without the voice: an answerable
question is right when the chosen notes contain an expected answer, a never-told one when the verdict
is "unknown". It is an upper bound of the chat (the voice may still word a right
note wrong) and the same bound for every version of the policy, so two runs (before and after a change,
`--save` then `--diff`) compare, over every persona at once, in seconds instead of the hours of
re-telling them.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

from bench.personal_memory import contains_answer
from capabilities.arithmetic import time_since, worked_out
from capabilities.change import change
from capabilities.evidence import choose
from capabilities.situation import read


def verdicts(questions: list[dict[str, Any]], inputs: list[tuple[Any, list[Any]]]) -> dict[str, dict[str, Any]]:
    """Each question that reached `choose`: its type, whether the verdict is right, and the reason."""
    out: dict[str, dict[str, Any]] = {}
    for q, (sit, recorded) in zip(questions, inputs, strict=True):
        if sit is None:  # small talk, a reminder: the evidence policy was not asked
            continue
        # each note made again from its fields: a pickled note carries the words and stems its recording's
        # code cached (`Note.said`, `stems`, `phrases`), which would hide a change to how a note is read
        notes = [replace(n) for n in recorded]
        # the question is read again, by the code under test: a change to reading it counts too
        # (each was asked in a new thread, so no history)
        expect = [str(x) for x in q.get("expect", []) or []]
        worked = worked_out(q["question"], [n for n in notes if n.text.strip()])
        if worked:
            right = q["type"] != "abstain" and contains_answer(worked.sentence, expect)
            out[q["id"]] = {"type": q["type"], "question": q["question"], "right": right, "reason": worked.sentence}
            continue
        e = choose(read(q["question"]), notes)
        moved = change(q["question"], e.notes, notes) if e.verdict == "answer" else None
        text = moved.sentence() if moved else " ".join(n.text for n in e.notes)  # as the answer path says it
        # (a length of time since a day the notes say is counted to the day the question was asked, as the
        # answer path counts it to today)
        asked_on = max((n.created_at for n in notes if n.created_at), default=None)
        text += " " + time_since(q["question"], e.notes, asked_on.date() if asked_on else date.today())
        right = (
            e.verdict == "unknown"
            if q["type"] == "abstain"
            else e.verdict == "answer" and contains_answer(text, expect)
        )
        out[q["id"]] = {"type": q["type"], "question": q["question"], "right": right, "reason": e.reason}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__ and __doc__.splitlines()[0])
    parser.add_argument("--inputs", type=Path, required=True, help="the folder `evidence_audit --inputs` wrote")
    parser.add_argument("--save", type=Path, help="write every verdict here (JSON), for a later --diff")
    parser.add_argument("--diff", type=Path, help="an earlier --save: list the questions that changed")
    args = parser.parse_args()
    runs = {p.stem: verdicts(*pickle.loads(p.read_bytes())) for p in sorted(args.inputs.glob("*.pkl"))}
    print("| persona | right | abstain right |\n|---|---|---|")
    for name, run in runs.items():
        abstain = [v["right"] for v in run.values() if v["type"] == "abstain"]
        print(f"| {name} | {sum(v['right'] for v in run.values())}/{len(run)} | {sum(abstain)}/{len(abstain)} |")
    every = [v for run in runs.values() for v in run.values()]
    abstain = [v["right"] for v in every if v["type"] == "abstain"]
    print(f"| all | {sum(v['right'] for v in every)}/{len(every)} | {sum(abstain)}/{len(abstain)} |")
    if args.save:
        args.save.write_text(json.dumps(runs, indent=1, ensure_ascii=False))
    if args.diff:
        before = json.loads(args.diff.read_text())
        for name, run in runs.items():
            for qid, v in run.items():
                old = before.get(name, {}).get(qid)
                if old and old["right"] != v["right"]:
                    change = f"{old['right']} → {v['right']}"
                    print(f"- {name} {qid} ({v['type']}) {change}: {v['question']} ({v['reason']})")


if __name__ == "__main__":
    main()
