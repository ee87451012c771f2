"""A line written again and again in a row, read once with its count: the one rule ``diagnose --logs`` and the bundle
reader fold repeats by (session 36).

A program that retries prints the same line, stamp and all, thousands of times (a plog of 1.5 million identical
``heartbeat check`` warnings before the job's real errors); two handlers on one logger, or a stream and its tee
pasted together, write one record twice. A non-blank line equal to the one before it (every character: the stamp
too, so the run's last copy has the first one's time) is folded into it: :func:`fold_runs` gives each run's first
line and the run's length. A line reader parses the first line once and never holds the copies; :class:`Folds` keeps
where a file's runs were folded, so that a folded line still has its number in the file as written and the count of
copies it stands for."""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from itertools import chain, compress, groupby
from operator import eq
from typing import TypeVar

T = TypeVar("T")


def fold_runs(items: Iterable[T], key: Callable[[T], object] | None = None) -> Iterator[tuple[T, int]]:
    """Each run of ``items`` whose ``key`` (default: the item; a line, str or bytes) is equal and not blank, as (its
    first item, its length); a blank line is never folded (its repeats are layout, not a record written twice)."""
    for k, run in groupby(items, key):
        first = next(run)
        if isinstance(k, str | bytes) and not k.strip():
            yield first, 1
            for x in run:
                yield x, 1
            continue
        last = deque(enumerate(run, 2), maxlen=1)  # noqa: B031 - (the branch above returned) counted at C speed
        yield first, last[0][0] if last else 1


class Folds:
    """Where a file's runs of repeated lines were folded: line ``k`` of the folded file (1-based) has its number in
    the file as written (:meth:`line_no`) and stands for :meth:`copies` lines. Two integers per folded run, none
    per line."""

    def __init__(self) -> None:
        self._at = array("q")  # folded line numbers that stand for a run, ascending
        self._extra = array("q")  # copies folded away up to and including that line, running total

    def add(self, k: int, copies: int) -> None:
        """Folded line ``k`` (after every line added before) stands for ``copies`` lines (> 1)."""
        self._at.append(k)
        self._extra.append((self._extra[-1] if self._extra else 0) + copies - 1)

    def __bool__(self) -> bool:
        return bool(self._at)

    @property
    def folded(self) -> int:
        """Lines folded away (copies beyond each run's first)."""
        return self._extra[-1] if self._extra else 0

    def line_no(self, k: int) -> int:
        """The number, in the file as written, of folded line ``k`` (the first line of its run)."""
        j = bisect_left(self._at, k)
        return k + (self._extra[j - 1] if j else 0)

    def copies(self, k: int) -> int:
        """How many lines folded line ``k`` stands for (1: it was not repeated)."""
        j = bisect_left(self._at, k)
        if j < len(self._at) and self._at[j] == k:
            return self._extra[j] - (self._extra[j - 1] if j else 0) + 1
        return 1


def fold_bytes(chunks: Iterable[bytes]) -> tuple[bytearray, Folds]:
    """The text of ``chunks`` (UTF-8 or ASCII bytes, in any cut) with each run of repeated lines folded into its first
    line (:func:`fold_runs`), and where (:class:`Folds`): a bundle's file read without ever holding its copies. A
    piece without a line equal to the one before is copied whole (one comparison of its lines at C speed); without a
    run, the bytes come back as they were. A bytearray: its copy as bytes would hold the text twice (session 37)."""
    out = bytearray()
    folds = Folds()
    k = 0  # lines written out
    last: bytes | None = None  # the last line written out, and the length of its run so far
    run = 0
    for parts in _pieces(chunks):
        # the lines equal to the one before (the first: to the last line written), found at C speed; of those, the
        # non-blank ones are copies folded away (session 42: before, a piece with one such line was read line by
        # line, ~1 us a line, in a bundle of console logs with a few repeats each)
        same = compress(range(1, len(parts)), map(eq, parts[1:], parts))
        copies = [j for j in (chain((0,), same) if parts[0] == last else same) if parts[j].strip()]
        start = 0  # the next line of the piece not written out
        for j in (*copies, len(parts)):
            if j > start:  # lines start..j-1 are written: the first ends the run before it, each is a run of one
                if run > 1:
                    folds.add(k, run)
                out += b"\n".join(parts[start:j])
                out += b"\n"
                k, last, run = k + j - start, parts[j - 1], 1
            run += 1  # line j: a copy of the line before (at j == len(parts): undone below)
            start = j + 1
        run -= 1
    if run > 1:
        folds.add(k, run)
    del out[-1:]  # (the text after the last line end, b"" when it ends with one, took a line end of its own)
    return out, folds


def _pieces(chunks: Iterable[bytes]) -> Iterator[list[bytes]]:
    """The lines of the text the chunks make, without their line ends, a chunk's worth at a time; the text after the
    last line end last. A line over many chunks (a 50 MB line without an end) is joined once, not chunk by chunk."""
    held: list[bytes] = []  # the bytes of the line under way, from the chunks before
    for c in chunks:
        if b"\n" not in c:
            held.append(c)
            continue
        parts = (b"".join([*held, c]) if held else c).split(b"\n")
        held = [parts.pop()]
        yield parts
    yield [b"".join(held)]
