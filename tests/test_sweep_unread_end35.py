"""A link whose one end has no reading (its host crashed: the exporter on the board is down) and whose other end
reads no light on any lane is down, not "4 of 4 lanes without light (port sub-healthy, partial lane failure)"
(session 35: `sweep once` at 600 s after a node crash listed its 112 uplinks as sub-healthy Alarms)."""

from __future__ import annotations

from faultlib.engine import Simulation
from faultlib.injection.spec import FaultSpec
from faultlib.simparams import SimParams
from faultlib.topology import Topology
from opsbrain.sweeps import run_sweep


def test_a_crashed_hosts_uplinks_are_down_not_sub_healthy(topo1: Topology) -> None:
    sim = Simulation(SimParams(), seed=1, topology=topo1)
    sim.inject(FaultSpec(at_s=60.0, kind="node_crash", target="pod0/node18", duration_s=3600.0))
    sim.run(until=660.0)
    uplinks = {lid for lid, lk in topo1.links.items() if lk.kind == "ub_optical" and lid.startswith("pod0/node18/")}
    found = [f for f in run_sweep(sim, checks=["link_light"]).findings if f.component in uplinks]
    assert len(found) == len(uplinks) == 112
    assert {f.severity for f in found} == {"Critical"}, {f.evidence for f in found}
    assert all(f.data["lanes_dark"] == 4 and "other end has no reading" in f.evidence for f in found)
    others = [f for f in run_sweep(sim, checks=["link_light"]).findings if f.component not in uplinks]
    assert not others  # the rest of the pod is lit
