"""A job's console as the multi-rank analysis reads it where the job left no plog: torch_npu's error head (the
process, its device and global rank) and the error manager's EI0002 (the rank a process waited on)."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from opsbrain.lazyre import lazy_compile

RE_PTA_ERROR = lazy_compile(r"^\[ERROR\] (\d{4})-(\d\d)-(\d\d)-(\d\d):(\d\d):(\d\d)(?:\.\d+)? \(PID:\s*(\d+), "
                          r"Device:\s*(-?\d{1,10}), RankID:\s*(-?\d{1,10})\)")
"""torch_npu's error head on a job's console (``[ERROR] 2025-06-25-11:01:22 (PID:13075, Device:0, RankID:0) ERR00100
PTA call acl api failed``; torch_npu's ERR error codes, formats.md): the process, its device and its global rank."""
RE_EI_NOTIFY = lazy_compile(r"^EI0002: \[PID: (\d+)\] (\d{4})-(\d\d)-(\d\d)-(\d\d):(\d\d):(\d\d)\.(\d{3})\.(\d{3}) "
                          r".*?remote rank:\s*\[(\d{1,10})\]")
"""The error manager's EI0002 on a console (``EI0002: [PID: 13075] 2025-06-25-11:01:22.586.187 The wait execution of
the Notify register times out. Reason: ... from remote rank: [2]``, CANN error-code reference EI0002): the process
waited on that rank."""
CONSOLE_GROUP = "console (torch_npu RankID)"
"""The communicator a console's ranks are placed in: torch_npu prints the global rank, and EI0002's remote rank is
read in the same numbering (the default world group; a sub-communicator's rank would be its own numbering)."""


class ConsoleLine(NamedTuple):
    """One console line the analysis reads: the process, the time (epoch seconds, naive local), and either its
    device and rank (an error head) or the rank it waited on (EI0002)."""

    pid: str
    t: float
    device: int | None = None
    rank: int | None = None
    remote_rank: int | None = None


def console_line(line: str) -> ConsoleLine | None:
    """``line`` read as :data:`RE_PTA_ERROR` or :data:`RE_EI_NOTIFY`, else None."""
    if m := RE_PTA_ERROR.match(line):
        g = m.groups()
        t = _epoch(g[:6])
        if t is None:
            return None
        dev, rank = int(g[7]), int(g[8])
        return ConsoleLine(g[6], t, dev if dev >= 0 else None, rank if rank >= 0 else None)
    if m := RE_EI_NOTIFY.match(line):
        g = m.groups()
        t = _epoch(g[1:7])
        if t is None:
            return None
        return ConsoleLine(g[0], t + int(g[7]) / 1e3 + int(g[8]) / 1e6, remote_rank=int(g[9]))
    return None


def _epoch(parts: tuple[str, ...]) -> float | None:
    try:
        y, mo, d, h, mi, s = (int(x) for x in parts)
        return datetime(y, mo, d, h, mi, s).timestamp()
    except ValueError:
        return None
