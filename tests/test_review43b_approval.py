"""Review43b: orch43's re-asked approval (``recovery/stepper.py``). A scale-in whose approval wait a warm spare cut
short is asked again after the resumed rungs failed; here they took longer than the first request's delay, so its
answer came while they ran. The journal said the request "is still with the on-call, its answer due at" a time
already past; and the record of the request stayed after it was answered, so a later ask of the same step would
have waited 0 s and said the same."""

from __future__ import annotations

from typing import Any

import pytest

from faultlib.topology import Topology
from opsbrain.recovery import RecoveryParams
from tests.test_orch43_reasked_approval import run_two_crashes

APPROVAL_S = 1400.0
PARAMS = RecoveryParams(approval_median_s=APPROVAL_S, approval_sigma=0.0)
"""Longer than the wait for the first crashed node's repair (the spare comes first, ~1,290 s after the ask),
shorter than that wait plus the resumed rungs' failed restarts (~370 s)."""


@pytest.fixture(scope="module")
def answered_meanwhile(topo1: Topology) -> dict[str, Any]:
    """test_orch43_reasked_approval's two crashes with a shorter approval delay."""
    return run_two_crashes(topo1, PARAMS)


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
