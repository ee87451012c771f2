"""A link whose one end has no reading (its host crashed: the exporter on the board is down) and whose other end
reads no light on any lane is down, not "4 of 4 lanes without light (port sub-healthy, partial lane failure)"
(session 35: `sweep once` at 600 s after a node crash listed its 112 uplinks as sub-healthy Alarms). The links of one
host whose end there is unread are one finding on the host (session 35, later: 112 Critical rows for one node before);
a link whose other end is read keeps its own finding, and ``counts['OK']`` counts each folded link."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from faultlib.engine import Simulation
from faultlib.injection.spec import FaultSpec
from faultlib.simparams import SimParams
from faultlib.topology import Topology
from opsbrain.sweeps import run_sweep
from opsbrain.sweeps.checks import check_link_light
from opsbrain.sweeps.params import SweepParams
from opsbrain.sweeps.snapshot import Snapshot, take_snapshot


def _crashed(topo1: Topology) -> Simulation:
    sim = Simulation(SimParams(), seed=1, topology=topo1)
    sim.inject(FaultSpec(at_s=60.0, kind="node_crash", target="pod0/node18", duration_s=3600.0))
    sim.run(until=660.0)
    return sim


def _edited(s: Snapshot, unread: list[int], dark: list[int]) -> Snapshot:
    """``s`` with modules ``unread`` not read and modules ``dark`` read without light on any lane."""
    dom = {k: v.copy() for k, v in s.dom.items()}
    for v in dom.values():
        v[unread] = np.nan
    dom["rx_dbm"][dark] = -40.0
    return replace(s, dom=dom, dark=dom["rx_dbm"] < SweepParams().los_below_dbm)


def test_a_crashed_hosts_uplinks_are_one_finding_on_the_host(topo1: Topology) -> None:
    sim = _crashed(topo1)
    uplinks = {lid for lid, lk in topo1.links.items() if lk.kind == "ub_optical" and lid.startswith("pod0/node18/")}
    report = run_sweep(sim, checks=["link_light"])
    assert len(report.findings) == 1, [f.component for f in report.findings]
    f = report.findings[0]
    assert (f.component, f.severity) == ("pod0/node18", "Critical")
    assert f.evidence.startswith("112 links of pod0/node18 down: the host is down or unread")
    assert set(f.data["links"]) == uplinks and len(uplinks) == 112 == f.data["covers"] == f.covers
    assert f.data["lanes_dark"] == 4 and f.data["host_unread"] is True
    assert report.checked["link_light"] == len(take_snapshot(sim).links)
    assert report.counts["OK"] == report.checked["link_light"] - 112  # each folded link is a component-check
    assert report.as_dict()["findings"][0]["data"]["covers"] == 112


def test_a_link_whose_other_end_is_read_keeps_its_own_finding(topo1: Topology) -> None:
    sim = _crashed(topo1)
    s = take_snapshot(sim)
    link = s.links.index("pod0/node3/l1sw0~pod0/l2plane0/sw00")
    s = _edited(s, [], list(np.flatnonzero(s.module_link == link)))  # both ends read, no light: loss of signal
    found = {f.component: f for f in check_link_light(s, SweepParams())}
    assert set(found) == {"pod0/node18", s.links[link]}
    assert "either end (loss of signal)" in found[s.links[link]].evidence and found[s.links[link]].covers == 1


def test_one_unread_down_link_of_a_host_stays_a_link_finding(topo1: Topology) -> None:
    sim = Simulation(SimParams(), seed=1, topology=topo1)
    sim.run(until=60.0)
    s = take_snapshot(sim)
    link = s.links.index("pod0/node5/l1sw2~pod0/l2plane2/sw03")
    rows = np.flatnonzero(s.module_link == link)
    mine = [r for r in rows if s.modules[r].startswith("pod0/node5/")]
    other = [r for r in rows if r not in mine]
    s = _edited(s, mine, other)
    found = check_link_light(s, SweepParams())
    assert [(f.component, f.severity) for f in found] == [(s.links[link], "Critical")]
    assert "other end has no reading" in found[0].evidence
