"""``add_spare`` (and every ``returned_to_spares``) counts the spare pool of the node's own pod, not every pod's:
the figure is what the next response in that pod can take (swap_spare takes a spare of its own pod only)."""

from __future__ import annotations

from pathlib import Path

import pytest

from faultlib.engine import Simulation
from faultlib.simparams import SimParams
from faultlib.topology import Topology, TopologyParams
from opsbrain.recovery import Orchestrator, load_runbooks
from opsbrain.verdict import Diagnosis

RUNBOOK = """id: rb-give-back
title: test - give a healthy free node to its pod's spare pool
applies_to: [node_hang]
level: RestartBusiness
source: test runbook
rung: online_recovery
steps:
  - {action: add_spare, target: node_of(component)}
"""


@pytest.fixture(scope="module")
def topo2() -> Topology:
    return Topology.build(TopologyParams(), pods=2)


def test_add_spare_counts_its_own_pods_pool(topo2: Topology, tmp_path: Path) -> None:
    (tmp_path / "rb-give-back.yaml").write_text(RUNBOOK)
    sim = Simulation(params=SimParams(), seed=1, topology=topo2)
    pod0 = [n for n in sim.topology.nodes() if n.startswith("pod0/")]
    pod1 = [n for n in sim.topology.nodes() if n.startswith("pod1/")]
    sim.control.set_spares(pod0[-2:] + pod1[-3:])  # 2 in pod0, 3 in pod1
    orch = Orchestrator(sim, load_runbooks([tmp_path]))
    orch.handle("back", Diagnosis("node_hang", pod0[5], 0.9))
    sim.run(10)
    add = next(a for a in orch.actions_for("back") if a["action"] == "add_spare")
    assert add["status"] == "succeeded" and add["detail"]["spares"] == 3  # pod0's 2 + the node; pod1's 3 not
    ret = next(f for f in orch.follow_ups("back") if f["type"] == "returned_to_spares")
    assert ret["component"] == pod0[5] and ret["spares"] == 3
