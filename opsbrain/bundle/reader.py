"""Read a log bundle (simulated or collected from a real cluster) and diagnose it with the simulator's engine.

:func:`read_bundle` walks the directory (up to ``max_depth`` levels, never following links), recognises files by
name (:func:`opsbrain.bundle.layout.classify`), parses their time stamps and ties each file to a node and device:

- worker directories become nodes: a directory (or, failing that, the host in its ``messages``) named like
  ``pod0-node35`` keeps that id; the others get ``pod0/node<k>`` in natural sort order (the smallest free k);
  the real names stay in the report and in the evidence;
- ``dev-os-<N>`` / ``device-<N>`` is device N of the worker (``pod0/node35/npu3``); a plog's first HCCL init line
  ties its process to a device, rank and server address; switch directories named like a switch host keep
  their chip id;
- syslog lines carry no year: it is taken from the other files' time stamps (the year that puts the line
  closest to them);
- ``dmesg`` kernel lines already in ``messages``, and history records already in the device-os log, are read
  once (same second, same text).

The reader only reads: lines (with time, origin, file and line), the rank table of the collective jobs' processes
(:class:`opsbrain.ingest.ranks.RankCollector` over the plogs and ``npu_info`` files), placement (rank tables) and
metrics (``npu_info_after.txt``); :func:`signals_of` turns lines into the ingestion layer's signals. Detection,
diagnosis and knowledge matching of a bundle live in :mod:`opsbrain.bundle.diagnose`.

Time stamps are :mod:`opsbrain.bundle.stamps`'s, the directory walk :mod:`opsbrain.bundle.walk`'s. Unknown files are
skipped and listed; symbolic links, special files, binary files, files over the size limit
and directories below the depth limit are refused and listed; malformed lines are counted. Nothing in a bundle
makes the reader raise, except a path that is not a readable directory.
"""

from __future__ import annotations

import gc
import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from opsbrain.bundle import layout as L
from opsbrain.bundle.stamps import (  # noqa: F401 - re-exported
    _STAMP_SCAN,
    _STYLE,
    BlockStamps,
    block_scan,
    dir_stamp,
    from_us,
    klog_stamp,
    stamp,
    syslog_stamp,
    to_us,
)
from opsbrain.bundle.walk import _File, _Scan
from opsbrain.errors import InputError
from opsbrain.ingest import Signal, parse_job_event, parse_line
from opsbrain.ingest.parsers import may_signal
from opsbrain.ingest.ranks import RankCollector, RankTable


# ---- what a bundle holds -------------------------------------------------------------------------------------------
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




_LEVEL = re.compile(r"^\[(\w+)\s*\]")
_SYSLOG_HOST = re.compile(r"^[A-Z][a-z]{2}\s+\d{1,2} \d\d:\d\d:\d\d (\S+) ")
_NODE_HOST = re.compile(r"pod(\d+)-node(\d+)")
_L1_HOST = re.compile(r"pod(\d+)-node(\d+)-l1sw(\d+)")
_L2_HOST = re.compile(r"pod(\d+)-l2plane(\d+)-sw(\d+)")
_INIT = re.compile(r"hcom init by file success.*?rankNum\[(\d+)\], rank\[(\d+)\], server\[([^\]]*)\], "
                   r"device\[(\d+)\]")
_JOB_EVENT = re.compile(r"job (\S+) event (\w+)(?: (\{.*\}))?\s*$")
_HCCN_REC = re.compile(r"\[devid (\d+)\]\s+\w{3} \w{3}\s+\d+ [\d:]+ \d{4}\s+LINK (UP|DOWN)")
_LINK_CMD = re.compile(r"^(?:\$ |\S*/)?hccn_tool -i (\d+) -link -g")
_LINK_STATE = re.compile(r"^link status: (\w+)")
_KV = re.compile(r"^([A-Za-z][A-Za-z ()]+?)\s*:\s*(\S+)")
_SMI_ROW = re.compile(r"^\|\s*(\d+)\s+\S+\s*\|\s*\S+\s*\|\s*\S+\s+([\d.]+)\s")
_TIE = {"device_os": 0, "switch": 0, "syslog": 0, "hccn": 0, "plog": 1, "train": 2, "device_plugin": 3, "job": 4}
"""Order of lines logged in the same instant: what a device or chip reports first, then the processes that see it,
then the agents that poll them, then the scheduler (the order the twin's fault models emit in)."""
Dated = tuple[int, int, "_File", int, str, "str | None", str, "str | None", int]
"""A line as read: time (integer microseconds, :func:`opsbrain.bundle.stamps.to_us`: sorted and subtracted as ints),
read order (-1: an hccn_tool link record), file, line number, text, origin, source, level, and its rank among lines of
the same instant (:data:`_TIE` of its source)."""
_TIES = max(_TIE.values()) + 2  # tie ranks (0 .. max, and the default 1) as one digit of the sort key
_DEDUPE_FIRST = frozenset({L.MESSAGES, L.DEVICE_OS, L.NPU_INFO})
_DEDUPE_SECOND = frozenset({L.DMESG, L.HISTORY})
_UPTIME = re.compile(r"^\[\s*\d+\.\d+\]\s*")
_DEV_PAYLOAD = re.compile(r"\[dev\d+\](.*)")
_IP_NODE = re.compile(r"^10\.(\d+)\.(\d+)\.(\d+)$")
_METRICS = {"NPU Temperature (C)": ("npu_temp_c", ""), "HBM Temperature (C)": ("hbm_temp_c", "/hbm"),
            "HBM Double Bit Isolated Pages Count": ("hbm_isolated_rows", "/hbm"),
            "HBM Single Bit Error Count": ("hbm_ce_total", "/hbm")}


def _natural(s: str) -> list[Any]:
    return [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", s)]


def host_to_id(host: str) -> str | None:
    """``pod0-node12`` -> ``pod0/node12``; ``pod0-node12-l1sw4`` / ``pod0-l2plane4-sw07`` -> the chip id."""
    if m := _L1_HOST.fullmatch(host):
        return f"pod{m[1]}/node{m[2]}/l1sw{m[3]}"
    if m := _L2_HOST.fullmatch(host):
        return f"pod{m[1]}/l2plane{m[2]}/sw{int(m[3]):02d}"
    if m := _NODE_HOST.fullmatch(host):
        return f"pod{m[1]}/node{m[2]}"
    return None


def ip_to_node(ip: str) -> str | None:
    """The twin's management-address convention (``faultlib.telemetry.formats.host_ip``) read backwards, as
    :func:`opsbrain.ingest.parse_line` does for ``remote[...]``."""
    m = _IP_NODE.match(ip)
    if not m or int(m[3]) < 1:
        return None
    return f"pod{int(m[1])}/node{int(m[2]) * 250 + int(m[3]) - 1}"


@dataclass
class BundleRead:
    """What :func:`read_bundle` found: lines (time-sorted), the worker map, placement, metrics, the report."""

    lines: list[BundleLine]
    placement: dict[str, list[str]]
    metrics: dict[tuple[str, str], float]
    report: dict[str, Any]
    ranks: RankTable = field(default_factory=lambda: RankTable([], {}))
    may: list[bool] | None = None
    """With ``keep`` (:func:`scan_bundle`): per line of ``lines``, what ``keep`` said of it (True for the lines it
    was not asked about: they take the exact per-line paths)."""


Keep = Callable[[list[str]], "list[bool] | None"]
"""Which lines of a block the caller needs (False: certain to be of no use to it): a block scan, as
:func:`opsbrain.bundle.diagnose._candidates`; None: all of them."""


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
    root = Path(path)
    if root.is_symlink():
        raise InputError("refusing to follow a symbolic link", file=str(root))
    if not root.is_dir():
        raise InputError("not a directory (a log bundle is a directory)", file=str(root))
    with paused_gc():
        scan = _Scan(root, p)
        scan.walk()
        return _Reader(scan, keep).build()


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


class _Reader:
    def __init__(self, scan: _Scan, keep: Keep | None = None) -> None:
        self.scan = scan
        self.keep = keep
        self.light: list[int] = []  # with keep: the times of the lines read without a record (counted, spanned)
        self.kept: dict[int, bool] = {}  # with keep: keep's answer for the records of block-read files, by seq
        self.p = scan.p
        self.manifest: dict[str, Any] | None = None
        self.workers: dict[str, dict[str, Any]] = {}
        self.ip_node: dict[str, str] = {}
        self.processes: list[dict[str, Any]] = []
        self.placement: dict[str, list[str]] = {}
        self.metrics: dict[tuple[str, str], float] = {}
        self.links: list[dict[str, Any]] = []
        self.dated: list[Dated] = []
        self.skipped = scan.skipped

    # ---- workers and names ------------------------------------------------------------------------------------
    def _map_workers(self) -> None:
        files = self.scan.files
        dirs = sorted({f.kind.worker for f in files if f.kind.worker is not None}, key=_natural)
        hosts: dict[str, Counter[str]] = defaultdict(Counter)
        for f in files:
            if f.kind.kind == L.MESSAGES:
                for ln in f.lines[:2000]:
                    if m := _SYSLOG_HOST.match(ln):
                        hosts[f.kind.worker or ""][m.group(1)] += 1
        taken: set[str] = set()
        named: dict[str, tuple[str, str]] = {}
        for d in dirs:
            base = d.rsplit("/", 1)[-1] if d else self.scan.root.name
            nid = host_to_id(base)
            how = "directory name"
            if nid is None or "/node" not in nid or nid.count("/") != 1:
                nid, how = None, ""
                for h, _n in hosts[d].most_common():
                    cand = host_to_id(h)
                    if cand and cand.count("/") == 1:
                        nid, how = cand, f"host name {h} in messages"
                        break
            if nid is not None and nid not in taken:
                taken.add(nid)
                named[d] = (nid, how)
        k = 0
        for d in dirs:
            if d in named:
                continue
            while f"pod0/node{k}" in taken:
                k += 1
            named[d] = (f"pod0/node{k}", "sorted order")
            taken.add(f"pod0/node{k}")
        for d in dirs:
            nid, how = named[d]
            self.workers[d] = {"dir": d or ".", "node": nid, "named_by": how,
                               "hosts": sorted(hosts[d]), "ips": [], "files": 0}
        for f in files:
            if f.kind.worker is not None:
                self.workers[f.kind.worker]["files"] += 1

    def _node(self, f: _File) -> str | None:
        w = f.kind.worker
        return self.workers[w]["node"] if w is not None else None

    def _host_ids(self) -> dict[str, str]:
        """Names a job event may use for a node: worker directory names and syslog host names."""
        out: dict[str, str] = {}
        for d, w in self.workers.items():
            out[(d.rsplit("/", 1)[-1] if d else self.scan.root.name)] = w["node"]
            for h in w["hosts"]:
                out.setdefault(h, w["node"])
        return out

    # ---- per file kind ------------------------------------------------------------------------------------------
    def build(self) -> BundleRead:
        files = self.scan.files
        for f in files:
            if f.kind.kind == L.MANIFEST_KIND:
                try:
                    m = json.loads("\n".join(f.lines))
                    self.manifest = m if isinstance(m, dict) else None
                except json.JSONDecodeError:
                    self.scan.malformed[f.rel] += 1
        self._map_workers()
        later: list[_File] = []
        seq = 0
        for f in files:
            k = f.kind.kind
            if k in (L.MANIFEST_KIND, L.RANK_TABLE):
                continue
            if k == L.ENV_TABLE:
                self.skipped.append({"path": f.rel, "reason": "performance table (environment_check): recognised, "
                                     "not read as log lines"})
                continue
            if k in (L.MESSAGES, L.SYSMON, L.VMCORE, L.NPU_INFO, L.VOLCANO):  # no year: it comes from the others
                later.append(f)
                continue
            seq = self._read_timed(f, seq)
        ref = self._reference()
        for f in later:
            if f.kind.kind == L.NPU_INFO:
                self._npu_info(f)
            else:
                seq = self._read_timed(f, seq, ref)
        for f in files:
            if f.kind.kind == L.RANK_TABLE:
                self._rank_table(f)
        ranks = RankCollector(self.scan.root.name)
        for f in files:
            if f.kind.kind in (L.PLOG, L.NPU_INFO):
                ranks.feed_lines(f.lines, f.rel)
        out = self._finish(ref)
        out.ranks = ranks.table()
        return out

    def _reference(self) -> datetime:
        """The bundle's typical time (median of the full time stamps): fixes syslog's missing year."""
        stamps = [d[0] for d in self.dated] + self.light
        if stamps:
            return from_us(sorted(stamps)[len(stamps) // 2])
        if self.manifest and isinstance(self.manifest.get("epoch"), str):
            try:
                return datetime.fromisoformat(self.manifest["epoch"])
            except ValueError:
                pass
        return datetime.now().replace(microsecond=0)  # noqa: DTZ005 - naive, as logs are

    def _read_timed(self, f: _File, seq: int, ref: datetime | None = None) -> int:
        kind = f.kind.kind
        node = self._node(f)
        origin: str | None = node
        source = L.SOURCE_OF_KIND.get(kind, f.kind.tag or "other")
        if kind in (L.DEVICE_OS, L.HISTORY, L.HISI_DUMP) and node is not None:
            origin = f"{node}/npu{f.kind.device}"
        elif kind == L.SWITCH:
            origin = (host_to_id(f.kind.tag) or f.kind.tag) if f.kind.tag else None
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
        last: int | None = to_us(dir_stamp(f.kind.tag)) if kind == L.HISI_DUMP else None
        clean, plain = self.scan.clean, f.plain
        syslog, klog = kind in (L.MESSAGES, L.SYSMON), kind == L.VOLCANO
        continued = kind in (L.TRAIN, L.PLOG, L.OTHER, L.HISI_DUMP, L.CANN_DEVICE)
        plog, history = kind == L.PLOG, kind == L.HISTORY
        untimed, dated, since = self.scan.untimed, self.dated, ref or datetime(1970, 1, 1)
        tie = _TIE.get(source, 1)
        block = block_scan(f.lines, style) if plain and not (syslog or klog or kind == L.VMCORE) else None
        if block is not None:
            return self._read_block(f, seq, block, BlockStamps(style), origin, source, tie, last, continued)
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
                dt = to_us(syslog_stamp(text, since))
            elif klog:
                dt = to_us(klog_stamp(text, since))
            else:
                dt = to_us(stamp(text, style))
            if dt is None:
                if last is None:
                    untimed[f.rel] += 1
                    continue
                dt = last  # a continuation line (traceback, wrapped message) takes the time of the line before
                if not continued:
                    untimed[f.rel] += 1
            last = dt
            level = m.group(1).upper() if text[:1] == "[" and (m := _LEVEL.match(text)) else None
            if history:
                level = "ERROR"
            if plog and "hcom init by file success" in text and (m := _INIT.search(text)):
                self._init_line(f, node, m)
            seq += 1
            dated.append((dt, seq, f, i, text, origin, source, level, tie))
        return seq

    def _read_block(self, f: _File, seq: int, found: list[tuple[str, str, str]], read: BlockStamps,
                    origin: str | None, source: str, tie: int, last: int | None, continued: bool) -> int:
        """:meth:`_read_timed` of a plain file whose levels and stamps one scan found (:func:`block_scan`): the same
        records, without a regex search a line; with keep, records of the wanted lines only (:meth:`_wanted`), the
        others leaving their time."""
        history, plog = f.kind.kind == L.HISTORY, f.kind.kind == L.PLOG
        node = self._node(f) if plog else None
        untimed, add, light, kept = self.scan.untimed, self.dated.append, self.light.append, self.kept
        stamps, levels = read.read(f.lines, found)
        wanted, may = self._wanted(f) or (None, None)
        for i, (raw, dt, level) in enumerate(zip(f.lines, stamps, levels, strict=True), start=1):
            if not raw or raw.isspace():
                continue
            if dt is None:
                if last is None:
                    untimed[f.rel] += 1
                    continue
                dt = last
                if not continued:
                    untimed[f.rel] += 1
            last = dt
            if plog and "hcom init by file success" in raw and (m := _INIT.search(raw)):
                self._init_line(f, node, m)
            seq += 1
            if wanted is None or wanted[i - 1]:
                add((dt, seq, f, i, raw, origin, source, "ERROR" if history else level, tie))
                if may is not None:
                    kept[seq] = may[i - 1]
            else:
                light(dt)
        return seq

    def _wanted(self, f: _File) -> tuple[list[bool], list[bool]] | None:
        """With keep: per line of a block-read file, whether it needs a record (keep marks it, or the reader needs
        it: a device record the history may repeat, :func:`_dup_key`) and keep's answer; None without keep, and for
        the files whose every line needs a record (job events, the history)."""
        if self.keep is None or f.kind.kind in (L.CLUSTERD, L.HISTORY):
            return None
        may = self.keep(f.lines)
        if may is None:
            return None
        if f.kind.kind == L.DEVICE_OS:
            return [m or "event_id=" in raw for m, raw in zip(may, f.lines, strict=True)], may
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

    def _npu_info(self, f: _File) -> None:
        node = self._node(f)
        when = f.kind.tag or "after"
        dev: int | None = None
        link_dev: int | None = None
        state: dict[int, str] = {}
        for i, raw in enumerate(f.lines, start=1):
            text = self.scan.clean(f, raw)
            if text is None:
                continue
            if m := _HCCN_REC.search(text):
                dt = to_us(stamp(text, "ctime"))
                if dt is not None and node is not None:
                    self.dated.append((dt, -1, f, i, text.strip(), node, "hccn", None, _TIE["hccn"]))
                continue
            if m := _LINK_CMD.match(text):
                link_dev = int(m.group(1))
                continue
            if (m := _LINK_STATE.match(text)) and link_dev is not None:
                state[link_dev] = m.group(1).upper()
                continue
            if when != "after" or node is None:
                continue
            if m := _SMI_ROW.match(text):
                self.metrics.setdefault(("npu_temp_c", f"{node}/npu{int(m.group(1))}"), float(m.group(2)))
                continue
            if m := _KV.match(text):
                key, val = m.group(1).strip(), m.group(2)
                if key == "NPU ID" and val.isdigit():
                    dev = int(val)
                elif key in _METRICS and dev is not None:
                    try:
                        v = float(val)
                    except ValueError:
                        continue
                    metric, suffix = _METRICS[key]
                    self.metrics[(metric, f"{node}/npu{dev}{suffix}")] = v
        if node is not None:
            self.links.append({"file": f.rel, "node": node, "when": when, "state": state})

    def _rank_table(self, f: _File) -> None:
        try:
            doc = json.loads("\n".join(f.lines))
            servers = doc["server_list"]
            names = [str(s["server_id"]) for s in servers]
        except (json.JSONDecodeError, KeyError, TypeError):
            self.scan.malformed[f.rel] += 1
            return
        nodes = []
        for ip in names:
            nid = self.ip_node.get(ip) or ip_to_node(ip) or f"ip:{ip}"
            if nid not in nodes:
                nodes.append(nid)
        self.placement[f.kind.tag or "job"] = nodes

    # ---- assembling ---------------------------------------------------------------------------------------------
    def _finish(self, ref: datetime) -> BundleRead:
        origin_dt = None
        if self.manifest and isinstance(self.manifest.get("epoch"), str):
            try:
                origin_dt = datetime.fromisoformat(self.manifest["epoch"])
            except ValueError:
                origin_dt = None
        logs = [d[0] for d in self.dated if d[1] >= 0] + self.light
        span = (from_us(min(logs)), from_us(max(logs))) if logs else None
        if origin_dt is None:
            first = span[0] if span else ref
            origin_dt = first.replace(microsecond=0)
        origin_us = to_us(origin_dt)
        lo, hi = (to_us(span[0]), to_us(span[1])) if span else (0, 0)
        records = self._dedupe()
        fed_links: set[tuple[str, int]] = set()
        lines: list[BundleLine] = []
        hosts = self._host_ids()
        may = self._may(records)
        kept_may: list[bool] | None = [] if may is not None else None
        unkept = 0
        for k, (dt, seq, f, i, text, origin, source, level, _tie) in enumerate(records):
            if seq < 0:  # a link change record of hccn_tool output: only those inside the logs' span
                if span is not None and not lo <= dt <= hi:
                    continue
                if (rec := _HCCN_REC.search(text)) and rec.group(2) == "DOWN" and origin:
                    fed_links.add((origin, int(rec.group(1))))
            t = (dt - origin_us) / 1_000_000  # timedelta.total_seconds(): the microseconds over 10**6
            job = None
            if f.kind.kind == L.CLUSTERD:
                job = self._job(text, hosts)
                if job is None:
                    continue
            if kept_may is not None and may is not None:
                if not may[k] and job is None:
                    unkept += 1  # read and counted; keep does not want it
                    continue
                kept_may.append(may[k])
            lines.append(BundleLine(t, origin, source, level, text, f.rel, i, job))
        if synthetic := self._link_changes(fed_links, origin_dt):
            lines += synthetic  # (the lines are in time order already: dedupe sorted them by time)
            order = sorted(range(len(lines)), key=lambda x: lines[x].t)  # stable: synthetic records join in time
            lines = [lines[x] for x in order]
            if kept_may is not None:
                kept_may = [(kept_may + [True] * len(synthetic))[x] for x in order]
        report = {
            "bundle": str(self.scan.root),
            "files": {"read": sum(1 for f in self.scan.files if f.kind.kind != L.ENV_TABLE),
                      "by_kind": dict(Counter(f.kind.kind for f in self.scan.files if f.kind.kind != L.ENV_TABLE))},
            "skipped": self.skipped, "refused": self.scan.refused,
            "lines": {"read": len(lines) + unkept + len(self.light), "malformed": sum(self.scan.malformed.values()),
                      "untimed": sum(self.scan.untimed.values()), "cut": sum(self.scan.cut.values()),
                      "duplicates": len(self.dated) - len(records)},
            "malformed_files": dict(self.scan.malformed.most_common(20)),
            "untimed_files": dict(self.scan.untimed.most_common(20)),
            "workers": list(self.workers.values()),
            "processes": self.processes[:200],
            "placement": self.placement,
            "time_origin": origin_dt.isoformat(),
            "span": {"first": span[0].isoformat(), "last": span[1].isoformat()} if span else None,
            "link_state": self.links,
            "metrics": len(self.metrics),
            "manifest": self.manifest,
        }
        return BundleRead(lines, self.placement, self.metrics, report, may=kept_may)

    def _may(self, records: list[Dated]) -> list[bool] | None:
        """With keep: its answer for each record (block-read files: given at reading; the others: asked now, of
        their texts at once; a line it cannot tell about is kept)."""
        if self.keep is None:
            return None
        ask = [k for k, d in enumerate(records) if d[1] not in self.kept]
        told = self.keep([records[k][4] for k in ask]) if ask else []
        may = [self.kept.get(d[1], True) for d in records]
        for k, m in zip(ask, told if told is not None else [True] * len(ask), strict=True):
            may[k] = m
        return may

    def _dedupe(self) -> list[Dated]:
        """Drop dmesg lines already in messages, history records already in the device log, and link records
        already seen in the other npu_info file (same node, second and text); the rest in time order (ties: see
        :data:`_TIE`, then as read)."""
        seen: set[tuple[Any, ...]] = set()
        first, second = [], []
        for d in self.dated:
            k = d[2].kind.kind
            if k in _DEDUPE_FIRST:
                first.append(d)
            elif k in _DEDUPE_SECOND:
                second.append(d)
        drop: set[int] = set()
        for d in first + second:
            key = _dup_key(d)
            if key is None:
                continue
            if key in seen:
                drop.add(id(d))
            else:
                seen.add(key)
        keep = [d for d in self.dated if id(d) not in drop] if drop else list(self.dated)
        if keep:  # by time, tie rank, read order: one integer each (comparing datetimes costs thrice as much)
            base, n = keep[0][0], max(d[1] for d in keep) + 2  # read order (seq) below n
            keep.sort(key=lambda d: ((d[0] - base) * _TIES + d[8]) * n + d[1] + 1)
        return keep

    def _job(self, text: str, hosts: dict[str, str]) -> tuple[str, str, dict[str, Any]] | None:
        m = _JOB_EVENT.search(text)
        if not m:
            return None
        detail: dict[str, Any] = {}
        if m.group(3):
            try:
                raw = json.loads(m.group(3))
                detail = raw if isinstance(raw, dict) else {}
            except json.JSONDecodeError:
                detail = {}
        return m.group(1), m.group(2), _unqualify(detail, hosts)

    def _link_changes(self, fed: set[tuple[str, int]], origin_dt: datetime) -> list[BundleLine]:
        """A RoCE port UP in npu_info_before and DOWN in npu_info_after, with no DOWN record in the logs' span,
        is a link-down (facts.md §7): one synthetic hccn record at the after file's time."""
        out: list[BundleLine] = []
        by_node: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
        for x in self.links:
            by_node[x["node"]][x["when"]] = x
        for node, pair in by_node.items():
            before, after = pair.get("before"), pair.get("after")
            if not before or not after:
                continue
            for dev, st in sorted(after["state"].items()):
                if st == "DOWN" and before["state"].get(dev) == "UP" and (node, dev) not in fed:
                    dt = self._file_time(after["file"]) or origin_dt
                    text = f"[devid {dev}]    {dt:%a %b} {dt.day:2d} {dt:%H:%M:%S %Y}    LINK DOWN"
                    out.append(BundleLine((dt - origin_dt).total_seconds(), node, "hccn", None, text,
                                          after["file"], 0))
        return out

    def _file_time(self, rel: str) -> datetime | None:
        f = next((x for x in self.scan.files if x.rel == rel), None)
        for ln in (f.lines if f else [])[:5]:
            if ("current time" in ln or ln.startswith("# collected")) and (
                    dt := stamp(ln, "ctime") or stamp(ln, "iso")):
                return dt
        return None


def _dup_key(d: Dated) -> tuple[Any, ...] | None:
    dt, _seq, f, _i, text, origin, _src, _lvl, _tie = d
    k = f.kind.kind
    sec = dt // 1_000_000
    if k == L.MESSAGES:
        head, sep, body = text.partition(" kernel: ")
        return ("kern", origin, sec, _UPTIME.sub("", body).strip()) if sep else None
    if k == L.DMESG:
        return ("kern", origin, sec, _UPTIME.sub("", text.split("] ", 1)[-1]).strip())
    if k == L.DEVICE_OS:
        m = _DEV_PAYLOAD.search(text)
        return ("dev", origin, sec, m.group(1).strip()) if m and "event_id=" in text else None
    if k == L.HISTORY:
        return ("dev", origin, sec, text.split("exception record: ", 1)[-1].strip())
    if k == L.NPU_INFO:
        return ("link", origin, text)
    return None


def _unqualify(value: Any, hosts: dict[str, str]) -> Any:
    """The inverse of :func:`opsbrain.bundle.writer.qualify`: ``<host>[/<rest>]`` -> ``<node id>[/<rest>]``."""
    if isinstance(value, str):
        host, sep, rest = value.partition("/")
        nid = hosts.get(host) or (host_to_id(host) if _NODE_HOST.fullmatch(host) else None)
        return nid + sep + rest if nid else value
    if isinstance(value, list):
        return [_unqualify(v, hosts) for v in value]
    if isinstance(value, dict):
        return {(_unqualify(k, hosts) if isinstance(k, str) else k): _unqualify(v, hosts) for k, v in value.items()}
    return value


# ---- signals (the ingestion layer) ----------------------------------------------------------------------------
def signals_of(lines: Iterable[BundleLine], placement: dict[str, list[str]], may: list[bool] | None = None
               ) -> tuple[list[Signal], dict[int, int]]:
    """Signals of the lines in order, and signal (by id) -> index of its line. ``may``: per line, False where no
    parser can find a signal (a block scan the caller ran); by default :func:`may_signal` of the lines."""
    sigs: list[Signal] = []
    where: dict[int, int] = {}
    lines = list(lines)
    if may is None or len(may) != len(lines):
        may = may_signal([ln.text for ln in lines])  # one scan of all the lines rules out most of them
    for k, ln in enumerate(lines):
        if ln.job is not None:
            got = parse_job_event(ln.job[0], ln.job[1], ln.job[2], ln.t, placement)
        elif may is None or may[k]:
            got = parse_line(ln.text, ln.t, ln.origin, ln.source, ln.level)
        else:
            continue
        for s in got:
            where[id(s)] = k
            sigs.append(s)
    return sigs, where
