"""Session 41 (orch41, from scen41's s02): a response that found no warm spare and waits for a person's approval
to scale the job in takes a spare that comes free meanwhile, as a gang scheduler (Volcano, MindCluster's
rescheduling) places a pending job once a node is free; before, it waited for the approval to the end of the run
while a repaired node sat in the pool and the job stayed stalled."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from faultlib.durations import at_medians
from faultlib.engine import Simulation
from faultlib.injection.spec import FaultSpec
from faultlib.simparams import SimParams
from faultlib.topology import Topology
from faultlib.workloads.training import TrainingJob
from opsbrain.recovery import Orchestrator, RecoveryParams, load_runbooks
from opsbrain.recovery.loader import RunbookSet
from opsbrain.verdict import Diagnosis

SLOW_APPROVAL = RecoveryParams(approval_median_s=20000.0, approval_sigma=0.0)  # the approval never comes in time


def hang_world(topo1: Topology, before_hang: Callable[[Simulation], None] | None = None,
               params: RecoveryParams = SLOW_APPROVAL, until_s: float = 6 * 3600) -> dict[str, Any]:
    """A node crash takes the only spare; an AI Core hang then finds none and waits for a slow scale-in approval;
    the crashed node, repaired, comes free. ``before_hang`` changes the plant before the hang's response starts."""
    sim = Simulation(params=at_medians(SimParams()), seed=3, topology=topo1)
    nodes = sim.topology.nodes()
    job = TrainingJob("llm", nodes[:20], sim.params.training.model_copy(update=params.job_launch_overrides()))
    sim.add_workload(job)
    sim.control.set_spares([nodes[-1]])
    crashed, hung = job.nodes[2], job.nodes[5]
    sim.inject(FaultSpec(at_s=100, kind="node_crash", target=crashed, duration_s=1200.0))
    sim.inject(FaultSpec(at_s=600, kind="aicore_hang", target=f"{hung}/npu3/die0"))
    orch = Orchestrator(sim, load_runbooks(), params=params)
    sim.run(110)
    orch.handle("crash", Diagnosis("node_crash", crashed, 0.95))
    sim.run(610)
    if before_hang is not None:
        before_hang(sim)
    orch.handle("hang", Diagnosis("aicore_hang", f"{hung}/npu3/die0", 0.95))
    sim.run(until_s)
    return {"sim": sim, "job": job, "orch": orch, "crashed": crashed, "hung": hung}


@pytest.fixture(scope="module")
def hang_without_spare(topo1: Topology) -> dict[str, Any]:
    return hang_world(topo1)


def test_the_scale_in_waiting_for_approval_takes_the_spare_that_comes_free(hang_without_spare: dict[str, Any]
                                                                          ) -> None:
    w = hang_without_spare
    orch, job, crashed, hung = w["orch"], w["job"], w["crashed"], w["hung"]
    back = [f for f in orch.follow_ups("crash") if f["type"] == "returned_to_spares" and f["component"] == crashed]
    assert back and back[0].get("taken_by") == "hang"  # the repaired node went to the waiting response
    inc = orch.incident("hang")
    approval = next(a for a in inc["actions"] if a["action"] == "approval")
    assert approval["detail"]["waiting_for_spare_in"] == "pod0"  # the wait for a spare is in the journal
    assert approval["status"] == "cancelled" and approval["detail"]["spare"] == crashed
    assert approval["end_s"] == pytest.approx(back[0]["at_s"])  # taken the moment it came free
    resumed = [a for a in inc["actions"]
               if a["kind"] == "escalation" and a["detail"].get("to_rung") == "job_reschedule"]
    assert resumed, "the rung that wanted a spare resumes"
    assert inc["outcome"] == "completed" and inc["rung"] == "job_reschedule" and inc["human_steps"] == 0
    restart = [a for a in inc["actions"] if a["action"] == "restart_job"]
    assert restart and restart[-1]["status"] == "succeeded"
    assert crashed in job.nodes and hung not in job.nodes and job.state in ("running", "checkpointing")
    assert len(job.nodes) == 20  # moved, not scaled in
    assert any(a["action"] == "reset_chip" and a["kind"] == "followup" for a in inc["actions"])  # chip reset after


def lone_hang(topo1: Topology, params: RecoveryParams, runbooks: RunbookSet | None = None
              ) -> tuple[Simulation, Orchestrator, TrainingJob]:
    """An AI Core hang with no spare in the pool, its response under way (at t=110 s)."""
    sim = Simulation(params=at_medians(SimParams()), seed=3, topology=topo1)
    nodes = sim.topology.nodes()
    job = TrainingJob("llm", nodes[:20], sim.params.training.model_copy(update=params.job_launch_overrides()))
    sim.add_workload(job)
    sim.control.set_spares([])
    hung = job.nodes[5]
    sim.inject(FaultSpec(at_s=100, kind="aicore_hang", target=f"{hung}/npu3/die0"))
    orch = Orchestrator(sim, runbooks or load_runbooks(), params=params)
    sim.run(110)
    orch.handle("hang", Diagnosis("aicore_hang", f"{hung}/npu3/die0", 0.95))
    return sim, orch, job


def test_no_spare_no_change_the_approval_is_waited_for(topo1: Topology) -> None:
    """Without a spare coming free the scale-in goes ahead once approved, as before."""
    sim, orch, _job = lone_hang(topo1, RecoveryParams(approval_median_s=300.0, approval_sigma=0.0))
    sim.run(3600)
    inc = orch.incident("hang")
    approval = next(a for a in inc["actions"] if a["action"] == "approval")
    assert approval["status"] == "succeeded" and approval["detail"]["waiting_for_spare_in"] == "pod0"
    scaled = [a for a in inc["actions"] if a["action"] == "scale_instance"]
    assert inc["rung"] == "scale_in" and scaled and scaled[-1]["status"] == "succeeded"
