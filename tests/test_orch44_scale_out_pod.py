"""Session 44 (orch44): a scale-in followed at once by a scale-out. A training job spanning two pods lost a node of
pod0, whose pool was empty, so its response scaled it in (MindCluster re-places a faulty node only from the same
physical SuperPoD: ``swap_spare`` looks in the node's pod); the scale-out then took pod1's idle spare the moment the
scale-in ended, a second restart onto a node the rescheduling could not use. On the replay of the InfiniteHBD trace
(seed 0) 86 of 219 scale-ins were followed by such a scale-out. The scale-out now fills a slot the job gave up only
from the pool of that slot's pod, as the rescheduling does."""

from __future__ import annotations

from typing import Any

import pytest

from faultlib import ids
from faultlib.durations import at_medians
from faultlib.engine import Simulation
from faultlib.injection.spec import FaultSpec
from faultlib.simparams import SimParams
from faultlib.topology import Topology, TopologyParams
from faultlib.workloads.training import TrainingJob
from opsbrain.recovery import Orchestrator, RecoveryParams, load_runbooks
from opsbrain.verdict import Diagnosis

FAST_APPROVAL = RecoveryParams(approval_median_s=300.0, approval_sigma=0.0)


@pytest.fixture(scope="module")
def two_pods() -> dict[str, Any]:
    """A 20-node job, 10 nodes in each of two pods; pod0 has no spare, pod1 one; a node of pod0 crashes."""
    sim = Simulation(params=at_medians(SimParams()), seed=3, topology=Topology.build(TopologyParams(), pods=2))
    nodes = sim.topology.nodes()
    pod0 = [n for n in nodes if ids.pod_of(n) == "pod0"]
    pod1 = [n for n in nodes if ids.pod_of(n) == "pod1"]
    job = TrainingJob("llm", pod0[:10] + pod1[:10],
                      sim.params.training.model_copy(update=FAST_APPROVAL.job_launch_overrides()))
    sim.add_workload(job)
    spare = pod1[-1]
    sim.control.set_spares([spare])
    crashed = pod0[3]
    sim.inject(FaultSpec(at_s=100, kind="node_crash", target=crashed, duration_s=1200.0))
    orch = Orchestrator(sim, load_runbooks(), params=FAST_APPROVAL)
    sim.run(110)
    orch.handle("crash", Diagnosis("node_crash", crashed, 0.95))
    sim.run(4 * 3600)
    return {"sim": sim, "job": job, "orch": orch, "crashed": crashed, "spare": spare}


def test_the_scale_in_is_not_undone_onto_another_pods_spare(two_pods: dict[str, Any]) -> None:
    w = two_pods
    acts = w["orch"].incident("crash")["actions"]
    scale_in = next(a for a in acts if a["action"] == "scale_instance" and a["status"] == "succeeded")
    outs = [a for a in acts if a["action"] == "scale_out"]
    assert all(w["spare"] not in a["detail"]["add"] for a in outs), outs  # before: pod1's spare, at once
    assert all(a["start_s"] > scale_in["end_s"] for a in outs)
    assert w["spare"] in w["sim"].control.spares and w["spare"] not in w["job"].nodes


def test_the_job_scales_back_out_onto_its_own_pods_node(two_pods: dict[str, Any]) -> None:
    w = two_pods
    orch, job, crashed = w["orch"], w["job"], w["crashed"]
    acts = orch.incident("crash")["actions"]
    out = [a for a in acts if a["action"] == "scale_out" and a["status"] == "succeeded"]
    back = [f for f in orch.follow_ups("crash") if f["type"] == "returned_to_spares" and f["component"] == crashed]
    assert len(out) == 1 and out[0]["detail"]["add"] == [crashed]
    assert back and out[0]["start_s"] >= back[0]["at_s"]  # once the crashed node of pod0 is back in its pool
    assert len(job.nodes) == 20 and crashed in job.nodes and job.state in ("running", "checkpointing")
    assert sum(ids.pod_of(n) == "pod0" for n in job.nodes) == 10  # the slot back in its pod
