"""Reading the bundle's state files: ``npu_info_{before,after}.txt`` (hccn_tool link records and link states,
npu-smi temperatures and HBM counters as metrics) and the collective jobs' rank tables (placement)."""

from __future__ import annotations

from typing import Any

from opsbrain.bundle.hosts import ip_to_node
from opsbrain.bundle.records import _TIE, ReaderState
from opsbrain.bundle.stamps import stamp, to_us
from opsbrain.bundle.walk import _File
from opsbrain.ingest.chipmap import ChipMapScan
from opsbrain.ingest.npuinfo import LINK_RECORD, NpuInfoScan
from opsbrain.ingest.transceivers import beyond_in
from opsbrain.yamlio import json_or_none

_HCCN_REC = LINK_RECORD  # (the name assemble.py and older tests use)


class StateFiles(ReaderState):
    """The reader's part that reads link states, metrics and placement."""

    def _optical(self, f: _File) -> None:
        """The lines of a file (of any kind read as lines) that print an optical lane beyond its module's own
        thresholds (:func:`opsbrain.ingest.transceivers.beyond_in`, the scanner ``--logs`` runs over the same
        lines; session 44, optbundle44): kept in :attr:`optics`, each such line to get a record."""
        found = beyond_in(f.stream())
        for b in found:
            self.optics[(f.rel, f.line_no(b.line_no))] = b
        if found:
            self.optic_files.add(f.rel)

    def _npu_info(self, f: _File, at: int | None = None, taken: int | None = None) -> None:
        """Link records, link states and metrics of an npu_info file; ``at``: the file's time, for the net-health
        and optical-module answers and the npu-smi table's health column of a real host's file (the rule
        of :mod:`opsbrain.ingest.npuinfo`, which ``--logs DIR`` reads these files by too: a device row saying Warning,
        Alarm, Critical or Abnormal is a line of the node, the row names its NPU; None: not read as lines);
        ``taken``: the file's time, for its lines printing an optical lane beyond its thresholds (:meth:`_optical`:
        read from every npu_info file, before and after, as ``--logs DIR`` reads them)."""
        node = self._node(f)
        when = f.kind.tag or "after"
        scan = NpuInfoScan()  # the rule --logs DIR reads these files by too (opsbrain.ingest.npuinfo)
        state: dict[int, str] = {}
        rows: set[tuple[str, str]] = set()  # metrics this file's table rows gave
        for i, raw in enumerate(f.lines, start=1):
            text = self.scan.clean(f, raw)
            got = scan.step(text)
            if f.rel in self.optic_files and text is not None and taken is not None and node is not None and (
                    f.rel, f.line_no(i)) in self.optics:  # (its signal: bundle.reader.signals_of)
                self.dated.append((taken, 0, f, i, text.strip(), node, "hccn", None, _TIE["hccn"]))
                continue
            if text is None or not got.ruled:
                continue
            if got.record:
                dt = to_us(stamp(text, "ctime"))
                if dt is not None and node is not None:
                    self.dated.append((dt, -1, f, i, text.strip(), node, "hccn", None, _TIE["hccn"]))
                continue
            if got.line and at is not None and node is not None:
                where = node if got.npu is None else f"{node}/npu{got.npu}"  # (npu-smi's -i: an NPU ID, read so
                # on A3 too: opsbrain.ingest.smihealth puts an NPU's chips' codes on the NPU)
                self.dated.append((at, 0, f, i, text.strip(), where, "hccn", None, _TIE["hccn"]))
            if got.state is not None:
                state[got.port] = got.state
            elif got.metric is not None and when == "after" and node is not None:
                name, part = got.metric
                key = (name, f"{node}/npu{got.metric_npu}{part}")
                if got.first:  # a table row: kept where a -t field gave it; on A3 the hotter of an NPU's dies
                    if key not in self.metrics or key in rows:
                        self.metrics[key] = max(got.value, self.metrics.get(key, got.value))
                        rows.add(key)
                else:
                    self.metrics[key] = got.value
        if node is not None:
            self.links.append({"file": f.rel, "node": node, "when": when, "state": state})

    def _real(self, f: _File) -> bool:
        """Whether the file is of a host the reader numbered (a real host, not the twin's own)."""
        return self.workers.get(f.kind.worker or "", {}).get("named_by") == "sorted order"

    def _chip_scan(self, f: _File) -> None:
        """The npu-smi tables of a real host's npu_info file, read before its lines are placed: which numbering
        the host's device ids use (:mod:`opsbrain.ingest.chipmap`, session 38)."""
        if (node := self._node(f)) is not None and self._real(f):
            self.chip_scans.setdefault(node, ChipMapScan()).feed(f.lines)  # (clean() counts junk: once, below)

    def _rank_table(self, f: _File) -> None:
        _ok, doc = json_or_none("\n".join(f.lines))
        servers: Any = doc.get("server_list") if isinstance(doc, dict) else None
        try:
            names = [str(s["server_id"]) for s in servers]
        except (KeyError, TypeError):  # not JSON, no list of servers, a server without an id
            self.scan.malformed[f.rel] += 1
            return
        nodes = []
        for ip in names:
            nid = self.ip_node.get(ip) or ip_to_node(ip) or f"ip:{ip}"
            if nid not in nodes:
                nodes.append(nid)
        self.placement[f.kind.tag or "job"] = nodes

