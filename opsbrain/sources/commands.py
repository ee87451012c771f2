"""A directory of collected command outputs as a telemetry source (``--source commands --dir DIR``).

Layout: ``DIR/<host>/<any file>`` (one sub-directory per host, its name the host as the ingestion layer writes
it), or files directly in ``DIR`` for one unnamed host. A file may be compressed (gzip, bzip2, xz) or an archive
(tar, compressed or not, zip), read as ``diagnose --logs`` reads it (:func:`opsbrain.ingest.bytelines.read_members`): an
archive stands for its members at its own place (``DIR/all.tar.gz`` holding ``node3/npu-smi.txt`` is host
``node3``'s; ``DIR/node3/out.tar.gz`` holding ``npu-smi.txt`` too). Each file holds one or more command outputs (see
:mod:`opsbrain.ingest.commands`). The collection time is the newest file's modification time: re-collect into
the same directory and the next sweep sees the change (windowed checks need two collections).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from opsbrain.errors import InputError
from opsbrain.ingest.archive import READ_ERRORS, ArchiveError
from opsbrain.ingest.commands import CommandReadings, parse_command_file
from opsbrain.ingest.dirwalk import check_listable, log_files
from opsbrain.ingest.healthstates import code_of, worse
from opsbrain.ingest.signal import Signal
from opsbrain.ingest.text import TextStats, read_members
from opsbrain.ingest.where import node_component
from opsbrain.sources.base import ReadingsSource
from opsbrain.sources.exporter_ports import PORT_COUNTERS
from opsbrain.sources.freshness import Collected, collection_time, iso, mark_stale
from opsbrain.sources.readings import Readings
from opsbrain.sweeps.params import SweepParams
from opsbrain.sweeps.sweep import SweepReport

COMMAND_COVERS = frozenset({"npu_temp", "npu_health", "hbm_ce", "hbm_uce", "hbm_rows", "dom_rx", "dom_tx", "dom_bias",
                            "dom_snr", "dom_spread", "dom_trend", "link_light", "link_downs", "link_crc",
                            "roce_errors"})
_OPTICAL = ("hccn_tool -i N -optical -g",)
COMMAND_FEEDS: dict[str, tuple[str, ...]] = {
    "npu_temp": ("npu-smi info",), "npu_health": ("npu-smi info", "npu-smi info -t health -i N"),
    **{c: ("npu-smi info -i N -t ecc",) for c in ("hbm_ce", "hbm_uce", "hbm_rows")},
    **{c: _OPTICAL for c in ("dom_rx", "dom_tx", "dom_bias", "dom_snr", "dom_spread", "dom_trend")},
    "link_light": (*_OPTICAL, "hccn_tool -i N -link -g", "hccn_tool -i N -net_health -g"),
    "link_downs": ("hccn_tool -i N -link_stat -g", "hccn_tool -i N -link -g"),
    "link_crc": ("hccn_tool -i N -stat -g",), "roce_errors": ("hccn_tool -i N -stat -g",)}
"""The commands whose outputs feed each check (docs/real-cluster.md, "Collected command outputs -> checks"), named
when a collection fed a check nothing (``coverage.not_fed``; session 42)."""
STAT_COUNTERS = {name.removeprefix("npu_chip_"): short for name, short in PORT_COUNTERS.items()}
"""``hccn_tool -i N -stat -g``'s counters npu-exporter publishes as ``npu_chip_<name>`` (collector_for_roce.go), kept
under the same short names (``Readings.port_counters``: the ``roce_errors`` check, an increase between collections);
its ``mac_rx_fcs_err_pkt_num``, the exporter's ``npu_chip_info_rx_fcs_num``, is the port's CRC errors
(``link_crc``). Session 37."""
FCS = "mac_rx_fcs_err_pkt_num"
if TYPE_CHECKING:
    from faultlib.engine import Simulation

MAX_FILE_BYTES = 16 << 20
MAX_COLLECTED_SHOWN = 1000
"""Nodes listed in ``coverage.collected`` (a SuperPod has 48 nodes; a report is not the place for ten thousand)."""


def readings_of(parts: list[CommandReadings], t: float) -> Readings:
    """One collection from the parsed files of every host."""
    r = Readings(t, covers=set(COMMAND_COVERS))
    notes: dict[str, tuple[int, str]] = {}
    for c in parts:
        node = node_component(c.host)

        def npu(dev: int, node: str | None = node) -> str:
            return f"{node}/npu{dev}" if node else f"npu{dev}"

        for dev, v in c.npu_temp_c.items():
            r.npu_temp_c[npu(dev)] = v
        health: dict[int, int] = {}
        for dev, state in [*c.npu_health.items(), *c.health_status.items()]:  # the table's and -t health's: the worse
            if (code := worse(code_of(state), health.get(dev))) is not None:  # "NA": not read
                health[dev] = code
        for dev, rank in health.items():
            r.npu_health[npu(dev)] = rank
        for dev, codes in c.fault_codes.items():  # per file, as its other values (a later file's kept)
            r.npu_fault_codes[npu(dev)] = list(codes)
        for reason, example in c.notes:
            n, first = notes.get(reason, (0, f"{c.host}: {example}" if c.host else example))
            notes[reason] = (n + 1, first)
        for dev, v in c.hbm_ce_total.items():
            r.hbm_ce_total[npu(dev) + "/hbm"] = v
        for dev, v in c.hbm_ue_total.items():
            r.hbm_ue_total[npu(dev) + "/hbm"] = v
        for dev, v in c.hbm_rows.items():
            r.hbm_rows[npu(dev) + "/hbm"] = v
        for dev, fields in c.optics.items():
            link = npu(dev) + "/port"
            r.optics[link + "/xcvr"] = fields
            r.module_link[link + "/xcvr"] = link
        for dev, times in c.link_down_times.items():
            r.link_down_times.setdefault(npu(dev) + "/port", []).extend(times)
        for dev, down in c.link_down.items():
            r.link_oper_down[npu(dev) + "/port"] = down
        for dev, bad in c.net_unhealthy.items():
            r.link_net_unhealthy[npu(dev) + "/port"] = bad
        for dev, stats in c.port_stats.items():
            for name, value in stats.items():
                if name == FCS:
                    r.link_crc_total[npu(dev) + "/port"] = float(value)
                elif (short := STAT_COUNTERS.get(name)) is not None:
                    r.port_counters.setdefault(short, {})[npu(dev) + "/port"] = float(value)
    r.notes = [f"{n} {reason} (first: {ex})" for reason, (n, ex) in notes.items()]
    return r


class CommandDirSource(ReadingsSource):
    """Collected ``npu-smi`` / ``hccn_tool`` outputs under a directory."""

    def __init__(self, root: str | Path) -> None:
        super().__init__()
        self.root = Path(root)
        if not self.root.exists():  # session 42: a typo was "not a directory"
            raise InputError("no such directory", file=str(root), path="--dir")
        if not self.root.is_dir():
            raise InputError("not a directory", file=str(root), path="--dir")
        check_listable(self.root, "--dir")
        self.name = f"commands {self.root}"
        self.signals: list[Signal] = []
        self.stats = TextStats()
        self.collected: dict[str, Collected] = {}
        """Node id ("" for files of no host) -> the collection time of its newest output."""
        self.stale_after_s = SweepParams().outputs_stale_s

    def covers(self) -> frozenset[str]:
        return COMMAND_COVERS

    def unfed_reason(self, check: str) -> str:
        cmds = COMMAND_FEEDS.get(check, ())
        return "no reading for it in this collection" + (
            f": no output of {' or '.join(repr(c) for c in cmds)} read" if cmds else "")

    def collect(self) -> Readings:
        parts = []
        self.signals = []
        self.stats = TextStats()
        self.collected = {}
        now = time.time()
        for path, rel in log_files(self.root, self.stats):
            try:
                st = path.stat()
                if st.st_size > MAX_FILE_BYTES:
                    self.stats.not_read.append(f"{rel}: {st.st_size} bytes, more than {MAX_FILE_BYTES}")
                    continue
                for label, inner, u in read_members(path, rel, self.stats, MAX_FILE_BYTES, level=2):
                    where = f"{rel.rpartition('/')[0]}/{inner}".lstrip("/") if inner else rel
                    host = where.split("/", 1)[0] if "/" in where else None
                    text = u.read().decode("utf-8", "replace")
                    got_all = [g for g in parse_command_file(text, host, label) if g.commands]
                    self.stats.files += bool(got_all)
                    for got in got_all:  # a prompt's host (``root@worker-3:~# npu-smi info``) is its commands'
                        parts.append(got)
                        self.signals.extend(got.signals)
                        when = collection_time(text, st.st_mtime, now)
                        node = node_component(got.host) or ""
                        if node not in self.collected or when.t > self.collected[node].t:
                            self.collected[node] = when  # a node's newest output: its collection
            except ArchiveError as exc:
                self.stats.not_read.append(f"{rel}: {exc}: not read")
            except (OSError, *READ_ERRORS) as exc:
                self.stats.not_read.append(f"{rel}: {getattr(exc, 'strerror', None) or exc}")
        if not parts:
            unread = f"; not read: {'; '.join(self.stats.not_read[:3])}" if self.stats.not_read else ""
            raise InputError("no npu-smi or hccn_tool output found (each file starts with its command line)" + unread,
                             file=str(self.root), path="--dir")
        failed = failed_hosts(parts)
        self.not_read = self.stats.not_read + failed
        if failed and not any(c.size() for c in parts):
            raise InputError(f"no host's outputs could be read; {failed[0]}", file=str(self.root), path="--dir")
        return readings_of(parts, max(c.t for c in self.collected.values()))

    def finish(self, report: SweepReport, params: SweepParams) -> SweepReport:
        """Findings on nodes whose outputs are older than ``params.outputs_stale_s`` marked stale
        (:func:`~opsbrain.sources.freshness.mark_stale`)."""
        now = time.time()
        self.stale_after_s = params.outputs_stale_s
        stale = {n: c for n, c in self.collected.items() if now - c.t > params.outputs_stale_s}
        return mark_stale(report, stale, params.outputs_stale_s, now)

    def coverage(self) -> dict[str, Any]:
        """As :meth:`ReadingsSource.coverage`, with each node's collection time (``collected``) and how it was
        known."""
        now = time.time()
        bound = self.stale_after_s
        return {**super().coverage(), "collected": [
            {"node": n or None, "at": iso(c.t), "age_s": round(now - c.t, 1), "from": c.how,
             "stale": now - c.t > bound} for n, c in sorted(self.collected.items())][:MAX_COLLECTED_SHOWN],
            "stale_after_s": bound}


MAX_FAILED_SHOWN = 3
"""Failed commands named per host in ``coverage.not_read`` (the rest counted)."""


def failed_hosts(parts: list[CommandReadings]) -> list[str]:
    """One line per host whose tools failed (``CommandReadings.failed``), with the tool's own error line: a host that
    read nothing at all is not read (its components not swept), as an exporter that cannot be read; a host that
    read something names its failed commands."""
    by_host: dict[str | None, list[CommandReadings]] = {}
    for c in parts:
        by_host.setdefault(c.host, []).append(c)
    out = []
    for host, got in by_host.items():
        failed = [f for c in got for f in c.failed]
        if not failed:
            continue
        name = host or "(the directory's own files)"
        shown = "; ".join(f"{cmd}: {line!r}" for cmd, line in failed[:MAX_FAILED_SHOWN])
        more = f" (and {len(failed) - MAX_FAILED_SHOWN} more)" if len(failed) > MAX_FAILED_SHOWN else ""
        what = "nothing read, its tools failed" if not any(c.size() for c in got) else "some commands failed"
        out.append(f"host {name}: {what}: {shown}{more}")
    return out


# ---- the twin's nodes as collected command outputs -------------------------------------------------------------
def render_twin_npu_smi(sim: Simulation, node: str, t: float | None = None) -> str | None:
    """``npu-smi info`` and ``npu-smi info -i N -t ecc`` of a twin node at ``t``, in the tool's layout (MindCluster
    docs faultdiag/user_guide/03_collecting_logs.md; on A3 a row pair per die, :mod:`faultlib.telemetry.npusmi`,
    session 38). Values the twin does not model print ``NA``, as the tool prints values it cannot read; the health
    column is ``NA`` too (the twin prints no ground truth). None while the node's host is stopped (crashed, not yet
    back in service): nothing runs npu-smi there and a collection cannot log in, so there is no output to collect
    (docs/bundles.md "A host that is down")."""
    from faultlib import ids
    from faultlib.telemetry import formats as fmt
    from faultlib.telemetry import npusmi as smi

    t = sim.now if t is None else float(t)
    if sim.state.stopped_since(node, t) is not None:
        return None
    store = sim.telemetry.metrics
    npus = sorted((n for n in sim.topology.by_kind.get("npu", ()) if n.startswith(node + "/")),
                  key=fmt.npu_index)
    temps = store.read_many("npu_temp_c", npus, t)
    dies = sim.topology.params.dies_per_npu
    dierows = [smi.DieRow(k, d, "NA", temp=f"{temp:.0f}" if temp == temp else "NA",
                          bus=smi.bus_id(ids.logical_device(k, d, dies)))  # (one temperature an NPU: both dies)
               for npu, temp in zip(npus, temps, strict=True) for k in [fmt.npu_index(npu)] for d in range(dies)]
    out = [smi.NPU_SMI + " info", *smi.status_table(dierows, dies)]
    hbms = [n + "/hbm" for n in npus]
    ce = store.read_many("hbm_ce_total", hbms, t, default=0.0)
    rows = store.read_many("hbm_isolated_rows", hbms, t, default=0.0)
    for npu, c, r in zip(npus, ce, rows, strict=True):
        k = fmt.npu_index(npu)
        out += ["", f"/usr/local/bin/npu-smi info -i {k} -t ecc",
                f"        NPU ID                                   : {k}",
                "        Chip Count                               : 1", "",
                f"        HBM Single Bit Aggregate Total Err Cnt   : {c:.0f}",
                "        HBM Single Bit Isolated Pages Count      : 0",
                f"        HBM Double Bit Isolated Pages Count      : {r:.0f}"]
    return "\n".join(out) + "\n"
