"""Session 45 (recov45): a job paged after its restarts failed on nodes in service is left failed, and says so.

orch44b's claim on a spare holds only for a job down for want of a node. A job whose restarts failed where every
node is in service (the restart budget spent, nothing missing) gets no claim: MindCluster retries such a job
``fault-retry-times`` times and then does not handle the fault (Service Plane Faults, dl_resume_020); Volcano sets
the job Failed (FAQ dlug_installation_faq_037), and a node coming free does not restart it. Before, the journal said
nothing of the job at the page: the person paged could not tell a failed job from one pending for a node."""

from __future__ import annotations

from typing import Any

import simpy

from faultlib.control import ActionResult
from faultlib.durations import at_medians
from faultlib.engine import Simulation
from faultlib.injection.spec import FaultSpec
from faultlib.simparams import SimParams
from faultlib.topology import Topology
from faultlib.workloads.training import TrainingJob
from opsbrain.recovery import Orchestrator, RecoveryParams, load_runbooks
from opsbrain.verdict import Diagnosis

PARAMS = RecoveryParams(approval_median_s=300.0, approval_sigma=0.0, training_scale_in_max_share=0.1)


def _every_restart_fails(sim: Simulation) -> None:
    """The job's processes fail to come up wherever they are placed (a restart or a scale-in alike)."""
    c = sim.control

    def fail(job: str, *_a: Any, **_k: Any) -> simpy.Process:
        def run() -> Any:
            yield sim.env.timeout(60.0)
            return ActionResult("restart_job", job, "failed", sim.now - 60.0, sim.now,
                                {"reason": "processes exited at start-up (test)"})
        return sim.env.process(run())

    c.restart_job = fail  # type: ignore[method-assign]
    c.scale_in_job = fail  # type: ignore[method-assign]


def test_the_job_is_left_failed_and_the_journal_says_so(topo1: Topology) -> None:
    sim = Simulation(params=at_medians(SimParams()), seed=3, topology=topo1)
    nodes = sim.topology.nodes()
    job = TrainingJob("llm", nodes[:20], sim.params.training.model_copy(update=PARAMS.job_launch_overrides()))
    sim.add_workload(job)
    sim.control.set_spares([nodes[-1]])
    hung = job.nodes[5]
    sim.inject(FaultSpec(at_s=100, kind="aicore_hang", target=f"{hung}/npu3/die0"))
    _every_restart_fails(sim)
    orch = Orchestrator(sim, load_runbooks(), params=PARAMS)
    sim.run(110)
    orch.handle("hang", Diagnosis("aicore_hang", f"{hung}/npu3/die0", 0.95))
    sim.run(4 * 3600)
    inc = orch.incident("hang")
    assert inc["outcome"] == "escalated_to_human" and inc["human_steps"] >= 1
    assert not any(a["action"] == "waiting_for_spare" for a in inc["actions"])  # nothing missing: no claim
    failed = [f for f in orch.follow_ups("hang") if f["type"] == "job_not_restarted"]
    assert len(failed) == 1 and failed[0]["component"] == "llm"  # before: no word of the job at the page
    page = next(f for f in orch.follow_ups("hang") if f["type"] == "page")
    assert failed[0]["at_s"] == page["at_s"]
    assert "fault-retry-times" in failed[0]["reason"]
    assert job.state not in ("running", "checkpointing")  # left failed: nothing restarts it
