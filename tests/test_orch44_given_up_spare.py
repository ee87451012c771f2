"""Session 44 (orch44): a scale-in that gives up the node the response's own spare stood in for (orch42: the ladder
reached the scale-in because every restart onto that spare failed) is not undone at once. Before, the spare went
back to the pool at the response's end and the scale-out put it into the job the same second: the job was scaled in
and at once scaled out again onto the node its three restarts had just failed on. Now that spare is inspected and
repaired first, as a spare that fails its self-check is (``control.part_replacement_s``), and the job scales back
out onto the first healthy node of its pod to return (here the hung node, its chip reset)."""

from __future__ import annotations

from typing import Any

import pytest

from faultlib.topology import Topology
from tests.test_orch41_spare_during_approval import hang_world
from tests.test_orch42_resume_ladder import APPROVAL, _restarts_onto_a_spare_fail


@pytest.fixture(scope="module")
def given_up(topo1: Topology) -> dict[str, Any]:
    return hang_world(topo1, _restarts_onto_a_spare_fail, params=APPROVAL, until_s=5 * 3600)


def test_the_given_up_spare_does_not_rejoin_the_job_at_once(given_up: dict[str, Any]) -> None:
    w = given_up
    orch, spare = w["orch"], w["crashed"]  # the crashed node, repaired, was the spare the hang's response took
    acts = orch.incident("hang")["actions"]
    scale_in = next(a for a in acts if a["action"] == "scale_instance" and a["status"] == "succeeded")
    outs = [a for a in acts if a["action"] == "scale_out"]
    assert all(spare not in a["detail"]["add"] for a in outs), outs  # before: add [spare] at the scale-in's end
    fups = orch.follow_ups("hang")
    ticket = [f for f in fups if f["type"] == "ticket" and f["component"] == spare and f.get("kind") == "inspect"]
    assert ticket and ticket[0]["at_s"] == pytest.approx(scale_in["end_s"])
    assert "restarts onto this spare failed" in ticket[0]["reason"]
    assert not any(f["type"] == "returned_to_spares" and f["component"] == spare and f["at_s"] <= scale_in["end_s"]
                   for f in fups)
    repair = [a for a in acts if a["action"] == "replace_part" and a["target"] == spare]
    assert repair and repair[0]["start_s"] == pytest.approx(scale_in["end_s"])


def test_the_job_scales_back_out_onto_the_next_node_back(given_up: dict[str, Any]) -> None:
    w = given_up
    orch, job, hung = w["orch"], w["job"], w["hung"]
    acts = orch.incident("hang")["actions"]
    out = [a for a in acts if a["action"] == "scale_out" and a["status"] == "succeeded"]
    assert len(out) == 1 and out[0]["detail"]["add"] == [hung]  # its chip reset, back in the pool
    assert len(job.nodes) == 20 and job.state in ("running", "checkpointing")
    assert job.accounting()["scale_ins"] == 1 and job.accounting()["scale_outs"] == 1
