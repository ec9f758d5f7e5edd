"""Streaming chunker: fixed-size, overlapping chunks cut at word boundaries, in constant memory.

The text is read in blocks from a file object; the buffer never holds more than one block plus
one chunk, so a 1 GB document costs what a 1 KB one does. Chunks are deterministic for a given
text and configuration, which is what lets an interrupted ingestion skip the chunks it has
already stored and resume at its watermark.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TextIO

CHUNK_CHARS = 1000
OVERLAP_CHARS = 200
READ_BLOCK = 64 * 1024


@dataclass(frozen=True)
class Chunk:
    """One chunk of a document.

    Attributes:
        seq: 0-based position in the document.
        start: character offset of `text` in the document.
        text: at most `size` characters, starting and ending on whole words.
        fresh_from: index in `text` where the part not already in the previous chunk begins
            (0 for the first chunk); counting mentions only from here avoids double counts.
    """

    seq: int
    start: int
    text: str
    fresh_from: int = 0


class _Reader:
    """A sliding window over a file object: `buf` starts at absolute offset `base`."""

    def __init__(self, source: TextIO, block: int) -> None:
        self.source, self.block = source, block
        self.buf, self.base, self.eof = "", 0, False

    def fill(self, upto: int) -> None:
        """Read until the window reaches absolute offset `upto` or the end of the file."""
        while not self.eof and self.base + len(self.buf) < upto:
            data = self.source.read(self.block)
            if data:
                self.buf += data
            else:
                self.eof = True

    def drop_before(self, offset: int) -> None:
        """Forget everything before absolute offset `offset` (keeps memory constant)."""
        cut = offset - self.base
        if cut > 0:
            self.buf, self.base = self.buf[cut:], offset

    def skip_space(self, offset: int) -> int:
        """The first non-whitespace offset at or after `offset` (reading as needed)."""
        while True:
            self.fill(offset + 1)
            rel = offset - self.base
            if rel >= len(self.buf):
                return offset
            if not self.buf[rel].isspace():
                return offset
            offset += 1


def _cut(window: str, size: int, at_end: bool) -> int:
    """Length of the chunk taken from `window`: all of it at the end, else up to its last space."""
    if at_end and len(window) <= size:
        return len(window)
    head = window[: size + 1]  # a space right after `size` characters is a clean cut too
    for i in range(len(head) - 1, size // 2, -1):
        if head[i].isspace():
            return i
    return min(size, len(window))  # one giant "word": hard cut, never an endless chunk


def _next_start(reader: _Reader, start: int, end: int, overlap: int) -> int:
    """Start of the next chunk: the first word beginning at or after `end - overlap`."""
    target = max(start + 1, end - overlap)
    rel = target - reader.base
    buf = reader.buf
    if rel > 0 and not buf[rel - 1].isspace():  # inside a word: move past it
        while rel < len(buf) and rel < end - reader.base and not buf[rel].isspace():
            rel += 1
    return reader.skip_space(reader.base + rel)


def chunk_stream(
    source: TextIO, size: int = CHUNK_CHARS, overlap: int = OVERLAP_CHARS, *, block: int = READ_BLOCK
) -> Iterator[Chunk]:
    """Yield the chunks of a text file object, reading it once, in constant memory.

    Args:
        source: an open text file (or `io.StringIO`).
        size: most characters per chunk (e.g. 1000).
        overlap: about this many characters of each chunk start the next one (e.g. 200).
        block: characters read at a time.

    Raises:
        ValueError: overlap is not smaller than half the size.
    """
    if not 0 <= overlap < size // 2:
        raise ValueError(f"overlap must be in [0, size/2): got size={size}, overlap={overlap}")
    reader = _Reader(source, max(block, size + 1))
    start, prev_end, seq = reader.skip_space(0), 0, 0
    while True:
        reader.fill(start + size + 1)
        rel = start - reader.base
        window = reader.buf[rel : rel + size + 1]
        if not window.strip():
            return
        at_end = reader.eof and rel + size >= len(reader.buf)
        length = _cut(window, size, at_end)
        text = window[:length].rstrip()
        end = start + len(text)
        yield Chunk(seq, start, text, max(0, min(prev_end - start, len(text))))
        if at_end and length == len(window):
            return
        nxt = _next_start(reader, start, end, overlap)
        prev_end, start, seq = end, nxt, seq + 1
        reader.drop_before(start)


def count_chunks(source: TextIO, size: int = CHUNK_CHARS, overlap: int = OVERLAP_CHARS) -> int:
    """How many chunks `chunk_stream` yields for this file (one cheap pass, constant memory)."""
    return sum(1 for _ in chunk_stream(source, size, overlap))
