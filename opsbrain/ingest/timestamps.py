"""Time stamps in the layouts Ascend hosts write, to seconds (naive, as logged).

plog ``2025-01-24-11:24:07.908.424``, ISO ``2024-05-01 10:00:00,123`` / ``T``, hwlog ``2024/01/10 03:29:09.354927``,
driver ``[2025-04-16-03:08:13.704312]``, ``dmesg -T`` ``[Sat Mar  1 10:03:20 2025]``, syslog ``Mar 15 03:40:50``
(no year: the reference year is used), klog ``E0111 03:29:15.700191`` (no year either)."""

from __future__ import annotations

import re
from datetime import datetime

_MON = {m: i for i, m in enumerate(["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
                                     "Dec"], 1)}
_FORMATS = (
    re.compile(r"(\d{4})-(\d\d)-(\d\d)-(\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?"),
    re.compile(r"(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:[.,](\d{1,6}))?"),
    re.compile(r"(\d{4})/(\d\d)/(\d\d) (\d\d):(\d\d):(\d\d)(?:\.(\d{1,6}))?"),
)
_CTIME = re.compile(r"\[?\w{3} (\w{3})\s+(\d+) (\d\d):(\d\d):(\d\d) (\d{4})\]?")
_SYSLOG = re.compile(r"^(?:<\d+>)?(\w{3})\s+(\d+) (\d\d):(\d\d):(\d\d)\b")


def parse_time(line: str, year: int = 2000) -> float | None:
    """Seconds since the epoch of the first time stamp in ``line`` (naive), or None."""
    return parse_stamp(line, year)[0]


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
    if (m := _CTIME.search(head)) and m.group(1) in _MON:
        mon, d, h, mi, s, y = m.groups()
        try:
            return datetime(int(y), _MON[mon], int(d), int(h), int(mi), int(s)).timestamp(), True
        except ValueError:
            return None, False
    if (m := _SYSLOG.match(head)) and m.group(1) in _MON:
        mon, d, h, mi, s = m.groups()
        try:
            return datetime(year, _MON[mon], int(d), int(h), int(mi), int(s)).timestamp(), False
        except ValueError:
            return None, False
    return None, False
