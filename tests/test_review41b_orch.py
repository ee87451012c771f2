"""Session 41 review (review41b) of orch41's recovery changes: a sibling dark link whose run fails is not left
silently dark (it pages a person, as the response's own link does when its ladder runs out)."""

from __future__ import annotations

from typing import Any

import simpy

from faultlib.durations import at_medians
from faultlib.engine import Simulation
from faultlib.injection.spec import FaultSpec
from faultlib.simparams import SimParams
from faultlib.topology import Topology
from faultlib.workloads.training import TrainingJob
from opsbrain.recovery import Orchestrator, RecoveryParams, load_runbooks
from opsbrain.verdict import Diagnosis
from tests.test_orch41_dark_links import LINK_AMBIGUOUS


def _two_dark(topo: Topology, fail_sibling_drain: bool) -> tuple[Simulation, Orchestrator, list[str]]:
    sim = Simulation(params=at_medians(SimParams()), seed=4, topology=topo)
    nodes = sim.topology.nodes()
    job = TrainingJob("llm", nodes[:8], sim.params.training.model_copy(update=RecoveryParams().job_launch_overrides()))
    sim.add_workload(job)
    sim.control.set_spares(nodes[-2:])
    ups = sim.fabric.node_uplinks(job.nodes[3])
    links = [ups[2], ups[40]]
    for link in links:
        sim.inject(FaultSpec(at_s=100, kind="link_down", target=link, duration_s=None))
    if fail_sibling_drain:  # the sibling's drain fails every attempt (a route push refused)
        c, drain = sim.control, sim.control.drain_link

        def drain_or_fail(link: str, holder: str = "") -> simpy.Process:
            if link != links[1]:
                return drain(link, holder)
            return c._action("drain_link", link, 1.0, 1.0, lambda: None)

        c.drain_link = drain_or_fail  # type: ignore[method-assign]
    orch = Orchestrator(sim, load_runbooks())
    sim.run(105)
    orch.handle("i1", Diagnosis("unknown", links[0], 0.35, alternatives=LINK_AMBIGUOUS))
    sim.run(3600)
    return sim, orch, links


def test_a_sibling_links_failed_run_pages_a_person(topo1: Topology) -> None:
    _sim, orch, links = _two_dark(topo1, fail_sibling_drain=True)
    inc: dict[str, Any] = orch.incident("i1")
    drains = [a for a in inc["actions"] if a["action"] == "drain_link" and a["target"] == links[1]]
    assert drains and all(a["status"] == "failed" for a in drains)
    pages = [f for f in inc["follow_ups"] if f["type"] == "page" and f["component"] == links[1]]
    assert pages, [(f["type"], f["component"]) for f in inc["follow_ups"]]  # before: nothing, the link dark
    assert inc["human_steps"] >= 1
