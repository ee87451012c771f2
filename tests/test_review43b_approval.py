"""Review43b: orch43's re-asked approval (``recovery/stepper.py``). A scale-in whose approval wait a warm spare cut
short is asked again after the resumed rungs failed; here they took longer than the first request's delay, so its
answer came while they ran. The journal said the request "is still with the on-call, its answer due at" a time
already past; and the record of the request stayed after it was answered, so a later ask of the same step would
have waited 0 s and said the same."""

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

APPROVAL_S = 1400.0
PARAMS = RecoveryParams(approval_median_s=APPROVAL_S, approval_sigma=0.0)
"""Longer than the wait for the first crashed node's repair (the spare comes first, ~1,290 s after the ask),
shorter than that wait plus the resumed rungs' failed restarts (~370 s)."""


@pytest.fixture(scope="module")
def answered_meanwhile(topo1: Topology) -> dict[str, Any]:
    """test_orch43_reasked_approval's two crashes with a shorter approval delay."""
    sim = Simulation(params=at_medians(SimParams()), seed=3, topology=topo1)
    nodes = sim.topology.nodes()
    job = TrainingJob("llm", nodes[:20], sim.params.training.model_copy(update=PARAMS.job_launch_overrides()))
    sim.add_workload(job)
    sim.control.set_spares([nodes[-1]])
    a, b = job.nodes[2], job.nodes[5]
    sim.inject(FaultSpec(at_s=100, kind="node_crash", target=a, duration_s=1200.0))
    sim.inject(FaultSpec(at_s=600, kind="node_crash", target=b))
    orch = Orchestrator(sim, load_runbooks(), params=PARAMS)
    sim.run(110)
    orch.handle("A", Diagnosis("node_crash", a, 0.95))
    sim.run(610)
    _restarts_onto_a_spare_fail(sim)
    orch.handle("B", Diagnosis("node_crash", b, 0.95))
    sim.run(620)
    ctx = orch._contexts["B"]  # the response's context (dropped when it ends)
    sim.run(6 * 3600)
    return {"orch": orch, "a": a, "ctx": ctx}


def test_an_answer_that_came_meanwhile_is_not_said_to_be_pending(answered_meanwhile: dict[str, Any]) -> None:
    inc = answered_meanwhile["orch"].incident("B")
    first, second = [a for a in inc["actions"] if a["action"] == "approval"]
    assert first["status"] == "cancelled" and first["detail"]["spare"] == answered_meanwhile["a"]
    due = first["start_s"] + APPROVAL_S
    assert first["detail"]["answer_due_s"] == pytest.approx(due)
    assert second["start_s"] > due  # the scenario: the resumed rungs outlasted the first request's delay
    assert second["status"] == "succeeded" and second["detail"]["waited_s"] == 0.0
    reason = second["detail"]["reason"]
    assert "still with the on-call" not in reason, reason  # before: "... still with the on-call, its answer due at"
    assert f"answered at t={due:.0f} s" in reason, reason
    assert inc["human_steps"] == 1 and inc["outcome"] == "completed"


def test_an_answered_request_is_not_kept_for_a_later_ask(answered_meanwhile: dict[str, Any]) -> None:
    """Once answered, the step's request is no longer with the on-call: a later ask would be a new request. The
    built-in ladder cannot ask a third time (one spare jump per response: ``ctx.spare`` stays set), so the record is
    read directly."""
    step = next(a["step"] for a in answered_meanwhile["orch"].incident("B")["actions"] if a["action"] == "approval")
    assert step not in answered_meanwhile["ctx"].vars["approval_asked"]
