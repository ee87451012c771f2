"""Reading the bundle's timed log files into line records (:data:`~opsbrain.bundle.records.Dated`): each line's time
stamp (:mod:`opsbrain.bundle.stamps`; a continuation line takes the time of the line before), level, origin
(node, device or switch chip of the file) and source, and the HCCL init lines that tie a plog's process to a device.

A plain file (no junk, no over-long line) of a style with a block form is read with one regex scan for all its
stamps and levels (:func:`~opsbrain.bundle.stamps.block_scan`); the others line by line. Syslog and klog lines carry
no year: it is the one that puts them closest to the bundle's typical time."""

from __future__ import annotations

import re
from datetime import datetime
from itertools import islice

from opsbrain.bundle import layout as L
from opsbrain.bundle.hosts import host_to_id, switch_of_host
from opsbrain.bundle.records import _TIE, ReaderState
from opsbrain.bundle.stamps import (
    _STYLE,
    BlockStamps,
    _closest_year,
    block_scan,
    dir_stamp,
    from_us,
    klog_stamp,
    rotated_on,
    stamp,
    style_ready,
    syslog_us,
    to_us,
)
from opsbrain.bundle.walk import _File
from opsbrain.diagnosis.realtext import error_word_lines
from opsbrain.ingest import asys
from opsbrain.ingest.surface import logged_level
from opsbrain.ingest.timestamps import dated_lines, nearest_dated

_LEVEL = re.compile(r"^\[(\w+)\s*\]")
BLOCK_LINES = 16_384
"""Lines of a file scanned at a time (:meth:`TimedFiles._read_block`): a few MB of matches, not a whole file's."""
PROCESS_KINDS = frozenset({L.PLOG, L.CANN_DEVICE, L.HOST_SLOG, L.TRAIN, L.OTHER})
"""The logs of a job's processes: where their stamps end, its console (without stamps) ended too."""
WHOLE_KINDS = frozenset({L.CLUSTERD, L.HISTORY, L.DMESG})
"""Files whose every line gets a record with keep too: job events, and the records another file may hold again
(:func:`~opsbrain.bundle.assemble._dup_key`: history, and dmesg, whose kernel lines messages may hold: before session
37, a dmesg line keep ruled out was counted as read where the full read counted it a duplicate)."""
_INIT = re.compile(r"hcom init by file success.*?rankNum\[(\d+)\], rank\[(\d+)\], server\[([^\]]*)\], "
                   r"device\[(\d+)\]")


def _head_time(prefix: str, ref: datetime | None = None) -> int | None:
    """The time stamp of what :func:`opsbrain.ingest.surface.plain` took off a line (a CRI or collector's stamp), for
    a line without one of its own: the forms of the ISO style; with ``ref``, also a logger's head without a year
    (vLLM's ``ERROR 12-03 06:21:44``, glog's / torch's ``[E324 13:00:25.1]``), in the year that puts it nearest
    ``ref`` and not after tomorrow (a syslog stamp there has no year: none is taken)."""
    if (dt := to_us(stamp(prefix, "iso"))) is not None or ref is None or not (m := _YEARLESS_HEAD.search(prefix)):
        return dt
    return _yearless(m, ref)


def _yearless(m: re.Match[str], ref: datetime) -> int | None:
    """The time a :data:`_YEARLESS_HEAD` match gives, in the year nearest ``ref`` (not after tomorrow)."""
    mo, d, h, mi, sec = (int(x) for x in (m["mo"] or m["gmo"], m["d"] or m["gd"], m["h"] or m["gh"],
                                          m["mi"] or m["gmi"], m["s"] or m["gs"]))
    us = int((m["frac"] or "0")[:6].ljust(6, "0"))
    try:
        return to_us(_closest_year(ref, lambda y: datetime(y, mo, d, h, mi, sec, us)))
    except ValueError:
        return None


_YEARLESS_HEAD = re.compile(
    r"(?:^|\]:?\s*|\s)(?:(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)\s+(?P<mo>\d\d)-(?P<d>\d\d) (?P<h>\d\d):(?P<mi>\d\d):"
    r"(?P<s>\d\d)|\[[EWIF](?P<gmo>1[0-2]|0?[1-9])(?P<gd>[0-3]\d) (?P<gh>\d\d):(?P<gmi>\d\d):(?P<gs>\d\d)"
    r"(?:\.(?P<frac>\d+))?)")
"""A logger's head without a year: vLLM's ``INFO 12-03 06:21:44 [core.py:634]`` (its logging format, ``%(levelname)s
%(asctime)s`` with ``%m-%d %H:%M:%S``), and glog's ``[E1203 06:21:44.123 ...`` / torch's c10 ``[E324 13:00:25.1``
(month without its leading zero)."""


_QUARTER_US = 15 * 60 * 1_000_000


def _shift(pair: tuple[int, str] | None) -> int:
    """What to add to a collector's head time so that it reads as the line's own clock: a CRI head is UTC
    (``2025-11-25T09:23:11.888Z``) where the program's own stamp is the host's local time (``[2025-11-25
    17:23:11,888]``, +08:00), so the offset between them, rounded to a quarter hour (time zones are), from ``pair``:
    the own time and the head of the latest line that has both (worked out only for a line that needs it)."""
    h = _head_time(pair[1]) if pair is not None else None
    if h is None or pair is None:
        return 0
    return round((pair[0] - h) / _QUARTER_US) * _QUARTER_US


class TimedFiles(ReaderState):
    """The reader's part that turns timed log files into line records."""

    def _read_timed(self, f: _File, seq: int, ref: datetime | None = None, placed_at: int | None = None) -> int:
        """Line records of one file (``placed_at``: the time of its lines without a stamp, a file that has none)."""
        kind = f.kind.kind
        node = self._node(f)
        origin: str | None = node
        source = L.SOURCE_OF_KIND.get(kind, f.kind.tag or "other")
        if kind in (L.DEVICE_OS, L.HISTORY, L.HISI_DUMP, L.MESSAGES) and node is not None and f.kind.device is not None:
            origin = f"{node}/npu{f.kind.device}"
        elif kind == L.SWITCH:
            origin = (host_to_id(f.kind.tag) or switch_of_host(f.kind.tag, self.workers) or f.kind.tag
                      ) if f.kind.tag else None
        elif kind == L.CLUSTERD:
            origin = None
        if kind == L.OTHER:
            source = f.kind.tag or "other"
        style = _STYLE.get(kind, "iso")
        crash_dt = None
        if kind == L.VMCORE and f.kind.tag and (m := re.search(r"(\d{4}-\d\d-\d\d)-(\d\d:\d\d:\d\d)$", f.kind.tag)):
            try:
                crash_dt = to_us(datetime.fromisoformat(f"{m[1]} {m[2]}"))
            except ValueError:
                crash_dt = None
        last: int | None = to_us(dir_stamp(f.kind.tag)) if kind == L.HISI_DUMP else (
            to_us(asys.collected_at(f.rel) or asys.collected_at(f"{self.scan.name}/"))
            if kind == L.OTHER and f.kind.tag == "asys" else None)
        clean, plain = self.scan.clean, f.plain
        syslog, klog = kind in (L.MESSAGES, L.SYSMON), kind == L.VOLCANO
        continued = kind in (L.TRAIN, L.PLOG, L.OTHER, L.HISI_DUMP, L.CANN_DEVICE, L.HOST_SLOG)
        if placed_at is not None:  # every line is counted as untimed, and takes that time
            last, continued = placed_at, False
        plog, history = kind == L.PLOG, kind == L.HISTORY
        dated, since = self.dated, ref or datetime(1970, 1, 1)
        if syslog and (rotated := rotated_on(f.rel)) is not None:
            since = rotated  # its lines were written before the day it was rotated: their year is that day's
        days: dict[tuple[str, str], list[int]] = {}  # syslog_us's days of a (month, day), for this ``since``
        tie = _TIE.get(source, 1)
        ahead: list[tuple[int, str, str | None]] = []  # lines before the file's first time stamp
        heads: list[str] | None = f.prefixes  # a collector's heads taken off
        pair: tuple[int, str] | None = None  # the latest line's time and head, for _shift
        if plain and not (syslog or klog or kind == L.VMCORE) and style_ready(style) and f.block_readable():
            read = BlockStamps(style, self.minutes)
            seq, last = self._read_block(f, seq, style, read, origin, source, tie, last, continued, ahead)
            return self._undated(f, seq, ahead, last)
        for i, raw in enumerate(f.lines, start=1):
            if plain:  # Scan.clean of a file without junk or over-long lines: only blank lines are dropped
                if not raw or raw.isspace():
                    continue
                text = raw
            elif (cleaned := clean(f, raw)) is None:
                continue
            else:
                text = cleaned
            if kind == L.VMCORE:
                dt = crash_dt
            elif syslog:
                dt = syslog_us(text, since, days)
                if dt is None and f.prefixes is not None and f.prefixes[i - 1]:  # a head taken off: syslog's own
                    dt = syslog_us(f.prefixes[i - 1].lstrip(), since, days)
            elif klog:
                dt = to_us(klog_stamp(text, since))
            else:
                dt = to_us(stamp(text, style))
            level = m.group(1).upper() if text[:1] == "[" and (m := _LEVEL.match(text)) else None
            if history:
                level = "ERROR"
            elif level is None and f.prefixes is not None and f.prefixes[i - 1]:
                level = logged_level(f.prefixes[i - 1])  # a logger's head taken off (vLLM's ``INFO 03-06 ...``)
            if dt is None and (dt := self._untimed(f, i, last, continued, pair, text)) is None:
                ahead.append((i, text, level))
                continue
            if heads is not None and heads[i - 1]:
                pair = (dt, heads[i - 1])
            if ahead:
                seq = self._place_ahead(f, ahead, dt, seq, origin, source, tie)
            last = dt
            if plog and "hcom init by file success" in text and (m := _INIT.search(text)):
                self._init_line(f, node, m)
            seq += 1
            dated.append((dt, seq, f, i, text, origin, source, level, tie))
        return self._undated(f, seq, ahead, last)

    def _place_ahead(self, f: _File, ahead: list[tuple[int, str, str | None]], dt: int, seq: int, origin: str | None,
                     source: str, tie: int, wanted: list[bool] | None = None, may: list[bool] | None = None) -> int:
        """The lines before a file's first time stamp (a console's start, a traceback cut at its head), at that
        stamp's time, in their order: a line of the file is never dropped for lack of a stamp."""
        for i, text, level in ahead:
            seq += 1
            if wanted is None or wanted[i - 1]:
                self.dated.append((dt, seq, f, i, text, origin, source, level, tie))
                if may is not None:
                    self.kept[seq] = may[i - 1]
            else:
                self.unkept.add(dt, seq, f, i, text)
        self.scan.placed[f.rel] += len(ahead)
        ahead.clear()
        return seq

    def _undated(self, f: _File, seq: int, ahead: list[tuple[int, str, str | None]], last: int | None) -> int:
        """The end of a file's read: one with lines and not one time stamp (a console, ``kubectl logs``, a pod's
        log) waits for :meth:`place_undated`, when the other files' times are known; a process's log with stamps
        moves its worker's :attr:`process_end`."""
        if ahead:
            self.undated.append(f)
            self.scan.untimed[f.rel] -= len(ahead)  # counted again when placed
            ahead.clear()
        elif last is not None and f.kind.kind in PROCESS_KINDS and f.kind.tag != L.UNNAMED_CONSOLE:
            # (a text log the layout does not know is no log of the job's processes: it places no other file)
            w = f.kind.worker or ""
            self.process_end[w] = max(last, self.process_end.get(w, last))
        return seq

    def place_undated(self, seq: int, ref: datetime) -> int:
        """Read the files without a time stamp, every line at one time: the last stamp of its worker's process logs
        (a console ends when its job does), else of any process log of the bundle, else the bundle's typical time
        (``ref``); each is listed in the report with the time it was given and why. A file its own worker's process
        logs do not place is ``apart``: its lines make incidents of their own (:func:`opsbrain.bundle.replay.
        detect_apart`), not part of another file's that happens to be open at the time it was given."""
        ends = dict(self.process_end)  # the stamped logs' only: a placed file does not place another
        self.head_ref = ref  # a logger's head without a year is read now, in the year nearest the bundle's time
        for f in self.undated:
            w = f.kind.worker or ""
            apart = w not in ends
            if w in ends:
                at, why = ends[w], f"the last time stamp of {w or 'the bundle root'}'s process logs"
            elif ends:
                at, why = max(ends.values()), "the last time stamp of the bundle's process logs"
            else:
                at, why = to_us(ref), self.ref_why
            before, counted = self.scan.untimed[f.rel], (self.scan.malformed[f.rel], self.scan.cut[f.rel])
            seq = self._read_timed(f, seq, placed_at=at)
            self.scan.malformed[f.rel], self.scan.cut[f.rel] = counted  # the first read counted them
            if n := self.scan.untimed[f.rel] - before:  # (lines whose head gave a time are not placed)
                self.placed_files.append({"path": f.rel, "at": from_us(at).isoformat(), "why": why, "lines": n,
                                          "apart": apart})
            f.release()
        return seq

    def _untimed(self, f: _File, i: int, last: int | None, continued: bool, pair: tuple[int, str] | None = None,
                 text: str = "") -> int | None:
        """The time of line ``i`` that has no stamp of its own: the stamp of the head taken off it (on the line's
        own clock: :func:`_shift` of ``pair``), else the time of the line before (a continuation: traceback, wrapped
        message; counted as untimed in a file whose lines do not continue), else None (counted; the line waits for
        the file's first stamp)."""
        if f.prefixes is not None and (head := f.prefixes[i - 1]):
            dt = _head_time(head)
            if dt is None and self.head_ref is not None and (m := _YEARLESS_HEAD.search(head)):
                dt = self._yearless_in(f, i, m)
            if dt is not None:
                return dt + _shift(pair)
        if self.head_ref is not None and (m := _YEARLESS_HEAD.match(text)) and (dt := self._yearless_in(f, i, m)):
            return dt  # the line opens with a logger's head without a year (glog's ``[E1203 06:22:01.1 ...``)
        if last is None or not continued:
            self.scan.untimed[f.rel] += 1
        return last

    def _yearless_in(self, f: _File, i: int, m: re.Match[str]) -> int | None:
        """The time of line ``i``'s year-less head ``m`` in the year nearest the stamp of the same file that writes
        its year nearest the line (:func:`~opsbrain.ingest.timestamps.nearest_dated`: glog's ``[E706 23:45:07 ...]``
        before the runtime's ``2026-07-06-23:45:07.563``), else nearest the bundle's time (:attr:`head_ref`); the
        report says which, once per file (``yearless``)."""
        dated = self.file_years.get(f.rel)
        if dated is None:
            dated = self.file_years[f.rel] = dated_lines(f.lines)
        near = nearest_dated(dated, i)
        ref = datetime.fromtimestamp(near[1]) if near is not None else self.head_ref
        if ref is None or (dt := _yearless(m, ref)) is None:
            return None
        if f.rel not in self.yearless:
            self.yearless[f.rel] = {"path": f.rel, "year": from_us(dt).year, "from": (
                f"the full stamp on line {f.line_no(near[0])} of the file" if near is not None else
                f"the bundle's reference time {ref:%Y-%m-%d}, no stamp of the file writing its year")}
        return dt

    def _read_block(self, f: _File, seq: int, style: str, read: BlockStamps, origin: str | None, source: str,
                    tie: int, last: int | None, continued: bool, ahead: list[tuple[int, str, str | None]]
                    ) -> tuple[int, int | None]:
        """:meth:`_read_timed` of a plain file whose levels and stamps a scan finds (:func:`block_scan`), a block
        of :data:`BLOCK_LINES` lines at a time (the scan's matches of a whole file cost ~200 bytes a line): the same
        records, without a regex search a line; with keep, records of the wanted lines only (:meth:`_wanted`), the
        others leaving their time."""
        history, plog = f.kind.kind == L.HISTORY, f.kind.kind == L.PLOG
        node = self._node(f) if plog else None
        add, light, kept = self.dated.append, self.unkept.add, self.kept
        self.unkept.ties[f.index] = tie
        self.origins[f.index] = origin
        wanted: list[bool] | None = None  # with keep: per line so far, whether it needs a record; keep's answer
        may: list[bool] | None = None
        asks = self.keep is not None and f.kind.kind not in WHOLE_KINDS and f.rel not in self.optic_files
        heads = f.prefixes
        pair: tuple[int, str] | None = None  # the latest line's time and head, for _shift
        lines, lo = f.stream(), 0  # (a packed file's lines a block at a time: never all of them held, session 37)
        while part := list(islice(lines, BLOCK_LINES)):
            errs: set[int] | None = None  # the block's lines with an error word, looked for once a block if needed
            if asks:
                got = self._wanted(f, part)
                if wanted is None or may is None:
                    wanted, may = [], []
                wanted += got[0] if got is not None else [True] * len(part)
                may += got[1] if got is not None else [True] * len(part)
            # (never None: block_readable found no wide digit in the file, not looked for again)
            found = block_scan(part, style, digits_known=True) or [("", "", "")] * len(part)
            stamps, levels = read.read(part, found)
            for i, (raw, dt, level) in enumerate(zip(part, stamps, levels, strict=True), start=lo + 1):
                if not raw or raw.isspace():
                    continue
                if level is None and heads is not None and heads[i - 1]:
                    level = logged_level(heads[i - 1])  # a logger's head taken off (vLLM's ``INFO 03-06 ...``)
                if dt is None and (dt := self._untimed(f, i, last, continued, pair, raw)) is None:
                    ahead.append((i, raw, "ERROR" if history else level))
                    continue
                if heads is not None and heads[i - 1]:
                    pair = (dt, heads[i - 1])
                if ahead:
                    seq = self._place_ahead(f, ahead, dt, seq, origin, source, tie, wanted, may)
                last = dt
                if plog and "hcom init by file success" in raw and (m := _INIT.search(raw)):
                    self._init_line(f, node, m)
                seq += 1
                if wanted is None or wanted[i - 1]:
                    add((dt, seq, f, i, raw, origin, source, "ERROR" if history else level, tie))
                    if may is not None:
                        kept[seq] = may[i - 1]
                else:
                    if errs is None:
                        errs = error_word_lines(part)
                    light(dt, seq, f, i, raw, i - lo - 1 in errs)
            lo += len(part)
        return seq, last

    def _wanted(self, f: _File, part: list[str]) -> tuple[list[bool], list[bool]] | None:
        """With keep: per line of a block of a block-read file, whether it needs a record (keep marks it, or the
        reader needs it: a device record the history may repeat, :func:`_dup_key`) and keep's answer; None when keep
        cannot tell (the lines then all get a record, as without keep). The files whose every line needs a record
        are not asked about (:data:`WHOLE_KINDS`)."""
        assert self.keep is not None
        may = self.keep(part)
        if may is None:
            return None
        if f.kind.kind == L.DEVICE_OS:
            return [m or "event_id=" in raw for m, raw in zip(may, part, strict=True)], may
        return may, may

    def _init_line(self, f: _File, node: str | None, m: re.Match[str]) -> None:
        n, rank, ip, dev = m.groups()
        self.processes.append({"file": f.rel, "pid": f.kind.pid, "node": node, "device": int(dev),
                               "rank": int(rank), "ranks": int(n), "server": ip})
        if node is not None and ip:
            self.ip_node.setdefault(ip, node)
            w = self.workers[f.kind.worker or ""]
            if ip not in w["ips"]:
                w["ips"].append(ip)

