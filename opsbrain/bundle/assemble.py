"""Assembling a bundle read: records two files both hold read once (dmesg lines already in ``messages``, history
records already in the device-os log, link records of both npu_info files), the rest in time order (ties: the order
the twin's fault models emit in), times from the bundle's origin, job events and link changes read, and the report
of what was read, skipped and refused."""

from __future__ import annotations

import re
from array import array
from collections import Counter, defaultdict
from datetime import datetime
from typing import Any

from opsbrain.bundle import layout as L
from opsbrain.bundle.hosts import host_ids, unqualify
from opsbrain.bundle.records import _TIES, BundleLine, BundleRead, Dated, ReaderState
from opsbrain.bundle.stamps import from_us, stamp, to_us
from opsbrain.bundle.statefiles import _HCCN_REC
from opsbrain.bundle.viewlines import Entries, ViewLines
from opsbrain.ingest.chipmap import ChipMap
from opsbrain.ingest.npuinfo import down_ports, down_record
from opsbrain.yamlio import json_or_none

_JOB_EVENT = re.compile(r"job (\S+) event (\w+)(?: (\{.*\}))?\s*$")
_DEDUPE_FIRST = frozenset({L.MESSAGES, L.DEVICE_OS, L.NPU_INFO})
_DEDUPE_SECOND = frozenset({L.DMESG, L.HISTORY})
_UPTIME = re.compile(r"^\[\s*\d+\.\d+\]\s*")
_DEV_PAYLOAD = re.compile(r"\[dev\d+\](.*)")


class Assembly(ReaderState):
    """The reader's part that puts the records together into a :class:`~opsbrain.bundle.records.BundleRead`."""

    def _finish(self, ref: datetime) -> BundleRead:
        origin_dt = None
        if self.manifest and isinstance(self.manifest.get("epoch"), str):
            try:
                origin_dt = datetime.fromisoformat(self.manifest["epoch"])
            except ValueError:
                origin_dt = None
        logs = [d[0] for d in self.dated if d[1] >= 0]
        ends = ([min(logs), max(logs)] if logs else []) + ([min(self.light), max(self.light)] if self.light else [])
        span = (from_us(min(ends)), from_us(max(ends))) if ends else None
        if origin_dt is None:
            first = span[0] if span else ref
            origin_dt = first.replace(microsecond=0)
        origin_us = to_us(origin_dt)
        lo, hi = (to_us(span[0]), to_us(span[1])) if span else (0, 0)
        records = self._dedupe()
        fed_links: set[tuple[str, int]] = set()
        lines: list[BundleLine] = []
        hosts = host_ids(self.workers, self.scan.name)
        may = self._may(records)
        kept_may: list[bool] | None = [] if may is not None else None
        unkept = 0
        entries = Entries()
        for k, d in enumerate(records):
            dt, seq, f, i, text, origin, source, level, _tie = d
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
                    entries.add(d, -1)  # (the text look reads it: viewlines)
                    self.origins[f.index] = origin  # (its node, for the text look's cited lines: one a file)
                    continue
                kept_may.append(may[k])
            entries.add(d, len(lines))
            lines.append(BundleLine(t, origin, source, level, text, f.rel, f.line_no(i), job, f.copies(i)))
        made: list[int] = []
        if synthetic := self._link_changes(fed_links, origin_dt):
            lines += synthetic  # (the lines are in time order already: dedupe sorted them by time)
            order = sorted(range(len(lines)), key=lambda x: lines[x].t)  # stable: synthetic records join in time
            lines = [lines[x] for x in order]
            if kept_may is not None:
                kept_may = [(kept_may + [True] * len(synthetic))[x] for x in order]
            now = {x: k for k, x in enumerate(order)}
            entries.kept = array("q", [now[j] if j >= 0 else -1 for j in entries.kept])
            made = [now[j] for j in range(len(lines) - len(synthetic), len(lines))]
        report = {
            "bundle": str(self.scan.root),
            "read_from": {"kind": self.scan.tree.kind, "name": self.scan.name, "bytes": self.scan.bytes_read,
                          "decompressed_files": self.scan.decompressed},
            "limits": self.scan.limits,
            "files": {"read": sum(1 for f in self.scan.files if f.kind.kind != L.ENV_TABLE),
                      "by_kind": dict(Counter(f.kind.kind for f in self.scan.files if f.kind.kind != L.ENV_TABLE))},
            "skipped": self.skipped, "refused": self.scan.refused, "read_as_console": self.scan.consoles,
            "empty_files": sorted(self.scan.empty),
            "lines": {"read": len(lines) + unkept + len(self.light) + self.folded - self.folded_dups,
                      "folded": self.folded, "malformed": sum(self.scan.malformed.values()),
                      "untimed": sum(self.scan.untimed.values()), "placed": sum(self.scan.placed.values()),
                      "cut": sum(self.scan.cut.values()),
                      "duplicates": len(self.dated) - len(records) + self.folded_dups},
            "malformed_files": dict(self.scan.malformed.most_common(20)),
            "untimed_files": dict((+self.scan.untimed).most_common(20)),
            "placed_files": self.placed_files,
            "yearless": list(self.yearless.values()),
            "workers": list(self.workers.values()),
            "processes": self.processes[:200],
            "placement": self.placement,
            "time_origin": origin_dt.isoformat(),
            "span": {"first": span[0].isoformat(), "last": span[1].isoformat()} if span else None,
            "link_state": self.links,
            "metrics": len(self.metrics),
            "manifest": self.manifest,
        }
        view = ViewLines(entries, self.unkept, origin_us, self.scan.files, self.origins, lines, made)
        return BundleRead(lines, self.placement, self.metrics, report, view=view, may=kept_may, chips=self._chips())

    def _chips(self) -> dict[str, ChipMap]:
        """Each real host's numbering its npu-smi output shows (:mod:`opsbrain.ingest.chipmap`), also said in its
        worker entry (``numbering``); the twin's own nodes are A3 by their ids (``where.is_twin_node``)."""
        out: dict[str, ChipMap] = {}
        for w in self.workers.values():
            scan = self.chip_scans.get(w["node"])
            if w.get("named_by") == "sorted order" and scan is not None and (m := scan.result()) is not None:
                out[w["node"]] = m
                w["numbering"] = m.facts()
        return out

    def _may(self, records: list[Dated]) -> list[bool] | None:
        """With keep: its answer for each record (block-read files: given at reading; the others: asked now, of
        their texts at once; a line it cannot tell about is kept)."""
        if self.keep is None:
            return None
        ask = [k for k, d in enumerate(records) if d[1] not in self.kept]
        if self.optic_files:  # an optical lane's line: True, not asked
            ask = [k for k in ask if not self._optic(records[k])]
        told = self.keep([records[k][4] for k in ask]) if ask else []
        may = [self.kept.get(d[1], True) for d in records]
        for k, m in zip(ask, told if told is not None else [True] * len(ask), strict=True):
            may[k] = m
        return may

    def _optic(self, d: Dated) -> bool:
        """Whether the record's line prints an optical lane beyond its thresholds (:attr:`optics`)."""
        return d[2].rel in self.optic_files and (d[2].rel, d[2].line_no(d[3])) in self.optics

    def _dedupe(self) -> list[Dated]:
        """Drop dmesg lines already in messages, history records already in the device log, and link records
        already seen in the other npu_info file (same node, second and text); the rest in time order (ties: see
        :data:`~opsbrain.bundle.records._TIE`, then as read)."""
        seen: set[tuple[Any, ...]] = set()
        first, second = [], []
        optics = bool(self.optic_files)
        for d in self.dated:
            k = d[2].kind.kind
            if k in _DEDUPE_FIRST:
                first.append(d)
            elif k in _DEDUPE_SECOND:
                second.append(d)
        drop: set[int] = set()
        for d in first + second:
            key = _dup_key(d)
            if key is None or (optics and self._optic(d)):  # (two ports, or before and after, may print
                # the same figures: each a signal, as under --logs)
                continue
            self.folded_dups += d[2].copies(d[3]) - 1  # a folded run's copies: the same record, read once
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
            _ok, raw = json_or_none(m.group(3))
            detail = raw if isinstance(raw, dict) else {}
        return m.group(1), m.group(2), unqualify(detail, hosts)

    def _link_changes(self, fed: set[tuple[str, int]], origin_dt: datetime) -> list[BundleLine]:
        """A RoCE port UP in npu_info_before and DOWN in npu_info_after, with no DOWN record in the logs' span,
        is a link-down (facts.md §7): one synthetic hccn record at the after file's time. Without a before file
        (one snapshot collected), a port DOWN among ports mostly UP is one too (session 28: a node whose ports are
        all or mostly down is taken as not cabled for RoCE, no fault read from it)."""
        out: list[BundleLine] = []
        by_node: dict[str, dict[str, dict[str, Any]]] = defaultdict(dict)
        for x in self.links:
            by_node[x["node"]][x["when"]] = x
        for node, pair in by_node.items():
            before, after = pair.get("before"), pair.get("after")
            if not after:
                continue
            for dev in down_ports(before["state"] if before else None, after["state"]):  # (ingest.npuinfo's rule)
                if (node, dev) not in fed:
                    dt = self._file_time(after["file"]) or origin_dt
                    out.append(BundleLine((dt - origin_dt).total_seconds(), node, "hccn", None, down_record(dev, dt),
                                          after["file"], 0))
        return out

    def _file_time(self, rel: str) -> datetime | None:
        f = next((x for x in self.scan.files if x.rel == rel), None)
        head = (f.lines if f else [])[:5]
        if f is not None:
            f.release()
        for ln in head:
            if ("current time" in ln or ln.startswith("# collected")) and (
                    dt := stamp(ln, "ctime") or stamp(ln, "iso")):
                return dt
        for ln in head:  # the collection script's own stamp, its first line (ascend-fd's fixtures, the twin's files)
            if ln.startswith("Datetime:") and (dt := stamp(ln, "iso")):
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


