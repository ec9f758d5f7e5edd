"""The dream report's SVG charts (dreaming.charts): well-formed, labelled, honest about missing data."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from datetime import UTC, datetime, timedelta

from dreaming.charts import requested_chart, usage_chart
from memory.models import ProposalRow, UsageRow

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)


def test_the_requested_values_chart_marks_the_limit_and_the_proposal() -> None:
    row = ProposalRow(dimension="CONTEXT_TURNS", bound="max", current_value=20, proposed_value=30, rationale="r",
                      created_at=NOW, evidence=json.dumps({"requested": {"5": 18, "30": 4}}))  # fmt: skip
    svg = requested_chart(row).decode()
    ET.fromstring(svg)  # well-formed: the browser shows it as an image
    assert "Recent messages read" in svg and "20 (limit)" in svg and "30 (proposed)" in svg and ">18<" in svg


def test_the_usage_chart_needs_two_days_and_shows_the_budget() -> None:
    def row(day: int, ms: float, rss: float) -> UsageRow:
        return UsageRow(user_id=1, thread_id="t", created_at=NOW + timedelta(days=day), request="{}",
                        generation_ms=ms, rss_mb=rss)  # fmt: skip

    assert usage_chart([row(0, 900, 500)], 2048) is None
    svg = (usage_chart([row(0, 900, 500), row(1, 4000, 700), row(1, 1000, 650)], 2048) or b"").decode()
    ET.fromstring(svg)
    assert "budget 2048 MB" in svg and "highest 4.0 s" in svg and "highest 700 MB" in svg and "<polyline" in svg
