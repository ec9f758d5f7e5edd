"""The dream report's charts (dreaming.charts specs, drawn by dreaming.plot): real PNGs of the
expected size, labelled in plain words, honest about missing data, and matplotlib never in the
process that asks for them."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from datetime import UTC, datetime, timedelta

from dreaming.charts import requested_spec, usage_spec
from dreaming.plot import DPI, HEIGHT_IN, WIDTH_IN, render
from memory.models import ProposalRow, UsageRow

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)
PNG = b"\x89PNG\r\n\x1a\n"


def _size(png: bytes) -> tuple[int, int]:
    """A PNG's width and height from its IHDR chunk (right after the signature)."""
    assert png[:8] == PNG and png[12:16] == b"IHDR"
    return struct.unpack(">II", png[16:24])


def _usage(day: int, ms: float, rss: float) -> UsageRow:
    return UsageRow(user_id=1, thread_id="t", created_at=NOW + timedelta(days=day), request="{}",
                    generation_ms=ms, rss_mb=rss)  # fmt: skip


def test_the_requested_values_chart_marks_the_limit_and_the_proposal_in_plain_words() -> None:
    row = ProposalRow(dimension="CONTEXT_TURNS", bound="max", current_value=20, proposed_value=30, rationale="r",
                      created_at=NOW, evidence=json.dumps({"requested": {"5": 18, "30": 4}}))  # fmt: skip
    spec = requested_spec(row)
    assert spec["bars"] == [["5", 18, "asked"], ["20\n(limit)", 0, "limit"], ["30\n(proposed)", 4, "proposed"]]
    words = json.dumps(spec)
    assert "Recent messages read" in words and "turns" in words and "CONTEXT_TURNS" not in words


def test_the_usage_chart_needs_two_days_and_shows_the_budget() -> None:
    assert usage_spec([_usage(0, 900, 500)], 2048) is None
    spec = usage_spec([_usage(0, 900, 500), _usage(1, 4000, 700), _usage(1, 1000, 650)], 2048)
    assert spec is not None
    assert spec["days"] == ["01 Mar", "02 Mar"] and spec["mb"] == [500, 700] and spec["budget_mb"] == 2048
    assert spec["seconds"][0] == 0.9 and spec["seconds"][1] > 3.0


def test_both_charts_are_drawn_as_pngs_of_the_expected_size_by_one_child_process() -> None:
    asked = json.dumps({"requested": {"0.5": 3, "1.0": 9}})
    row = ProposalRow(dimension="SIMILARITY_THRESHOLD", bound="max", current_value=0.9, proposed_value=0.95,
                      rationale="r", created_at=NOW, evidence=asked)  # fmt: skip
    usage = usage_spec([_usage(d, 1000 + 300 * d, 500 + 20 * d) for d in range(10)], 2048)
    assert usage is not None
    pngs = render([requested_spec(row), usage])
    assert [_size(p) for p in pngs] == [(int(WIDTH_IN * DPI), int(HEIGHT_IN * DPI))] * 2
    assert "matplotlib" not in sys.modules  # drawn in the child: this process never paid for it


def test_the_dream_channel_does_not_import_matplotlib() -> None:
    """The chat server imports `/dreams`' module; matplotlib must stay out of it (its ~53 MB stay out)."""
    code = "import sys, app.ui_dreams; print('matplotlib' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True)
    assert done.stdout.strip() == "False"
