"""Session 42 (orch42): a link runbook that only takes the link out of traffic for a hold-down (``rb-link-fault``,
``rb-dirty-connector``, ``rb-link-flap``) recovers a training job whose HCCL operator retries ran out before the
drain, as ``rb-link-down`` does after its re-route (MindCluster process-level online recovery for network faults,
dl_resume_026). Before, nothing restarted it: down for the whole 600 s hold-down and, with the links healed meanwhile
(undrained, no take-over), to the end of the run unless the progress watchdog opened an incident of its own."""

from __future__ import annotations

import pytest

from faultlib.durations import at_medians
from faultlib.engine import Simulation
from faultlib.injection.spec import FaultSpec
from faultlib.simparams import SimParams
from faultlib.topology import Topology
from faultlib.workloads.training import TrainingJob
from opsbrain.recovery import Orchestrator, RecoveryParams, load_runbooks
from opsbrain.verdict import Diagnosis
from tests.test_orch41_dark_links import LINK_AMBIGUOUS


@pytest.mark.parametrize("diagnosis", ["abstained", "dirty_connector", "link_flap"])
def test_a_job_down_before_the_drain_is_recovered_once(topo1: Topology, diagnosis: str) -> None:
    sim = Simulation(params=at_medians(SimParams()), seed=4, topology=topo1)
    nodes = sim.topology.nodes()
    job = TrainingJob("llm", nodes[:8], sim.params.training.model_copy(update=RecoveryParams().job_launch_overrides()))
    sim.add_workload(job)
    ups = sim.fabric.node_uplinks(job.nodes[3])
    links = [ups[2], ups[40]]  # two links of one node: the response and its sibling run
    for link in links:
        sim.inject(FaultSpec(at_s=100, kind="link_down", target=link, duration_s=300.0))  # healed by the end
    orch = Orchestrator(sim, load_runbooks())
    sim.run(200)  # diagnosed late: the operator retries ran out, the job is down
    assert job.state == "down"
    diag = (Diagnosis("unknown", links[0], 0.35, alternatives=LINK_AMBIGUOUS) if diagnosis == "abstained"
            else Diagnosis(diagnosis, links[0], 0.9))
    orch.handle("i1", diag)
    sim.run(400)
    assert job.state in ("running", "checkpointing"), job.state  # before: down, the hold-down under way
    sim.run(2000)
    inc = orch.incident("i1")
    recovered = [a for a in inc["actions"] if a["action"] == "restart_process" and a["status"] == "succeeded"
                 and not a["detail"].get("joined")]
    assert len(recovered) == 1, [(a["status"], a["detail"]) for a in inc["actions"] if a["action"] == "restart_process"]
    assert job.state in ("running", "checkpointing")
