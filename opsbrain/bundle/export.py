"""Export what the twin's operators saw in a time window as a log bundle in the real Ascend layout
(:func:`write_bundle`; the incident and run bundles built on it: :mod:`opsbrain.bundle.writer`, session 40).

The bundle holds the lines of the plant's telemetry hub (``sim.telemetry.logs``) in a time window, routed to the
file that would hold them on a real cluster by the line's origin and source (see :mod:`opsbrain.bundle.layout`):
a device-os line of ``pod0/node12/npu3`` goes to ``pod0-node12/device_log/slog/dev-os-3/...``, a syslog line of
``pod0/node12`` to ``pod0-node12/messages`` (kernel lines also to ``dmesg``; a panic only to kdump's
``crash/<ip>-<time>/vmcore-dmesg.txt``), a device-plugin line to
``pod0-node12/dl_log/devicePlugin/devicePlugin.log``, a switch line of a chip to ``lcne_log/<chip host>/log.log``.
The controller's placement becomes HCCL rank tables. A device event the black box records (a UCE) is also written
to ``hisi_logs/device-<N>/history.log`` in the black box's own layout. The twin's job events (crash, hang, restart,
...) are not written: no MindCluster component prints a line of that content (the former ``clusterd`` line,
``job <name> event <kind> {...}``, was the twin's own); a bundle shows a job's end only through what its ranks, their
devices and hosts print.
``environment_check`` holds hccn_tool / npu-smi output at the window start (before) and when the incident was
diagnosed (after): link change records, link state, temperatures, HBM error counters.
A host that is down (crashed, not yet back in service) cannot be logged in to: what a collection would fetch from it
then is absent, and the manifest says so (``not_collected``; docs/bundles.md "A host that is down").

Nothing in a bundle says whether a line came from an injected fault or background noise. The manifest
(``bundle.json``) records where the bundle came from; a reader never needs it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from bisect import bisect_left, bisect_right
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from faultlib import ids
from faultlib.telemetry import formats as fmt
from faultlib.telemetry.records import LogLine
from opsbrain.bundle import layout as L
from opsbrain.bundle.envcheck import npu_info
from opsbrain.errors import InputError
from opsbrain.ingest import parse_line

if TYPE_CHECKING:
    from faultlib.engine import Simulation

_PID = re.compile(r"^\[\w+\s*\] \w+\((\d+),")
_RANK = re.compile(r"\[rank(\d+)\]")
_DEVICE_IN_TEXT = re.compile(r"device_id=(\d+)|device\[(\d+)\]")
_HCCN_REC = re.compile(r"\[devid (\d+)\]\s(?:\s*\n)?.*LINK (UP|DOWN)")
NODE_IN = re.compile(r"pod\d+/node\d+")
_DEVICE_EVENT = re.compile(r"event_id=0x([0-9a-f]{8});.*? assertion=(\d)\[")
_PANIC = re.compile(r"Kernel panic - not syncing")


def _in_window(items: Sequence[Any], start: float, end: float) -> Sequence[Any]:
    """The records of a time-sorted sequence with ``start <= t <= end`` (two bisects)."""
    lo = bisect_left(items, start, key=lambda r: r.t)
    hi = bisect_right(items, end, key=lambda r: r.t)
    return items[lo:hi]


def crash_dump_path(worker: str, node: str, when: datetime) -> str:
    """Where kdump leaves a panicked host's kernel ring buffer: ``crash/<ip>-<YYYY-MM-DD-HH:MM:SS>/vmcore-dmesg.txt``
    (kexec-tools' default ``/var/crash/%HOST-%DATE``; ascend-fd's host-OS parser takes the fault time from that
    directory name). The panic never reaches ``messages`` or ``dmesg``: the host stops before syslog writes it and
    the ring buffer is gone after the reboot. The directory is stamped at the panic (the capture kernel's few
    seconds of boot are not modelled)."""
    return f"{worker}/crash/{fmt.host_ip(node)}-{when:%Y-%m-%d-%H:%M:%S}/vmcore-dmesg.txt"


def reachable(sim: Simulation, node: str, t: float) -> bool:
    """Whether a collection at ``t`` can log in to ``node``: not while its host is stopped (crashed, not yet back in
    service; :meth:`faultlib.state.PlantState.stopped_since`)."""
    return sim.state.stopped_since(node, t) is None


def host_of(cid: str) -> str:
    """The host name a component's logs carry (``pod0/node12/npu3`` -> ``pod0-node12``)."""
    return fmt.hostname(cid)


def qualify(value: Any) -> Any:
    """Component ids in a job event's detail as an operator's tools name them: ``pod0/node7/npu4`` ->
    ``pod0-node7/npu4`` (host, then the part on the host); lists and mappings element-wise."""
    if isinstance(value, str):
        node = ids.node_of(value) if "~" not in value else None
        if node is not None:
            return host_of(node) + value[len(node):]
        return value
    if isinstance(value, list | tuple):
        return [qualify(v) for v in value]
    if isinstance(value, dict):
        return {qualify(k) if isinstance(k, str) else k: qualify(v) for k, v in value.items()}
    return value


def placement_of(sim: Simulation) -> dict[str, list[str]]:
    """Where jobs and inference instances run (as :class:`opsbrain.controller.Controller` sees it)."""
    out = {name: list(w.nodes) for name, w in sim.workloads.items()}
    for w in sim.workloads.values():
        for inst, info in getattr(w, "instances", dict)().items():
            out[inst] = list(info["nodes"])
    return out


class _Files:
    """Lines per bundle-relative path, written at the end."""

    def __init__(self) -> None:
        self.lines: dict[str, list[str]] = defaultdict(list)
        self.raw: dict[str, str] = {}

    def add(self, path: str, line: str) -> None:
        self.lines[path].append(line)

    def write(self, root: Path) -> int:
        n = 0
        for rel, lines in self.lines.items():
            p = root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text("".join(x + "\n" for x in lines), encoding="utf-8")
            n += 1
        for rel, text in self.raw.items():
            p = root / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text(text, encoding="utf-8")
            n += 1
        return n


class _Export:
    def __init__(self, sim: Simulation, start_s: float, end_s: float, collect_s: float, nodes: Iterable[str],
                 l2: Iterable[str], placement: Mapping[str, list[str]]) -> None:
        self.sim = sim
        self.start_s, self.end_s = start_s, end_s
        self.collect_s = min(max(collect_s, start_s), end_s)
        self.nodes = sorted(set(nodes), key=_natural)
        self.node_set = set(self.nodes)
        self.l2 = set(l2)
        self.placement = dict(placement)
        self.files = _Files()
        self.stamp = L.stamp17(sim.wallclock(start_s))
        self.lines_out = 0
        self.switches: set[str] = set()
        # hosts down when their logs are fetched (the window's end): no folder, nor their board's L1 chips' logs
        self.down = {n for n in self.nodes if not reachable(sim, n, self.end_s)}
        # host -> what could not be fetched from it: its whole folder, or a check taken while it was down
        self.not_collected: dict[str, list[str]] = {host_of(n): ["folder"] for n in sorted(self.down, key=_natural)}

    # ---- routing ------------------------------------------------------------------------------------------
    def _switch_in_scope(self, line: LogLine) -> bool:
        node = ids.node_of(line.origin)
        if node is not None:
            return node in self.node_set and node not in self.down  # an L1 chip on a node's (powered) board
        if line.origin in self.l2:
            return True
        for s in parse_line(line.text, line.t, line.origin, line.source, line.level):
            if s.component and any(n in self.node_set for n in NODE_IN.findall(s.component)):
                return True
        return False

    def route(self, lines: Iterable[LogLine]) -> None:
        plog: dict[str, dict[int, list[LogLine]]] = defaultdict(lambda: defaultdict(list))
        for ln in lines:
            if ln.source == "switch":
                if self._switch_in_scope(ln):
                    self.switches.add(ln.origin)
                    self.files.add(L.switch_path(host_of(ln.origin)), ln.text)
                    self.lines_out += 1
                continue
            node = ids.node_of(ln.origin)
            if node not in self.node_set or node in self.down:
                continue
            w = host_of(node)
            self.lines_out += 1
            if ln.source == "syslog":
                head, sep, body = ln.text.partition(" kernel: ")
                if sep and _PANIC.search(body):
                    self.files.add(crash_dump_path(w, node, self.sim.wallclock(ln.t)), body)
                    continue
                self.files.add(f"{w}/messages", ln.text)
                if sep:
                    self.files.add(f"{w}/dmesg", fmt.dmesg_t(self.sim.wallclock(ln.t), body))
            elif ln.source == "device_os":
                m = _DEVICE_IN_TEXT.search(ln.text)  # the A3 logical device whose OS wrote it (else its NPU's die 0)
                dev = int(next(g for g in m.groups() if g)) if m else fmt.device_index(ln.origin)
                self.files.add(L.device_os_path(w, dev, self.stamp), ln.text)
                if (ev := _DEVICE_EVENT.search(ln.text)) and (rec := fmt.history_record(
                        self.sim.wallclock(ln.t), ev.group(1), assertion=ev.group(2) != "0")):  # 1, 2: occurs
                    self.files.add(L.history_path(w, dev), rec)
            elif ln.source == "plog":
                m = _PID.match(ln.text)
                plog[w][int(m.group(1)) if m else 0].append(ln)
            elif ln.source == "train":
                m = _RANK.search(ln.text)
                name = f"rank-{m.group(1)}.log" if m else f"worker-{ids.index(node, 'node')}.log"
                self.files.add(f"{w}/{name}", ln.text)
            elif ln.source == "device_plugin":
                path = L.noded_path(w) if "nodeagent/" in ln.text else L.plugin_path(w)
                self.files.add(path, ln.text)
            elif ln.source == "hccn":
                pass  # link change records: environment_check (hccn_tool -link_stat output)
            else:
                self.files.add(L.other_path(w, ln.source), ln.text)
        for node in self.nodes:
            if node not in self.down:
                self._plogs(node, plog.get(host_of(node), {}))

    # ---- CANN process logs -----------------------------------------------------------------------------
    def _ranks(self) -> dict[str, tuple[str, int, int]]:
        """NPU -> (job or instance, rank, rank count); a training job before the instances it may overlap."""
        out: dict[str, tuple[str, int, int]] = {}
        topo = self.sim.topology
        for name, nodes in self.placement.items():
            ranks = [n for nd in nodes for n in topo.npus_of(nd)]
            for r, npu in enumerate(ranks):
                out.setdefault(npu, (name, r, len(ranks)))
        return out

    def _plogs(self, node: str, by_pid: dict[int, list[LogLine]]) -> None:
        w = host_of(node)
        ranks = self._ranks()
        t0 = self.sim.wallclock(self.start_s)
        procs: dict[int, int] = {}  # pid -> device
        for npu in self.sim.topology.npus_of(node):
            if npu in ranks:
                procs[fmt.pid_of(npu)] = fmt.device_index(npu)
        for pid, lines in by_pid.items():
            if pid not in procs:
                m = next((m for ln in lines if (m := _DEVICE_IN_TEXT.search(ln.text))), None)
                procs[pid] = int(next(g for g in m.groups() if g)) if m else 0
        for pid, dev in sorted(procs.items()):
            npu = fmt.npu_of_device(node, dev)
            job, rank, n = ranks.get(npu, ("", 0, 1))
            path = L.plog_path(w, pid, self.stamp)
            self.files.add(path, fmt.plog_hcom_init(t0, pid, pid + 1, n, rank, fmt.host_ip(node), dev))
            for ln in by_pid.get(pid, []):
                self.files.add(path, ln.text)
            # no closing line: the twin's former 'log bundle collected, process log flushed' (runtime.cc:1520) is in
            # no CANN source or log

    # ---- environment_check ----------------------------------------------------------------------------------
    def env_checks(self, hccn: Mapping[str, list[tuple[float, int, bool]]],
                   device_lines: Mapping[str, list[LogLine]]) -> None:
        for node in self.nodes:
            if node in self.down:
                continue
            w = host_of(node)
            for when, t in (("before", self.start_s), ("after", self.collect_s)):
                if not reachable(self.sim, node, t):  # npu-smi and hccn_tool run on the host: nothing ran them
                    self.not_collected.setdefault(w, []).append(f"npu_info_{when}")
                    continue
                recs = [r for r in hccn.get(node, []) if r[0] <= t]
                devs = [ln for ln in device_lines.get(node, []) if ln.t <= t]
                self.files.raw[L.npu_info_path(w, when)] = npu_info(self.sim, node, t, recs, devs,
                                                                 mapping=when == "before")

    def rank_tables(self) -> None:
        """The HCCL rank table of each job and instance (``cluster/.../rank_table``)."""
        topo = self.sim.topology
        for name, nodes in self.placement.items():
            servers = []
            r = 0
            for nd in nodes:
                devs = []
                for npu in topo.npus_of(nd):
                    k = fmt.device_index(npu)
                    devs.append({"device_id": str(k), "device_ip": _device_ip(nd, k), "rank_id": str(r)})
                    r += 1
                servers.append({"server_id": fmt.host_ip(nd), "device": devs, "host_nic_ip": "reserve"})
            table = {"version": "1.0", "status": "completed", "server_count": str(len(servers)),
                     "server_list": servers}
            self.files.raw[L.rank_table_path(name)] = json.dumps(table, indent=1) + "\n"


def _device_ip(node: str, dev: int) -> str:
    return f"192.168.{ids.index(node, 'node')}.{dev + 1}"


def _natural(s: str) -> list[Any]:
    return [int(x) if x.isdigit() else x for x in re.split(r"(\d+)", s)]


# ---- one bundle ----------------------------------------------------------------------------------------------------
def write_bundle(out_dir: str | Path, sim: Simulation, *, start_s: float, end_s: float, nodes: Iterable[str],
                 l2: Iterable[str] = (), collect_s: float | None = None,
                 placement: Mapping[str, list[str]] | None = None, meta: Mapping[str, Any] | None = None
                 ) -> dict[str, Any]:
    """Write the telemetry of ``sim`` in ``[start_s, end_s]`` for ``nodes`` (and the switch chips that report on
    them, and the L2 chips ``l2``) as a bundle in ``out_dir`` (created; it must not exist or be empty).

    ``collect_s`` is when ``npu_info_after.txt`` was taken (default ``end_s``). Returns the manifest."""
    out = Path(out_dir)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise InputError("exists and is not an empty directory; refusing to overwrite", file=str(out))
    ex = _Export(sim, max(0.0, start_s), min(end_s, sim.now), end_s if collect_s is None else collect_s,
                 nodes, l2, placement if placement is not None else placement_of(sim))
    logs = sim.telemetry.logs
    window = _in_window(logs, ex.start_s, ex.end_s)
    ex.route(window)
    hccn: dict[str, list[tuple[float, int, bool]]] = defaultdict(list)
    device_lines: dict[str, list[LogLine]] = defaultdict(list)
    for ln in _in_window(logs, 0.0, max(ex.collect_s, ex.start_s)):
        node = ids.node_of(ln.origin)
        if node not in ex.node_set:
            continue
        if ln.source == "hccn" and (m := _HCCN_REC.search(ln.text)):
            hccn[node].append((ln.t, int(m.group(1)), m.group(2) == "UP"))
        elif ln.source == "device_os":
            device_lines[node].append(ln)
    ex.env_checks(hccn, device_lines)
    ex.rank_tables()
    wall = sim.wallclock
    manifest = {
        "format": L.BUNDLE_FORMAT, "generator": _generator(), "epoch": wall(0.0).isoformat(),
        "window": {"start": wall(ex.start_s).isoformat(), "end": wall(ex.end_s).isoformat(),
                   "start_s": ex.start_s, "end_s": ex.end_s, "collected": wall(ex.collect_s).isoformat(),
                   "collected_s": ex.collect_s},
        "workers": {host_of(n): {"node": n, "ip": fmt.host_ip(n)} for n in ex.nodes if n not in ex.down},
        "switches": {host_of(s): s for s in sorted(ex.switches)},
        "lines": ex.lines_out, **({"not_collected": ex.not_collected} if ex.not_collected else {}),
        **dict(meta or {}),
    }
    ex.files.raw[L.MANIFEST] = json.dumps(manifest, indent=1, sort_keys=True, default=str) + "\n"
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        manifest["files"] = ex.files.write(tmp)
        if out.exists():
            out.rmdir()
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return manifest


def _generator() -> str:
    from opsbrain import __version__

    return f"opsbrain {__version__}"
