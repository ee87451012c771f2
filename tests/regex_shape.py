"""A structural test of super-linear backtracking in a regex (session 42): no timing, only the pattern's shape.

Python's ``re`` backtracks. Two long repeats (``*``, ``+``, ``{m,n}`` with n >= :data:`LONG`) that can read the
same character and are separated only by what may match empty (``\\s*(?:[:=])?\\s*``, ``\\s*\\[?\\s*``) split a run
of that character in O(n) ways, three in O(n^2) ways: on a line of a near-miss (``ret`` + 4,000 spaces) the search
tries them all. A long repeat inside another long repeat (``(\\w+ )*``) is exponential. A possessive repeat
(``\\s*+``) gives nothing back, so a repeat after it cannot split its run (session 43). :func:`shape_problems`
lists both, for the repeats it can read (single-character bodies; a repeat of anything else is only checked for
nesting).
"""

from __future__ import annotations

import importlib
import re
from typing import Any

P: Any = importlib.import_module("re._parser")
LONG = 16  # a repeat with a smaller upper bound costs at most that factor
_REPEATS = {P.MAX_REPEAT, P.MIN_REPEAT} | ({P.POSSESSIVE_REPEAT} if hasattr(P, "POSSESSIVE_REPEAT") else set())
_PROBE = [chr(c) for c in range(128)] + ["\u3000", "\uff1a", "\u7ec4", "\u00e9"]
_CATS = {"CATEGORY_DIGIT": str.isdigit, "CATEGORY_NOT_DIGIT": lambda c: not c.isdigit(),
         "CATEGORY_SPACE": lambda c: bool(re.match(r"\s", c)), "CATEGORY_NOT_SPACE": lambda c: not re.match(r"\s", c),
         "CATEGORY_WORD": lambda c: bool(re.match(r"\w", c)), "CATEGORY_NOT_WORD": lambda c: not re.match(r"\w", c)}


def _one_char(op: Any, arg: Any, c: str) -> bool | None:
    """Whether the single-character item matches ``c``; None when the item is not a single character."""
    if op == P.LITERAL:
        return ord(c) == arg
    if op == P.NOT_LITERAL:
        return ord(c) != arg
    if op == P.ANY:
        return c != "\n"
    if op == P.CATEGORY:
        return _CATS[str(arg)](c)
    if op == P.IN:
        hit, neg = False, False
        for sop, sarg in arg:
            if sop == P.NEGATE:
                neg = True
            elif sop == P.RANGE:
                hit |= sarg[0] <= ord(c) <= sarg[1]
            elif sop == P.LITERAL:
                hit |= ord(c) == sarg
            elif sop == P.CATEGORY:
                hit |= _CATS[str(sarg)](c)
        return hit != neg
    return None


def _charset(body: Any, fold: bool) -> frozenset[str] | None:
    items = list(body)
    if len(items) != 1:
        return None
    op, arg = items[0]
    if _one_char(op, arg, "a") is None:
        return None
    return frozenset(c for c in _PROBE if any(_one_char(op, arg, v) for v in ({c, c.lower(), c.upper()} if fold
                                                                               else {c})))


class _Info:
    def __init__(self, nullable: bool, heads: list[frozenset[str]], tails: list[frozenset[str]]) -> None:
        self.nullable, self.heads, self.tails = nullable, heads, tails


def _seq(items: Any, fold: bool, out: list[str], in_long: bool) -> _Info:
    heads: list[frozenset[str]] = []
    open_tails: list[frozenset[str]] = []
    nullable = True
    for op, arg in items:
        info = _item(op, arg, fold, out, in_long)
        for h in info.heads:
            if any(h & t for t in open_tails):
                out.append("adjacent repeats over the same characters with only optional items between")
        if nullable:
            heads += info.heads
        open_tails = open_tails + info.tails if info.nullable else list(info.tails)
        nullable = nullable and info.nullable
    return _Info(nullable, heads, open_tails)


def _item(op: Any, arg: Any, fold: bool, out: list[str], in_long: bool) -> _Info:
    if op in _REPEATS:
        lo, hi, body = arg
        long = hi >= LONG
        if long and in_long:
            out.append("a long repeat inside a long repeat")
        cs = _charset(body, fold) if long else None
        inner = _seq(body, fold, out, in_long or long)
        if cs is not None:  # a possessive repeat gives nothing back: a later repeat cannot split its run
            return _Info(lo == 0, [cs], [] if op not in (P.MAX_REPEAT, P.MIN_REPEAT) else [cs])
        return _Info(lo == 0 or inner.nullable, inner.heads, inner.tails)
    if op == P.SUBPATTERN:
        add, dele = arg[1], arg[2]
        sub_fold = (fold or bool(add & re.I)) and not dele & re.I
        return _seq(arg[-1], sub_fold, out, in_long)
    if op == P.BRANCH:
        infos = [_seq(b, fold, out, in_long) for b in arg[1]]
        return _Info(any(i.nullable for i in infos), [h for i in infos for h in i.heads],
                     [t for i in infos for t in i.tails])
    if op in (P.ASSERT, P.ASSERT_NOT):
        _seq(arg[1], fold, out, in_long)
        return _Info(True, [], [])
    if op in (P.AT,):
        return _Info(True, [], [])
    return _Info(False, [], [])


def shape_problems(pattern: str, flags: int = 0) -> list[str]:
    """What in ``pattern``'s shape can backtrack super-linearly on one line (empty: nothing found)."""
    out: list[str] = []
    tree = P.parse(pattern, flags)
    _seq(tree, bool(tree.state.flags & re.I), out, False)
    return sorted(set(out))
