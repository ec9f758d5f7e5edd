"""LoCoMo scores on subsets the headline table does not show, from the harness's `--per-qa` records.

    python3 bench/locomo_dated.py --data /work/shared/bench/locomo_dev.json --per-qa qa.jsonl

"Dated" questions (issue 14): categories 1-4 whose text gives a date or a time relative to when it
is asked, and that ask what happened rather than when. The rule is on the question text alone, so
it can be applied to unseen conversations unchanged:
- it names a month ("in October 2023", "on 8 May"), a year (1900-2099), "yesterday", "N days /
  weeks / months / years ago", or "last / this / next" week, weekend, month, year, or season;
- and it does not start with "when" or "how long" (those ask for the date itself).
Also printed: R@1024t on multi-hop and R@1 on adversarial questions (category 5), the other
targets of issue 14. Stdlib only; the data is read where it lies, never copied.
"""

from __future__ import annotations

import argparse
import calendar
import json
import re
from collections import defaultdict

_MONTH = "|".join(m for m in calendar.month_name if m)
DATED = re.compile(
    rf"\b(?:{_MONTH})\b|\b(?:19|20)\d\d\b|\byesterday\b|\b\w+ (?:day|week|month|year)s? ago\b"
    r"|\b(?:last|this|next) (?:week|weekend|month|year|spring|summer|fall|autumn|winter)\b",
    re.IGNORECASE,
)
ASKS_WHEN = re.compile(r"^\s*(?:when|how long)\b", re.IGNORECASE)


def is_dated(question: str) -> bool:
    """Whether a question gives a date and asks what happened (module docstring)."""
    return DATED.search(question) is not None and ASKS_WHEN.search(question) is None


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--per-qa", required=True)
    parser.add_argument("--budget", default="1024")
    args = parser.parse_args()
    conversations = json.load(open(args.data))  # noqa: SIM115 -- read once
    questions = {(ci, qi): q for ci, c in enumerate(conversations) for qi, q in enumerate(c["qa"])}
    rows: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for line in open(args.per_qa):  # noqa: SIM115
        r = json.loads(line)
        q = questions[(r["ci"], r["qi"])]
        at = r["budget"][args.budget]["recall"]
        if r["category"] == 5:
            rows[r["retriever"]]["adversarial R@1"].append(r["rank"]["1"])
            continue
        if is_dated(q["question"]):
            rows[r["retriever"]][f"dated R@{args.budget}t"].append(at)
        if r["category"] == 1:
            rows[r["retriever"]][f"multi-hop R@{args.budget}t"].append(at)
    columns = [f"dated R@{args.budget}t", f"multi-hop R@{args.budget}t", "adversarial R@1"]
    print("| retriever | " + " | ".join(f"{c} (n={len(next(iter(rows.values()))[c])})" for c in columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for name, found in rows.items():
        print(
            f"| {name[:60]} | "
            + " | ".join(f"{100 * sum(found[c]) / max(len(found[c]), 1):.1f}" for c in columns)
            + " |"
        )


if __name__ == "__main__":
    main()
