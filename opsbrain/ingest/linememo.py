"""A memo of :func:`opsbrain.ingest.parsers.parse_line` for a live stream whose lines repeat but for their time stamp.

The twin's devices and programs print the same few lines again and again (a year-long replay: ~680,000 lines, most
of them a few shapes with another time or process id in their head), and parsing one costs ~0.2 ms. A line is looked
up by its shape (:func:`shape`: its text with every date-time stamp and a plog head's numbers replaced), its origin
and its level; a hit gives the signals parsed from the first line of that shape, each with the new line's time and
text. Only results that do not depend on the rest of the text are kept: a signal whose text is not the whole line
(the parser cut or rewrote it) is never reused, and a miss always parses the line itself. tests/test_linememo.py
checks, line by line over a 20-day replay, that the memo gives what parse_line gives."""

from __future__ import annotations

import re

from opsbrain.ingest.chipmap import ChipMap
from opsbrain.ingest.parsers import parse_line
from opsbrain.ingest.parsers.cann import RE_PLOG_HEAD
from opsbrain.ingest.signal import Signal
from opsbrain.lazyre import lazy_compile

STAMP = lazy_compile(r"\d{4}[-/]\d\d[-/]\d\d[- T]\d\d:\d\d:\d\d(?:[.:,]\d+)*")
"""A date and time as Ascend logs print them: the plog's ``2025-03-01-00:10:00.000.000``, ``2025-03-01 00:10:02.000``,
MindCluster's ``2025/03/01 00:10:00.950782``."""
_DIGITS = lazy_compile(r"\d+")
_HEAD_DEVICE = lazy_compile(r"(\[\s*(?:dev(?:ice)?|die|chip)[\s_]?(?:id)?[\s_:=]*\d+\s*\])|\d+", re.I)
"""A bracketed field of a plog head that names a device, die or chip (``[dms_fault.c:688][dev3]``), kept whole in a
shape; any other number of the head."""
MAX_ENTRIES = 50_000
"""reason: bounds the memo's memory (~20 MB at a few hundred bytes an entry); it is emptied when full."""


def shape(text: str) -> str:
    """The memo's key of a line: its date-time stamps replaced, and the numbers of a plog head (``[ERROR]
    HCCL(34115,python):<time> [file.cc:812][34116]``: process and thread ids, the source line) too; every rank of a
    job prints the same task exception with its own process id. A head field that names a device, die or chip
    (``[dms_fault.c:688][dev3]``) is kept: it is what the line is about (session 37)."""
    if head := RE_PLOG_HEAD.match(text):
        h = head.group()
        low = h.lower()  # a head that may name its device keeps that field (review 37: [dev2] and [dev3] apart)
        h = _HEAD_DEVICE.sub(_keep_device, h) if "dev" in low or "die" in low or "chip" in low else _DIGITS.sub("#", h)
        return h + STAMP.sub("\0", text[head.end():])
    return STAMP.sub("\0", text)


def _keep_device(m: re.Match[str]) -> str:
    return m.group(1) or "#"


class LineMemo:
    """``parse(text, t, origin, source, level)``, memoised by the line's shape (see the module docstring)."""

    def __init__(self) -> None:
        self._memo: dict[tuple[str, str | None, str | None], list[Signal]] = {}
        self.hits = 0
        self.misses = 0

    def parse(self, text: str, t: float, origin: str | None, source: str | None, level: str | None) -> list[Signal]:
        key = (shape(text), origin, level)
        if (got := self._memo.get(key)) is not None:
            self.hits += 1
            # built directly: dataclasses.replace costs ~30 us a call, and a year's replay makes 1.8 million
            return [Signal(t, s.kind, s.component, s.host, s.severity, text, s.peer, s.device, s.line_no, s.file)
                    for s in got]
        self.misses += 1
        out = parse_line(text, t, origin, source, level)
        if all(s.text == text for s in out):
            if len(self._memo) >= MAX_ENTRIES:
                self._memo.clear()
            self._memo[key] = out
        return out


PLOG_STAMP = lazy_compile(r"\[\w+\s*\]\s*\w+\(\d+,[^)]*\):(\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3}) ")
"""The time stamp of a plog head (``[ERROR] HCCL(40101,python):2025-03-01-10:33:21.000.000 [...]``): digits and
separators between the head's ``):`` and a space, which no parser reads (the line's time is given apart)."""


def read_key(text: str) -> str:
    """:class:`ReadMemo`'s key of a line: the line, without its plog head's time stamp when it has one (every other
    character, the process and thread ids too, kept)."""
    if text[:1] == "[" and (m := PLOG_STAMP.match(text)):
        return text[:m.start(1)] + text[m.end(1):]
    return text


class ReadMemo:
    """:func:`parse_line` for a bundle's or a ``--logs`` input's lines, memoised by the line as written but for a plog
    head's time stamp (:func:`read_key`) and every other argument (its source too): a failed job's logs repeat the
    same error lines on every rank, thousands of times, ~0.1 ms a parse. A hit gives the first parse's signals with
    this line's time and text; a result is kept only when every signal carries the whole line and the line's time (so
    nothing else of the stamp's can have reached it). Exact, where :class:`LineMemo` (the live stream's) also ignores
    process ids and every stamp of the text."""

    def __init__(self) -> None:
        self._memo: dict[tuple[object, ...], tuple[Signal, ...]] = {}

    def parse(self, text: str, t: float = 0.0, origin: str | None = None, source: str | None = None,
              level: str | None = None, head: str = "", file_device: int | None = None,
              twin: bool | ChipMap | None = None) -> list[Signal]:
        if not isinstance(text, str):
            return []
        key = (read_key(text), origin, source, level, head, file_device, twin)
        if (got := self._memo.get(key)) is not None:
            return [Signal(t, s.kind, s.component, s.host, s.severity, text, s.peer, s.device, s.line_no, s.file)
                    for s in got]
        out = parse_line(text, t, origin, source, level, head=head, file_device=file_device, twin=twin)
        if all(s.text == text and s.t == t for s in out):
            if len(self._memo) >= MAX_ENTRIES:
                self._memo.clear()
            self._memo[key] = tuple(out)
        return out
