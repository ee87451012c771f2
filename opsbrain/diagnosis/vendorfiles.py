"""Each mapped vendor entry's lines in every file, for ``diagnose --logs``' root cluster (split out of
:mod:`opsbrain.diagnosis.oneclick` in session 45)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from opsbrain.ingest import Signal


class VendorFiles:
    """Each mapped vendor entry's first matching line in every file, beside the one ``vendor:`` signal per entry
    the whole-input verdict weighs (its first line in reading order). The root cluster votes on the root devices'
    own lines: the entry counts there where it matched one of them, whichever file was read first (before, only the
    first line read carried it, so ``--logs`` and ``--bundle``, which order files differently, weighed the same
    files differently)."""

    def __init__(self) -> None:
        self._by_entry: dict[Any, dict[str | None, Signal]] = {}
        self._entry_of: dict[int, Any] = {}  # id(first signal) -> its entry key

    def add(self, key: Any, s: Signal, first: bool = False) -> None:
        self._by_entry.setdefault(key, {}).setdefault(s.file, s)
        if first:
            self._entry_of[id(s)] = key

    def moved(self, later: Callable[[Signal], Signal]) -> None:
        """Every signal replaced by ``later(signal)`` (the same call gives the same object for a signal seen twice)."""
        firsts = {id(later(s)): key for by_file in self._by_entry.values() for s in by_file.values()
                  if (key := self._entry_of.get(id(s))) is not None}
        self._by_entry = {k: {f: later(s) for f, s in by_file.items()} for k, by_file in self._by_entry.items()}
        self._entry_of = firsts

    def admitted(self, counted: list[Signal]) -> list[Signal]:
        """Every file's line of the entries whose first signal takes part (``counted``, from :func:`vendor_votes`)."""
        out: list[Signal] = []
        for s in counted:
            key = self._entry_of.get(id(s))
            out += list(self._by_entry.get(key, {}).values()) if key is not None else [s]
        return out
