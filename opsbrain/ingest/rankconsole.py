"""A job's console as the multi-rank analysis reads it where the job left no plog: torch_npu's error head (the
process, its device and global rank), the error manager's EI0002 (the rank a process waited on) and HCCL's
connect-timeout detection result under its EI0006 (the server and device a process waited on)."""

from __future__ import annotations

import re
from datetime import datetime
from typing import NamedTuple

from opsbrain.ingest.rankrecords import LineRef, RankError, RankProcess, connect_detect
from opsbrain.lazyre import lazy_compile

RE_PTA_ERROR = lazy_compile(r"^\[ERROR\] (\d{4})-(\d\d)-(\d\d)-(\d\d):(\d\d):(\d\d)(?:\.\d+)? \(PID:\s*(\d+), "
                          r"Device:\s*(-?\d{1,10}), RankID:\s*(-?\d{1,10})\)")
"""torch_npu's error head on a job's console (``[ERROR] 2025-06-25-11:01:22 (PID:13075, Device:0, RankID:0) ERR00100
PTA call acl api failed``; torch_npu's ERR error codes, formats.md): the process, its device and its global rank."""
RE_EI_NOTIFY = lazy_compile(r"^EI0002: \[PID: (\d+)\] (\d{4})-(\d\d)-(\d\d)-(\d\d):(\d\d):(\d\d)\.(\d{3})\.(\d{3}) "
                          r".*?remote rank:?\s*\[(\d{1,10})\]")
"""The error manager's EI0002 on a console (``EI0002: [PID: 13075] 2025-06-25-11:01:22.586.187 The wait execution of
the Notify register times out. Reason: ... from remote rank: [2]``, CANN error-code reference EI0002): the process
waited on that rank. The error code's template writes it without the colon (``... has not received the Notify record
from remote rank [%s]``, as :data:`opsbrain.ingest.rankrecords.RE_EI0002_REMOTE` reads it in a plog; probe59b: a
console of that form named no wait, and the root was the pod that printed it, not the rank it waited on)."""
RE_STAMP = lazy_compile(r"\b(\d{4})-(\d\d)-(\d\d)-(\d\d):(\d\d):(\d\d)\.(\d{3})\.(\d{3})\b")
"""The error manager's time stamp (``[PID: 7516] 2026-07-21-14:35:58.248.062 Communication_Error_Get_Socket(EI0006):
...``): when the block it heads was written."""
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
        t = _stamp(g[1:9])
        return None if t is None else ConsoleLine(g[0], t, remote_rank=int(g[9]))
    return None


def stamp_epoch(m: re.Match[str]) -> float | None:
    """:data:`RE_STAMP`'s match in epoch seconds (naive local), None for an impossible date."""
    return _stamp(m.groups())


def _stamp(parts: tuple[str, ...]) -> float | None:
    """The error manager's stamp, ``YYYY-MM-DD-HH:MM:SS.mmm.uuu`` as its eight numbers, in epoch seconds."""
    t = _epoch(parts[:6])
    return None if t is None else t + int(parts[6]) / 1e3 + int(parts[7]) / 1e6


def _epoch(parts: tuple[str, ...]) -> float | None:
    try:
        y, mo, d, h, mi, s = (int(x) for x in parts)
        return datetime(y, mo, d, h, mi, s).timestamp()
    except ValueError:
        return None


class ConsoleReading:
    """Reads a job's console lines into the collector's processes (mixed into
    :class:`opsbrain.ingest.ranks.RankCollector`, which owns the state)."""

    procs: dict[tuple[str, str], RankProcess]
    _block_pid: dict[str, str]
    _block_t: dict[str, float]

    def _console(self, line: str, w: str, name: str, file: str | None, n: int, origin: str | None) -> bool:
        """torch_npu's error head and EI0002 on a console (a rank's ``rank_N.log``, a pod's log): the process, its
        device and rank, and the rank it waited on, where the job left no plog (:mod:`opsbrain.ingest.rankconsole`).
        Whether the line was one."""
        got = console_line(line)
        if got is None:
            return False
        proc, ref = self._console_error(got.pid, got.t, line, w, name, file, n, origin)
        if got.remote_rank is None:  # torch_npu's error head: who the process is
            if got.device is not None and proc.logic_id is None:
                proc.logic_id = got.device
            if got.rank is not None:
                proc.ranks.setdefault(CONSOLE_GROUP, (got.rank, None))
            proc.identity = proc.identity or ref
            proc.errors.append(RankError("normal", got.t, ref))
        else:
            proc.errors.append(RankError("notify", got.t, ref, remote_rank=got.remote_rank, group=CONSOLE_GROUP))
        return True

    def _console_error(self, pid: str, t: float, line: str, w: str, name: str, file: str | None, n: int,
                       origin: str | None) -> tuple[RankProcess, LineRef]:
        """The console process ``pid`` (made on its first line) with an error line at ``t`` counted."""
        proc = self.procs.get((w, pid))
        if proc is None:
            proc = self.procs[(w, pid)] = RankProcess(w, pid)
        if name and name not in proc.files:
            proc.files.append(name)
        if origin:
            proc.cited.add((file, n))
        ref = LineRef(file, n, line[:400])
        if proc.first_error_t is None or t < proc.first_error_t:
            proc.first_error_t, proc.first_error = t, ref
        proc.first_t = t if proc.first_t is None else min(proc.first_t, t)
        proc.last_t = t if proc.last_t is None else max(proc.last_t, t)
        return proc, ref

    def _console_detect(self, line: str, w: str, name: str, file: str | None, n: int, origin: str | None) -> bool:
        """HCCL's connect-timeout detection result continuing an error manager's EI0006 block on a console
        (:data:`~opsbrain.ingest.rankrecords.RE_CONNECT_DETECT`, ``Communication_Error_Get_Socket(EI0006): ...
        Reason:`` then ``This node (server A, device ID 2) detects that srcRank (...) fails to connect to dstRank
        (server B, device ID 10). ...``): the block's process waited on that destination (a ``transport`` wait,
        as a plog's ``Transport init error`` names its remote). Whether the line was one (the block stays open for
        the next; a plog line is the plog reader's)."""
        body = line.lstrip()
        if not body.startswith("This node (") or (pid := self._block_pid.get(name)) is None:
            return False
        if (t := self._block_t.get(name)) is None or (dst := connect_detect(body)) is None:
            return True
        proc, ref = self._console_error(pid, t, line, w, name, file, n, origin)
        proc.errors.append(RankError("transport", t, ref, remote_ip=dst[0], remote_device=dst[1],
                                     detail="connect detect"))
        return True
