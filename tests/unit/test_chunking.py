"""The streaming chunker: sizes, word boundaries, overlap, determinism and constant memory."""

from __future__ import annotations

import io
import tracemalloc
from itertools import pairwise
from pathlib import Path

import pytest

from memory.documents.chunking import Chunk, chunk_stream, count_chunks

EXCERPT = Path(__file__).parent.parent / "data" / "dracula_ch4_excerpt.txt"


def _chunks(text: str, size: int = 1000, overlap: int = 200) -> list[Chunk]:
    return list(chunk_stream(io.StringIO(text), size, overlap, block=4096))


def test_chunking_cuts_at_word_boundaries_within_size() -> None:
    text = EXCERPT.read_text()
    chunks = _chunks(text)
    assert len(chunks) > 20
    for c in chunks:
        assert 0 < len(c.text) <= 1000
        assert text[c.start : c.start + len(c.text)] == c.text  # offsets are exact
        assert c.start == 0 or text[c.start - 1].isspace()  # starts on a whole word
        end = c.start + len(c.text)
        assert end == len(text.rstrip()) or text[end].isspace()  # ends on a whole word


def test_chunking_overlaps_about_200_characters() -> None:
    text = EXCERPT.read_text()
    chunks = _chunks(text)
    for a, b in pairwise(chunks):
        overlap = a.start + len(a.text) - b.start
        assert 150 <= overlap <= 200, overlap
        assert b.fresh_from == overlap
        assert a.text.endswith(b.text[: b.fresh_from])
    assert chunks[0].fresh_from == 0
    covered = "".join(c.text[c.fresh_from :] for c in chunks)
    assert covered.split() == text.split()  # every word exactly once outside the overlaps


def test_chunking_hard_cuts_a_word_longer_than_a_chunk() -> None:
    chunks = _chunks("x" * 2500 + " tail", size=1000, overlap=200)
    assert all(len(c.text) <= 1000 for c in chunks)
    assert chunks[-1].text.endswith("tail")


def test_chunking_is_deterministic_and_counts_match() -> None:
    text = EXCERPT.read_text()
    assert _chunks(text) == _chunks(text)
    assert count_chunks(io.StringIO(text)) == len(_chunks(text))
    assert _chunks("   \n  ") == []
    assert [c.text for c in _chunks("one short document")] == ["one short document"]


def test_chunking_rejects_overlap_of_half_the_size() -> None:
    with pytest.raises(ValueError):
        _chunks("text", size=100, overlap=50)


class _EndlessText(io.TextIOBase):
    """A 5 MB text produced block by block, never held in memory."""

    def __init__(self, total: int) -> None:
        self.left = total

    def read(self, size: int | None = -1) -> str:
        n = min(self.left, size if size and size > 0 else 65536)
        self.left -= n
        return ("lorem ipsum dolor sit amet " * (n // 27 + 1))[:n]


def test_chunking_streams_in_constant_memory() -> None:
    tracemalloc.start()
    n = sum(1 for _ in chunk_stream(_EndlessText(5_000_000)))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert n > 6000
    assert peak < 1_000_000, f"peak {peak} bytes for a 5 MB stream"
