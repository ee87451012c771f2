"""Session 43 (orch43): a scale-in whose approval wait a warm spare cut short (orch41) and that the ladder asks again
after the rung resumed on that spare failed (orch42) waits for the same request's answer, not a fresh one. The
on-call was paged at the first ask; the answer comes when the delay drawn then ends. Before, the second ask drew and
waited a whole new approval delay (5,000 s here) while the response held an idle spare and the job was down."""

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
from tests.test_orch42_resume_ladder import _restarts_onto_a_spare_fail

APPROVAL_S = 5000.0
PARAMS = RecoveryParams(approval_median_s=APPROVAL_S, approval_sigma=0.0)
"""Slower than the first crashed node's repair (the spare comes first), within the run."""


def run_two_crashes(topo: Topology, params: RecoveryParams) -> dict[str, Any]:
    """rb-node-crash: crash A takes the only spare; crash B finds none, climbs to the scale-in and waits for its
    approval; A's node, repaired, comes free and is taken; every restart onto it fails. ``ctx``: B's response's
    context (dropped when the response ends)."""
    sim = Simulation(params=at_medians(SimParams()), seed=3, topology=topo)
    nodes = sim.topology.nodes()
    job = TrainingJob("llm", nodes[:20], sim.params.training.model_copy(update=params.job_launch_overrides()))
    sim.add_workload(job)
    sim.control.set_spares([nodes[-1]])
    a, b = job.nodes[2], job.nodes[5]
    sim.inject(FaultSpec(at_s=100, kind="node_crash", target=a, duration_s=1200.0))
    sim.inject(FaultSpec(at_s=600, kind="node_crash", target=b))
    orch = Orchestrator(sim, load_runbooks(), params=params)
    sim.run(110)
    orch.handle("A", Diagnosis("node_crash", a, 0.95))
    sim.run(610)
    _restarts_onto_a_spare_fail(sim)  # every job restart fails after 60 s; a scale-in and a scale-out work
    orch.handle("B", Diagnosis("node_crash", b, 0.95))
    sim.run(620)
    ctx = orch._contexts["B"]
    sim.run(6 * 3600)
    return {"sim": sim, "job": job, "orch": orch, "a": a, "b": b, "ctx": ctx}


@pytest.fixture(scope="module")
def two_crashes(topo1: Topology) -> dict[str, Any]:
    return run_two_crashes(topo1, PARAMS)


def test_the_second_ask_waits_for_the_first_requests_answer(two_crashes: dict[str, Any]) -> None:
    inc = two_crashes["orch"].incident("B")
    first, second = [a for a in inc["actions"] if a["action"] == "approval"]
    assert first["status"] == "cancelled" and first["detail"]["spare"] == two_crashes["a"]
    assert second["status"] == "succeeded" and second["step"] == first["step"]
    # the answer comes when the first request's delay ends; before: a fresh 5,000 s from the second ask
    assert second["end_s"] == pytest.approx(first["start_s"] + APPROVAL_S)
    assert first["detail"]["answer_due_s"] == pytest.approx(first["start_s"] + APPROVAL_S)
    assert second["detail"]["asked_at_s"] == pytest.approx(first["start_s"])
    assert second["detail"]["waited_s"] == pytest.approx(second["end_s"] - second["start_s"], abs=1e-3)
    assert second["detail"]["waited_s"] < APPROVAL_S - 1000  # the resumed rungs took > 1,000 s of it
    assert inc["human_steps"] == 1  # one person's approval, asked once
    # the ladder (kept): the resumed rung, then job_reschedule onto the spare (its first try with one: the first time
    # its swap_spare found no spare, so it is not a rung that already succeeded), then the scale-in asked again
    esc = [(a["detail"]["from_rung"], a["detail"]["to_rung"]) for a in inc["actions"]
           if a["kind"] == "escalation" and "from_rung" in a["detail"]]
    assert esc == [("process_reschedule", "job_reschedule"), ("job_reschedule", "scale_in"),
                   ("scale_in", "process_reschedule"), ("process_reschedule", "job_reschedule"),
                   ("job_reschedule", "scale_in")], esc
    restarts = [a for a in inc["actions"] if a["action"] == "restart_job"]
    assert {a["rung"] for a in restarts} == {"process_reschedule", "job_reschedule"}
    assert all(a["status"] == "failed" for a in restarts)
    assert inc["outcome"] == "completed" and inc["rung"] == "scale_in"
    assert all(a["end_s"] is not None for a in inc["actions"])
    job = two_crashes["job"]
    assert job.state in ("running", "checkpointing")
    # B's node was given up; it is back in the job only through the scale-out after its reboot (session 44: the spare
    # the restarts failed on is inspected first, so the scale-out takes the next node of the pod to return, B's)
    assert two_crashes["b"] not in job.nodes or any(two_crashes["b"] in a["detail"]["add"] for a in inc["actions"]
                                                    if a["action"] == "scale_out" and a["status"] == "succeeded")
