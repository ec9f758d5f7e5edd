"""Fit the evidence policy's rank weights (`capabilities.evidence.RANK_WEIGHTS`) and measure them on
personas they were not fitted on.

    .venv/bin/python -m bench.evidence_fit --inputs /tmp/inputs [/tmp/more_inputs ...]

Reads the pickles `bench/evidence_audit.py --inputs DIR` writes (each question's last `choose`
arguments; a persona in a later folder replaces the same persona in an earlier one). For every
answerable question with a recalled note holding its expected answer, each candidate is weighed the
way `choose` weighs it (`capabilities.evidence.weighed`, then `rank_features` in the rule order), and
a linear score is fitted by a softmax over the question's candidates with the answering notes as the
target (ListNet, L2-regularised, full-batch gradient descent).

Leave-one-persona-out: for each persona the weights are fitted on all the others, then that persona
is scored twice, by the rule order alone and by the fitted weights: the share of questions whose top
note holds the answer, and the whole replay (`bench.evidence_replay.verdicts`: what the chat would
answer from, abstain questions included). The last line prints the weights fitted on every persona,
to paste into `capabilities/evidence.py`.
"""

from __future__ import annotations

import argparse
import os
import pickle
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np
import numpy.typing as npt

from bench.evidence_replay import verdicts
from bench.personal_memory import contains_answer
from capabilities import evidence as ev
from capabilities.evidence import rank_features, weighed
from capabilities.situation import read

Group = tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]  # one question: features, answering (0/1)


def load(folders: list[Path]) -> dict[str, tuple[list[dict[str, Any]], list[Any]]]:
    """Each persona's recorded questions and `choose` inputs (a later folder wins)."""
    out: dict[str, tuple[list[dict[str, Any]], list[Any]]] = {}
    for folder in folders:
        for path in sorted(folder.glob("*.pkl")):
            out[path.stem] = pickle.loads(path.read_bytes())
    return out


def groups(questions: list[dict[str, Any]], inputs: list[Any]) -> list[Group]:
    """The answerable questions with an answering candidate, as features in the rule order."""
    ev.RANK_WEIGHTS = ()  # the rule order, whatever the module ships
    out = []
    for q, (sit, notes) in zip(questions, inputs, strict=True):
        if sit is None or q["type"] == "abstain":
            continue
        _, ask, scored = weighed(read(q["question"]), notes)
        if len(scored) < 2 or (not ask.terms and not ask.attributes):
            continue
        ranked = sorted(scored, key=ev._Scored.key, reverse=True)  # pyright: ignore[reportPrivateUsage]
        expect = [str(e) for e in q.get("expect", []) or []]
        y = np.array([contains_answer(s.note.text, expect) for s in ranked], dtype=float)
        if y.any():
            out.append((np.array(rank_features(ranked, ask)), y))
    return out


def fit(train: list[Group], l2: float = 0.01, steps: int = 600, rate: float = 0.5) -> npt.NDArray[np.float64]:
    """Weights maximising the softmax likelihood of each question's answering notes."""
    x = np.vstack([g[0] for g in train])
    starts = np.cumsum([0] + [len(g[1]) for g in train[:-1]])
    of = np.repeat(np.arange(len(train)), [len(g[1]) for g in train])
    target = np.concatenate([g[1] / g[1].sum() for g in train])
    w = np.zeros(x.shape[1])
    for _ in range(steps):
        s = x @ w
        e = np.exp(s - np.maximum.reduceat(s, starts)[of])
        p = e / np.add.reduceat(e, starts)[of]
        w -= rate * (x.T @ (p - target) / len(train) + l2 * w)
    return w


def _top(group: list[Group], w: npt.NDArray[np.float64] | None) -> int:
    return int(sum(y[0] if w is None else y[int(np.argmax(x @ w))] for x, y in group))


def _right(questions: list[dict[str, Any]], inputs: list[Any], w: tuple[float, ...]) -> int:
    ev.RANK_WEIGHTS = w
    try:
        return sum(v["right"] for v in verdicts(questions, inputs).values())
    finally:
        ev.RANK_WEIGHTS = ()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__ and __doc__.splitlines()[0])
    parser.add_argument("--inputs", type=Path, nargs="+", required=True)
    parser.add_argument("--l2", type=float, default=0.01)
    args = parser.parse_args()
    personas = load(args.inputs)
    data = {p: groups(*recorded) for p, recorded in personas.items()}
    print("| persona (held out) | questions with an answering note | top note holds it: rule / fitted "
          "| replay right: rule / fitted |")  # fmt: skip
    print("|---|---|---|---|")
    totals = np.zeros(5, dtype=int)
    for p, recorded in personas.items():
        w = fit([g for q, gs in data.items() if q != p for g in gs], args.l2)
        row = np.array([len(data[p]), _top(data[p], None), _top(data[p], w),
                        _right(*recorded, ()), _right(*recorded, tuple(float(v) for v in w))])  # fmt: skip
        totals += row
        print(f"| {p} | {row[0]} | {row[1]} / {row[2]} | {row[3]} / {row[4]} |", flush=True)
    print(f"| all | {totals[0]} | {totals[1]} / {totals[2]} | {totals[3]} / {totals[4]} |")
    w = fit([g for gs in data.values() for g in gs], args.l2)
    print("RANK_WEIGHTS = (" + ", ".join(f"{v:.3f}" for v in w) + ")")


if __name__ == "__main__":
    main()
