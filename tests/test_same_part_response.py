"""Issue 16, the same-part link response (``rb-link-fault``) after review: it holds its own drain (a later
``rb-link-flap`` hold-down on the link is not ended by it) and it is counted by the lemon and repeat rules (its
ownership of the link in the controller: tests/test_one_incident_per_part.py)."""

from __future__ import annotations

import pytest

from faultlib.durations import at_medians
from faultlib.engine import Simulation
from faultlib.health import Health
from faultlib.simparams import SimParams
from faultlib.topology import Topology
from faultlib.workloads.training import TrainingJob
from opsbrain.recovery import Orchestrator, RecoveryParams, RunbookSet, load_runbooks
from opsbrain.verdict import Diagnosis

LINK_AMBIGUOUS = [("dirty_connector", 0.38), ("link_down", 0.26), ("optical_degradation", 0.21), ("link_flap", 0.06)]
"""A lone port down at the first diagnosis moment: no link class reaches the bar, together they hold 0.91."""


@pytest.fixture(scope="module")
def rbs() -> RunbookSet:
    return load_runbooks()


def _pod(topo: Topology) -> tuple[Simulation, TrainingJob, str]:
    sim = Simulation(params=at_medians(SimParams()), seed=1, topology=topo)
    nodes = sim.topology.nodes()
    job = TrainingJob("llm", nodes[:8], sim.params.training.model_copy(
        update=RecoveryParams().job_launch_overrides()))
    sim.add_workload(job)
    sim.control.set_spares(nodes[-2:])
    return sim, job, sim.fabric.node_uplinks(job.nodes[3])[5]


def _abstained(link: str) -> Diagnosis:
    return Diagnosis("unknown", link, 0.38, alternatives=LINK_AMBIGUOUS)


def test_drains_are_held_per_holder(topo1: Topology) -> None:
    sim, _job, link = _pod(topo1)
    sim.fabric.drain(link, "a")
    sim.fabric.drain(link, "b")
    sim.fabric.undrain(link, "a")
    assert link in sim.fabric.drained and sim.fabric.drain_holders(link) == {"b"}
    sim.fabric.undrain(link, "b")
    assert link not in sim.fabric.drained


def test_the_same_part_undrain_does_not_end_a_later_flap_hold_down(topo1: Topology, rbs: RunbookSet) -> None:
    """rb-link-fault drains at once and lets go after its 600 s hold-down; a link_flap diagnosis of the same
    incident 300 s later starts rb-link-flap, whose own hold-down must last its full 600 s."""
    sim, _job, link = _pod(topo1)
    orch = Orchestrator(sim, rbs)
    orch.handle("i1", _abstained(link))
    sim.run(300)
    assert orch.incident("i1")["runbook"] == "rb-link-fault" and link in sim.fabric.drained
    orch.handle("i1.2", Diagnosis("link_flap", link, 0.9))
    sim.run(700)  # rb-link-fault's hold-down is over; rb-link-flap's runs to ~900 s
    assert link in sim.fabric.drained
    undrain = [a for a in orch.actions_for("i1") if a["action"] == "undrain_link"]
    assert undrain and undrain[0]["status"] == "succeeded" and undrain[0]["detail"]["still_drained_by"] == ["i1.2"]
    sim.run(1000)
    assert orch.incident("i1.2")["runbook"] == "rb-link-flap" and link not in sim.fabric.drained


def test_a_link_that_keeps_failing_without_a_named_class_is_caught(topo1: Topology, rbs: RunbookSet) -> None:
    """Incidents on one link that each abstain among the link classes: from the 5th in 24 h the link is taken
    out of service (MindCluster: 5 Up->Down in 24 h => isolate, through rb-link-flap's repeat path), and the 6th
    goes to a person (lemon rule), as they would for a named link class."""
    sim, _job, link = _pod(topo1)
    orch = Orchestrator(sim, rbs)
    for k in range(1, 7):
        orch.handle(f"i{k}", _abstained(link))
        sim.run(sim.now + 1200)  # each response over before the next incident
    runbooks = [orch.incident(f"i{k}")["runbook"] for k in range(1, 7)]
    assert runbooks[:4] == ["rb-link-fault"] * 4 and runbooks[4] == "rb-link-flap"
    rules = [a["detail"]["rule"] for a in orch.actions_for("i5") if a["kind"] == "guardrail"]
    assert rules == ["same_part", "repeat"]
    assert sim.state.health(link) == Health.ISOLATED
    sixth = orch.incident("i6")
    assert sixth["outcome"] == "escalated_to_human" and [
        a["detail"]["rule"] for a in sixth["actions"] if a["kind"] == "guardrail"][-1] == "lemon"


def test_a_named_class_later_in_the_same_incident_is_counted_once(topo1: Topology, rbs: RunbookSet) -> None:
    sim, _job, link = _pod(topo1)
    orch = Orchestrator(sim, rbs)
    orch.incident_of = lambda key: key.split(".")[0]  # the controller's response keys of one incident
    orch.handle("i1", _abstained(link))
    sim.run(10)
    orch.handle("i1.2", Diagnosis("dirty_connector", link, 0.9))
    sim.run(20)
    assert orch.guardrails.count(link, sim.now) == 1
    assert orch.guardrails.count(link, sim.now, "dirty_connector") == 1
