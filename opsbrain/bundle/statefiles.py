"""Reading the bundle's state files: ``npu_info_{before,after}.txt`` (hccn_tool link records and link states,
npu-smi temperatures and HBM counters as metrics) and the collective jobs' rank tables (placement)."""

from __future__ import annotations

import re
from typing import Any

from opsbrain.bundle.hosts import ip_to_node
from opsbrain.bundle.records import _TIE, ReaderState
from opsbrain.bundle.stamps import stamp, to_us
from opsbrain.bundle.walk import _File
from opsbrain.ingest.parsers.device import RE_SMI_HEALTH
from opsbrain.ingest.parsers.hccn import RE_OPTICAL_ABSENT, RE_OPTICAL_LOSS
from opsbrain.yamlio import json_or_none

_HCCN_REC = re.compile(r"\[(?:devid|device) (\d+)\]\s+\w{3} \w{3}\s+\d+ [\d:]+ \d{4}\s+LINK (UP|DOWN)")
"""hccn_tool's link record (``[devid 3] ...``), and FaultDiag's check file's ``[device 3] ...`` form of it."""
_LINK_CMD = re.compile(r"^(?:\$ |\S*/)?hccn_tool -i (\d+) -link -g")
_QUERY_CMD = re.compile(r"^(?:\$ |\S*/)?hccn_tool -i (\d+) ")
_OPTICAL_CMD = re.compile(r"^(?:\$ |\S*/)?hccn_tool -i \d+ -optical -g")
"""``hccn_tool -i N -optical -g``: its answer's module presence and lane flags (``present : not present``, ``Rx Los
Flag : 0xff``, the lines :mod:`opsbrain.ingest.parsers.hccn` reads) are lines of the device queried, at the file's
time, up to the next command or blank line (the FaultDiag collection's layout)."""
_NET_HEALTH = re.compile(r"^net health status\s*:")
"""``hccn_tool -i N -net_health -g``'s answer (``net health status: Receive timeout``): a line the parsers read, of the
device the command queried, at the file's time (a real host's files; the twin writes link records and states)."""
_LINK_STATE = re.compile(r"^link status: (\w+)")
_KV = re.compile(r"^([A-Za-z][A-Za-z ()]+?)\s*:\s*(\S+)")
_SMI_ROW = re.compile(r"^\|\s*(\d+)\s+\S+\s*\|\s*\S+\s*\|\s*\S+\s+([\d.]+)\s")
_METRICS = {"NPU Temperature (C)": ("npu_temp_c", ""), "HBM Temperature (C)": ("hbm_temp_c", "/hbm"),
            "HBM Double Bit Isolated Pages Count": ("hbm_isolated_rows", "/hbm"),
            "HBM Single Bit Error Count": ("hbm_ce_total", "/hbm")}


class StateFiles(ReaderState):
    """The reader's part that reads link states, metrics and placement."""

    def _npu_info(self, f: _File, at: int | None = None) -> None:
        """Link records, link states and metrics of an npu_info file; ``at``: the file's time, for the net-health
        and optical-module answers and the npu-smi table's health column of a real host's file (:data:`_NET_HEALTH`,
        :data:`_OPTICAL_CMD`, :data:`~opsbrain.ingest.parsers.device.RE_SMI_HEALTH`: a device row saying Warning,
        Alarm, Critical or Abnormal is a line of the node, the row names its NPU; None: not read as lines)."""
        node = self._node(f)
        when = f.kind.tag or "after"
        dev: int | None = None
        link_dev: int | None = None
        queried: int | None = None
        state: dict[int, str] = {}
        optical = False
        for i, raw in enumerate(f.lines, start=1):
            text = self.scan.clean(f, raw)
            if text is None:
                optical = False  # (a blank line ends a command's answer)
                continue
            if m := _HCCN_REC.search(text):
                dt = to_us(stamp(text, "ctime"))
                if dt is not None and node is not None:
                    self.dated.append((dt, -1, f, i, text.strip(), node, "hccn", None, _TIE["hccn"]))
                continue
            if m := _QUERY_CMD.match(text):
                queried = int(m.group(1))
                optical = bool(_OPTICAL_CMD.match(text))
            elif optical and (RE_OPTICAL_ABSENT.search(text) or RE_OPTICAL_LOSS.search(text)):
                if at is not None and node is not None and queried is not None:
                    self.dated.append((at, 0, f, i, text.strip(), f"{node}/npu{queried}", "hccn", None,
                                       _TIE["hccn"]))
                continue
            if m := _LINK_CMD.match(text):
                link_dev = int(m.group(1))
                continue
            if at is not None and node is not None and queried is not None and _NET_HEALTH.match(text):
                self.dated.append((at, 0, f, i, text.strip(), f"{node}/npu{queried}", "hccn", None, _TIE["hccn"]))
                continue
            if at is not None and node is not None and RE_SMI_HEALTH.search(text):
                self.dated.append((at, 0, f, i, text.strip(), node, "hccn", None, _TIE["hccn"]))
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

