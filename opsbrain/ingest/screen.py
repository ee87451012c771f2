"""The line screen of the parsers: one multi-pattern scan of a line rules out most of their regexes.

Every regex a parser (or :mod:`opsbrain.ingest.where`) runs on a line is made with :func:`screened`. Before the
parsers see a line, :func:`opsbrain.ingest.parsers.parse_line` scans it once (:class:`opsbrain.multiscan.Screen`)
and records which regexes can match it; a ruled-out regex then answers "no match" without running. Whether a
regex can match is a property of the text alone, so the record is keyed by the very string object scanned: any
other text (a part of the line, another thread's line) runs the regex as usual. A non-ASCII line is screened too
(session 39: its ASCII stand-in copies and the line itself, :mod:`opsbrain.standin`); on a line the screen cannot
tell about (no RE2, or a character ``re.I`` folds onto ASCII), every regex runs: the answers are ``re``'s in every
case.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from opsbrain.fastre import exact_re2
from opsbrain.multiscan import Screen

_REGISTRY: list[Screened] = []
_LINE: tuple[str | None, frozenset[int], int] = (None, frozenset(), 0)


class Screened:
    """A regex with ``re.Pattern``'s methods, skipped on a line the screen rules out. It is compiled on first use:
    a short diagnosis runs few of the parsers' regexes, and compiling all of them cost a third of its start-up."""

    __slots__ = ("_rx", "pattern", "_flags", "id", "key", "context", "_re2")

    def __init__(self, pattern: str, flags: int = 0, context: bool = False) -> None:
        self._rx: re.Pattern[str] | None = None
        self.pattern = pattern
        self._flags = flags
        self.context = context  # only qualifies a signal another regex finds: a match alone makes no signal
        self.key = (pattern, flags)  # what the compiled regex is made of (the screen plan's cache key)
        self.id = len(_REGISTRY)
        self._re2: Any = None  # RE2's exact reading on ASCII lines (False: none), once looked up (:meth:`found`)
        _REGISTRY.append(self)

    @property
    def rx(self) -> re.Pattern[str]:
        if self._rx is None:
            self._rx = re.compile(self.pattern, self._flags)
        return self._rx

    @property
    def flags(self) -> int:
        return self.rx.flags

    def may(self, text: str) -> bool:
        """False when the line screen rules the regex out on ``text`` (the line it scanned)."""
        line, may, n = _LINE
        return not (text is line and self.id < n and self.id not in may)

    # each method inlines the screen test (a call less per regex: the parsers run thousands a second)
    def search(self, text: str, *args: Any) -> re.Match[str] | None:
        line, may, n = _LINE
        if text is line and self.id < n and self.id not in may:
            return None
        return (self._rx or self.rx).search(text, *args)

    def found(self, text: str) -> bool:
        """Whether the regex matches somewhere in ``text`` (``search``'s answer as a truth value), by RE2 on an ASCII
        text without a newline when RE2 gives ``re``'s answer there (:func:`opsbrain.fastre.exact_re2`): linear,
        where ``re`` tries each start of a line and each start may read to the line's end (``version.*mismatch|
        unsupported \\w+ version`` on ``version `` * 500 + ``unsupported 0 version``: 0.26 s at 4 KB, session 43).
        For a table of (regex, kind) rows whose match is only tested, never read."""
        line, may, n = _LINE
        if text is line and self.id < n and self.id not in may:
            return False
        if self._re2 is None:
            self._re2 = exact_re2(self.rx) or False
        if self._re2 and text.isascii() and "\n" not in text:
            return self._re2.search(text) is not None
        return (self._rx or self.rx).search(text) is not None

    def match(self, text: str, *args: Any) -> re.Match[str] | None:
        line, may, n = _LINE
        if text is line and self.id < n and self.id not in may:
            return None
        return (self._rx or self.rx).match(text, *args)

    def fullmatch(self, text: str, *args: Any) -> re.Match[str] | None:
        line, may, n = _LINE
        if text is line and self.id < n and self.id not in may:
            return None
        return (self._rx or self.rx).fullmatch(text, *args)

    def findall(self, text: str, *args: Any) -> list[Any]:
        line, may, n = _LINE
        if text is line and self.id < n and self.id not in may:
            return []
        return (self._rx or self.rx).findall(text, *args)

    def finditer(self, text: str, *args: Any) -> Iterator[re.Match[str]]:
        line, may, n = _LINE
        if text is line and self.id < n and self.id not in may:
            return iter(())
        return (self._rx or self.rx).finditer(text, *args)

    def __getattr__(self, name: str) -> Any:  # sub, split, groups ...: the regex itself
        return getattr(self.rx, name)

    def __repr__(self) -> str:
        return f"screened({self.rx!r})"


class Group:
    """Several screened regexes: :meth:`may` is False when the line screen rules out every one of them (then a
    parser whose every signal needs one of them to match has nothing to find)."""

    __slots__ = ("ids", "top", "regexes")

    def __init__(self, regexes: list[Screened]) -> None:
        self.regexes = tuple(regexes)
        self.ids = frozenset(r.id for r in regexes)
        self.top = max(self.ids, default=-1)

    def may(self, text: str) -> bool:
        line, may, n = _LINE
        return not (text is line and self.top < n and self.ids.isdisjoint(may))


def group_of(namespace: dict[str, Any]) -> Group:
    """The group of every screened regex a module defines (also inside its tables of (regex, kind, ...) rows)."""
    found: list[Screened] = []
    for v in namespace.values():
        if isinstance(v, Screened):
            found.append(v)
        elif isinstance(v, tuple):
            found.extend(x for row in v if isinstance(row, tuple) for x in row if isinstance(x, Screened))
    return Group(found)


def screened(pattern: str, flags: int = 0, context: bool = False) -> Screened:
    """``re.compile(pattern, flags)`` (on first use), registered with the line screen. ``context``: the regex only
    qualifies what the parser's other regexes find (a match of it alone gives no signal), so a line where nothing
    else of the parsers can match needs no parser (:func:`opsbrain.ingest.parsers.parse_line`)."""
    return Screened(pattern, flags, context)


def build(extra: list[str]) -> tuple[Screen, int]:
    """The screen of every regex registered so far (regexes registered later always run), with ``extra`` whole
    patterns (RE2 syntax) reported in the same scan; and how many regexes it covers."""
    from opsbrain.kb.compiled import screen_memo

    regs = list(_REGISTRY)
    return Screen(regs, extra=extra, memo=screen_memo), len(regs)  # type: ignore[arg-type]


def set_line(text: str, may: frozenset[int], covered: int) -> None:
    """Record which screened regexes can match ``text`` (the first ``covered`` are known to the screen)."""
    global _LINE
    _LINE = (text, may, covered)


__all__ = ["Group", "Screened", "build", "group_of", "screened", "set_line"]
