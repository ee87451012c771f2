"""Session 42 (orch42): a rung resumed with a spare that came free during a scale-in's approval (orch41) and that then
fails goes on up the ladder from itself: the scale-in whose approval the spare cut short is tried again. Before, the
ladder went on after the scale-in (``wait_for_repair``), which for an AI Core hang reused the same spare for the same
failing restart and paged a person: the job stayed down to the end of the run although shedding the hung node
(the scale-in the policy allows) would have run it."""

from __future__ import annotations

from typing import Any

import pytest
import simpy

from faultlib.control import ActionResult
from faultlib.engine import Simulation
from faultlib.topology import Topology
from opsbrain.recovery import RecoveryParams
from tests.test_orch41_spare_during_approval import hang_world

APPROVAL = RecoveryParams(approval_median_s=5000.0, approval_sigma=0.0)
"""Slower than the crashed node's repair (the spare comes first), within the run."""


def _restarts_onto_a_spare_fail(sim: Simulation) -> None:
    """Every job restart fails (a restart onto the spare that cannot set its devices up); a scale-in still works."""
    c = sim.control

    def fail(job: str, source: str = "persistent", replace: dict[str, str] | None = None,
             scope: str = "job") -> simpy.Process:
        def run() -> Any:
            yield sim.env.timeout(60.0)
            return ActionResult("restart_job", job, "failed", sim.now - 60.0, sim.now,
                                {"reason": "device set-up failed (test)"})
        return sim.env.process(run())

    c.restart_job = fail  # type: ignore[method-assign]


@pytest.fixture(scope="module")
def resumed_then_failed(topo1: Topology) -> dict[str, Any]:
    return hang_world(topo1, _restarts_onto_a_spare_fail, params=APPROVAL, until_s=5 * 3600)


def test_the_cancelled_scale_in_is_tried_again(resumed_then_failed: dict[str, Any]) -> None:
    w = resumed_then_failed
    inc = w["orch"].incident("hang")
    esc = [(a["detail"]["from_rung"], a["detail"]["to_rung"]) for a in inc["actions"]
           if a["kind"] == "escalation" and "from_rung" in a["detail"]]
    resumed = esc.index(("scale_in", "job_reschedule"))  # the resume
    assert esc[resumed + 1] == ("job_reschedule", "scale_in"), esc  # before: job_reschedule -> wait_for_repair
    approvals = [a for a in inc["actions"] if a["action"] == "approval"]
    assert [a["status"] for a in approvals] == ["cancelled", "succeeded"]
    scaled = [a for a in inc["actions"] if a["action"] == "scale_instance"]
    assert scaled and scaled[-1]["status"] == "succeeded"
    assert inc["outcome"] == "completed" and inc["rung"] == "scale_in"


def test_the_job_runs_again(resumed_then_failed: dict[str, Any]) -> None:
    w = resumed_then_failed
    job, hung = w["job"], w["hung"]
    assert job.state in ("running", "checkpointing"), job.state  # before: down to the end, a person paged
    # the hung node was given up; it is back in the job only through the scale-out once its chip was reset (session 44:
    # the spare the restarts failed on is inspected first, so the scale-out takes the next node of the pod to return)
    inc = w["orch"].incident("hang")
    assert hung not in job.nodes or any(hung in a["detail"]["add"] for a in inc["actions"]
                                        if a["action"] == "scale_out" and a["status"] == "succeeded")
