"""What a bundle read holds: its lines (:class:`BundleLine`), the whole read (:class:`BundleRead`), the record of a
line as the reader first keeps it (:data:`Dated`) and the state the reader's parts share (:class:`ReaderState`)."""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from itertools import chain, repeat
from operator import rshift
from typing import TYPE_CHECKING, Any

from opsbrain.bundle.walk import _File, _Scan
from opsbrain.diagnosis.realtext import _has_error_word
from opsbrain.ingest.chipmap import ChipMap, ChipMapScan
from opsbrain.ingest.ranks import RankTable
from opsbrain.ingest.transceivers import Beyond

if TYPE_CHECKING:
    from opsbrain.bundle.viewlines import ViewLines


@dataclass(slots=True)
class BundleLine:
    """One line of a bundle: time (s from the bundle's time origin), the component whose log holds it, the log
    family, level (when the line says), text, and where it was read (bundle-relative file, 1-based line)."""

    t: float
    origin: str | None
    source: str
    level: str | None
    text: str
    file: str
    line: int
    job: tuple[str, str, dict[str, Any]] | None = None  # (job, kind, detail) of a cluster job-event line
    repeats: int = 1  # the lines it stands for: written this many times in a row (repeats.fold_runs, session 36)


_TIE = {"device_os": 0, "switch": 0, "syslog": 0, "hccn": 0, "plog": 1, "train": 2, "device_plugin": 3, "job": 4}
"""Order of lines logged in the same instant: what a device or chip reports first, then the processes that see it,
then the agents that poll them, then the scheduler (the order the twin's fault models emit in)."""
Dated = tuple[int, int, "_File", int, str, "str | None", str, "str | None", int]
"""A line as read: time (integer microseconds, :func:`opsbrain.bundle.stamps.to_us`: sorted and subtracted as ints),
read order (-1: an hccn_tool link record), file, line number, text, origin, source, level, and its rank among lines of
the same instant (:data:`_TIE` of its source)."""
_TIES = max(_TIE.values()) + 2  # tie ranks (0 .. max, and the default 1) as one digit of the sort key


@dataclass
class BundleRead:
    """What :func:`read_bundle` found: lines (time-sorted), the worker map, placement, metrics, the report."""

    lines: list[BundleLine]
    placement: dict[str, list[str]]
    metrics: dict[tuple[str, str], float]
    report: dict[str, Any]
    ranks: RankTable = field(default_factory=lambda: RankTable([], {}))
    view: ViewLines | None = None
    """Every line of the read in the full read's order, for the real-text look (:class:`opsbrain.bundle.viewlines.
    ViewLines`)."""
    may: list[bool] | None = None
    """With ``keep`` (:func:`scan_bundle`): per line of ``lines``, what ``keep`` said of it (True for the lines it
    was not asked about: they take the exact per-line paths)."""
    optics: dict[tuple[str, int], Beyond] = field(default_factory=dict)
    """(file, line as written) -> the optical lanes that line printed beyond its module's thresholds
    (:mod:`opsbrain.ingest.transceivers`, the scanner ``--logs`` runs too): :func:`~opsbrain.bundle.reader.signals_of`
    gives their signals; each such line has a record in :attr:`lines`."""
    recovered: set[tuple[str, int]] = field(default_factory=set)
    """(file, line as written) of the lines of a failure its program recovered from at once, by its own account
    (:class:`opsbrain.ingest.recovered.RecoveredScan`, the rule ``--logs`` reads by too):
    :func:`~opsbrain.bundle.reader.signals_of` gives them no signal."""
    chips: dict[str, ChipMap] = field(default_factory=dict)
    """A real host's (its node id's) device numbering as its npu_info files' npu-smi output shows it
    (:mod:`opsbrain.ingest.chipmap`, session 38); a host without such output is not here (its ids as written)."""


Keep = Callable[[list[str]], "list[bool] | None"]
"""Which lines of a block the caller needs (False: certain to be of no use to it): a block scan, as
:func:`opsbrain.bundle.kbmatch._candidates`; None: all of them."""


class Light:
    """With keep: the lines read without a record, in arrays (time in us, read order, file index, number in the
    file: 24 bytes a line), the texts of those with an error word (the real-text look reads them:
    :mod:`opsbrain.bundle.viewlines`) and each file's tie rank."""

    def __init__(self, files: int) -> None:
        self.dt = array("q")
        self.seq = array("q")
        self.fidx = array("i")
        self.num = array("i")
        self.texts: dict[int, str] = {}
        self.ties = [1] * files

    def add(self, dt: int, seq: int, f: _File, i: int, text: str, err: bool | None = None) -> None:
        """One line; ``err``: whether it has an error word, when the caller looked for a whole block at once
        (:data:`opsbrain.diagnosis.realtext.error_word_lines`), else looked for here."""
        if err if err is not None else _has_error_word(text) is not None:
            self.texts[len(self.dt)] = text
        self.dt.append(dt)
        self.seq.append(seq)
        self.fidx.append(f.index)
        self.num.append(i)


class ReaderState:
    """What the reader's parts (:mod:`~opsbrain.bundle.timed`, :mod:`~opsbrain.bundle.statefiles`,
    :mod:`~opsbrain.bundle.assemble`) share while one bundle is read."""

    def __init__(self, scan: _Scan, keep: Keep | None = None) -> None:
        self.scan = scan
        self.keep = keep
        self.unkept = Light(len(scan.files))  # with keep: the lines read without a record (counted, spanned)
        self.light = self.unkept.dt  # their times (us): 8 bytes a line, where a list of ints holds 40
        self.origins: dict[int, str | None] = {}  # file index -> the origin of its lines read without a record
        self.kept: dict[int, bool] = {}  # with keep: keep's answer for the records of block-read files, by seq
        self.p = scan.p
        self.manifest: dict[str, Any] | None = None
        self.workers: dict[str, dict[str, Any]] = {}
        self.ip_node: dict[str, str] = {}
        self.processes: list[dict[str, Any]] = []
        self.placement: dict[str, list[str]] = {}
        self.metrics: dict[tuple[str, str], float] = {}
        self.links: list[dict[str, Any]] = []
        self.chip_scans: dict[str, ChipMapScan] = {}  # node -> its npu_info files' npu-smi tables (ingest.chipmap)
        self.optics: dict[tuple[str, int], Beyond] = {}  # (file, line as written) -> a lane beyond (transceivers)
        self.optic_files: set[str] = set()  # the files with such a line: each of their lines gets a record
        self.recovered: set[tuple[str, int]] = set()  # (file, line as written) of a recovered failure (benign)
        self.dated: list[Dated] = []
        self.minutes: dict[str, int | None] = {}  # BlockStamps' minutes, shared by the files of the bundle
        self.skipped = scan.skipped
        self.undated: list[_File] = []  # files with lines and no time stamp, placed once the others are read
        self.process_end: dict[str, int] = {}  # per worker, the last time stamp of its processes' logs (us)
        self.placed_files: list[dict[str, Any]] = []
        self.head_ref: datetime | None = None  # once set: the year of a logger's year-less head (timed.place_undated)
        self.ref_why = "the bundle's typical time (no process log has a time stamp)"  # reader._reference's source
        self.file_years: dict[str, list[tuple[int, float]]] = {}  # file -> its lines' stamps that write a year
        self.yearless: dict[str, dict[str, Any]] = {}  # file -> the year its year-less heads were read in, and why
        self.folded = 0  # lines of the timed files folded into the line before (a run of repeats), counted as read
        self.folded_dups = 0  # of them, copies of a record two files may both hold: counted as duplicates

    def _node(self, f: _File) -> str | None:
        w = f.kind.worker
        return self.workers[w]["node"] if w is not None else None


_BUCKET = 20
"""Bits of a microsecond time that :func:`kth` buckets on (~1 s)."""


def kth(values: list[int], more: array[int], k: int) -> int:
    """``sorted(values + list(more))[k]`` without that list of every line's time: the count of each ~1 s bucket
    (``>> _BUCKET``), then the values of the one bucket that holds the k-th, sorted."""
    counts = Counter(map(rshift, values, repeat(_BUCKET)))
    counts.update(map(rshift, more, repeat(_BUCKET)))
    below = 0
    for b in sorted(counts):
        if below + counts[b] > k:
            lo, hi = b << _BUCKET, (b + 1) << _BUCKET
            return sorted(x for x in chain(values, more) if lo <= x < hi)[k - below]
        below += counts[b]
    raise IndexError(k)
