"""Review43b: the check before a scale-in's approval (orch43, ``WorkloadActions.scale_in_refused``) counted a node of
the job that a reboot was bringing back as given up. A 20-node job (the policy sheds at most 10%: 2 nodes), node B
crashed (the response's own), node D crashed (its response not begun) and node C being rebooted by a reboot of ours
since t=90 s (another response's; at medians it ends at 690 s). Before: "scaling in to 17 of 20 launch nodes exceeds
the policy's 10%" at once, the ladder went on to wait_for_repair and the job stayed down (D had no response), a
person paged after 3,300 s. The approval (600 s at medians) comes when C is back: the scale-in gives up B and D."""

from __future__ import annotations

from typing import Any

import pytest

from faultlib.durations import at_medians
from faultlib.engine import Simulation
from faultlib.injection.spec import FaultSpec
from faultlib.simparams import SimParams
from faultlib.topology import Topology
from faultlib.workloads.training import TrainingJob
from opsbrain.recovery import Orchestrator, RecoveryParams, load_runbooks
from opsbrain.verdict import Diagnosis

PARAMS = RecoveryParams(approval_sigma=0.0)  # the approval at its median, 600 s


def _rebooting_peer(topo: Topology, crashed: tuple[int, ...], until: float) -> dict[str, Any]:
    """A 20-node job, no spare; the job's nodes ``crashed`` (by index; the first is B, the response's) crash at
    100 s; node 7 (C) rebooted by a reboot of ours from 90 s; B's response begins at 110 s."""
    sim = Simulation(params=at_medians(SimParams()), seed=3, topology=topo)
    job = TrainingJob("llm", sim.topology.nodes()[:20],
                      sim.params.training.model_copy(update=PARAMS.job_launch_overrides()))
    sim.add_workload(job)
    sim.control.set_spares([])
    b, c, d = job.nodes[crashed[0]], job.nodes[7], job.nodes[crashed[1]]
    for i in crashed:
        sim.inject(FaultSpec(at_s=100, kind="node_crash", target=job.nodes[i]))
    orch = Orchestrator(sim, load_runbooks(), params=PARAMS)
    sim.run(90)
    orch.exec.start("reboot_node", c, lambda: sim.control.reboot_node(c))  # as a response's reboot step runs it
    sim.run(110)
    orch.handle("B", Diagnosis("node_crash", b, 0.95))
    sim.run(until)
    return {"orch": orch, "job": job, "b": b, "c": c, "d": d}


@pytest.fixture(scope="module")
def rebooting_peer(topo1: Topology) -> dict[str, Any]:
    return _rebooting_peer(topo1, (5, 9), 3 * 3600)


def test_a_host_being_rebooted_is_not_counted_as_given_up(rebooting_peer: dict[str, Any]) -> None:
    inc = rebooting_peer["orch"].incident("B")
    approval = next((a for a in inc["actions"] if a["action"] == "approval"), None)
    assert approval is not None, [a["detail"].get("reason") for a in inc["actions"]]  # before: refused, not asked
    scale = next(a for a in inc["actions"] if a["action"] == "scale_instance")
    assert scale["status"] == "succeeded" and scale["start_s"] == pytest.approx(approval["end_s"])
    assert scale["detail"]["nodes"] == 18  # B and D given up; C, back from its reboot at 690 s, kept
    assert inc["outcome"] == "completed" and inc["rung"] == "scale_in"
    job = rebooting_peer["job"]
    assert rebooting_peer["c"] in job.nodes and rebooting_peer["d"] not in job.nodes  # B rebooted, scaled back out
    assert job.state in ("running", "checkpointing")


def test_the_policy_still_refuses_without_asking_when_beyond_it_anyway(topo1: Topology) -> None:
    """The rebooting host aside, the job is still beyond the share (three nodes crashed): no approval is asked
    (before: the same, its reason "16 of 20", the rebooting host counted)."""
    acts = _rebooting_peer(topo1, (5, 9, 11), 400)["orch"].incident("B")["actions"]
    assert not [a for a in acts if a["action"] == "approval"]
    scale = next(a for a in acts if a["action"] == "scale_instance")
    assert scale["status"] == "failed" and "17 of 20" in scale["detail"]["reason"]
