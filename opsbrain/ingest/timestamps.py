"""Time stamps in the layouts Ascend hosts write, to seconds (naive, as logged).

plog ``2025-01-24-11:24:07.908.424``, ISO ``2024-05-01 10:00:00,123`` / ``T``, hwlog ``2024/01/10 03:29:09.354927``,
driver ``[2025-04-16-03:08:13.704312]``, ``dmesg -T`` ``[Sat Mar  1 10:03:20 2025]``, syslog ``Mar 15 03:40:50``
(no year: the reference year is used), klog ``E0111 03:29:15.700191`` (no year either). Under a zh_CN locale, rsyslog
and ``dmesg -T`` write the month as ``3月`` (``3月 01 09:06:00``, ``[六 3月  1 10:03:20 2025]``): read the same."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable
from datetime import datetime

from opsbrain.lazyre import lazy_compile

_MON = {m: i for i, m in enumerate(["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
                                     "Dec"], 1)}
_FORMATS = (
    lazy_compile(r"(\d{4})-(\d\d)-(\d\d)-(\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?"),
    lazy_compile(r"(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,6}))?"),
    lazy_compile(r"(\d{4})/(\d\d)/(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?"),
)
MONTH = r"(?:[A-Z][a-z]{2}|1[0-2]月|0?[1-9]月)"
"""A month as syslog and ``dmesg -T`` write it: English's abbreviation, or the zh_CN locale's ``3月`` (a pattern
without groups)."""
_CTIME = lazy_compile(r"\[?(?:\w{3}|[一二三四五六日]) (" + MONTH + r")\s+(\d+) (\d\d):(\d\d):(\d\d) (\d{4})\]?")
LCNE_STAMP = re.compile(r"^([A-Z][a-z]{2})\s+(\d{1,2}) (\d{4}) (\d\d):(\d\d):(\d\d)")
"""The LCNE switch log's ``Jul 31 2025 18:36:19+08:00`` (the offset is dropped: naive, as logged; the ascend-fd
fixture st_module_testcase/kg_parse/lcne_log, docs/formats.md): the bundle reader's rule
(:mod:`opsbrain.bundle.stamps`) and ``--logs``' (session 45, bundle45b: before, ``--logs`` read no time from a
switch's line, which took the time of the line read before it)."""
_SYSLOG = lazy_compile(r"^(?:<\d+>)?(" + MONTH + r")\s+(\d+) (\d\d):(\d\d):(\d\d)\b")


def month_number(token: str) -> int:
    """1-12 for ``Mar`` or ``3月``; KeyError for any other token."""
    if token.endswith("月") and token[:-1].isdigit() and 1 <= int(token[:-1]) <= 12:
        return int(token[:-1])
    return _MON[token]


def _month(token: str) -> int | None:
    try:
        return month_number(token)
    except KeyError:
        return None


def parse_time(line: str, year: int = 2000) -> float | None:
    """Seconds since the epoch of the first time stamp in ``line`` (naive), or None."""
    return parse_stamp(line, year)[0]


def _epoch(year: int, month: int, day: str, hour: str, minute: str, second: str) -> float | None:
    """Epoch seconds of a stamp with a month name (local time, as logged), or None for a date that does not exist."""
    try:
        return datetime(year, month, int(day), int(hour), int(minute), int(second)).timestamp()
    except ValueError:
        return None


def parse_stamp(line: str, year: int = 2000) -> tuple[float | None, bool]:
    """:func:`parse_time` and whether the stamp wrote its year (syslog and klog stamps do not: ``year`` is used)."""
    head = line[:160]
    for rx in _FORMATS:
        if m := rx.search(head):
            y, mo, d, h, mi, s, frac = m.groups()
            try:
                return datetime(int(y), int(mo), int(d), int(h), int(mi), int(s)).timestamp() + (
                    int(frac) / 10 ** len(frac) if frac else 0.0), True
            except ValueError:
                continue
    if (m := _CTIME.search(head)) and (mon := _month(m.group(1))):
        _, d, h, mi, s, y = m.groups()
        return (t := _epoch(int(y), mon, d, h, mi, s)), t is not None
    if (m := LCNE_STAMP.match(head)) and (mon := _month(m.group(1))):
        _, d, y, h, mi, s = m.groups()
        return (t := _epoch(int(y), mon, d, h, mi, s)), t is not None
    if (m := _SYSLOG.match(head)) and (mon := _month(m.group(1))):
        _, d, h, mi, s = m.groups()
        return _epoch(year, mon, d, h, mi, s), False
    return None, False


def dated_lines(lines: Iterable[str]) -> list[tuple[int, float]]:
    """(line number from 1, epoch seconds) of each line whose stamp writes its year (:func:`parse_stamp`, anywhere
    in the line's head: glog's ``[E706 23:45:07.79 ...] ... [PID: 1] 2026-07-06-23:45:07.563`` writes one after its
    own year-less head), in line order: what a year-less stamp of the same input takes its year from
    (:func:`nearest_dated`)."""
    out = []
    for n, line in enumerate(lines, 1):
        ts, dated = parse_stamp(line)
        if ts is not None and dated:
            out.append((n, ts))
    return out


def nearest_dated(dated: list[tuple[int, float]], n: int) -> tuple[int, float] | None:
    """The entry of :func:`dated_lines` nearest line ``n`` (the earlier of two as near), or None when there is
    none: a year-less stamp is in the year of the nearest stamp of its own input that writes one."""
    if not dated:
        return None
    i = bisect_left(dated, (n, float("-inf")))
    near = [dated[k] for k in (i - 1, i) if 0 <= k < len(dated)]
    return min(near, key=lambda d: (abs(d[0] - n), d[0]))
