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
from opsbrain.re2translate import WIDEN_FROM, re2_superset


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


_EXACT_AT = {"AT_BEGINNING", "AT_BEGINNING_STRING", "AT_END", "AT_END_STRING", "AT_BOUNDARY", "AT_NON_BOUNDARY"}


def _same_on_ascii(items: Any, fold: bool, maxrepeat: int) -> bool:
    """Whether RE2 runs the translation of parsed ``items`` (:func:`opsbrain.re2translate.re2_superset`) with
    ``re``'s answers on an ASCII text without a newline: no look-around (dropped there), atomic group or possessive
    repeat (read as plain ones), back-reference, widened bound (``{0,40}`` read as ``*``), ``\\S`` (RE2's takes
    ``\\v`` and ``\\x1c``-``\\x1f``, which Python's ``\\s`` holds), nor a non-ASCII character where case is folded
    (``re.I`` folds ``ı`` onto ``i``, RE2 does not)."""
    for op, av in items:
        name = str(op)
        if name in ("LITERAL", "NOT_LITERAL"):
            if fold and av > 127:
                return False
        elif name == "IN":
            for sop, sav in av:
                sname = str(sop)
                if sname == "CATEGORY" and str(sav) == "CATEGORY_NOT_SPACE" or sname not in (
                        "LITERAL", "RANGE", "NEGATE", "CATEGORY"):
                    return False
                if fold and (sname == "LITERAL" and sav > 127 or sname == "RANGE" and sav[1] > 127):
                    return False
        elif name == "BRANCH":
            if not all(_same_on_ascii(b, fold, maxrepeat) for b in av[1]):
                return False
        elif name == "SUBPATTERN":
            _g, add, remove, sub = av
            if (add | remove) & ~(re.I | re.S) or not _same_on_ascii(
                    sub, (fold or bool(add & re.I)) and not remove & re.I, maxrepeat):
                return False
        elif name in ("MAX_REPEAT", "MIN_REPEAT"):
            lo, hi, sub = av
            if WIDEN_FROM <= hi < maxrepeat or not _same_on_ascii(sub, fold, maxrepeat):
                return False
        elif name != "ANY" and not (name == "AT" and str(av) in _EXACT_AT):
            return False
    return True


def exact_re2(rx: re.Pattern[str]) -> Any:
    """``rx`` as RE2 runs it with ``re``'s match / no-match answer on every ASCII text without a newline (the
    parsers' lines): the line screen's translation (``\\s`` spelled as Python reads it, ``$`` also before a newline)
    of a regex that holds nothing it reads otherwise (:func:`_same_on_ascii`); None for any other regex, or without
    RE2. ``\\b``, ``\\w`` and ``\\d`` are ASCII in RE2, as Python's are on ASCII text (session 43)."""
    if _re2 is None or rx.flags & ~(re.I | re.U):
        return None
    from re import _constants, _parser  # type: ignore[attr-defined]

    try:
        tree = _parser.parse(rx.pattern, rx.flags)
    except re.error:
        return None
    if not _same_on_ascii(tree, bool(rx.flags & re.I), int(_constants.MAXREPEAT)):
        return None
    text = re2_superset(rx)
    if text is None or not _re2_reads(text):
        return None
    opts = _re2.Options()
    opts.log_errors = False
    return _re2.compile(text, opts)


__all__ = ["exact_re2", "fast_lines_with", "fast_search"]
