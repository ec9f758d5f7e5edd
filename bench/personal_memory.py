"""Whether what a person reads is right: a persona's life told through `reverie chat`, then asked about.

    .venv/bin/python -m bench.personal_memory [--persona bench/personas/dev.json] [--paths policy,model]
        [--out /tmp/pm.json] [--batch 8] [--keep]

For each answer path (REVERIE_JUDGEMENT) in a fresh data dir: create the persona's user, tell each
thread in its own `reverie chat --json --thread new` process, one message at a time as a person
would (reading each reply before typing the next), ingest the persona's document, then ask every
question in a fresh thread (`/new` before each; `--batch` questions per process). A reply is right
when it contains an expected answer (casefolded, accents stripped); an abstain question is right
when the reply says it does not know and names nothing that is in neither the question nor a short
list of common words. The markdown table (stdout) gives accuracy per question type, how often a reply
said at each confidence was right (calibration), time to first
token and reply time of the answers, reply time of the telling turns, and how many of all the
replies read leaked prompt or format text or looped; `--out` has every question's reply, timings
and sources. Progress goes to stderr: a run takes many minutes.
The persona in bench/personas/ is written for this check; it is no benchmark's data.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import queue
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from bench.machine import machine

TYPES = ("single", "update", "multi-hop", "temporal", "abstain")
TIMEOUT_S = 15 * 60
"""No subprocess may run longer than this."""

UNKNOWN_PATTERNS = (
    "don't know", "do not know", "not sure", "haven't told me", "have not told me", "never told",
    "didn't tell", "did not tell", "no record", "don't remember", "do not remember", "don't recall",
    "do not recall", "can't recall", "cannot recall", "don't have", "do not have", "nothing about",
    "never mentioned", "haven't mentioned", "have not mentioned", "not mentioned", "no information",
    "can't find", "cannot find", "couldn't find", "could not find", "not aware", "no memory",
)  # fmt: skip
_ALLOWED = """i i'm i've i'd i'll reverie a an the and or but so if as at by for from in of on to with about
    you you're you've your yours it it's its that that's there there's this these those they their he she
    his her we our my me no not nothing none yes ok okay oh ah hmm well sorry unfortunately however
    please thanks thank hi hello sure maybe perhaps also only just still yet actually honestly here
    what when where which who whom whose why how do does did don't doesn't didn't can can't cannot could
    couldn't would should will is are was were be been have has had haven't hasn't let let's tell feel
    based according since unless once then any some all anything something"""
ALLOWED_WORDS = frozenset(_ALLOWED.split())
"""Capitalised words an abstaining reply may use: pronouns and sentence-initial common words."""
LEAK_MARKERS = ("<recalled_context", "Question:", "Notes:", "SEARCH_MEMORIES", "I could not verify", '"kind"')

_WORD = re.compile(r"\w+(?:'\w+)*")


def normalise(text: str) -> str:
    """Casefold, strip accents (NFKD), straighten apostrophes and collapse whitespace.

    Args:
        text: Any text, e.g. "  Škoda\u00a0Fabia ".

    Returns:
        The comparable form, e.g. "skoda fabia".
    """
    decomposed = unicodedata.normalize("NFKD", text.replace("’", "'").replace("‘", "'"))
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(stripped.casefold().split())


def contains_answer(reply: str, expect: list[str]) -> bool:
    """Whether the reply contains one of the expected answers as whole words.

    A trailing plural or possessive counts ("walnut" matches "walnuts"), and so does am/pm after a
    time ("7:15" matches "7:15am") or a unit written onto a number ("20.5" matches "20.5kg": the reply
    contains it, as the issue's "contains the expected answer" means); "5" does not match "15" or "2.5".

    Args:
        reply: The reply the person reads.
        expect: Acceptable answers, any one suffices, e.g. ["March 2024", "2024-03"].
    """
    text = normalise(reply)
    tail = r"(?:s|'s|(?<=\d)(?:[ap]m|kgs?|g|kms?|m|cm|mm|mg|mcg|ml|l|lbs?|oz|k|mph|hrs?|h|mins?))?(?!\w)"
    # (nor inside a decimal or a thousands group: "5 mg" is not in "2.5 mg", "840" not in "4,840")
    return any(re.search(rf"(?<!\w)(?<!\d[.,]){re.escape(normalise(e))}{tail}", text) for e in expect if e.strip())


def says_unknown(reply: str) -> bool:
    """Whether the reply says it does not know (e.g. "You haven't told me that")."""
    text = normalise(reply)
    return any(pattern in text for pattern in UNKNOWN_PATTERNS)


def _words(text: str) -> list[str]:
    # Possessives go: "Ana's" names Ana, "brother's" is the question's "brother".
    return [re.sub(r"'s$", "", w) for w in _WORD.findall(unicodedata.normalize("NFC", text.replace("’", "'")))]


def invented_words(question: str, reply: str) -> list[str]:
    """Capitalised words and numbers in the reply that are in neither the question nor ALLOWED_WORDS.

    Args:
        question: What was asked, e.g. "What's my brother's name?".
        reply: The reply, e.g. "I don't know. Your sister is Ana." (→ ["Ana"]).
    """
    known = {normalise(w) for w in _words(question)} | ALLOWED_WORDS
    named = [w for w in _words(reply) if w[0].isupper() or any(c.isdigit() for c in w)]
    return [w for w in named if normalise(w) not in known]


def is_right(kind: str, question: str, expect: list[str], reply: str) -> bool:
    """Score one reply.

    Args:
        kind: The question type, one of TYPES.
        question: What was asked.
        expect: Acceptable answers (empty for abstain).
        reply: The reply the person reads.
    """
    if kind == "abstain":
        return says_unknown(reply) and not invented_words(question, reply)
    return contains_answer(reply, expect)


def leakage(reply: str) -> list[str]:
    """The prompt or format markers the reply shows the person (e.g. ["Question:"])."""
    return [marker for marker in LEAK_MARKERS if marker in reply]


def has_loop(reply: str, n: int = 4, times: int = 3) -> bool:
    """Whether some sequence of `n` words occurs `times` or more times in the reply."""
    words = re.findall(r"\w+", normalise(reply))
    grams = Counter(tuple(words[i : i + n]) for i in range(len(words) - n + 1))
    return any(count >= times for count in grams.values())


def percentile(values: list[float], q: float) -> float | None:
    """The nearest-rank percentile (q in 0..100), None without values."""
    if not values:
        return None
    ranked = sorted(values)
    return ranked[min(len(ranked), max(1, math.ceil(q / 100 * len(ranked)))) - 1]


@dataclass(frozen=True)
class Persona:
    """A life told in threads, questions about it, and one document."""

    name: str
    threads: list[list[str]]
    questions: list[dict[str, Any]]
    document: Path | None


def load_persona(path: Path) -> Persona:
    """Read a persona file; its document is named relative to it."""
    data = json.loads(path.read_text(encoding="utf-8"))
    document = path.resolve().parent / data["document"] if data.get("document") else None
    return Persona(data["name"], data["threads"], data["questions"], document)


class ChatProcess:
    """One `reverie chat --json` process, driven one line at a time with a hard deadline."""

    def __init__(self, argv: list[str], env: dict[str, str], cwd: Path, log: IO[str]) -> None:
        self._proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True, env=env, cwd=cwd, bufsize=1
        )
        self._deadline = time.monotonic() + TIMEOUT_S
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def _left(self) -> float:
        return max(0.0, self._deadline - time.monotonic())

    def say(self, line: str) -> None:
        """Type one line (a process that already ended shows up as a missing reply)."""
        assert self._proc.stdin is not None
        with contextlib.suppress(BrokenPipeError):
            self._proc.stdin.write(line + "\n")
            self._proc.stdin.flush()

    def reply(self) -> dict[str, Any] | None:
        """The next JSON reply; None when the process ended. Raises TimeoutError past the deadline."""
        while True:
            try:
                line = self._lines.get(timeout=self._left())
            except queue.Empty:
                raise TimeoutError(f"no reply within {TIMEOUT_S} s of the process start") from None
            if line is None:
                return None
            with contextlib.suppress(json.JSONDecodeError):
                obj = json.loads(line)
                if isinstance(obj, dict):
                    return obj

    def close(self) -> int:
        """End input and wait for the process (it finishes memory formation first)."""
        with contextlib.suppress(BrokenPipeError):
            assert self._proc.stdin is not None
            self._proc.stdin.close()
        try:
            return self._proc.wait(timeout=self._left())
        except subprocess.TimeoutExpired:
            self.kill()
            raise TimeoutError(f"still running after {TIMEOUT_S} s") from None

    def exit_code(self) -> int | None:
        """The exit code once the process ended (it has no more output), else None."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            return self._proc.wait(timeout=5)
        return None

    def kill(self) -> None:
        """Stop the process if it still runs."""
        if self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()


@dataclass
class Run:
    """One answer path's run: where it lives, how to call the CLI, what the person read."""

    path: str
    persona: Persona
    data_dir: Path
    log: IO[str]
    started: float

    @property
    def env(self) -> dict[str, str]:
        """The subprocesses' environment."""
        return {
            **os.environ,
            "REVERIE_DATA_DIR": str(self.data_dir),
            "REVERIE_JUDGEMENT": self.path,
            "REVERIE_LLM_BACKEND": "embedded",
            "OMP_NUM_THREADS": "1",
        }

    def progress(self, message: str) -> None:
        """One progress line on stderr."""
        print(f"[{self.path} {time.monotonic() - self.started:7.0f} s] {message}", file=sys.stderr, flush=True)

    def cli(self, *args: str, stdin: str = "") -> str:
        """Run one `reverie` command to completion; its stdout."""
        done = subprocess.run(
            [reverie(), *args],
            input=stdin,
            capture_output=True,
            text=True,
            env=self.env,
            cwd=self.data_dir.parent,
            timeout=TIMEOUT_S,
        )
        self.log.write(done.stderr)
        if done.returncode != 0:
            raise RuntimeError(f"reverie {' '.join(args)} failed ({done.returncode}): {done.stderr[-2000:]}")
        return done.stdout

    def chat(self) -> ChatProcess:
        """A new chat process in a new thread."""
        argv = [reverie(), "chat", "--user", self.persona.name, "--thread", "new", "--json"]
        return ChatProcess(argv, self.env, self.data_dir.parent, self.log)


def reverie() -> str:
    """The `reverie` script next to this interpreter, else the one on PATH."""
    beside = Path(sys.executable).parent / "reverie"
    return str(beside) if beside.exists() else shutil.which("reverie") or "reverie"


def _exchange(chat: ChatProcess, line: str) -> tuple[dict[str, Any] | None, float, str]:
    """Say a line, wait for its reply; (reply, wall ms, error)."""
    began = time.monotonic()
    chat.say(line)
    try:
        reply = chat.reply()
    except TimeoutError as exc:
        return None, (time.monotonic() - began) * 1000, str(exc)
    if reply is None:
        return None, (time.monotonic() - began) * 1000, f"the process ended without a reply (exit {chat.exit_code()})"
    error = str(reply.get("error", ""))
    return reply, (time.monotonic() - began) * 1000, error


def tell(run: Run) -> list[dict[str, Any]]:
    """Tell every thread, each in its own process; what the person read back."""
    told: list[dict[str, Any]] = []
    for number, thread in enumerate(run.persona.threads, 1):
        chat, errors, began = run.chat(), [], time.monotonic()
        try:
            for line in thread:
                reply, wall_ms, error = _exchange(chat, line)
                shown = reply or {}
                told.append(
                    {"thread": number, "message": line, "reply": shown.get("reply", ""), "error": error}
                    | {"timings_ms": shown.get("timings_ms", {}), "wall_ms": wall_ms}
                )
                errors += [error] if error else []
                if reply is None:
                    break
            chat.close()
        except TimeoutError as exc:
            errors.append(str(exc))
        finally:
            chat.kill()
        status = f"; {errors[0]}" if errors else ""
        took = time.monotonic() - began
        run.progress(f"thread {number}/{len(run.persona.threads)}: {len(thread)} messages, {took:.0f} s{status}")
    return told


def ingest(run: Run) -> None:
    """Read the persona's document into the user's memory."""
    if run.persona.document is None:
        return
    began = time.monotonic()
    user = ["--user", run.persona.name] if "--user" in run.cli("ingest", "--help") else []
    run.cli("ingest", *user, str(run.persona.document))
    run.progress(f"ingested {run.persona.document.name} in {time.monotonic() - began:.0f} s")


def _scored(question: dict[str, Any], reply: dict[str, Any] | None, wall_ms: float, error: str) -> dict[str, Any]:
    text = (reply or {}).get("reply", "")
    kind, expect = question["type"], question.get("expect", [])
    return {
        **question,
        "reply": text,
        "right": bool(reply) and is_right(kind, question["question"], expect, text),
        "invented": invented_words(question["question"], text) if kind == "abstain" else [],
        "leakage": leakage(text),
        "loop": has_loop(text),
        "timings_ms": (reply or {}).get("timings_ms", {}),
        "wall_ms": wall_ms,
        "answered_by": (reply or {}).get("path"),
        "confidence": (reply or {}).get("confidence"),
        "sources": (reply or {}).get("sources", []),
        "error": error,
    }


def _line(result: dict[str, Any]) -> str:
    mark = "right" if result["right"] else "WRONG"
    said = result["error"] or repr(result["reply"][:80])
    return f"{result['id']} {mark} ({result['wall_ms'] / 1000:.0f} s): {said}"


def ask(run: Run, batch: int) -> list[dict[str, Any]]:
    """Ask every question in a fresh thread, `batch` questions per process."""
    questions, results = run.persona.questions, []
    for start in range(0, len(questions), batch):
        chat = run.chat()
        try:
            for question in questions[start : start + batch]:
                chat.say("/new")
                reply, wall_ms, error = _exchange(chat, question["question"])
                results.append(_scored(question, reply, wall_ms, error))
                run.progress(f"question {len(results)}/{len(questions)} {_line(results[-1])}")
                if reply is None:
                    break
            chat.close()
        except TimeoutError as exc:
            run.progress(f"questions from {start + 1}: {exc}")
        finally:
            chat.kill()
        done = {r["id"] for r in results}
        results += [_scored(q, None, 0.0, "not asked") for q in questions[start : start + batch] if q["id"] not in done]
    return results


def summarise(results: list[dict[str, Any]], told: list[dict[str, Any]]) -> dict[str, Any]:
    """Accuracy per type and overall, latency percentiles, leakage and loops over everything read."""
    per_type = {
        kind: (sum(r["right"] for r in results if r["type"] == kind), sum(r["type"] == kind for r in results))
        for kind in TYPES
    }
    first = [r["timings_ms"]["first_token"] for r in results if r["timings_ms"].get("first_token") is not None]
    total = [r["timings_ms"]["total"] for r in results if r["timings_ms"].get("total") is not None]
    told_total = [t["timings_ms"]["total"] for t in told if t["timings_ms"].get("total") is not None]
    read = [r["reply"] for r in results] + [t["reply"] for t in told]
    said_at = {level: [r for r in results if r["confidence"] == level] for level in ("high", "medium", "low")}
    return {
        "per_type": per_type,
        "overall": (sum(r["right"] for r in results), len(results)),
        "first_token_ms": (percentile(first, 50), percentile(first, 95)),
        "total_ms": (percentile(total, 50), percentile(total, 95)),
        "told_total_ms": (percentile(told_total, 50), percentile(told_total, 95)),
        "leakage": sum(bool(leakage(text)) for text in read),
        "loops": sum(has_loop(text) for text in read),
        "replies_read": len(read),
        "no_reply": sum(bool(r["error"]) for r in results) + sum(bool(t["error"]) for t in told),
        "answered_by": dict(Counter(str(r["answered_by"]) for r in results)),
        # calibration: how often a reply said at each confidence was right
        "by_confidence": {level: (sum(r["right"] for r in said), len(said)) for level, said in said_at.items()},
    }


def _fraction(pair: tuple[int, int]) -> str:
    right, total = pair
    return f"{right}/{total} ({100 * right / total:.0f}%)" if total else "-"


def _seconds(pair: tuple[float | None, float | None]) -> str:
    return " / ".join("-" if ms is None else f"{ms / 1000:.1f}" for ms in pair)


def markdown(summaries: dict[str, dict[str, Any]]) -> str:
    """The report table, one row per answer path."""
    timing = ["first token p50/p95 s", "reply p50/p95 s", "telling reply p50/p95 s"]
    head = ["path", *TYPES, "overall", "right when high / medium / low", *timing, "leakage", "loops", "no reply"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for path, s in summaries.items():
        cells = [
            path,
            *(_fraction(tuple(s["per_type"][k])) for k in TYPES),
            _fraction(tuple(s["overall"])),
            " / ".join(_fraction(tuple(s["by_confidence"][k])) for k in ("high", "medium", "low")),
            _seconds(s["first_token_ms"]),
            _seconds(s["total_ms"]),
            _seconds(s["told_total_ms"]),
            f"{s['leakage']}/{s['replies_read']}",
            f"{s['loops']}/{s['replies_read']}",
            str(s["no_reply"]),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def run_path(path: str, persona: Persona, batch: int, keep: bool) -> dict[str, Any]:
    """Tell, ingest and ask on one answer path in a fresh data dir."""
    root = Path(tempfile.mkdtemp(prefix=f"reverie-pm-{path}-"))
    with (root / "reverie.log").open("w") as log:
        run = Run(path, persona, root / "data", log, time.monotonic())
        run.progress(f"data dir {run.data_dir} (subprocess stderr: {log.name})")
        load_before = os.getloadavg()
        run.cli("chat", "--help")  # fails fast, with the traceback, when the command cannot start
        run.cli("users", "add", persona.name, "--password-stdin", stdin=secrets.token_urlsafe(16) + "\n")
        told = tell(run)
        ingest(run)
        results = ask(run, batch)
    if not keep:
        shutil.rmtree(root, ignore_errors=True)
    summary = summarise(results, told)
    return {"summary": summary, "load": [load_before, os.getloadavg()], "questions": results, "told": told}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__ and __doc__.splitlines()[0])
    parser.add_argument("--persona", type=Path, default=Path(__file__).parent / "personas" / "dev.json")
    parser.add_argument("--paths", default="policy,model", help="answer paths (REVERIE_JUDGEMENT), comma-separated")
    parser.add_argument("--out", type=Path, default=Path("/tmp/pm.json"), help="per-question details (JSON)")
    parser.add_argument("--batch", type=int, default=8, help="questions per chat process")
    parser.add_argument("--keep", action="store_true", help="keep each path's data dir and log")
    args = parser.parse_args()
    persona = load_persona(args.persona)
    box = machine()
    runs = {path: run_path(path, persona, args.batch, args.keep) for path in args.paths.split(",") if path}
    args.out.write_text(json.dumps({"machine": box.line(), "persona": str(args.persona), "paths": runs}, indent=1))
    print(box.markdown())
    for path, run in runs.items():
        before, after = (" ".join(f"{x:.1f}" for x in load) for load in run["load"])
        by = run["summary"]["answered_by"]
        print(f"- {path}: load average {before} at the start, {after} at the end; replies by path {by}")
    print(f"\n{markdown({path: run['summary'] for path, run in runs.items()})}\n\ndetails: {args.out}")


if __name__ == "__main__":
    main()
