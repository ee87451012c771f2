"""The twin's pod rendered as npu-exporter's page (so the twin and a real cluster are read by the same parser,
:mod:`opsbrain.sources.exporter`)."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from faultlib.engine import Simulation
    from faultlib.topology import Topology


def _series(out: list[str], name: str, help_: str, rows: Iterator[tuple[str, float, int]]) -> None:
    out.append(f"# HELP {name} {help_}")
    out.append(f"# TYPE {name} gauge")
    out.extend(f"{name}{{{labels}}} {value!r} {ts}" for labels, value, ts in rows)


def render_twin_page(sim: Simulation, t: float | None = None, optics: bool = True) -> str:
    """The twin's pod at ``t`` (default: now) as npu-exporter series: what its operator's exporters would publish.

    One chip's series a die (session 38): npu-exporter reads every logical device the driver lists and labels its
    series ``id`` with that chip's physical id (:data:`CHIP_IDS`), so an Atlas A3 NPU has two ids, the twin's
    logical ids of its dies (a full node's Chip Phy-ID equals its Chip Logic ID), and ``machine_npu_nums`` counts
    dies. The twin keeps one temperature an NPU (both dies read it) and one HBM an NPU (its series on die 0's id, as
    the twin's logs name a part of the whole NPU); each die's RoCE FCS and HCCS counters are its own links'.

    Read only from what an operator sees (the metric store and the DOM readings, as the twin's sweep reads them):
    chip series carry the time the chip was last read (``t`` minus its heartbeat age), the others ``t``.
    As npu-exporter (session 37; docs/formats.md): a chip off the bus is not in the driver's device list, so it has
    no series at all (before, it left ``machine_npu_nums`` only). A chip that is down but listed keeps its rows: its
    readings hold (nothing redraws them) and its stamps age with its heartbeat.
    ``optics=False`` leaves out the switch-port optical and CRC series (the NPUs' own series only, their RoCE FCS
    and HCCS CRC counters included: :func:`_link_error_series`).
    """
    from faultlib import ids
    from faultlib.telemetry import formats as fmt

    t = sim.now if t is None else float(t)
    store = sim.telemetry.scraped  # a stopped host's exporter serves nothing: its rows are left out
    npus = sorted(sim.topology.by_kind.get("npu", ()))
    on_bus = store.read_many("npu_on_bus", npus, t, default=1.0)  # a chip off the bus is not listed by the driver
    stopped = {npus[i] for i, _since in store.absent(npus, t)}
    gone = stopped | {n for n, on in zip(npus, on_bus, strict=True) if not on}  # no series at all
    ms = int(round(sim.wallclock(t).timestamp() * 1000))
    age = store.read_many("npu_heartbeat_age_s", npus, t)
    chip_ms = [ms - int(round(a * 1000)) if math.isfinite(a) else ms for a in age]
    hosts = [fmt.hostname(n) for n in npus]
    dies = sim.topology.params.dies_per_npu
    lab = [[f'id="{ids.logical_device(fmt.npu_index(n), d, dies)}",instance="{h}"' for d in range(dies)]
           for n, h in zip(npus, hosts, strict=True)]  # (npu-exporter's id: each die's own, CHIP_IDS)
    out = ["# HELP machine_npu_nums Amount of npu installed on the machine.", "# TYPE machine_npu_nums gauge"]
    nodes = sorted({h for n, h in zip(npus, hosts, strict=True) if n not in stopped})
    listed = Counter(h for n, h in zip(npus, hosts, strict=True) if n not in gone)
    out += [f'machine_npu_nums{{instance="{h}"}} {listed[h] * dies} {ms}' for h in nodes]  # (logical devices)
    hbms = [n + "/hbm" for n in npus]
    for name, metric, comps, default, per_die in (
            ("npu_chip_info_temperature", "npu_temp_c", npus, math.nan, True),
            ("npu_chip_info_hbm_temperature", "hbm_temp_c", hbms, math.nan, False),
            ("npu_chip_info_hbm_ecc_total_single_bit_error_cnt", "hbm_ce_total", hbms, 0.0, False),
            ("npu_chip_info_hbm_ecc_double_bit_isolated_pages_cnt", "hbm_isolated_rows", hbms, math.nan, False)):
        vals = store.read_many(metric, comps, t, default=default)
        _series(out, name, f"the npu {name.removeprefix('npu_chip_info_').replace('_', ' ')}",
                ((lab[i][d], float(v), chip_ms[i]) for i, v in enumerate(vals) if math.isfinite(v)
                 and npus[i] not in gone for d in range(dies if per_die else 1)))
    _link_error_series(out, sim, npus, gone, lab, chip_ms, t)
    if not optics:
        return "\n".join(out) + "\n"
    reading = sim.dom.read(t)
    mods = sim.dom.modules
    dark = {i for i, _since in store.absent(mods, t)}  # modules on a stopped host's board: its exporter is down
    mlab = [f'id="0",instance="{fmt.hostname(m)}",port="{fmt.switch_port(m)}",udie="0"' for m in mods]
    for key, fld in (("rx", "rx_dbm"), ("tx", "tx_dbm")):
        arr = reading[fld]
        for lane in range(arr.shape[1]):
            col = arr[:, lane]
            _series(out, f"npu_chip_info_optical_{key}_power_{lane}",
                    f"npu interface receive optical_{key}_power_{lane} on ub port",
                    ((mlab[i], float(col[i]), ms) for i in range(len(mods)) if i not in dark))
    links = sorted({lk for lk in sim.dom.link_of})
    crc = store.read_many("link_crc_total", links, t, default=0.0)
    first: dict[str, str] = {}
    for i, (m, lk) in enumerate(zip(mods, sim.dom.link_of, strict=True)):
        if i not in dark:  # the link's count as its first served end's exporter publishes it
            first.setdefault(lk, m)
    _series(out, "npu_chip_info_crc_error_sum", "number of crc check errors on ub port",
            ((f'id="0",instance="{fmt.hostname(first[lk])}",port="{fmt.switch_port(first[lk])}",udie="0"',
              float(crc[i]), ms) for i, lk in enumerate(links) if lk in first))
    return "\n".join(out) + "\n"


CHIP_IDS = ("Ascend/mind-cluster @22bb3d98 component/npu-exporter: collector/common/npu_collector.go getNPUChipList "
            "(one chip a logical id of dmgr.GetDeviceList), setPhyId (chip.PhyId = GetPhysicIDFromLogicID); "
            "collector/metrics/common_utils.go collectCardLabelValue (label id = chip.PhyId); collector/common/"
            "constants.go (npuID = \"id\")")
"""Where npu-exporter's chip label ``id`` comes from: one series set a logical device, labelled with its physical id."""

FCS = "npu_chip_info_rx_fcs_num"
HCCS_CRC = "npu_chip_info_hccs_statistic_info_crc_err_cnt_{}"


def npu_link_counters(topo: Topology, npu: str, die: int | None = None) -> tuple[list[str], list[list[str]]]:
    """The twin's links whose ``link_crc_total`` an NPU's npu-exporter publishes (session 35): its dies' RoCE port
    links (``npu_chip_info_rx_fcs_num``) and, per HCCS link X = L1 chip index + 1 (``..._crc_err_cnt_X``, X 1..7 as
    npu-exporter numbers an Atlas 900 A3 SuperPoD's), its dies' electrical UB links to that L1 chip; ``die``: those
    of that die only (its own series on the page, session 38), else both dies'."""
    fcs: list[str] = []
    hccs: list[list[str]] = [[] for _ in range(topo.params.l1_per_node)]
    for part in topo.children.get(npu, ()):
        if die is not None and not part.endswith((f"/die{die}", f"/roce{die}")):
            continue
        for lid in topo.links_of.get(part, ()):
            lk = topo.links[lid]
            if lk.kind == "rdma":
                fcs.append(lid)
            elif lk.kind == "ub_electrical" and lk.plane is not None:
                hccs[lk.plane].append(lid)
    return fcs, hccs


def _link_error_series(out: list[str], sim: Simulation, npus: list[str], gone: set[str], lab: list[list[str]],
                       chip_ms: list[int], t: float) -> None:
    """Each served die's RoCE FCS and HCCS CRC counters, as npu-exporter names them (collector_for_roce.go,
    collector_for_hccs.go; label ``id``, the die's), from the twin's ``link_crc_total`` of the links they count
    (:func:`npu_link_counters` of the die; a link no model counted on reads 0, as a fresh counter). Stamped as the
    chip's other series. Before (session 34) the page had neither, so a real cluster's reader path for them ran only
    on hand-made pages; before session 38 one row an NPU held both dies' counts."""
    topo = sim.topology
    served = [(i, d) for i, n in enumerate(npus) if n not in gone for d in range(len(lab[i]))]
    parts = {(i, d): npu_link_counters(topo, npus[i], d) for i, d in served}
    every = sorted({lid for fcs, hccs in parts.values() for lid in (*fcs, *(x for h in hccs for x in h))})
    count = dict(zip(every, sim.telemetry.scraped.read_many("link_crc_total", every, t, default=0.0), strict=True))

    def total(lids: list[str]) -> float:
        return float(sum(count[lid] for lid in lids))

    _series(out, FCS, "number of frames the npu's roce port received with a bad fcs",
            ((lab[i][d], total(parts[i, d][0]), chip_ms[i]) for i, d in served if parts[i, d][0]))
    for x in range(topo.params.l1_per_node):
        _series(out, HCCS_CRC.format(x + 1), f"crc errors in flits received on hccs link {x + 1}",
                ((lab[i][d], total(parts[i, d][1][x]), chip_ms[i]) for i, d in served if parts[i, d][1][x]))
