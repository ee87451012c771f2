"""One RE2 scan of a whole block of lines says which lines can hold any of a set of patterns.

A :class:`BlockScan` is the gate in front of a per-line screen (:class:`opsbrain.multiscan.Screen`): the ASCII lines
of a block are joined with newlines and one union regex of the screen's patterns is searched over the joined text in
multi-line mode, in C. A line no match touches holds none of the patterns, so the per-line screen would rule out
everything there, and the caller's per-line work (screen, parsers, matcher) can be skipped for it. Lines the screen
cannot tell about (longer than the caller's cap, holding a newline) are always reported as candidates: the caller
runs its exact per-line path on them. A non-ASCII line (session 39) is read as the per-line screen reads it
(:meth:`opsbrain.multiscan.Screen.block_wide`): its ASCII stand-in copies and the line itself join a second block,
scanned with the patterns given for such lines; without them it is a candidate.

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

from opsbrain.multiscan import Wide, _re2
from opsbrain.standin import COMMON_KINDS, kinds, rare_lines, standin

UNION_MAX_MEM = 256 << 20
"""Bytes RE2 may use for the union's automaton (a few thousand literals and regexes): past it RE2 would fall back to
its slower NFA for the scan, never fail."""

_MULTILINE_FLAG = re.compile(r"\(\?(?:[a-zA-Z]*-)?[a-zA-Z]*m")
"""An inline flag group that sets or clears RE2's multi-line flag (would change what ``^``/``$`` mean here)."""


def _block_safe(pattern: str) -> bool:
    """True when the pattern means the same at a line of the joined text as in the line alone (no text-only anchors
    ``\\A``/``\\z``, no multi-line flag of its own)."""
    return "\\A" not in pattern and "\\z" not in pattern and not _MULTILINE_FLAG.search(pattern)


class BlockScan:
    """Which lines of a block can hold one of ``patterns`` (RE2 syntax as :class:`opsbrain.multiscan.PatternSet`
    reads it, case-sensitive unless a pattern says ``(?i)``), in one scan of the block."""

    def __init__(self, patterns: Sequence[str], wide: tuple[Sequence[str], Wide] | None = None) -> None:
        """``wide``: the patterns a non-ASCII line is scanned with (the same as ``patterns`` or others) and how
        such a line is read (:meth:`opsbrain.multiscan.Screen.block_wide`); None: such a line is a candidate."""
        self.patterns = list(patterns)
        self._wide: Wide | None = None
        self._wide_pats: list[str] = []
        self._wide_scan: BlockScan | None = None  # compiled on the first non-ASCII line (an ASCII log needs none)
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
        if wide is not None:
            self._wide_pats, self._wide = list(wide[0]), wide[1]

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
        wide: list[int] = []
        if not (joined.isascii() and joined.count("\n") == n - 1 and max(map(len, texts)) <= cap):
            parts: list[str] = []  # the lines the scan cannot tell about join as empty lines and are candidates
            if joined.count("\n") == n - 1 and max(map(len, texts)) <= cap:  # no line over the cap or with a newline
                asc = list(map(str.isascii, texts))  # the same, line by line in C (session 41)
                wide = [i for i, a in enumerate(asc) if not a]
                for i in wide:
                    out[i] = True
                parts = [t if a else "" for t, a in zip(texts, asc, strict=True)]
            else:
                for i, t in enumerate(texts):
                    if len(t) > cap or not t.isascii() or "\n" in t:
                        out[i] = True
                        parts.append("")
                        if len(t) <= cap and "\n" not in t:
                            wide.append(i)
                    else:
                        parts.append(t)
            if wide and self._wide is not None and self._wide_block() is not None:
                self._wide_lines(texts, wide, out)
            texts = parts
        for lo in range(0, n, CHUNK_LINES):
            self._scan("\n".join(texts[lo:min(n, lo + CHUNK_LINES)]).encode("ascii"), lo, min(n, lo + CHUNK_LINES),
                       out)
        return out

    def _wide_block(self) -> BlockScan | None:
        """The scan of non-ASCII lines' texts (this one when the patterns are the same), or None when RE2 cannot
        read its patterns (such lines are then candidates)."""
        if self._wide_scan is None:
            self._wide_scan = self if self._wide_pats == self.patterns else BlockScan(self._wide_pats)
            if not self._wide_scan.usable:
                self._wide = None
                return None
        return self._wide_scan

    def _wide_lines(self, texts: Sequence[str], wide: list[int], out: list[bool]) -> None:
        """Rule out the non-ASCII lines ``wide`` where none of the patterns for such lines occurs in the texts the
        per-line screen reads (:class:`opsbrain.multiscan.Screen`: the stand-in copies, the line itself), a block
        of lines at a time (session 40): the lines are grouped by the kinds of character they hold (one scan of
        them all finds the few with a rarer kind, :func:`opsbrain.standin.rare_lines`), and each copy is made of a
        block joined by newlines, in C. A copy of the joined lines is the copies of the lines joined: a stand-in
        replaces one character by one, and a newline is ASCII, kept as it is (as is the line itself in UTF-8)."""
        assert self._wide is not None and self._wide_scan is not None
        rows = [texts[i] for i in wide]
        rare = rare_lines(rows)
        groups: dict[int, list[int]] = {COMMON_KINDS: [w for k, w in enumerate(wide) if k not in rare] if rare
                                        else wide}
        for k in sorted(rare):  # (each group's lines in order, as before: a line by line loop, session 41)
            groups.setdefault(kinds(rows[k]), []).append(wide[k])
        if rare:
            groups[COMMON_KINDS].sort()  # (a rarer line of the common kinds after all: in its place)
        for mask, lines in groups.items():
            if mask >= 16 or self._wide[mask][1]:
                continue  # a character re.I folds onto ASCII, or a regex run on every such line: candidates
            for lo in range(0, len(lines), CHUNK_LINES):
                self._wide_chunk(texts, lines[lo:lo + CHUNK_LINES], mask, out)

    def _wide_chunk(self, texts: Sequence[str], lines: list[int], mask: int, out: list[bool]) -> None:
        """:meth:`_wide_lines` of at most :data:`CHUNK_LINES` lines of the kinds ``mask``."""
        assert self._wide is not None and self._wide_scan is not None
        left = lines  # the lines no copy scanned so far has a match in: the next copy is made of these only
        for r in self._wide[mask][0]:
            joined = "\n".join([texts[i] for i in left])
            copy = _utf8(joined) if r == 2 else standin(joined, r, mask)
            if copy is None:  # a lone surrogate: line by line (that line stays a candidate)
                self._wide_each(texts, left, out)
                return
            marks = [False] * len(left)
            self._wide_scan._scan(copy, 0, len(left), marks)
            if any(marks):
                left = [i for i, hit in zip(left, marks, strict=True) if not hit]
                if not left:
                    return
        for i in left:
            out[i] = False

    def _wide_each(self, texts: Sequence[str], wide: list[int], out: list[bool]) -> None:
        """:meth:`_wide_lines` line by line (session 39's way; the reference the block way is tested against)."""
        assert self._wide is not None and self._wide_scan is not None
        copies: list[bytes] = []
        owner: list[int] = []
        for i in wide:
            t = texts[i]
            mask = kinds(t)
            if mask >= 16 or self._wide[mask][1]:
                continue  # a character re.I folds onto ASCII, or a regex run on every such line: a candidate
            for r in self._wide[mask][0]:
                copy = _utf8(t) if r == 2 else standin(t, r, mask)
                if copy is None:
                    break
                copies.append(copy)
                owner.append(i)
            else:
                out[i] = False
        marks = [False] * len(copies)
        for lo in range(0, len(copies), CHUNK_LINES):
            self._wide_scan._scan(b"\n".join(copies[lo:lo + CHUNK_LINES]), lo, min(len(copies), lo + CHUNK_LINES),
                                  marks)
        for k, hit in enumerate(marks):
            if hit:
                out[owner[k]] = True

    def _scan(self, block: bytes, lo: int, hi: int, out: list[bool]) -> None:
        """Mark the candidates among lines ``lo`` to ``hi`` (``block``: those lines joined by newlines; RE2 copies
        its text on every call, so a block is kept small and a search resumes at the next unmarked line)."""
        end, pos, line = len(block), 0, lo  # line: the index of the line that starts at pos
        while pos <= end:
            span = self._find(block, pos, end)
            if span is None:
                return
            s, e = span
            tail = max(s, e - 1)
            if e > s + 1 and block[s] == 0x0A:  # a match that opens on the separator ("(?:^|[^0-9A-Za-z])EI\d{4}"
                s += 1  # taking the newline for its boundary) is the next line's, not also the line before it
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


def _utf8(text: str) -> bytes | None:
    """``text`` as RE2 reads it (UTF-8), or None when it holds lone surrogates."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return None


CHUNK_LINES = 128
"""Lines searched as one block: the RE2 binding copies the searched bytes on each call, so one call per block plus
one per candidate line costs a copy of ~10 KB each, not of the whole input."""


__all__ = ["BlockScan"]
