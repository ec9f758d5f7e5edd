"""A turn's telemetry stays small however much was skipped, and the context step still counts it all."""

from __future__ import annotations

from app.turn_view import plan_markdown
from capabilities.resources import Limits, ResourceRequest, clamp
from memory.assembly import TELEMETRY_SKIPPED, AssembledContext, ContextItem
from memory.graph.cypher import Subgraph


def _context(loaded: int, skipped: int) -> AssembledContext:
    def item(i: int) -> ContextItem:
        return ContextItem(f"e{i}", "entity", f"Entity {i}", f"Entity {i}", 1.0 / (i + 1), level="full")

    rest = [item(i) for i in range(loaded, loaded + skipped)]
    for i in rest:
        i.level, i.reason = None, "token budget"
    return AssembledContext([], [item(i) for i in range(loaded)], rest, [], {}, Subgraph())


def test_telemetry_names_the_best_skipped_and_counts_them_all() -> None:
    telemetry = _context(loaded=10, skipped=3000).telemetry()
    assert len(telemetry["skipped"]) == TELEMETRY_SKIPPED
    assert telemetry["skipped"][0]["ref"] == "e10"
    assert telemetry["skipped_total"] == 3000
    assert telemetry["coverage"] == round(10 / 3010, 3)


def test_context_step_says_how_many_more_were_left_out() -> None:
    provision = clamp(ResourceRequest(), Limits.from_values())
    markdown = plan_markdown(provision, [], _context(loaded=2, skipped=3000).telemetry(), 12.0)
    assert "Entity 2 (token budget)" in markdown and "and 2992 more" in markdown
    few = plan_markdown(provision, [], _context(loaded=2, skipped=3).telemetry(), 12.0)
    assert "more" not in few


def test_sources_are_part_of_the_reply_text_escaped_and_short() -> None:
    """Sources live in the message itself (a reload shows them), the person's text cannot inject markdown."""
    from app.chat import SourceView
    from app.turn_view import SOURCE_CHARS, sources_markdown

    hostile = SourceView("m7", "says so", 0.91, "Ana lives in [Porto](http://evil.example) <img src=x>")
    long = SourceView("m12", "says so", 0.5, "word " * 100)
    text = sources_markdown([hostile, long])
    assert text.startswith("\n\n**Sources**\n- **#7** ") and "relevance 0.91" in text
    assert "[Porto](http" not in text and "\\[Porto\\]" in text and "\\<img" in text  # shown, not rendered
    assert len(text.splitlines()[-1]) < SOURCE_CHARS + 60 and "…" in text
    assert sources_markdown([]) == ""
