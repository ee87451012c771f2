"""Session 45 (recov45): a physical SuperPoD short of nodes moves the job's logical SuperPoD to another one.

MindCluster's rescheduling upon faults with logical-SuperPoD affinity: a faulty node of a logical SuperPoD is
replaced from its own physical SuperPoD; when the nodes left there can no longer hold the logical SuperPoD, its
tasks are all scheduled to another physical SuperPoD ("Affinity Scheduling of Logical SuperPoDs",
hiascend.com/document/detail/zh/mindcluster/730/clustersched/dlug/dl_affinity_0032.html; ascend-for-volcano
superpod/frame.go: a logical SuperPoD not satisfied in its origin SuperPoD is placed whole by ``selectNodes``, which
prefers the SuperPoD with fewer remaining nodes). Before, ``swap_spare`` looked only in the failed node's pod, so
the job was scaled in (or paged) while another pod had room for the whole group."""

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

PARAMS = RecoveryParams(approval_median_s=300.0, approval_sigma=0.0)


def move_world(free: dict[int, int], until_s: float = 3 * 3600) -> dict[str, Any]:
    """An 8-node job on pod0 with no spare there; ``free`` pool nodes in the other pods; a job node crashes."""
    topo = Topology.build(TopologyParams(), pods=4)
    sim = Simulation(params=at_medians(SimParams()), seed=3, topology=topo)
    by_pod: dict[int, list[str]] = {}
    for n in sim.topology.nodes():
        by_pod.setdefault(int(str(ids.pod_of(n))[3:]), []).append(n)
    job = TrainingJob("llm", by_pod[0][:8], sim.params.training.model_copy(update=PARAMS.job_launch_overrides()))
    sim.add_workload(job)
    sim.control.set_spares([n for p, k in free.items() for n in by_pod[p][:k]])
    crashed = job.nodes[2]
    sim.inject(FaultSpec(at_s=100, kind="node_crash", target=crashed, duration_s=1200.0))
    orch = Orchestrator(sim, load_runbooks(), params=PARAMS)
    sim.run(110)
    group = list(job.nodes)
    orch.handle("crash", Diagnosis("node_crash", crashed, 0.95))
    sim.run(until_s)
    return {"sim": sim, "job": job, "orch": orch, "crashed": crashed, "group": group}


@pytest.fixture(scope="module")
def moved() -> dict[str, Any]:
    return move_world({1: 7, 2: 12, 3: 9})  # pod1 too small for the 8-node group; pod3 the tightest that fits


def test_the_whole_group_moves_to_the_tightest_pod_that_holds_it(moved: dict[str, Any]) -> None:
    job, orch = moved["job"], moved["orch"]
    assert job.state in ("running", "checkpointing"), job.state
    assert len(job.nodes) == 8 and {ids.pod_of(n) for n in job.nodes} == {"pod3"}  # before: scaled in on pod0
    inc = orch.incident("crash")
    assert inc["human_steps"] == 0 and inc["outcome"] == "completed"
    move = [f for f in orch.follow_ups("crash") if f["type"] == "superpod_move"]
    assert len(move) == 1 and move[0]["from_pod"] == "pod0" and move[0]["to_pod"] == "pod3"
    assert sorted(move[0]["nodes"]) == sorted(moved["group"])
    assert not any(a["action"] == "scale_instance" for a in inc["actions"])
    pool = moved["sim"].control.spares  # pod1 (7 free) could not hold the group: none of its pool was taken
    assert len([n for n in pool if ids.pod_of(n) == "pod1"]) == 7


def test_the_move_is_a_job_level_restart_from_the_persistent_checkpoint(moved: dict[str, Any]) -> None:
    """Every rank moves (job-level rescheduling stops all pods; the process-level rung's scope is not kept), and
    with the whole job moved both copies of each in-memory shard leave it: the persistent checkpoint is loaded."""
    inc = moved["orch"].incident("crash")
    restarts = [a for a in inc["actions"] if a["action"] == "restart_job" and a["status"] == "succeeded"]
    assert restarts and restarts[0]["detail"]["checkpoint"]["source"] == "persistent"
    ev = [e for e in moved["sim"].telemetry.events if getattr(e, "kind", "") == "restart"
          and getattr(e, "job", "") == "llm"]
    assert ev and ev[-1].detail.get("scope") == "job"


def test_the_healthy_nodes_left_behind_rejoin_their_pool(moved: dict[str, Any]) -> None:
    orch, crashed, group = moved["orch"], moved["crashed"], moved["group"]
    back = {f["component"] for f in orch.follow_ups("crash") if f["type"] == "returned_to_spares"}
    assert set(group) - {crashed} <= back
    spares = moved["sim"].control.spares
    assert all(n in spares for n in set(group) - {crashed})
    assert not any(ids.pod_of(n) == "pod3" for n in spares if n in moved["job"].nodes)
