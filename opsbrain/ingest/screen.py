"""The line screen of the parsers: one multi-pattern scan of a line rules out most of their regexes.

Every regex a parser (or :mod:`opsbrain.ingest.where`) runs on a line is made with :func:`screened`. Before the
parsers see a line, :func:`opsbrain.ingest.parsers.parse_line` scans it once (:class:`opsbrain.multiscan.Screen`)
and records which regexes can match it; a ruled-out regex then answers "no match" without running. Whether a
regex can match is a property of the text alone, so the record is keyed by the very string object scanned: any
other text (a part of the line, another thread's line) runs the regex as usual. On a line the screen cannot tell
about (not ASCII, or no RE2), every regex runs: the answers are ``re``'s in every case.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from opsbrain.multiscan import Screen

_REGISTRY: list[Screened] = []
_LINE: tuple[str | None, frozenset[int], int] = (None, frozenset(), 0)


class Screened:
    """A compiled regex with ``re.Pattern``'s methods, skipped on a line the screen rules out."""

    __slots__ = ("rx", "pattern", "flags", "id")

    def __init__(self, rx: re.Pattern[str]) -> None:
        self.rx = rx
        self.pattern = rx.pattern
        self.flags = rx.flags
        self.id = len(_REGISTRY)
        _REGISTRY.append(self)

    def _out(self, text: str) -> bool:
        line, may, n = _LINE
        return text is line and self.id < n and self.id not in may

    def search(self, text: str, *args: Any) -> re.Match[str] | None:
        return None if self._out(text) else self.rx.search(text, *args)

    def match(self, text: str, *args: Any) -> re.Match[str] | None:
        return None if self._out(text) else self.rx.match(text, *args)

    def fullmatch(self, text: str, *args: Any) -> re.Match[str] | None:
        return None if self._out(text) else self.rx.fullmatch(text, *args)

    def findall(self, text: str, *args: Any) -> list[Any]:
        return [] if self._out(text) else self.rx.findall(text, *args)

    def finditer(self, text: str, *args: Any) -> Iterator[re.Match[str]]:
        return iter(()) if self._out(text) else self.rx.finditer(text, *args)

    def __getattr__(self, name: str) -> Any:  # sub, split, groups ...: the regex itself
        return getattr(self.rx, name)

    def __repr__(self) -> str:
        return f"screened({self.rx!r})"


def screened(pattern: str, flags: int = 0) -> Screened:
    """``re.compile(pattern, flags)``, registered with the line screen."""
    return Screened(re.compile(pattern, flags))


def build(extra: list[str]) -> tuple[Screen, int]:
    """The screen of every regex registered so far (regexes registered later always run), with ``extra`` whole
    patterns (RE2 syntax) reported in the same scan; and how many regexes it covers."""
    regs = list(_REGISTRY)
    return Screen([r.rx for r in regs], extra=extra), len(regs)


def set_line(text: str, may: frozenset[int], covered: int) -> None:
    """Record which screened regexes can match ``text`` (the first ``covered`` are known to the screen)."""
    global _LINE
    _LINE = (text, may, covered)


__all__ = ["Screened", "build", "screened", "set_line"]
