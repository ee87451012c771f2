"""One regex run by RE2 where RE2 reads its pattern as Python's ``re`` does, else by ``re`` (split out of
:mod:`opsbrain.multiscan` in session 42, which screens many regexes at once): a regex whose match is only tested, on
a line (:func:`fast_search`) or on each line of a block in one scan (:func:`fast_lines_with`)."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from itertools import accumulate
from typing import Any, cast

from opsbrain.multiscan import _re2, _re2_reads


def _re2_of(rx: re.Pattern[str]) -> Any:
    """``rx`` compiled by RE2 when RE2 reads its pattern as ``re`` does (no flag but ``re.I`` / ``re.U``), else None."""
    if _re2 is None or rx.flags & ~(re.I | re.U) or not _re2_reads(rx.pattern):
        return None
    opts = _re2.Options()
    opts.log_errors = False
    opts.case_sensitive = not rx.flags & re.I
    return _re2.compile(rx.pattern, opts)


def fast_search(rx: re.Pattern[str]) -> Callable[[str], Any]:
    """``rx.search`` run by RE2 when it reads the pattern the same way (no back-references or look-arounds; case
    folding from ``re.I``), else by ``re``: a long alternation of words that ``re`` tries at every position of a line
    (~100 us a 300-character line) is one linear scan for RE2 (~2 us). Only for a regex whose match is tested, not
    read: the two engines may pick different but equally valid matches. One reading differs: RE2's ``\\b`` and
    ``\\w`` are ASCII, so a CJK letter after a code (``EI0002中``) is a word boundary for RE2 and not for ``re``; every
    path of the reader runs its patterns by RE2, so they agree with each other (session 38)."""
    compiled = _re2_of(rx)
    return rx.search if compiled is None else cast(Callable[[str], Any], compiled.search)


def fast_lines_with(rx: re.Pattern[str]) -> Callable[[list[str]], set[int]]:
    """The indexes of the lines of a block in which ``rx`` finds something, by one scan of the block joined with
    newlines (RE2 when it reads the pattern as ``re`` does, as :func:`fast_search`): per line the answer of
    ``rx.search``, at one call a block rather than one a line (~6 us a call through the RE2 binding). Only for a
    pattern that never matches a newline and holds no anchor (the caller's promise): no match then spans two lines,
    so each line that holds one is where some match of the block's scan starts (session 37)."""
    compiled = _re2_of(rx)
    finditer = rx.finditer if compiled is None else compiled.finditer

    def lines_with(lines: list[str]) -> set[int]:
        starts = [0, *accumulate(len(ln) + 1 for ln in lines)]
        return {bisect_right(starts, m.start()) - 1 for m in finditer("\n".join(lines))}

    return lines_with


__all__ = ["fast_lines_with", "fast_search"]
