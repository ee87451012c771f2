"""How :class:`opsbrain.ingest.ranks.RankCollector` is fed a file's lines (session 43), without the per-line loop
(:meth:`RankCollector._feed_each`) where most of its work is known to be the same or to be nothing.

- A process's plog (its name places the process: :data:`~opsbrain.ingest.rankrecords.RE_PLOG_FILE`): every line
  belongs to the process of its name, so the process record is looked up once, its first and last times are kept in
  two local variables (written to the record before any line is read further, and at the end: what
  :meth:`RankCollector._identity` and ``_error`` see is what the per-line loop gave them), and the words that make an
  INFO line worth reading (:data:`~opsbrain.ingest.rankrecords.IDENTITY_WORDS`) are looked for with ``in``, not a
  regex search (a 100,000-line bundle's 40,000 plog lines took ~4.7 us each in the per-line loop, ~1.5 of them in
  that search). Which lines count, their times and what is read from them are the per-line loop's.
- Any other file, a block of :data:`GATE_LINES` lines at a time: the per-line loop does nothing with a line that
  holds none of :data:`GATE_WORDS` while the file has no open ``[PID: N]`` block (``_block_pid``: set and cleared
  only by a line the loop reads), so such a block is skipped whole after one look for the words in it (a Chinese
  console's 90,000 lines: ~60 ms line by line); any other block goes through the per-line loop.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from itertools import islice

from opsbrain.ingest.rankerrors import RankErrorReading
from opsbrain.ingest.rankrecords import IDENTITY_WORDS, RE_PLOG_LINE, LineRef, RankProcess

_A, _B, _C, _D, _E, _F = IDENTITY_WORDS

GATE_WORDS = ("(", "PID", "chipId")
"""What a line the per-line loop does something with, in a file its name does not place, holds: ``PID`` or
``chipId`` (the runtime's chip id, ``_chip_line``), or ``(``: a plog line's ``HCCL(pid,...)`` in its first 40
characters; what the loop reads of a line starting ``[ERROR] `` (torch_npu's head, ``(PID:``) or ``EI0002: `` (``[PID:
``, :mod:`opsbrain.ingest.rankconsole`) and of a line with ``ill`` and ``process `` (the OOM killer's ``Killed
process N (``, :data:`~opsbrain.ingest.rankrecords.RE_OOM_KILL`) needs one of them too."""
GATE_LINES = 4096
"""Lines a block of :meth:`RankFeeding._feed_gated`."""


class RankFeeding(RankErrorReading):
    """:meth:`_feed_plog` and :meth:`_feed_gated`, mixed into the collector, which owns the state."""

    procs: dict[tuple[str, str], RankProcess]
    _seen: set[int]
    _seconds: dict[tuple[str, ...], float]
    _block_pid: dict[str, str]

    def _identity(self, p: RankProcess, body: str, ref: LineRef) -> None:  # (the collector's)
        raise NotImplementedError

    def _feed_each(self, lines: Iterable[str], file: str | None, name: str, worker: str, fm: re.Match[str] | None,
                   strip: bool, origin: str | None, line_no: int, numbers: Iterable[int] | None) -> None:
        raise NotImplementedError  # (the collector's)

    def _read_further(self, proc: RankProcess, key: tuple[str, str], line: str, level: str, module: str, body: str,
                      t: float, ref: LineRef) -> None:
        """A plog line of ``proc`` that is an error or holds one of :data:`IDENTITY_WORDS`, read further (both loops):
        lines differing only in time stamp are one line (ascend-fd's rule: the text after the second '['; a hash, not
        the text, and only of the lines read further: a CANN device log of 300,000 INFO lines kept ~20 MB of
        hashes)."""
        dup = hash((*key, line.split("[", 2)[-1]))
        if dup in self._seen and "Net2PeerLink" not in line and "opData information is" not in line:
            return  # an AI CPU exception's opData line repeats the last one's: it closes its base line
        self._seen.add(dup)
        self._identity(proc, body, ref)
        if level == "ERROR":
            if proc.first_error_t is None or t < proc.first_error_t:
                proc.first_error_t, proc.first_error = t, ref
            if module == "HCCL":
                self._error(proc, key, body, t, ref)

    def _feed_gated(self, lines: Iterable[str], file: str | None, name: str, w: str, strip: bool, line_no: int,
                    numbers: Iterable[int] | None) -> None:
        """The lines of ``name``, a file its name does not place, as :meth:`RankCollector._feed_each` reads them
        (``file``: as cited), a block at a time: a block without any of :data:`GATE_WORDS`, read while the file has no
        open ``[PID: N]`` block, is skipped (the per-line loop would do nothing with its lines)."""
        it = iter(lines)
        nums = iter(numbers) if numbers is not None else None
        while block := list(islice(it, GATE_LINES)):
            ns = list(islice(nums, len(block))) if nums is not None else None
            first, line_no = line_no, line_no + len(block)
            if name not in self._block_pid:
                joined = "\n".join(block)  # (a word holds no line end: found here if and only if in a line)
                if not any(x in joined for x in GATE_WORDS):
                    continue
            self._feed_each(block, file, name, w, None, strip, None, first, ns)

    def _feed_plog(self, lines: Iterable[str], file: str | None, name: str, w: str, pid: str, strip: bool,
                   line_no: int, numbers: Iterable[int] | None) -> None:
        """The lines of the plog ``name`` of process ``pid`` on worker ``w`` (``file``: as cited), as
        :meth:`RankCollector._feed` reads a file its name places, from ``line_no`` on (``numbers``: the lines'
        numbers, where not consecutive); ``strip``: their line ends taken off first."""
        match, seconds, procs = RE_PLOG_LINE.match, self._seconds, self.procs
        key = (w, pid)
        proc: RankProcess | None = None
        lo: float | None = None  # the process's first and last times so far (proc.first_t, proc.last_t)
        hi: float | None = None
        for n, raw in zip(numbers, lines, strict=True) if numbers is not None else enumerate(lines, line_no):
            line = raw.rstrip("\r\n") if strip else raw
            m = match(line) if line.startswith("[") and "(" in line[:40] else None
            if m is None:
                continue
            g = m.groups()
            second = g[3:9]
            base = seconds.get(second)
            if base is None and (base := second_base(seconds, second)) is None:
                continue
            t = base + int(g[9]) / 1e3 + int(g[10]) / 1e6
            if proc is None:
                proc = procs.get(key)
                if proc is None:
                    proc = procs[key] = RankProcess(w, pid)
                if name and name not in proc.files:
                    proc.files.append(name)
                lo, hi = proc.first_t, proc.last_t
            if lo is None or t < lo:  # (min and max keep the first of equal values: the same float)
                lo = t
            if hi is None or t > hi:
                hi = t
            level, body = g[0].upper(), g[11]
            if level != "ERROR" and not (_A in body or _B in body or _C in body or _D in body or _E in body
                                         or _F in body):
                continue  # neither an error nor a line _identity reads (most INFO lines of a plog): nothing more
            proc.first_t, proc.last_t = lo, hi
            self._read_further(proc, key, line, level, g[1], body, t, LineRef(file, n, line[:400]))
        if proc is not None:
            proc.first_t, proc.last_t = lo, hi


def second_base(seconds: dict[tuple[str, ...], float], second: tuple[str, ...]) -> float | None:
    """The epoch seconds (local time) of a plog stamp's second (year to second, as written), kept in ``seconds``;
    None when no such time (``ValueError``)."""
    try:
        y, mo, d, h, mi, sec = (int(x) for x in second)
        base = datetime(y, mo, d, h, mi, sec).timestamp()
    except ValueError:
        return None
    seconds[second] = base
    return base


__all__ = ["GATE_WORDS", "RankFeeding", "second_base"]
