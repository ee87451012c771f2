"""One RE2 scan of a whole block of lines says which lines can hold any of a set of patterns.

A :class:`BlockScan` is the gate in front of a per-line screen (:class:`opsbrain.multiscan.Screen`): the ASCII lines
of a block are joined with newlines and one union regex of the screen's patterns is searched over the joined text in
multi-line mode, in C. A line no match touches holds none of the patterns, so the per-line screen would rule out
everything there, and the caller's per-line work (screen, parsers, matcher) can be skipped for it. Lines the screen
cannot tell about (not ASCII, longer than the caller's cap, holding a newline) are always reported as candidates:
the caller runs its exact per-line path on them.

Why a match only ever marks a superset: each pattern is read with ``^``/``$`` at line boundaries (``(?m)``), and
``\\b``/``\\B`` see a newline next to a line's ends, as they see the text's ends in the line alone; so a pattern that
matches a line alone matches the joined text at the same place. The scan resumes at the line after the last one a
match touched; a line with a match of its own is either touched by a match found earlier or holds the leftmost
match found from the resume point. A match that runs across a newline (``[^x]*``, ``\\s``) only marks more lines.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from opsbrain.multiscan import _re2

UNION_MAX_MEM = 256 << 20
"""Bytes RE2 may use for the union's automaton (a few thousand literals and regexes): past it RE2 would fall back to
its slower NFA for the scan, never fail."""

_MULTILINE_FLAG = re.compile(r"\(\?[a-zA-Z]*-?[a-zA-Z]*m")
"""An inline flag group that sets or clears RE2's multi-line flag (would change what ``^``/``$`` mean here)."""


def _block_safe(pattern: str) -> bool:
    """True when the pattern means the same at a line of the joined text as in the line alone (no text-only anchors
    ``\\A``/``\\z``, no multi-line flag of its own)."""
    return "\\A" not in pattern and "\\z" not in pattern and not _MULTILINE_FLAG.search(pattern)


class BlockScan:
    """Which lines of a block can hold one of ``patterns`` (RE2 syntax as :class:`opsbrain.multiscan.PatternSet`
    reads it, case-sensitive unless a pattern says ``(?i)``), in one scan of the block."""

    def __init__(self, patterns: Sequence[str]) -> None:
        self.patterns = list(patterns)
        self._rx: Any = None
        self._raw: Any = None
        self._unanchored: Any = None
        if _re2 is None or not self.patterns or not all(_block_safe(p) for p in self.patterns):
            return
        opts = _re2.Options()
        opts.max_mem = UNION_MAX_MEM
        opts.log_errors = False
        opts.never_capture = True
        try:
            self._rx = _re2.compile("(?m)" + "|".join(f"(?:{p})" for p in self.patterns), opts)
        except Exception:  # noqa: BLE001 - a pattern RE2 cannot read as part of the union: no block scan
            self._rx = None
            return
        # the binding's own entry point (no match objects); the public search() is the fallback
        raw = getattr(self._rx, "_regexp", None)
        self._raw = getattr(raw, "Match", None)
        self._unanchored = getattr(getattr(raw, "Anchor", None), "UNANCHORED", None)
        if self._unanchored is None:
            self._raw = None

    @property
    def usable(self) -> bool:
        """True when this scan can rule lines out (RE2 is there and read every pattern)."""
        return self._rx is not None

    def candidates(self, texts: Sequence[str], cap: int) -> list[bool] | None:
        """Per line of ``texts``: False when none of the patterns occurs in it (certain), True when one may (or the
        line is not ASCII, longer than ``cap`` or holds a newline: the caller's per-line path decides). None when
        this scan cannot tell about any line (no RE2)."""
        if self._rx is None:
            return None
        n = len(texts)
        out = [False] * n
        if not n:
            return out
        joined = "\n".join(texts)
        if not (joined.isascii() and joined.count("\n") == n - 1 and max(map(len, texts)) <= cap):
            parts = []  # the lines the scan cannot tell about join as empty lines and are candidates
            for i, t in enumerate(texts):
                if len(t) > cap or not t.isascii() or "\n" in t:
                    out[i] = True
                    parts.append("")
                else:
                    parts.append(t)
            texts = parts
        for lo in range(0, n, CHUNK_LINES):
            self._scan(texts, lo, min(n, lo + CHUNK_LINES), out)
        return out

    def _scan(self, texts: Sequence[str], lo: int, hi: int, out: list[bool]) -> None:
        """Mark the candidates among lines ``lo`` to ``hi`` (one block; RE2 copies its text on every call, so a
        block is kept small and a search resumes at the next unmarked line)."""
        block = "\n".join(texts[lo:hi]).encode("ascii")
        end, pos, line = len(block), 0, lo  # line: the index of the line that starts at pos
        while pos <= end:
            span = self._find(block, pos, end)
            if span is None:
                return
            s, e = span
            tail = max(s, e - 1)
            first = line + block.count(b"\n", pos, s)  # the lines the match touches: its start to its last character
            last = first + block.count(b"\n", s, tail)
            for k in range(first, min(last, hi - 1) + 1):
                out[k] = True
            nl = block.find(b"\n", tail)
            if nl < 0:
                return
            pos, line = nl + 1, last + 1

    def _find(self, block: bytes, pos: int, end: int) -> tuple[int, int] | None:
        """(start, end) of the leftmost match in ``block[pos:end]``, or None."""
        if self._raw is not None:
            span = self._raw(self._unanchored, block, pos, end)[0]
            return None if span[0] < 0 else (span[0], span[1])
        m = self._rx.search(block, pos, end)
        return None if m is None else m.span()


CHUNK_LINES = 128
"""Lines searched as one block: the RE2 binding copies the searched bytes on each call, so one call per block plus
one per candidate line costs a copy of ~10 KB each, not of the whole input."""


__all__ = ["BlockScan"]
