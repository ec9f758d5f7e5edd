"""Formation's name resolution before and after "ambiguity kept" (issue 19), on every persona.

    .venv/bin/python -m bench.namesakes [--baseline e8ab677] [--personas bench/personas/*.json]

For each persona, every thread's messages are formed in order with the pattern extractor (what
the policy path stores; no model) into a fresh data directory, once by the code at `--baseline`
(extracted with `git archive` into a temporary directory) and once by this tree, each in its own
process. The table (stdout) gives, per persona and side: entities, groups of Person entities that
share a name, pairs kept apart, current relations, superseded memories; then every relation one
side holds and the other does not (a fact given to another entity), and every name this tree
keeps as several entities with their roles, to be read by eye. The personas were written for the
answer benchmark (bench/personal_memory.py); none was written for this rule, and the rule was
written before this ran. Nothing here is tuned.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

from bench.machine import load_average, machine

HERE = Path(__file__).resolve().parent.parent
FORM = r"""
import json, sys, tempfile
from pathlib import Path
from sqlalchemy import text
from app.runtime import open_storage
from app.settings import Settings
from memory.formation.plan import form_turn

persona = json.loads(Path(sys.argv[1]).read_text())
store = open_storage(Settings(_env_file=None, data_dir=Path(tempfile.mkdtemp()) / "data"))
uid = store.accounts.create("p", "correct-horse-battery").id
for i, thread in enumerate(persona["threads"]):
    for message in thread:
        form_turn(store, uid, store.turns.add(uid, f"t{i}", "user", message), None)
q = {
    "entities": "SELECT id, name, type, aliases FROM entities WHERE user_id = :u AND status = 'active'",
    "relations": "SELECT s.name, r.predicate, o.name FROM relations r JOIN entities s ON s.id = r.subject_id "
    "JOIN entities o ON o.id = r.object_id WHERE r.user_id = :u AND r.valid_to IS NULL",
    "superseded": "SELECT count(*) FROM memories WHERE user_id = :u AND status = 'superseded'",
}
out = {}
with store.engine.connect() as c:
    for k, sql in q.items():
        out[k] = [list(r) for r in c.execute(text(sql), {"u": uid})]
    try:
        apart = text("SELECT a_id, b_id FROM entity_apart WHERE user_id = :u")
        out["apart"] = [list(r) for r in c.execute(apart, {"u": uid})]
    except Exception:  # the baseline has no such table
        out["apart"] = []
store.close()
print(json.dumps(out))
"""


def _tree(rev: str, into: Path) -> Path:
    """The repository at `rev`, as files (no .git), under `into`."""
    archive = subprocess.run(["git", "-C", str(HERE), "archive", rev], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def _form(tree: Path, persona: Path) -> dict[str, list[list[object]]]:
    env = {"PYTHONPATH": str(tree), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-c", FORM, str(persona)], cwd=tree, env=env, capture_output=True, text=True, timeout=1800
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    return json.loads(done.stdout.splitlines()[-1])


def _shared(entities: list[list[object]]) -> dict[str, list[list[object]]]:
    """Person entities by lower-cased name, where more than one has it."""
    by: dict[str, list[list[object]]] = {}
    for row in entities:
        if row[2] == "Person":
            by.setdefault(str(row[1]).casefold(), []).append(row)
    return {k: v for k, v in by.items() if len(v) > 1}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="e8ab677", help="the revision before the change")
    parser.add_argument("--personas", nargs="*", type=Path, default=sorted((HERE / "bench/personas").glob("*.json")))
    args = parser.parse_args()
    print(machine().markdown())
    print(f"- baseline {args.baseline} against this tree; patterns only; load average at start {load_average()}\n")
    print("| persona | side | entities | shared-name groups | kept apart | current relations | superseded memories |")
    print("|---|---|---|---|---|---|---|")
    notes: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        base = _tree(args.baseline, Path(tmp) / "base")
        for persona in args.personas:
            started = time.monotonic()
            sides = {"baseline": _form(base, persona), "this tree": _form(HERE, persona)}
            for side, got in sides.items():
                print(f"| {persona.stem} | {side} | {len(got['entities'])} | {len(_shared(got['entities']))} | "
                      f"{len(got['apart'])} | {len(got['relations'])} | {got['superseded'][0][0]} |")  # fmt: skip
            old, new = ({tuple(r) for r in s["relations"]} for s in sides.values())
            notes += [f"- {persona.stem}: only the baseline holds {r}" for r in sorted(old - new, key=str)]
            notes += [f"- {persona.stem}: only this tree holds {r}" for r in sorted(new - old, key=str)]
            for name, rows in _shared(sides["this tree"]["entities"]).items():
                notes.append(f"- {persona.stem}: {len(rows)} entities called {name!r}: aliases {[r[3] for r in rows]}")
            print(f"  ({persona.stem}: {time.monotonic() - started:.0f} s)", file=sys.stderr)
    print("\n" + ("\n".join(notes) or "- no relation differs and no name is kept as several entities"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
