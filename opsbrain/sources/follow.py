"""Follow a directory of logs as ``tail -F`` would: lines appended to known files, new files, truncated or
replaced files (read again from the start). Every complete line goes through the ingestion layer
(:func:`opsbrain.ingest.parse_line`); a partial last line waits for its end.

Layout: ``DIR/<host>/...`` names the host of lines that do not name one (the device plugin and device-os logs
print only the device index); files directly in ``DIR`` have no host.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

from opsbrain.ingest import MAX_LINE, Signal, parse_line
from opsbrain.ingest.text import TextStats, log_files
from opsbrain.ingest.where import node_of

READ_BUDGET = 4 << 20
"""Bytes read from one file per poll (a file growing faster is caught up over the next polls)."""


@dataclass
class _Tail:
    inode: int
    offset: int
    rest: bytes = b""
    line_no: int = 0


class LogFollower:
    """``poll()`` returns the signals of the lines written since the last poll."""

    def __init__(self, root: str | Path, from_start: bool = False) -> None:
        self.root = Path(root)
        self.stats = TextStats()
        self._tails: dict[str, _Tail] = {}
        self.lines = 0
        if not from_start:  # files already there are followed from their end, as tail -F does
            for path, rel in log_files(self.root, TextStats()):
                try:
                    st = path.stat()
                except OSError:
                    continue
                self._tails[rel] = _Tail(st.st_ino, st.st_size)

    def poll(self, now: float) -> list[Signal]:
        """Signals of the new complete lines, time ``now`` (arrival: watch groups by when lines are written)."""
        out: list[Signal] = []
        for path, rel in log_files(self.root, TextStats()):
            try:
                st = path.stat()
            except OSError:
                continue
            tail = self._tails.get(rel)
            if tail is None or tail.inode != st.st_ino or st.st_size < tail.offset:
                tail = self._tails[rel] = _Tail(st.st_ino, 0)
            if st.st_size == tail.offset:
                continue
            try:
                with path.open("rb") as fh:
                    fh.seek(tail.offset)
                    data = fh.read(min(READ_BUDGET, st.st_size - tail.offset))
            except OSError as exc:
                self.stats.not_read.append(f"{rel}: {exc.strerror or exc}")
                continue
            tail.offset += len(data)
            self.stats.bytes += len(data)
            parts = (tail.rest + data).split(b"\n")
            tail.rest = parts.pop()[: 4 * MAX_LINE]
            host = rel.split(os.sep, 1)[0] if os.sep in rel else None
            for raw in parts:
                tail.line_no += 1
                self.lines += 1
                line = raw.decode("utf-8", "replace").replace("\x00", "").rstrip("\r")
                for s in parse_line(line, now):
                    out.append(_placed(s, host, rel, tail.line_no))
        self.stats.lines = self.lines
        return out


def _placed(s: Signal, host: str | None, file: str, line_no: int) -> Signal:
    """The signal with its file and line, and the directory's host for a component that names no node."""
    comp, h = s.component, s.host
    if host and comp and "~" not in comp and node_of(comp) is None:
        comp = f"{host}/{comp}"
    if host and h is None:
        h = host
    return replace(s, component=comp, host=h, file=file, line_no=line_no)
