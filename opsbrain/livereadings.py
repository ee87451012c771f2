"""Readings the live controller answers beside the metric store, for diagnosis: what an operator's systems hold.

- ``hbm_temp_rise_c_per_min`` of an HBM stack: how fast its temperature (npu-exporter's
  ``npu_chip_info_hbm_temperature`` series) climbed over the last :data:`RISE_WINDOW_S`, as a range query's
  ``(now - earliest) / span`` over the scrapes :data:`RISE_PROBES_S` back (the earliest one the series has). None
  when the series has no earlier scrape.
- ``node_npus_allocated`` of a node: how many of its NPUs the scheduler gave to a workload (the placement the
  controller already keeps for job events; Kubernetes shows it as the node's allocated ``huawei.com/Ascend910``
  resources). A node no workload runs on reads 0.

Read at the time of asking; they hold no plant state, health or injected spec: a float each.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from faultlib.engine import Simulation

NAMES = frozenset({"node_npus_allocated", "hbm_temp_rise_c_per_min"})
RISE_WINDOW_S = 120.0
"""reason: two minutes of scrapes: long enough that a reading's step is not a rate, short enough to see a climb that
takes minutes (faults.overtemp_ramp_s) before its fatal limit"""
RISE_PROBES_S = (RISE_WINDOW_S, 60.0, 30.0, 15.0)
"""reason: the scrape ages tried, oldest first (Prometheus' common 15 s scrape interval as the finest)"""


def hbm_temp_rise_c_per_min(sim: Simulation, hbm: str) -> float | None:
    """(temperature now - the earliest of the probed scrapes) per minute, or None (also while the stack's host is
    stopped: its exporter serves nothing, faultlib.telemetry.scrape)."""
    tel = sim.telemetry
    now = sim.now
    cur = tel.scrape("hbm_temp_c", hbm)
    if cur is None:
        return None
    for back in RISE_PROBES_S:
        if back <= now and (old := tel.scrape("hbm_temp_c", hbm, now - back)) is not None:
            return (cur - old) / (back / 60.0)
    return None


def node_npus_allocated(placement: dict[str, list[str]], node: str, npus_per_node: int) -> float:
    """NPUs of ``node`` held by a workload (every workload of the twin takes whole nodes)."""
    return float(npus_per_node) if any(node in nodes for nodes in placement.values()) else 0.0


def read(sim: Simulation, placement: dict[str, list[str]], name: str, component: str) -> float | None:
    """``name`` (one of :data:`NAMES`) of ``component`` now; None for a component that is not a node."""
    if name == "hbm_temp_rise_c_per_min":
        return hbm_temp_rise_c_per_min(sim, component)
    if name != "node_npus_allocated":
        raise KeyError(name)
    if sim.topology.kind.get(component) != "node":
        return None
    return node_npus_allocated(placement, component, sim.topology.params.npus_per_node)
