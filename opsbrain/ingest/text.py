"""Any text an operator has -> signals: pasted text, stdin, a file of any size, a directory of logs.

Input is streamed line by line (bounded memory whatever the size), gzip/bzip2/xz streams decompressed as they are read
and tar/zip archives read member by member in place (:mod:`opsbrain.ingest.bytelines`, split from here in session 46,
over :mod:`opsbrain.ingest.archive`): undecodable bytes are replaced, NULs dropped, a line longer than :data:`MAX_LINE`
characters is scanned only in its first part, and every such cut is counted in the statistics, never silent. What a
collection or a paste put around a program's line (ANSI colours, CRI and ``kubectl logs --prefix`` heads, a collector's
time stamp or ``host:``, Markdown quotes, process, rank and compose prefixes, syslog heads, a BOM, full-width colons) is
taken off first, a terminal's wrapped rows are joined back and a line written twice in a row is read once
(:mod:`opsbrain.ingest.surface`). Time stamps in the common Ascend layouts keep the incident's shape in time; a line
without one takes the time of the line before; a stamp without a year takes that of the first dated one.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator
from datetime import datetime
from itertools import chain, islice
from operator import itemgetter
from pathlib import Path
from typing import IO, Protocol, cast

from opsbrain.ingest.bytelines import (  # noqa: F401 - re-exported: the limits, the statistics and the walk
    EXPANSION_FLOOR,
    MAX_EXPANSION,
    MAX_INNER_BYTES,
    MAX_MEMBERS,
    MAX_TOTAL_BYTES,
    READ_CHUNK,
    TextStats,
    lines_of,
    one_stream,
    read_members,
)
from opsbrain.ingest.chipmap import ChipMap, ChipMapScan
from opsbrain.ingest.derive import TLS_STATES, fd_placed, section_placed, tls_mismatch, with_flaps
from opsbrain.ingest.exporterpage import is_exporter_page, page_signals, split_page
from opsbrain.ingest.hostnames import switch_folder
from opsbrain.ingest.linememo import ReadMemo
from opsbrain.ingest.npuinfo import NPU_INFO, NpuInfoScan, PortStates, link_downs
from opsbrain.ingest.parsers import MAX_LINE
from opsbrain.ingest.parsers.sigkill import KilledTracebackScan
from opsbrain.ingest.pasterows import WRAP_LOOK, rejoin, unwrap, wrapped_paste
from opsbrain.ingest.recovered import RecoveredScan
from opsbrain.ingest.repeats import fold_runs
from opsbrain.ingest.signal import Signal
from opsbrain.ingest.stopped import StopScan
from opsbrain.ingest.surface import grep_file, looks_binary
from opsbrain.ingest.timestamps import parse_stamp
from opsbrain.ingest.transceivers import Beyond, TransceiverScan, power_signal
from opsbrain.ingest.unraisable import UnraisableScan
from opsbrain.ingest.workers import device_dir, host_root, real_host_file
from opsbrain.ingest.wrappers import fence_prose, plain_under, shared_head
from opsbrain.lazyre import lazy_compile

BINARY_HEAD = 64
"""A file whose first lines are at least half binary content (:func:`.surface.looks_binary`) is binary: the rest is
not read (random bytes' short lines would otherwise be read as text, and one in a few thousand holds a word such as
"oom")."""


MAX_NPU_INFO_BYTES = 16 << 20
"""An npu_info file bigger than this is no collection's command outputs: not read for the host's numbering."""

RE_QUERIED = lazy_compile(r"\b(?:hccn_tool|npu-smi)\b[^|;&]{0,80}?\s-i\s*(\d+)\b")
"""A command line that queries one device (``hccn_tool -i 3 -link -g``, ``npu-smi info -t health -i 3``; ``-i``: the
device id, in both tools' references): the output lines after it, up to the next such command or a blank line, are
that device's (a script's loop over all NPUs, saved as one file)."""
RE_PING_HEAD = lazy_compile(r"^\s*device (\d+) PING6? \S+\s*$")
"""``hccn_tool -i N -ping -g address <ip>``'s own header before its replies and summary, ``device %d PING %s``
(hicann/driver@6642fce0 src/custom/network/hccn/ascend910B/hccn_product_ext/ds_net_ext.c, ``PING6`` for an IPv6 peer;
the device's physical id, which ``-i`` names where the host sees all its NPUs): the lines after it are that device's,
as after a command line that names it. A loop over the NPUs (``for i in {0..7}; do hccn_tool -i $i -ping ...``, as
MindIE's multi-node checklist runs it) names none, its headers do (session 46, polish46)."""
RE_PING_END = lazy_compile(r"^\s*\d+ packets transmitted, \d+ received\b")
"""A ping's summary, the last line of its output (hccn_tool's ``3 packets transmitted, 0 received, 100.00% packet
loss`` prints nothing after it; iputils' too ends there): the lines after it are not the pinging device's (session 46,
review46c: an NPU's out-of-memory or runtime line after a ping loop's output was placed on the last NPU pinged)."""

class LineHook(Protocol):
    """What a reader hands every line to: the line, its file, number and time, the head taken off it, the file it was
    first written to (``origin``), and ``words``: False for a paste's own words around its Markdown fences."""

    def __call__(self, line: str, file: str | None, line_no: int, t: float, head: str = "",
                 origin: str | None = None, words: bool = True) -> None: ...


class LineReader:
    """Turns lines into signals, one source at a time, keeping times and line numbers."""

    def __init__(self, hook: LineHook | None = None) -> None:
        self.hook = hook  # called with every line (the knowledge matcher): line, file, line number, time, the head
        # a collection or a paste put before it (surface.plain's prefix), the file it came from (self.origins)
        self.stats = TextStats()
        self.follow_links = False  # a directory's symbolic links are read (diagnose --follow-links)
        self._signals: list[Signal] = []
        self._t0: float | None = None  # the earliest stamp read: the time origin of :attr:`signals`
        self._base: float | None = None  # the origin of the times stored while reading (:meth:`_settle`)
        self._last = 0.0
        self._tls: dict[str, Signal] = {}  # the first TLS switch on / off seen (any file): states, not faults
        self._tls_told = False
        self._year = 2000  # for stamps without a year (syslog, klog): the year of the first dated stamp, once seen
        self._dated = False
        self._given = 0  # bytes of input as given (files on disk, stdin as read): MAX_EXPANSION's measure
        self._origin_devices: dict[str, int | None] = {}  # origin file -> the device whose log it is
        self._link_states: PortStates = {}  # npu_info files' link states, for close_states
        self.chips: dict[str, ChipMap] = {}  # a real host's directory -> its numbering (:meth:`read_numbering`)
        self._parse = ReadMemo().parse  # parse_line, once per repeated line (a failed job's ranks repeat theirs)
        self.origins: dict[tuple[str | None, int], str] = {}
        """(file, line) of a signal's line -> the file it was first written to, where the input holds several
        files' lines: ``grep -r``'s output (the name before each line) or ``tail`` / ``head`` of several files
        (a ``==> name <==`` header before each file's lines)."""

    def _date_from(self, ts: float) -> None:
        """The first stamp with a year: later yearless stamps take its year, and the yearless ones before (read in
        year 2000) move to that year, keeping their spacing."""
        self._dated = True
        self._year = datetime.fromtimestamp(ts).year
        if self._t0 is not None:
            self._t0 = self._in_year(self._t0)
        if self._base is not None:
            self._base = self._in_year(self._base)

    def _in_year(self, ts: float) -> float:
        try:
            return datetime.fromtimestamp(ts).replace(year=self._year).timestamp()
        except ValueError:  # 29 February in a common year
            return datetime.fromtimestamp(ts - 86400).replace(year=self._year).timestamp() + 86400

    def feed(self, lines: Iterable[str], file: str | None = None, path: str | None = None) -> None:
        """The lines of one source named ``file``; ``path`` (default ``file``) is where it was read, whose
        directories may name the device whose own log it is (:func:`opsbrain.ingest.workers.device_dir`)."""
        self.stats.files += 1
        first = len(self._signals)
        it = iter(lines)
        head = list(islice(it, WRAP_LOOK))
        skip = 0  # the lines of an exporter page before the log lines (review41b)
        if is_exporter_page(head[:64]):  # a metrics page, no log (session 41): read as the page it is
            page, it = split_page(chain(head, it))
            self._exporter_page(list(self._cut(page)), file)
            head, skip = list(islice(it, WRAP_LOOK)), len(page)
            if not head:
                return
            self.stats.notes.append(f"{file or 'input'}: log lines after its npu-exporter page (from line "
                                    f"{skip + 1}): read as log lines")
        column = shared_head(head)  # a collector's head on every line (srun --label's, a journal's): taken off
        prose = fence_prose(head)  # a Markdown paste's words around its fences: not the log's words
        if prose:
            self.stats.notes.append(f"{file or 'input'}: {len(prose)} line(s) outside the paste's Markdown fences "
                                    "read as the writer's words: their codes and messages read, not their words")
        wrapped = wrapped_paste(head)  # a terminal's rows: joined back into lines (then counted and cut first)
        # a terminal's rows, else rows a paste cut at its width (pasterows.goes_on), joined back; counted and cut first
        numbered = (unwrap if wrapped else rejoin)(self._cut(chain(head, it)), MAX_LINE)
        if skip:
            numbered = ((n + skip, x) for n, x in numbered)
        binary_before = self.stats.binary_lines  # of the files fed before this one
        file_device = device_dir(path or file)
        twin: bool | ChipMap | None = real_host_file(path or file)
        if twin is False and self.chips:  # a real host's: as written, unless its npu-smi output showed its product
            twin = self.chips.get(host_root(path or file)[0], False)
        header: str | None = None  # the file ``tail`` / ``head`` of several files named last (``==> f <==``)
        queried: int | None = None  # the device the last hccn_tool / npu-smi command line queried (``-i N``)
        # an npu_info file of a collection: read by the bundle reader's rule (link states and metrics are no lines)
        info = NPU_INFO.search(path or file or "")
        scan = NpuInfoScan() if info else None
        optics = TransceiverScan()  # a module's lane power against the thresholds its dump prints (optread44)
        # a line written again in a row (two handlers on a logger, a tee pasted with its stream, a retry printed
        # a million times) is read once (repeats.fold_runs: the bundle reader's rule too)
        recovered = RecoveredScan()  # a failure the program recovered from at once, by its own account (benign)
        killed = KilledTracebackScan()  # a traceback that carries a kill's report (parsers.sigkill)
        stopped = StopScan()  # a stop's leftovers once the log shows the stop (ingest.stopped)
        ignored = UnraisableScan()  # an exception CPython printed and went on (ingest.unraisable)
        for (n, raw), _copies in fold_runs(numbered, itemgetter(1)):
            if n == skip + BINARY_HEAD + 1 and self.stats.binary_lines - binary_before >= BINARY_HEAD // 2:
                self.stats.not_read.append(f"{file or 'input'}: binary content (not text): not read after line "
                                           f"{BINARY_HEAD}")
                break
            if looks_binary(raw):
                self.stats.binary_lines += 1
                continue
            if raw[:4] == "==> " and raw.endswith(" <=="):  # tail's / head's header before each file's lines
                header = raw[4:-4].strip() or None
                continue
            line, prefix = plain_under(raw, column)
            recovered.step(n, line)
            killed.step(n, line)
            stopped.step(n, line)
            ignored.step(n, line)
            self._beyond(optics.step(line, n), file, twin)
            ts, dated = parse_stamp(line, self._year)
            if ts is None and prefix:
                ts, dated = parse_stamp(prefix, self._year)
            if ts is not None:
                if dated and not self._dated:
                    self._date_from(ts)
                if self._base is None:
                    self._base = ts
                self._t0 = ts if self._t0 is None else min(self._t0, ts)
                self._last = ts - self._base  # (before the first stamp's origin where an earlier one came: _settle)
            origin = (grep_file(prefix) if prefix else None) or header
            if origin is not None and origin[:1] in "/.":  # grep -r /root/ascend/log, find's ./worker-0/...
                origin = origin.lstrip("/").removeprefix("./") or None
            if self.hook is not None:
                if prose and n - skip - 1 in prose:  # the writer's words: their signals read, not the log's words
                    self.hook(line, file, n, self._last, prefix, origin, words=False)
                else:
                    self.hook(line, file, n, self._last, prefix, origin)
            if "hccn_tool" in line or "npu-smi" in line:  # a query: what follows it is its device's output
                queried = int(q.group(1)) if (q := RE_QUERIED.search(line)) else None
            elif "PING" in line and (ping := RE_PING_HEAD.match(line)):
                queried = int(ping.group(1))
            elif not line.strip():
                queried = None  # its output ends at a blank line (what a paste holds after it is not the query's)
            if scan is not None and info is not None:
                got = scan.step(line if line.strip() else None)
                if got.state is not None:  # the port's state when the file was taken, not an event
                    self._link_states.setdefault(((file or "").rpartition("/")[0], info.group(1)), {})[got.port] = (
                        got.state, self._last, n, file or "input", twin)
                    continue
                if got.metric is not None and not got.line:
                    continue  # a metric of npu-smi's (a temperature, an HBM counter), not a line of a fault
            here = file_device if file_device is not None else queried
            if queried is not None and "packets transmitted" in line and RE_PING_END.match(line):
                queried = None  # the summary is the ping's last line: it is still the device's, what follows is not
            if origin is not None:  # the file a line of several files' lines came from: its device
                if origin not in self._origin_devices:
                    self._origin_devices[origin] = device_dir(origin)
                here = self._origin_devices[origin]
            for s in self._parse(line, self._last, head=prefix, file_device=here, twin=twin):
                if s.kind in TLS_STATES:
                    self._tls.setdefault(s.kind, s.at(line_no=n, file=file))  # the first of each state is enough
                else:
                    self._signals.append(s.at(line_no=n, file=file))
                    if origin is not None:
                        self.origins[(file, n)] = origin
        self._beyond(optics.step(None), file, twin)
        if (binary_here := self.stats.binary_lines - binary_before) > 0:
            self.stats.not_read.append(f"{file or 'input'}: {binary_here} lines of binary content (not text)")
        # what only a run of one file's lines shows: flaps, a FaultDiag report's faults placed on their devices
        here_read = recovered.kept(self._signals[first:])
        if killed.lines or stopped.lines or ignored.lines:
            quiet = killed.lines | stopped.lines | ignored.lines
            here_read = [s for s in here_read if s.line_no not in quiet]
        self._signals[first:] = section_placed(fd_placed(with_flaps(here_read)))
        # devices' switches sit in their own files
        if not self._tls_told and (told := tls_mismatch(list(self._tls.values()))):
            self._signals.extend(told)
            self._tls_told = True
        self.stats.signals = len(self._signals)

    def _beyond(self, found: list[Beyond], file: str | None, twin: bool | ChipMap | None) -> None:
        """The signals of the lanes a module's dump found beyond its own thresholds (:mod:`.transceivers`)."""
        if not found:
            return
        at = switch_folder(file)  # a switch's dump without its sysname: the switch of its folder, as --bundle reads it
        self._signals.extend(power_signal(b, self._last, twin=twin, origin=at).at(line_no=b.line_no, file=file)
                            for b in found)

    def read_numbering(self, files: Iterable[Path]) -> None:
        """A first pass over a directory's ``npu_info_*.txt`` files (small; nothing else is read): each real host's
        device numbering as its npu-smi tables show it (:mod:`opsbrain.ingest.chipmap`), by the host's directory
        (:func:`~opsbrain.ingest.workers.host_root`), the bundle reader's decision (session 38; before, ``--logs DIR``
        read every real host's ids as written). A host shown A3 has its ids read as dies' logical ids."""
        scans: dict[str, ChipMapScan] = {}
        for f in files:
            where = f.resolve().as_posix()  # (the path :meth:`feed_path` reads a plain file under)
            if not NPU_INFO.search(where) or real_host_file(where) is not False:
                continue
            try:
                if f.stat().st_size > MAX_NPU_INFO_BYTES:
                    continue
                text = f.read_bytes().decode("utf-8", "replace")
            except OSError:
                continue  # (said where the file itself is read)
            scans.setdefault(host_root(where)[0], ChipMapScan()).feed(text.splitlines())
        for root, scan in sorted(scans.items()):
            if (m := scan.result()) is not None:
                self.chips[root] = m
                ids = "read as dies' logical ids" if m.a3 else "as written"
                self.stats.notes.append(f"{root.rsplit('/', 1)[-1]}: {m.product} ({m.by}): device ids {ids}")

    @property
    def signals(self) -> list[Signal]:
        """The signals read so far, timed from the earliest stamp read (:meth:`_settle`)."""
        self._settle()
        return self._signals

    def _settle(self) -> None:
        """Times stored from the first stamp read (:attr:`_base`) moved to the earliest (:attr:`_t0`), once, when the
        signals are asked for or the states closed: a stamp before every one read so far (a file read before an
        earlier one, a log printed newest first) moves the origin back, and what was read before keeps its place in
        time (its times grow by the difference; the hook's own records alike where it has a ``rebase``). Session 45
        (bundle45) moved every time at each earlier stamp, which a log printed newest first made quadratic (60,000
        lines: minutes); before, a file read first kept times from the later origin: a worker whose plog was read
        first sat at 0 s beside another worker's lines of the same second at 820 s, and the span the model weighs
        differed from ``--bundle``'s, which times every line from one origin."""
        if self._base is None or self._t0 is None or self._base == self._t0:
            return
        self._earlier(self._base - self._t0)
        self._last += self._base - self._t0  # (the last stamp read, from the earliest)
        self._base = self._t0

    def _earlier(self, delta: float) -> None:
        """Every time stored so far ``delta`` seconds later (:meth:`_settle`): the signals', the TLS states', the
        npu_info link states' and the hook's own records (where it has a ``rebase``)."""
        self._signals[:] = [x.at(t=x.t + delta) for x in self._signals]
        self._tls = {k: x.at(t=x.t + delta) for k, x in self._tls.items()}
        for ports in self._link_states.values():
            for port, (state, t, n, f, twin) in list(ports.items()):
                ports[port] = (state, t + delta, n, f, twin)
        if (rebase := getattr(self.hook, "rebase", None)) is not None:
            rebase(delta)

    def close_states(self) -> None:
        """The ports the npu_info files of a directory found down, as link-down signals (:func:`.npuinfo.
        link_downs`, the bundle reader's rule); called once the whole input is read."""
        self._settle()
        states, self._link_states = self._link_states, {}
        self._signals.extend(link_downs(states, self._signals, self._t0 or 0.0))
        self.stats.signals = len(self._signals)

    def _exporter_page(self, lines: list[str], file: str | None) -> None:
        """An npu-exporter page's fault signals (:mod:`.exporterpage`), and a note saying how it was read."""
        host = file.split("/", 1)[0] if file and "/" in file else None  # DIR/<host>/page.prom names its node
        try:
            sigs, note = page_signals(lines, host, file, self._last, self.stats.symptoms)
        except ValueError as exc:
            self.stats.not_read.append(f"{file or 'input'}: an npu-exporter page that is not the Prometheus text "
                                       f"format: {str(exc)[:120]}")
            return
        self._signals.extend(sigs)
        self.stats.notes.append(note)
        self.stats.signals = len(self._signals)

    def _cut(self, lines: Iterable[str]) -> Iterator[str]:
        """Lines counted, cut to MAX_LINE, without NULs and a CR end (as :meth:`feed` reads them)."""
        for raw in lines:
            self.stats.lines += 1
            if not raw.strip():
                self.stats.blank_lines += 1
            if len(raw) > MAX_LINE:
                self.stats.lines_cut += 1
            yield raw[:MAX_LINE].replace("\x00", "").rstrip("\r")

    def feed_stream(self, stream: IO[bytes], file: str | None = None) -> None:
        """The lines of a byte stream, decompressed first when it is gzip, bzip2 or xz (by its first bytes); a
        stream that breaks off (truncated, corrupt) gives the lines before, and the break is listed as not read."""
        for _label, _rel, u in one_stream(cast(IO[bytes], _Counted(stream, self)), file or "input", "", self.stats):
            self.feed(lines_of(u, self.stats, lambda: self._given, file), file)

    def feed_path(self, path: Path, name: str | None = None, level: int = 1) -> None:
        """A file: an archive (tar, compressed or not, or zip) member by member, in place; else its lines.
        ``level``: 2 for a file of a directory given (an archive there is the first level of archives)."""
        self._given += path.stat().st_size
        given = name or str(path)
        for label, _rel, u in read_members(path, given, self.stats, level=level):
            self.feed(lines_of(u, self.stats, lambda: self._given, label), label,
                      path.resolve().as_posix() if label == given else label)


class _Counted(io.RawIOBase):
    """A stream whose bytes read are added to the reader's input as given (stdin, pasted text)."""

    def __init__(self, raw: IO[bytes], reader: LineReader) -> None:
        super().__init__()
        self._raw, self._reader = raw, reader

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        data = self._raw.read(-1 if size is None else size)
        self._reader._given += len(data)  # noqa: SLF001 - the reader's own counter
        return data

    def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)


def ingest_text(text: str | bytes, file: str | None = None) -> tuple[list[Signal], TextStats]:
    """Signals in pasted text (str or bytes)."""
    r = LineReader()
    data = text.encode("utf-8", "replace") if isinstance(text, str) else text
    r.feed_stream(io.BytesIO(data), file)
    return r.signals, r.stats
