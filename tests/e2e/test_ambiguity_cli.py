"""Two Anas through `reverie chat --json` on the real embedded SmolLM2-135M: what a person reads
names the ambiguity, and a question that says which one gets that one. (It failed for half the
hash seeds until formation took a turn's role triples first: run it under PYTHONHASHSEED 0 and 1.)"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.server import PASSWORD, reverie

pytestmark = [pytest.mark.e2e]
TWO = "You've told me about two Anas — your sister and your colleague."


def _chat(data_dir: Path, lines: list[str]) -> list[str]:
    done = reverie(data_dir, "chat", "--user", "maya", "--json", stdin="\n".join(lines) + "\n")
    assert done.returncode == 0, done.stderr[-2000:]
    replies: list[dict[str, Any]] = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return [r["reply"] for r in replies]


def test_ambiguity_cli_names_the_two_anas_on_the_real_model(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    assert reverie(data_dir, "users", "add", "maya", "--password-stdin", stdin=PASSWORD + "\n").returncode == 0
    _chat(data_dir, ["My sister Ana lives in Lyon.", "My colleague Ana works at Globex."])
    asked = ["Where does Ana work?", "Where does Ana live?", "Where does my sister Ana live?"]
    work, live, sister = _chat(data_dir, [line for q in asked for line in ("/new", q)])
    replies = (work, live, sister)  # shown when an assertion fails
    # (Under load the preface used to go missing: the second turn was formed beside the first, by the
    # drain and the cancelled worker's thread at once, and both read no Ana yet: one Ana of both.)
    assert work.startswith(TWO) and "colleague Ana" in work and "Globex" in work and "Lyon" not in work, replies
    assert live.startswith(TWO) and "sister Ana" in live and "Lyon" in live and "Globex" not in live, replies
    assert "Lyon" in sister and "two" not in sister and "Globex" not in sister, replies
