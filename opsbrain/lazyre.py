"""Module-level regexes compiled on first use (session 41).

A short diagnosis (``diagnose --logs -`` on a pasted excerpt) imports ~300 module-level regexes and runs ~70 of them:
compiling the others cost ~50 ms of its ~0.35 s. :func:`lazy_compile` is ``re.compile`` deferred to the first
use of a method: the regex's methods are then kept on the object (slots), so a later ``rx.search`` costs what it
costs on the compiled regex. ``pattern`` is there from the start (regexes built from others' patterns stay lazy),
and ``key`` is what the regex is made of (the line screens' plan caches key on it without compiling,
:func:`opsbrain.multiscan.plan_key`). Anything else (``flags``, ``groups``, ``groupindex``) compiles and asks the
regex. Not a ``re.Pattern``: it is never handed to ``re.sub(rx, ...)`` and the like, which want the real one
(:attr:`LazyPattern.rx`).
"""

from __future__ import annotations

import re
from typing import Any, AnyStr, cast

_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "sub", "subn", "split", "scanner")


class LazyPattern:
    """``re.compile(pattern, flags)`` on first use; then its methods, as the compiled regex's own."""

    __slots__ = ("pattern", "key", "_rx", *_METHODS)

    def __init__(self, pattern: str | bytes, flags: int = 0) -> None:
        self.pattern = pattern
        self.key = (pattern, flags)
        self._rx: Any

    @property
    def rx(self) -> Any:
        """The compiled regex."""
        try:
            return self._rx
        except AttributeError:
            rx = re.compile(self.pattern, self.key[1])
            self._rx = rx
            for name in _METHODS:
                setattr(self, name, getattr(rx, name))
            return rx

    def __getattr__(self, name: str) -> Any:  # an unset method slot, flags, groups, groupindex
        if name.startswith("__") or name in ("_rx", "rx"):
            raise AttributeError(name)
        return getattr(self.rx, name)

    def __repr__(self) -> str:
        return f"lazy({self.rx!r})"


def lazy_compile(pattern: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """``re.compile(pattern, flags)``, compiled on the first use of one of its methods (typed as the regex)."""
    return cast("re.Pattern[AnyStr]", LazyPattern(pattern, flags))


__all__ = ["LazyPattern", "lazy_compile"]
