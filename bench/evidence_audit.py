"""Which of the evidence policy's refusals cost right answers, counted over every persona at once.

    OMP_NUM_THREADS=1 .venv/bin/python -m bench.evidence_audit [--persona bench/personas/held.json ...]
        [--out /tmp/audit.json]

`bench/personal_memory.py` is the measure a person would recognise; this one asks why. Each persona
is told and asked exactly as there (real `chat_turn`s on the policy path with the real embedded
model, the document through `reverie ingest`), but in one process per step, and every call to the
evidence policy (`capabilities.evidence.choose`) is recorded with its verdict and reason. For a
refusal ("unknown") the audit also records the notes the policy would have answered from had the
refusal not been made: the best-ranked note joined with what it links to, exactly as `choose` builds
them before its checks.

The table counts each kind of refusal (its reason with the names taken out) over the personas:
- `cost`: refusals on a question that has an answer, where the notes it refused held that answer
  (a false "I don't know": the check was wrong);
- `saved`: refusals on a never-told question (the check kept an invented answer from the person);
- `moot`: refusals on an answerable question whose refused notes did not hold the answer either.
A check that costs more than it saves across personas it was not written for is a check to loosen;
the counts come from many personas at once, so a change read from them is no one persona's rule.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pickle
import re
import secrets
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import app.grounded as grounded
from app.chat import Finished, InfoRound, chat_turn
from app.extractor import drain_formation
from app.runtime import open_runtime
from app.settings import Settings
from bench.personal_memory import contains_answer, is_right, load_persona, reverie
from capabilities import evidence as ev
from capabilities.evidence import Evidence, Note
from capabilities.evidence.choice import _join, _scored
from capabilities.evidence.words import _Scored
from capabilities.situation import Situation

_NAMES = re.compile(r"\b(?:about|of|says|say|did|names?|mentions|the)\s+[\w ,'’-]+$")


def would_answer(sit: Situation, candidates: Sequence[Note]) -> list[str]:
    """The notes `choose` would answer from before its checks (the best start, joined)."""
    told = [n for n in candidates if n.text.strip() and not ev.is_question(n.text)]
    sit = ev.cased_question(sit, told)
    ask = ev.read_ask(sit)
    notes = ev.cased(told, sit.text)
    scored = _scored(sit, ask, notes, ev.aliases(notes))  # pyright: ignore[reportPrivateUsage]
    if not scored:
        return []
    ranked = sorted(scored, key=_Scored.key, reverse=True)  # pyright: ignore[reportPrivateUsage]
    return [s.note.text for s in _join(ranked[0], ranked, ask)]  # pyright: ignore[reportPrivateUsage]


def reason_kind(reason: str) -> str:
    """A refusal's reason without the words it names ("nothing remembered about uni" → "nothing remembered about …")."""
    return _NAMES.sub(lambda m: m.group(0).split()[0] + " …", reason)


class Recorder:
    """Wraps `choose` where the answer path calls it, keeping each call's verdict and refused notes."""

    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []
        self.inputs: list[tuple[Situation, list[Note]]] = []  # the last call's, per question (see --inputs)
        self._choose = grounded.choose

    def __call__(self, sit: Situation, candidates: Sequence[Note]) -> Evidence:
        result = self._choose(sit, candidates)
        self.last = (sit, list(candidates))
        refused = would_answer(sit, candidates) if result.verdict == "unknown" else []
        self.calls.append({"verdict": result.verdict, "reason": result.reason, "refused": refused,
                           "notes": [n.text for n in result.notes]})  # fmt: skip
        return result


def _cli(data_dir: Path, *args: str, stdin: str = "") -> None:
    env = {**os.environ, "REVERIE_DATA_DIR": str(data_dir), "REVERIE_JUDGEMENT": "policy",
           "REVERIE_LLM_BACKEND": "embedded"}  # fmt: skip
    done = subprocess.run([reverie(), *args], input=stdin, capture_output=True, text=True, env=env,
                          cwd=data_dir.parent, timeout=1800)  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"reverie {' '.join(args)} failed: {done.stderr[-1500:]}")


async def _turns(
    settings: Settings, user: str, lines: list[tuple[str, str]], rec: Recorder | None
) -> list[dict[str, Any]]:
    """Run (thread, message) turns through `chat_turn`; each reply with what the policy chose."""
    out = []
    async with open_runtime(settings, schedule=False) as rt:
        user_id = rt.store.accounts.resolve(user)
        for thread, text in lines:
            if rec is not None:
                rec.calls.clear()
            reply = ""
            searches = []  # the info rounds' searches (what each looked for, why, how many new notes)
            async for event in chat_turn(rt, user_id, thread, text):
                if isinstance(event, Finished):
                    reply = event.reply
                elif isinstance(event, InfoRound):
                    searches.append({"query": event.args.get("query", ""), "why": event.reason,
                                     "new": len(event.new_refs)})  # fmt: skip
            out.append({"message": text, "reply": reply, "calls": list(rec.calls) if rec else [],
                        "searches": searches})  # fmt: skip
            if rec is not None:
                rec.inputs.append(rec.last if rec.calls else (None, []))  # pyright: ignore[reportArgumentType]
        await drain_formation(rt)
    return out


async def _unsaid(*_: Any, **__: Any) -> str:
    """The voice's stand-in for `--no-voice`: no words, so every reply is the notes' own (extractive)."""
    return ""


def audit(
    path: Path, kept: Path | None = None, inputs: Path | None = None, one_thread: bool = False, voice: bool = True
) -> list[dict[str, Any]]:
    """Tell, ingest and ask one persona in a fresh data dir (or only ask, in a `kept` one); every
    question with its policy calls. `inputs`: a folder to pickle each question's last `choose`
    arguments into, for `bench.evidence_replay`. Without `voice` the questions are asked with no model
    call (the notes answer in their own words): a change to recall is re-recorded in minutes."""
    persona = load_persona(path)
    data_dir = kept or Path(tempfile.mkdtemp(prefix="reverie-audit-")) / "data"
    settings = Settings(_env_file=None, data_dir=data_dir, judgement="policy", llm_backend="embedded")  # pyright: ignore[reportCallIssue]
    began = time.monotonic()
    if kept is None:
        _cli(data_dir, "users", "add", persona.name, "--password-stdin", stdin=secrets.token_urlsafe(16) + "\n")
        # one thread id per told thread (its messages follow on from each other: "she's got a cat too…")
        told = [(f"told-{n}-{tid}", line)
                for n, thread in enumerate(persona.threads) for tid in [uuid.uuid4()] for line in thread]  # fmt: skip
        asyncio.run(_turns(settings, persona.name, told, None))
        if persona.document is not None:
            _cli(data_dir, "ingest", "--user", persona.name, str(persona.document))
    rec = Recorder()
    thread = str(uuid.uuid4()) if one_thread else ""  # every question in one thread, as a person asks them
    grounded.choose = rec  # the answer path's own name for the policy
    said = grounded.say
    if not voice:
        grounded.say = _unsaid
    try:
        asked = asyncio.run(
            _turns(
                settings, persona.name, [(thread or str(uuid.uuid4()), q["question"]) for q in persona.questions], rec
            )
        )
    finally:
        grounded.choose = rec._choose  # pyright: ignore[reportPrivateUsage]
        grounded.say = said
    print(f"{path.name}: {time.monotonic() - began:.0f} s ({data_dir})", file=sys.stderr, flush=True)
    if inputs is not None:
        inputs.mkdir(parents=True, exist_ok=True)
        (inputs / f"{path.stem}.pkl").write_bytes(pickle.dumps((persona.questions, rec.inputs)))
    rows = []
    for q, a in zip(persona.questions, asked, strict=True):
        expect = [str(e) for e in q.get("expect", []) or []]
        right = is_right(q["type"], q["question"], expect, a["reply"])
        rows.append({"persona": path.stem, "id": q["id"], "type": q["type"], "question": q["question"],
                     "expect": expect, "reply": a["reply"], "right": right, "calls": a["calls"],
                     "searches": a["searches"]})  # fmt: skip
    return rows


def tally(rows: list[dict[str, Any]]) -> dict[str, Counter[str]]:
    """Per refusal kind: cost / saved / moot, over the last `choose` call of each question."""
    out: dict[str, Counter[str]] = defaultdict(Counter)
    for r in rows:
        if not r["calls"]:
            continue
        last = r["calls"][-1]
        if last["verdict"] != "unknown":
            continue
        kind = reason_kind(last["reason"])
        if r["type"] == "abstain":
            out[kind]["saved"] += 1
        elif contains_answer(" ".join(last["refused"]), r["expect"]):
            out[kind]["cost"] += 1
            out[kind][f"cost:{r['persona']}"] += 1
        else:
            out[kind]["moot"] += 1
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__ and __doc__.splitlines()[0])
    parser.add_argument("--persona", type=Path, nargs="+", required=True)
    parser.add_argument("--out", type=Path, default=Path("/tmp/audit.json"))
    parser.add_argument("--rows", type=Path, help="re-tally rows written by an earlier run instead of running")
    parser.add_argument("--kept", type=Path, nargs="*", help="data dirs already told, one per --persona: only ask")
    parser.add_argument("--inputs", type=Path, help="pickle each question's `choose` arguments into this folder")
    parser.add_argument(
        "--one-thread", action="store_true", help="ask every question in one thread, not each in a new one"
    )
    parser.add_argument(
        "--no-voice", action="store_true", help="ask with no model call (for --inputs: recall and the policy only)"
    )
    args = parser.parse_args()
    if args.rows:
        rows = json.loads(args.rows.read_text())
    else:
        kept = args.kept or [None] * len(args.persona)
        rows = [
            row
            for p, k in zip(args.persona, kept, strict=True)
            for row in audit(p, k, args.inputs, args.one_thread, not args.no_voice)
        ]
        args.out.write_text(json.dumps(rows, indent=1, ensure_ascii=False))
    right = Counter((r["persona"], r["right"]) for r in rows)
    for p in dict.fromkeys(r["persona"] for r in rows):
        print(f"- {p}: {right[(p, True)]}/{right[(p, True)] + right[(p, False)]} right")
    print("\n| refusal | cost (answer refused) | saved (abstain) | moot | personas it cost on |\n|---|---|---|---|---|")
    for kind, c in sorted(tally(rows).items(), key=lambda kv: -kv[1]["cost"]):
        where = sorted({k.split(":", 1)[1] for k in c if k.startswith("cost:")})
        print(f"| {kind} | {c['cost']} | {c['saved']} | {c['moot']} | {len(where)} |")


if __name__ == "__main__":
    main()
