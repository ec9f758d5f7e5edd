"""`reverie chat --json` end to end on the real embedded SmolLM2-135M: what a person reads is right.

Facts are told in one process and asked in another (formation is finished before the first
exits); the competence probe picks the policy path for this model by measuring it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.server import PASSWORD, free_port, reverie, server_process

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


def test_every_cli_command_works_while_the_app_runs(tmp_path: Path) -> None:
    """`reverie run` and the CLI take the graph in turns: chat, reads, a forget, an ingest and a
    dream all succeed beside the running server, and the server goes on serving."""
    data_dir = tmp_path / "data"
    assert reverie(data_dir, "users", "add", "maya", "--password-stdin", stdin=PASSWORD + "\n").returncode == 0
    document = tmp_path / "bluefin.md"
    document.write_text("# Bluefin Ceramics\n\nBluefin Ceramics was founded in 2011 by Gisela Marr and Tomas Hale.\n")
    with server_process(data_dir, free_port(), tmp_path / "server.log") as server:
        _chat(data_dir, ["My cat is called Miso."])
        assert "Miso" in _chat(data_dir, ["What's my cat's name?"])[0]["reply"]
        listed = reverie(data_dir, "memories", "list", "--user", "maya")
        assert listed.returncode == 0 and "Miso" in listed.stdout, listed.stderr[-2000:]
        cat = next(line.split("\t")[0].lstrip("#") for line in listed.stdout.splitlines() if "Miso" in line)
        done = {
            "limits": reverie(data_dir, "limits"),
            "forget": reverie(data_dir, "memories", "forget", cat, "--user", "maya"),
            "ingest": reverie(data_dir, "ingest", str(document), "--user", "maya", "--no-llm"),
            "dream": reverie(data_dir, "dream", "--now"),
            "second app": reverie(data_dir, "run", "--port", str(free_port())),
        }
        assert server.poll() is None
    for name, proc in done.items():
        assert "Traceback" not in proc.stderr, (name, proc.stderr[-2000:])
        assert proc.returncode == (2 if name == "second app" else 0), (name, proc.stderr[-2000:])
    assert "CONTEXT_TURNS" in done["limits"].stdout
    assert f"forgot memories [{cat}" in done["forget"].stdout
    assert "Reverie is running, so its scheduler dreams" in done["dream"].stdout
    assert "already running" in done["second app"].stderr
    assert "Traceback" not in (tmp_path / "server.log").read_text()
    after = reverie(data_dir, "memories", "search", "Who founded Bluefin Ceramics?", "--user", "maya")
    assert "Gisela Marr" in after.stdout  # the document the CLI ingested is in the same memory
