"""What a correction leaves in recall of the memory it retires: what else that memory said."""

from __future__ import annotations

import pytest

from memory.formation.graph_writes import remainder


@pytest.mark.parametrize(
    ("content", "ended", "subject", "predicate", "rest"),
    [
        ("My sister Jules lives in Hamilton, her birthday is 14 March.", "Hamilton", "Jules", "LIVES_IN",
         "Jules — her birthday is 14 March."),
        ("My sister Jules, who is 34, lives in Hamilton.", "Hamilton", "Jules", "LIVES_IN", "Jules — who is 34."),
        ("My brother Tom works at Acme. Their son Leo is 4.", "Acme", "Tom", "WORKS_AT", "Tom — their son Leo is 4."),
        ("I work as a UX researcher at Halden. I started there in March 2024.", "UX researcher", "User",
         "HAS_JOB_TITLE", "I started there in March 2024."),
        # nothing that could be the old place, whichever place the relation ended with
        ("I live in Leipzig, in a flat in the Südvorstadt.", "Leipzig", "User", "LIVES_IN", ""),
        ("i live in leipzig, in a flat in the südvorstadt, love it", "leipzig", "User", "LIVES_IN", ""),
        ("my sister Ana moved to Porto last spring", "Porto", "Ana", "LIVES_IN", ""),
        ("Actually, I work at Acme Robotics now.", "Acme Robotics", "User", "WORKS_AT", ""),
    ],
)  # fmt: skip
def test_remainder_keeps_what_else_was_said(content: str, ended: str, subject: str, predicate: str, rest: str) -> None:
    known = f"{subject} sister brother {predicate.replace('_', ' ')}"
    assert remainder(content, known, ended, subject, predicate) == rest
