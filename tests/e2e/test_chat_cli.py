"""`reverie chat --json` end to end on the real embedded SmolLM2-135M: what a person reads is right.

Facts are told in one process and asked in another (formation is finished before the first
exits); the competence probe picks the policy path for this model by measuring it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.server import PASSWORD, reverie

pytestmark = [pytest.mark.e2e]

TOLD = [
    "Hi! I'm Maya and I live in Lisbon.",
    "My cat is called Miso, she's a grumpy tabby.",
    "My sister Ana lives in Lisbon too.",
    "thanks!",
    "I'm allergic to peanuts.",
    "Actually my sister Ana moved to Porto last month.",
]
ASKED = {
    "What's my cat's name?": "miso",
    "What am I allergic to?": "peanut",
    "Where does my sister live?": "porto",
}


def _chat(data_dir: Path, lines: list[str]) -> list[dict[str, Any]]:
    done = reverie(data_dir, "chat", "--user", "maya", "--json", stdin="\n".join(lines) + "\n")
    assert done.returncode == 0, done.stderr[-2000:]
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def test_chat_cli_remembers_across_processes_and_says_when_it_does_not_know(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    assert reverie(data_dir, "users", "add", "maya", "--password-stdin", stdin=PASSWORD + "\n").returncode == 0
    told = _chat(data_dir, TOLD)
    assert len(told) == len(TOLD) and {r["path"] for r in told} == {"policy"}
    thanks = told[TOLD.index("thanks!")]
    questions = [*ASKED, "What's my brother's name?", "What are my hobbies?"]
    asked = _chat(data_dir, [line for q in questions for line in ("/new", q)])
    assert len({r["thread"] for r in asked}) == len(questions)  # every question in a fresh thread
    for reply, (question, expected) in zip(asked, ASKED.items(), strict=False):
        assert expected in reply["reply"].casefold(), (question, reply["reply"])
        assert reply["sources"] and reply["confidence"] in ("high", "medium")
    brother = asked[len(ASKED)]
    assert "don't know" in brother["reply"] and brother["confidence"] == "low"
    assert not any(name in brother["reply"] for name in ("Ana", "Maya", "Miso", "Tom"))
    hobbies = asked[-1]
    assert hobbies["request"]["VECTOR_LIMIT"]["asked"] > thanks["request"]["VECTOR_LIMIT"]["asked"]
    assert {"request", "retrieval", "first_token", "total"} <= set(asked[0]["timings_ms"])
    for reply in told + asked:
        text = reply["reply"]
        assert text and "recalled_context" not in text and "Question:" not in text and "Ana birthday" not in text


HOLD_GRAPH = """
import pathlib, sys, time, kuzu
pathlib.Path(sys.argv[1]).parent.mkdir(parents=True, exist_ok=True)  # as the running app would have
db = kuzu.Database(sys.argv[1])
print("ready", flush=True)
time.sleep(float(sys.argv[2]))
"""


def test_chat_cli_waits_for_the_process_that_holds_the_graph(tmp_path: Path) -> None:
    """While `reverie run` owns the graph, the chat says so and waits; it never fails with a lock error."""
    data_dir = tmp_path / "data"
    assert reverie(data_dir, "users", "add", "maya", "--password-stdin", stdin=PASSWORD + "\n").returncode == 0
    graph = data_dir / "graph" / "graph.kuzu"
    holder = subprocess.Popen([sys.executable, "-c", HOLD_GRAPH, str(graph), "20"], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        done = reverie(data_dir, "chat", "--user", "maya", "--json", stdin="thanks!\n")
    finally:
        holder.wait(timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "waiting for it to stop" in done.stderr
    assert json.loads(done.stdout.splitlines()[0])["reply"]
