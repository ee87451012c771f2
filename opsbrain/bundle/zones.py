"""Time zones of a bundle's stamps. Most Ascend logs (plog, slog, hwlog, syslog, ``Datetime:`` of npu-smi /
ascend-dmi style outputs) write no zone: they are read as the collection's local time, as written. A file whose
stamps write one (``2025-03-01T02:03:20Z``, ``... 10:03:20+08:00``, ``Datetime: 2025-03-01 10:00:00 +0800``) is
noted; where a ``Datetime:`` line states the collection's own zone, a file written in another zone is moved onto it,
and where none does, a bundle that mixes zoned and unzoned files says so instead of ordering them silently."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

PROBE_LINES = 20
"""Lines at a file's start searched for its first time stamp and the zone after it."""
_STAMP = re.compile(r"(?:\d{4}[-/]\d\d[-/]\d\d[ T-]\d\d:\d\d:\d\d|[A-Z][a-z]{2}\s+\d{1,2}(?: \d{4})? \d\d:\d\d:\d\d"
                    r"(?: \d{4})?)(?:[.,]\d{1,9}(?:\.\d{3})?)?")
"""A line's date-time in the layouts the bundle reads (ISO, slog's ``2025-03-01-10:00:00.000.000``, hwlog, syslog,
ctime, LCNE's ``Jul 31 2025 18:36:19``); the zone, where one is written, follows it."""
_ZONE = re.compile(r"\s?(Z|UTC|GMT|[+-](?:0\d|1[0-4]):?[0-5]\d)(?![\w:])")
_DATETIME = re.compile(r"^\s*Datetime:\s*")


def zone_of(line: str) -> tuple[int | None, bool] | None:
    """(UTC offset in minutes the line's first date-time writes after it, None for none; whether the line is a
    ``Datetime:`` line), or None when the line's head holds no date-time."""
    m = _STAMP.search(line[:96])
    if m is None:
        return None
    z = _ZONE.match(line, m.end())
    if z is None:
        return None, bool(_DATETIME.match(line))
    v = z.group(1)
    off = 0 if v in ("Z", "UTC", "GMT") else (1 if v[0] == "+" else -1) * (int(v[1:3]) * 60 + int(v[-2:]))
    return off, bool(_DATETIME.match(line))


def file_zone(lines: Iterable[str]) -> tuple[int | None, bool] | None:
    """:func:`zone_of` of a file's first line that holds a date-time (within :data:`PROBE_LINES`)."""
    for k, ln in enumerate(lines):
        if k >= PROBE_LINES:
            break
        if (z := zone_of(ln)) is not None:
            return z
    return None


def _hhmm(off: int) -> str:
    return f"{'+' if off >= 0 else '-'}{abs(off) // 60:02d}:{abs(off) % 60:02d}"


def plan(zones: dict[str, tuple[int | None, bool]], stamped: set[str]) -> tuple[dict[str, int], dict[str, Any],
                                                                              list[str]]:
    """From each file's zone (:func:`file_zone`) and the files whose lines were dated: the shift in minutes per file
    to put it on the collection's local time, the report's ``time_zone`` and the notes for ``limits``."""
    stated = {off for off, dt in zones.values() if dt and off is not None}
    zoned = {rel: off for rel, (off, _dt) in zones.items() if off is not None and rel in stamped}
    unzoned = sorted(r for r in stamped if zones.get(r, (None, False))[0] is None)
    local = next(iter(stated)) if len(stated) == 1 else None
    report: dict[str, Any] = {
        "assumed": "times without a zone are the collection's local time, read as written",
        "stated": _hhmm(local) if local is not None else None,
        "zoned_files": {r: _hhmm(o) for r, o in sorted(zoned.items())[:20]},
        "datetime_files": sum(1 for _o, dt in zones.values() if dt)}
    shift: dict[str, int] = {}
    notes: list[str] = []
    if local is not None:
        shift = {r: local - o for r, o in zoned.items() if o != local}
        if shift:
            notes.append(f"{len(shift)} file(s) write times in another zone than the collection's ({_hhmm(local)}, "
                         f"its Datetime: line): moved onto it (first: {min(shift)})")
    elif zoned and unzoned:
        offs = ", ".join(sorted({_hhmm(o) for o in zoned.values()}))
        notes.append(f"{len(zoned)} file(s) write times with a zone ({offs}; first: {min(zoned)}) and {len(unzoned)} "
                     f"without one (first: {unzoned[0]}), read as the collection's local time, whose zone no file "
                     "states: events across them are ordered as written and may be off by the zones' difference")
    elif len(set(zoned.values())) > 1:
        base = max(set(zoned.values()), key=list(zoned.values()).count)
        shift = {r: base - o for r, o in zoned.items() if o != base}
        notes.append(f"{len(shift)} file(s) write times in another zone than the others ({_hhmm(base)}): moved "
                     f"onto it (first: {min(shift)})")
    report["moved_files"] = {r: m for r, m in sorted(shift.items())[:20]}
    return shift, report, notes
