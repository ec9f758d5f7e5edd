"""A turn's telemetry stays small however much was skipped, and the context step still counts it all."""

from __future__ import annotations

from app.turn_view import plan_markdown
from capabilities.context import TwoLevelContext
from capabilities.info import build_round
from capabilities.report import context_lines
from capabilities.resources import Limits, ResourceRequest, clamp
from memory.assembly import BEST_UNLOADED, TELEMETRY_SKIPPED, AssembledContext, ContextItem, Skip
from memory.graph.cypher import Subgraph


def _context(loaded: int, skipped: int) -> AssembledContext:
    def item(i: int) -> ContextItem:
        return ContextItem(f"e{i}", "entity", f"Entity {i}", f"Entity {i}", 1.0 / (i + 1), level="full")

    rest = [item(i) for i in range(loaded, loaded + skipped)]
    for i in rest:
        i.skipped(Skip.BUDGET, "token budget")
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
    assert "Entity 2 (token budget)" in markdown and f"and {3000 - BEST_UNLOADED} more" in markdown
    assert "Left out: 3000 for the token budget" in markdown
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


def _mixed() -> AssembledContext:
    ana = ContextItem(
        "e1", "entity", "Ana — the user's sister", "Ana", 0.9, level="full", reason="named in the question"
    )
    skipped = [
        ContextItem("e2", "entity", "Lucy", "Lucy", 0.5).skipped(Skip.BUDGET, "token budget"),
        ContextItem("e3", "entity", "Whitby", "Whitby", 0.3).skipped(Skip.DEPTH, "2 hops out, past TRIPLE_DEPTH 1"),
        ContextItem("e4", "entity", "Acme", "Acme", 0.3).skipped(Skip.RELEVANCE, "relevance 0.07 below the cut 0.1"),
        ContextItem("e5", "entity", "Porto", "Porto", 0.2).skipped(Skip.FOCUS, "outside the focus (doc:1)"),
        ContextItem("r9", "relation", "Ana LIVES_IN Lisbon", "Ana LIVES_IN Lisbon", 0.1).skipped(
            Skip.SUPERSEDED, "superseded, no longer true"
        ),
    ]
    return AssembledContext([], [ana], skipped, [], {}, Subgraph(), depth=1, depth_reached=1)


def test_context_step_says_why_loaded_why_not_and_what_to_ask() -> None:
    provision = clamp(ResourceRequest(), Limits.from_values())
    markdown = plan_markdown(provision, [], _mixed().telemetry(), 5.0).replace("\\", "")  # as rendered
    assert "**Links followed**: 1 of 1 step(s) out had something" in markdown
    assert "**Why loaded**: Ana (named in the question)" in markdown
    assert (
        "Lucy (token budget); Whitby (2 hops out, past TRIPLE_DEPTH 1); Acme (relevance 0.07 below the cut 0.1)"
        in markdown
    )
    assert "Ana LIVES_IN Lisbon" not in markdown.split("**Related but not loaded**")[1].split("\n")[0]
    assert "1 superseded" in markdown and "1 outside the focus" in markdown
    assert "**Recommendation**: ask TRIPLE_DEPTH 2 for Whitby" in markdown
    assert "**Recommendation**: ask EXPAND_ENTITY for Lucy [e2] (left out for the token budget)" in markdown


def test_answer_prompt_names_what_was_not_loaded_and_offers_to_expand_it() -> None:
    assembled = _mixed()
    ctx = TwoLevelContext.from_assembled(assembled)
    block = ctx.block()
    assert "Related but not loaded (EXPAND_ENTITY can load an entity): Lucy [e2] (token budget);" in block
    assert "Porto [e5] (outside the focus (doc:1))" in block
    assert "Recommendation: ask TRIPLE_DEPTH 2 for Whitby" in block
    offer = build_round(ctx, ["Person"]).offer
    assert set(offer.expandable_refs) == {"e2", "e3", "e4"} and offer.entity_refs == ()
    assert "e2" not in ctx.refs  # not loaded: nothing to cite yet


def test_context_step_shows_a_left_out_note_as_written_on_one_line() -> None:
    note = ContextItem("m3", "chunk", "x", "Ana [lives](http://evil.example)\nin Porto", 0.4)
    ctx = AssembledContext([], [], [note.skipped(Skip.BUDGET, "token budget")], [], {}, Subgraph())
    markdown = plan_markdown(clamp(ResourceRequest(), Limits.from_values()), [], ctx.telemetry(), 1.0)
    assert "Ana \\[lives\\]\\(http://evil\\.example\\) in Porto (token budget)" in markdown


def test_context_step_counts_neighbouring_lines_apart_from_memories() -> None:
    """Issue 14: the turns shown beside a loaded turn are in the context but are not memories of their
    own (VECTOR_SEARCH_LIMIT counts the memories); the Context step and the report say both."""
    turn = ContextItem("m7", "turn", "(2026-01-02, turn) We adopted a puppy.\n  said just after: Biscuit.",
                       "(2026-01-02, turn) We adopted a puppy.", 0.9, level="full", around=(8, 6))  # fmt: skip
    telemetry = AssembledContext([], [turn], [], [], {}, Subgraph()).telemetry()
    assert telemetry["neighbour_lines"] == 2 and telemetry["loaded"][0]["around"] == ["m8", "m6"]
    provision = clamp(ResourceRequest(), Limits.from_values())
    assert "1 memories, 0 entities, 0 relations (with 2 neighbouring lines) (" in plan_markdown(
        provision, [], telemetry, 12.0
    )
    assert context_lines(telemetry)[0].startswith("Context: 1 memory, 0 entities, 0 relations (with 2 neighbouring")
