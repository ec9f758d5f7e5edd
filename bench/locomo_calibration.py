"""Fit the map from the ranked score to a calibrated relevance (`hybrid.SLOPE`, `hybrid.OFFSET`).

    OMP_NUM_THREADS=1 .venv/bin/python -m bench.locomo_calibration --data /work/shared/bench/locomo_dev.json

The ranked score (fused, date-lifted, re-ranked by the conversation's structure) orders memories
well but its scale is no probability. As for the fused relevance's three numbers (docs/benchmarks.md,
"Calibration"): every question of the data file against every turn of its conversation, evidence
turns positive and all other turns negative, the two classes weighted equally, one logistic
regression on logit(score). A turn that is no candidate ranks below every candidate: it gets the
lowest candidate's score. Prints the two numbers and the share of evidence and of other turns kept
at each threshold. The data is read where it lies; only the two numbers go into the code.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
from pathlib import Path
from types import ModuleType

import numpy as np

from bench.locomo_server import USER, Server
from memory.recall import hybrid


def _logit(p: float) -> float:
    p = min(max(p, 1e-9), 1 - 1e-9)
    return math.log(p / (1 - p))


def harness(data: str) -> ModuleType:
    """The harness module beside the data file (`locomo_retrieval.py`): its loader, so turns and
    evidence are read exactly as it scores them."""
    spec = importlib.util.spec_from_file_location("locomo_retrieval", Path(data).with_name("locomo_retrieval.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def samples(path: str) -> tuple[np.ndarray, np.ndarray]:
    """(logit of the ranked score, is evidence) for every question x turn of the data file."""
    hybrid.SLOPE, hybrid.OFFSET = 1.0, 0.0  # the raw ranked score
    xs: list[float] = []
    ys: list[int] = []
    server = Server()
    for conv in harness(path).load_locomo(path):
        server.reset()
        server.pending = list(conv["turns"])
        server.flush()
        dia = {m: t["dia_id"] for m, t in server.turns.items()}
        for qa in conv["qa"]:
            hits = server.index.search(USER, qa["question"], 10_000, 0.0, today=server.now.date())
            scores = {dia[h.memory.id]: _logit(h.relevance) for h in hits if h.memory.id in dia}
            floor = min(scores.values(), default=-20.0)
            gold = set(qa["evidence"])
            for d in dia.values():
                xs.append(scores.get(d, floor))
                ys.append(int(d in gold))
    return np.array(xs), np.array(ys)


def fit(x: np.ndarray, y: np.ndarray, steps: int = 50) -> tuple[float, float]:
    """Class-balanced logistic regression of y on x by Newton's method: (slope, offset)."""
    w = np.where(y == 1, len(y) / (2 * y.sum()), len(y) / (2 * (len(y) - y.sum())))
    a, b = 1.0, 0.0
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(a * x + b)))
        g = np.array([np.sum(w * (p - y) * x), np.sum(w * (p - y))])
        h = w * p * (1 - p)
        hess = np.array([[np.sum(h * x * x), np.sum(h * x)], [np.sum(h * x), np.sum(h)]])
        a, b = np.array([a, b]) - np.linalg.solve(hess + 1e-9 * np.eye(2), g)
    return float(a), float(b)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", required=True)
    args = parser.parse_args()
    x, y = samples(args.data)
    slope, offset = fit(x, y)
    print(f"SLOPE = {slope:.3f}\nOFFSET = {offset:.3f}   ({int(y.sum())} evidence of {len(y)} question x turn pairs)")
    rel = 1 / (1 + np.exp(-(slope * x + offset)))
    print("| threshold | evidence turns kept | other turns kept |\n|---|---|---|")
    for t in (0.5, 0.6, 0.7, 0.8, 0.9):
        print(f"| {t} | {100 * np.mean(rel[y == 1] >= t):.0f} % | {100 * np.mean(rel[y == 0] >= t):.1f} % |")


if __name__ == "__main__":
    main()
