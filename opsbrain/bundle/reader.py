"""Read a log bundle (simulated or collected from a real cluster) and diagnose it with the simulator's engine.


:func:`read_bundle` walks the directory (up to ``max_depth`` levels, never following links), recognises files by
name (:func:`opsbrain.bundle.layout.classify`), parses their time stamps and ties each file to a node and device:

- worker directories become nodes (:mod:`opsbrain.bundle.hosts`): a directory (or, failing that, the host in its
  ``messages``) named like ``pod0-node35`` keeps that id; the others get ``pod0/node<k>`` in natural sort order (the
  smallest free k); the real names stay in the report and in the evidence;
- ``dev-os-<N>`` / ``device-<N>`` is device N of the worker (``pod0/node35/npu3``); a plog's first HCCL init line
  ties its process to a device, rank and server address; switch directories named like a switch host keep
  their chip id;
- syslog lines carry no year: it is taken from the other files' time stamps (the year that puts the line
  closest to them);
- ``dmesg`` kernel lines already in ``messages``, and history records already in the device-os log, are read
  once (same second, same text).

The reader only reads: lines (with time, origin, file and line), the rank table of the collective jobs' processes
(:class:`opsbrain.ingest.ranks.RankCollector` over the plogs, ``npu_info`` files and consoles, which print a
process's plog lines under ``ASCEND_SLOG_PRINT_TO_STDOUT=1``), placement (rank tables) and
metrics (``npu_info_after.txt``); :func:`signals_of` turns lines into the ingestion layer's signals. Detection,
diagnosis and knowledge matching of a bundle live in :mod:`opsbrain.bundle.diagnose`.

Its parts: the directory walk (:mod:`opsbrain.bundle.walk`), time stamps (:mod:`opsbrain.bundle.stamps`), names
(:mod:`opsbrain.bundle.hosts`), the timed log files (:mod:`opsbrain.bundle.timed`), the state files
(:mod:`opsbrain.bundle.statefiles`) and the assembly of the read (:mod:`opsbrain.bundle.assemble`); what a read holds
is :mod:`opsbrain.bundle.records`'s. Unknown files are skipped and listed; symbolic links, special files, binary
files, files over the size limit and directories below the depth limit are refused and listed; malformed lines are
counted. A bundle may be a directory or an archive (tar, plain or gzip/bzip2/xz-compressed, or zip), read in place
through the same walk (:mod:`opsbrain.ingest.archive`'s trees); compressed files are decompressed as they are read.
Nothing in a bundle makes the reader raise, except a path that is neither a readable directory nor an archive that
can be opened.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from opsbrain.bundle import layout as L
from opsbrain.bundle.assemble import Assembly, _dup_key  # noqa: F401 - re-exported
from opsbrain.bundle.hosts import host_to_id, ip_to_node, map_workers, unqualify  # noqa: F401 - re-exported
from opsbrain.bundle.records import _TIE, _TIES, BundleLine, BundleRead, Dated, Keep, kth  # noqa: F401 - re-exported
from opsbrain.bundle.stamps import (  # noqa: F401 - re-exported
    _STAMP_SCAN,
    _STYLE,
    BlockStamps,
    block_scan,
    dir_stamp,
    from_us,
    klog_stamp,
    latest_written,
    rotated_on,
    stamp,
    syslog_stamp,
    to_us,
)
from opsbrain.bundle.statefiles import StateFiles
from opsbrain.bundle.timed import _LEVEL, TimedFiles  # noqa: F401 - re-exported
from opsbrain.bundle.walk import _File, _Scan
from opsbrain.bundle.zones import file_zone, plan
from opsbrain.errors import InputError
from opsbrain.ingest import Signal, parse_job_event
from opsbrain.ingest.archive import ArchiveError, DirTree, Tree, open_tree
from opsbrain.ingest.chipmap import ChipMap
from opsbrain.ingest.derive import restatements_dropped, section_placed
from opsbrain.ingest.hostnames import unnamed_root
from opsbrain.ingest.linememo import ReadMemo
from opsbrain.ingest.parsers import may_signal
from opsbrain.ingest.parsers.device import SECTION_DEVICE
from opsbrain.ingest.ranks import RankCollector
from opsbrain.ingest.recovered import quiet_lines_in
from opsbrain.ingest.transceivers import Beyond, power_signal
from opsbrain.yamlio import json_or_none

_unqualify = unqualify  # the name the tests of the reader know


def read_bundle(path: str | Path, params: L.BundleParams | None = None) -> tuple[list[BundleLine], dict[str, Any]]:
    """The lines of a bundle with times and origins, and the report of what was read, skipped and refused."""
    r = scan_bundle(path, params)
    return r.lines, r.report


def scan_bundle(path: str | Path, params: L.BundleParams | None = None, keep: Keep | None = None) -> BundleRead:
    """Read a bundle. With ``keep``, ``lines`` holds only the lines ``keep`` marks (and those the reader itself needs
    a record of: job events, lines two files may both hold), with ``keep``'s answers in ``may``; the report still
    counts and spans every line, and the kept lines are exactly the full read's lines that ``keep`` marks, in the
    same order with the same values (the other lines cost one time stamp each, never a record)."""
    p = params or L.BundleParams()
    tree = open_bundle(path, p)
    try:
        with paused_gc():
            scan = _Scan(tree, p)
            scan.walk()
            if not (scan.files or scan.skipped or scan.refused):
                raise InputError("no file in the bundle: nothing to read (an empty directory or archive)",
                                 file=str(path))
            if scan.no_text():
                raise InputError(f"no log text in the bundle: its {len(scan.files)} "
                                 f"file{'s are' if len(scan.files) != 1 else ' is'} empty or blank", file=str(path))
            return _Reader(scan, keep).build()
    finally:
        tree.close()


def open_bundle(path: str | Path, p: L.BundleParams) -> Tree:
    """The bundle at ``path`` as a tree: a directory, or an archive (tar, compressed or not, or zip) read in place.
    Raises InputError for anything else, and for an archive that cannot be opened."""
    root = Path(path)
    if root.is_symlink() and not p.follow_links:
        raise InputError("refusing to follow a symbolic link (--follow-links reads it)", file=str(root))
    if root.is_dir():
        return DirTree(root, p.max_depth, p.follow_links)
    if not root.exists():  # said as --logs says it (session 42: "not a directory or an archive" of a typo)
        raise InputError("no such file or directory", file=str(root))
    if not root.is_file():
        raise InputError(f"not a directory or an archive ({ARCHIVES})", file=str(root))
    try:
        tree = open_tree(root, p.max_archive_bytes, p.max_members)
    except ArchiveError as exc:
        raise InputError(str(exc), file=str(root)) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=str(root)) from None
    if tree is None:
        raise InputError(f"not a directory or an archive ({ARCHIVES}); a single log file goes to --logs",
                         file=str(root))
    return tree


ARCHIVES = ".tar, .tar.gz/.tgz, .tar.bz2, .tar.xz, .zip"


@contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic garbage collector off while a bundle is read: reading makes a few objects per line (lines, times,
    records) and no reference cycles, and each of the collector's full passes would walk all of them again (a tenth
    of the reading time of a 100,000-line bundle). Reference counting still frees everything; the collector's
    previous state is restored."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class _Reader(TimedFiles, StateFiles, Assembly):
    """One read of one bundle: the timed files first, then those without a year, the state files and rank tables,
    the rank collector over the plogs, and the assembly."""

    def _map_workers(self) -> None:
        self.workers = map_workers(self.scan.files, self.scan.name)

    # ---- per file kind ------------------------------------------------------------------------------------------
    def build(self) -> BundleRead:
        """Every file in its turn; a packed file's lines are let go after each use (:meth:`_File.release`)."""
        files = self.scan.files
        for n, f in enumerate(files):
            f.index = n
        self.zones: dict[str, tuple[int | None, bool]] = {}  # file -> its first stamp's zone (bundle.zones)
        for f in files:
            if f.kind.kind == L.MANIFEST_KIND:
                ok, m = json_or_none("\n".join(f.lines))
                self.manifest = m if isinstance(m, dict) else None
                if not ok:
                    self.scan.malformed[f.rel] += 1
                f.release()
        self._map_workers()
        for f in files:
            if f.optical and f.kind.kind not in (L.MANIFEST_KIND, L.RANK_TABLE, L.ENV_TABLE):
                self._optical(f)  # (its bytes name a module's answer: ingest.transceivers.may_hold)
            if f.recovers:  # (its bytes name DCMI or a killed worker: walk) the lines --logs reads as no failure
                self.recovered.update((f.rel, n) for n in quiet_lines_in(f.stream(), f.line_no))
            f.release()
        later: list[_File] = []
        seq = 0
        for f in files:
            k = f.kind.kind
            if k in (L.MANIFEST_KIND, L.RANK_TABLE):
                continue
            if k == L.ENV_TABLE:
                what = f.kind.tag or "performance table (environment_check)"
                self.skipped.append({"path": f.rel, "reason": f"{what}: recognised, not read as log lines"})
                continue
            if k in (L.MESSAGES, L.SYSMON, L.VMCORE, L.NPU_INFO, L.VOLCANO):  # no year: it comes from the others
                later.append(f)
                continue
            seq = self._read_timed(f, seq)
            self.folded += f.folds.folded if f.folds else 0
            self._probe_zone(f)
            f.release()
        ref = self._reference()
        snapshot = {f.kind.worker for f in later if f.kind.kind == L.NPU_INFO and f.kind.tag != "before"}
        for f in later:
            if f.kind.kind == L.NPU_INFO:
                self._chip_scan(f)
        for f in later:
            if f.kind.kind == L.NPU_INFO:
                real = self._real(f)
                # the state at collection: the after file; a before file where it is the worker's one snapshot
                now = f.kind.tag != "before" or f.kind.worker not in snapshot
                taken = to_us(self._file_time(f.rel) or ref)
                self._npu_info(f, taken if real and now else None, taken)
            else:
                seq = self._read_timed(f, seq, ref)
                self.folded += f.folds.folded if f.folds else 0
            self._probe_zone(f)
            f.release()
        seq = self.place_undated(seq, ref)
        for f in files:
            if f.kind.kind == L.RANK_TABLE:
                self._rank_table(f)
                f.release()
        ranks = RankCollector("" if unnamed_root(self.scan.name) else self.scan.name)  # (a run's or logs' folder)
        if not self.scan.tree.archive:  # the directory given: its folders may name the job (rankjobs.job_marker)
            ranks.root_path = Path(self.scan.root).absolute().as_posix()
        for f in files:
            if f.kind.kind in (L.PLOG, L.CANN_DEVICE, L.HOST_SLOG, L.NPU_INFO, L.TRAIN, L.OTHER, L.MESSAGES, L.DMESG,
                               L.VMCORE, L.RANK_TABLE):  # (a rank table's servers and device addresses: _servers)
                ranks.feed_lines(f.stream(), f.rel, numbers=f.numbers())
                f.release()
        shift, zone_report, zone_notes = plan(self.zones, set(self.zones))
        if shift:  # onto the collection's local time (opsbrain.bundle.zones), before the records are put in order
            self.dated = [(d[0] + shift[d[2].rel] * 60_000_000, *d[1:]) if d[2].rel in shift else d
                          for d in self.dated]
            moved = {f.index: shift[f.rel] * 60_000_000 for f in files if f.rel in shift}
            for j, x in enumerate(self.unkept.fidx):  # (and the lines read without a record, as with one)
                if x in moved:
                    self.light[j] += moved[x]
        out = self._finish(ref)
        out.report["time_zone"] = zone_report
        out.report["limits"] = [*out.report["limits"], *zone_notes]
        out.ranks = ranks.table()
        out.optics = self.optics
        out.recovered = self.recovered
        return out

    def _probe_zone(self, f: _File) -> None:
        """The zone the file's first time stamp writes, if any (:func:`opsbrain.bundle.zones.file_zone`)."""
        if (z := file_zone(f.stream())) is not None:
            self.zones[f.rel] = z

    def _reference(self) -> datetime:
        """The bundle's typical time (median of the full time stamps): fixes syslog's missing year. Without a stamp:
        the manifest's epoch, the day a syslog file was rotated, the latest date-time a line of an undated file writes
        (:func:`latest_written`), else now."""
        stamps = [d[0] for d in self.dated]
        if n := len(stamps) + len(self.light):
            return from_us(kth(stamps, self.light, n // 2))
        if self.manifest and isinstance(self.manifest.get("epoch"), str):
            try:
                return datetime.fromisoformat(self.manifest["epoch"])
            except ValueError:
                pass
        if rotated := [d for f in self.scan.files if f.kind.kind == L.MESSAGES and (d := rotated_on(f.rel))]:
            return max(rotated)  # the latest day a syslog file was rotated: the current file's lines follow it
        if written := [d for f in self.undated if (d := latest_written(f.lines))]:
            self.ref_why = "the latest date-time a line of the bundle's undated files writes (no line has a stamp)"
            return max(written)  # a date a line writes (an event's alarmRaisedTime, a pod's Finished time)
        return datetime.now().replace(microsecond=0)  # noqa: DTZ005 - naive, as logs are


# ---- signals (the ingestion layer) ----------------------------------------------------------------------------
def signals_of(lines: Iterable[BundleLine], placement: dict[str, list[str]], may: list[bool] | None = None,
               real: frozenset[str] = frozenset(), chips: Mapping[str, ChipMap] | None = None,
               optics: Mapping[tuple[str, int], Beyond] | None = None,
               recovered: AbstractSet[tuple[str, int]] = frozenset()) -> tuple[list[Signal], dict[int, int]]:
    """Signals of the lines in order, and signal (by id) -> index of its line. ``may``: per line, False where no
    parser can find a signal (a block scan the caller ran); by default :func:`may_signal` of the lines. ``real``:
    the node ids the reader gave real hosts (:func:`real_nodes`), whose lines the twin's conventions do not read:
    their device ids are as written unless ``chips`` (:attr:`BundleRead.chips`) holds the host's numbering as its
    npu-smi output shows it (on Atlas A3 an id is a die's logical id, session 38). ``optics``
    (:attr:`BundleRead.optics`): the lines that print an optical lane beyond its module's thresholds, whose signals
    :func:`opsbrain.ingest.transceivers.power_signal` gives, as under ``--logs``. ``recovered``
    (:attr:`BundleRead.recovered`): (file, line) of the lines of a failure its program recovered from, which give no
    signal, as under ``--logs`` (:class:`opsbrain.ingest.recovered.RecoveredScan`)."""
    chips = chips or {}
    sigs: list[Signal] = []
    where: dict[int, int] = {}
    lines = list(lines)
    if may is None or len(may) != len(lines):
        may = may_signal([ln.text for ln in lines])  # one scan of all the lines rules out most of them
    parse = ReadMemo().parse  # a failed job's ranks repeat the same error lines: each shape parsed once
    for k, ln in enumerate(lines):
        if optics and (found := optics.get((ln.file, ln.line))) is not None:
            host = "/".join(ln.origin.split("/")[:2]) if ln.origin else None
            s = power_signal(found, ln.t, twin=chips.get(host, False) if host in real else None, origin=ln.origin)
            where[id(s)] = k
            sigs.append(s)
        if ln.job is not None:  # (a real host's event: its device ids as written, as its lines' below)
            named = ln.job[2].get("node")
            host = "/".join(named.split("/")[:2]) if isinstance(named, str) else None
            got = parse_job_event(ln.job[0], ln.job[1], ln.job[2], ln.t, placement,
                                  twin=chips.get(host, False) if host in real else None)
        elif may is None or may[k]:
            if recovered and (ln.file, ln.line) in recovered:
                continue
            host = "/".join(ln.origin.split("/")[:2]) if ln.origin else None
            got = parse(ln.text, ln.t, ln.origin, ln.source, ln.level,
                        twin=chips.get(host, False) if host in real else None)
        else:
            continue
        for s in got:
            where[id(s)] = k
            sigs.append(s)
    if tables := {lines[where[id(s)]].file for s in sigs if s.kind == SECTION_DEVICE}:
        # asys's health table: its rows are their section's device's; a row the logs hold is not a second fault
        placed = section_placed(sigs, key=lambda s: lines[where[id(s)]].file)
        where = {id(p): where[id(s)] for s, p in zip((s for s in sigs if s.kind != SECTION_DEVICE), placed,
                                                     strict=True)}
        sigs = restatements_dropped(placed, lambda s: lines[where[id(s)]].file in tables)
    return sigs, where


def real_nodes(workers: list[dict[str, Any]]) -> frozenset[str]:
    """The node ids of the workers the reader numbered (``pod0/node<k>`` in sorted order: real hosts, not the twin's
    named ``pod0-node35`` directories)."""
    return frozenset(w["node"] for w in workers if w.get("named_by") == "sorted order")
