"""A replaced part comes back as new (:meth:`faultlib.control.ControlAPI.replace_part`): its parts out of their
healthy state healed, its OS booted anew, its HBM stacks' isolated-row readings and correctable-error logs empty, and
its cumulative error counters at 0. Split out of :mod:`faultlib.control` (session 40).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from faultlib import ids
from faultlib.health import Health

if TYPE_CHECKING:
    from faultlib.engine import Simulation

HBM_COUNTERS = ("hbm_ce_total", "hbm_uce_total")
"""An HBM stack's cumulative ECC counters (a new stack's start at 0)."""
PORT_LINKS: dict[str, tuple[str, ...]] = {"die": ("ub_electrical",), "roce": ("rdma",), "l1": ("ub_optical",)}
"""Part kind -> the kinds of its links whose error counters the part's own ports keep."""
LINK_COUNTERS: dict[str, tuple[str, ...]] = {"die": ("link_crc_total",), "roce": ("link_crc_total",),
                 "l1": ("link_crc_total", "link_fec_corrected_total", "link_down_total")}
"""Part kind -> the cumulative counters of those links a new part starts at 0."""


def renew(sim: Simulation, component: str) -> list[str]:
    """Everything of a replaced ``component`` back as new (:func:`clear_row_readings`, :func:`renew_parts`,
    :func:`boot_new`); the ids of the parts under it that were out of their healthy state, sorted."""
    clear_row_readings(sim, component)
    renewed = renew_parts(sim, component)
    boot_new(sim, component)
    return renewed


def boot_new(sim: Simulation, component: str) -> None:
    """A replaced part's OS boots anew: a new server's host, the chip a new part is of (powered off for it) and
    every chip it holds (:meth:`~faultlib.state.PlantState.mark_booted`); each HBM stack's correctable-error log
    starts empty (a new part has its own log: :meth:`~faultlib.telemetry.celog.CeLogs.renew`). Session 35."""
    topo, state = sim.topology, sim.state
    if component not in topo.kind:
        return
    parts = [component, *topo.descendants(component)]
    chip = ids.npu_of(component)
    for part in ([chip] if chip and chip != component else []) + parts:
        if topo.kind.get(part) in ("node", "npu"):
            state.mark_booted(part)
    sim.ce_logs.renew([p for p in parts if topo.kind.get(p) == "hbm"])
    renew_counters(sim, parts)


def renew_counters(sim: Simulation, parts: list[str]) -> None:
    """A new part's cumulative error counters start at 0, at their rate (a device counts from its own start):
    each HBM stack's correctable and uncorrectable ECC counts (npu-exporter's
    ``npu_chip_info_hbm_ecc_total_single_bit_error_cnt``), a chip's port counters (its dies' RoCE FCS and HCCS
    CRC counts, ``link_crc_total`` of their links) and an L1 chip's port counters (``link_crc_total``,
    ``link_fec_corrected_total``, ``link_down_total`` of its optical links). Readers take the drop as a reset
    (:meth:`~faultlib.telemetry.metrics.MetricStore.increase_many`). Session 35."""
    topo, m, now = sim.topology, sim.telemetry.metrics, sim.now
    for part in parts:
        kind = topo.kind.get(part, "")
        if kind == "hbm":
            series = [(name, part) for name in HBM_COUNTERS]
        else:
            own = PORT_LINKS.get(kind, ())
            links = [lid for lid in topo.links_of.get(part, ()) if topo.links[lid].kind in own]
            series = [(name, lid) for lid in links for name in LINK_COUNTERS[kind]]
        for name, comp in series:
            if m.read(name, comp, now):  # a series the part has, not at 0
                m.set(name, comp, now, 0.0, m.slope(name, comp, now))


def clear_row_readings(sim: Simulation, component: str) -> None:
    """A new chip's HBM reads no isolated rows: zero the ``hbm_isolated_rows`` reading of every HBM stack of (or
    under) a replaced ``component`` that shows some (the old chip's count is what the device reported)."""
    topo = sim.topology
    if component not in topo.kind:
        return
    stacks = [c for c in [component, *topo.descendants(component)] if topo.kind.get(c) == "hbm"]
    for hbm in stacks:
        if sim.telemetry.read("hbm_isolated_rows", hbm, default=0.0):
            sim.telemetry.metric("hbm_isolated_rows", hbm, 0.0)


def renew_parts(sim: Simulation, component: str) -> list[str]:
    """Bring every part of a replaced ``component`` that is out of its healthy state back as new (a die a hung
    AI Core left failed, with no repair of its own, under a replaced chip); the parts' ids, sorted."""
    if component not in sim.topology.kind:
        return []
    unhealthy = sim.state.unhealthy_view
    parts = sorted(c for c in sim.topology.descendants(component) if c in unhealthy)
    for part in parts:
        sim.state.set_health(part, Health.HEALTHY, "replace_part")
    return parts
