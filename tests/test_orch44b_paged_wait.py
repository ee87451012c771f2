"""Session 44 (orch44b): a response that pages a person with its job down for want of a node keeps a pending claim on
the next healthy spare of its pod, as a gang scheduler keeps a job pending until a node is free (Volcano does not end
a job pending for resources: MindCluster FAQ "A Job Is Pending Due to Insufficient Resources"). The world of
``benchmarks/refused_scale_in_wait.py`` (orch44): rb-hbm-uce on a 20-node job the policy may not shrink, its pod's
only spare taken by an earlier crash; the ladder's scale-in is refused and a person paged at t=979 s. Before, the
crashed node's return to the pool (t=1,900 s here) left the job down to the end of the run with the node idle."""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.refused_scale_in_wait import world


def _wait(inc: dict[str, Any]) -> dict[str, Any]:
    waits = [a for a in inc["actions"] if a["action"] == "waiting_for_spare"]
    assert len(waits) == 1, [a["action"] for a in inc["actions"]]
    return waits[0]


@pytest.fixture(scope="module")
def spare_back() -> dict[str, Any]:
    return world(False, 1200.0)  # the crashed node back in the pool at t=1,900 s, after the page


def test_the_paged_job_takes_the_spare_that_returns(spare_back: dict[str, Any]) -> None:
    w = spare_back
    orch, job, a, b = w["orch"], w["job"], w["a"], w["b"]
    inc = orch.incident("B")
    page = next(f for f in inc["follow_ups"] if f["type"] == "page")
    wait = _wait(inc)
    assert wait["start_s"] == pytest.approx(page["at_s"])  # the claim begins with the page
    assert wait["target"] == "pod0" and wait["detail"]["replaces"] == b and wait["rung"] == "job_reschedule"
    back = next(f for f in orch.follow_ups("A") if f["type"] == "returned_to_spares" and f["component"] == a)
    assert back["at_s"] == pytest.approx(1900.0) and back["taken_by"] == "B"
    assert wait["status"] == "succeeded" and wait["end_s"] == pytest.approx(back["at_s"])
    assert wait["detail"]["spare"] == a and "came free" in wait["detail"]["reason"]
    later = [x for x in inc["actions"] if x["start_s"] >= wait["end_s"] and x["kind"] == "step"]
    assert [x["action"] for x in later] == ["swap_spare", "restart_job"]  # the job_reschedule rung resumed
    assert later[0]["detail"] == {"spare": a, "reused": True} and later[1]["status"] == "succeeded"
    assert later[1]["start_s"] == pytest.approx(back["at_s"])
    assert job.state in ("running", "checkpointing") and job.nodes[5] == a and b not in job.nodes
    assert inc["outcome"] == "completed" and inc["human_steps"] == 1  # the page stands in the journal
    assert a not in w["sim"].control.spares


def test_the_claim_ends_at_its_bound(spare_back: dict[str, Any]) -> None:
    w = world(False, 1200.0, paged_spare_wait_max_s=600.0)  # the bound passes (t=1,579 s) before the node is back
    orch, job, a = w["orch"], w["job"], w["a"]
    inc = orch.incident("B")
    wait = _wait(inc)
    assert wait["status"] == "failed" and wait["end_s"] - wait["start_s"] == pytest.approx(600.0)
    assert "paged_spare_wait_max_s" in wait["detail"]["reason"]
    assert inc["outcome"] == "escalated_to_human" and job.state == "down"
    assert a in w["sim"].control.spares  # not claimed: the node sits in the pool for the next response


def test_its_own_node_back_ends_the_claim() -> None:
    # the spare not back for 14 h; a person has the HBM's NPU replaced (part_replacement_s, 4 h at the median)
    w = world(False, 50000.0, until_s=1000.0)
    orch, sim, job, b = w["orch"], w["sim"], w["job"], w["b"]
    sim.control.replace_part(f"{b}/npu3")
    del sim.control.restart_job, sim.control.restart_process  # the world's failing restarts: a new NPU works
    sim.run(8 * 3600)
    inc = orch.incident("B")
    wait = _wait(inc)
    assert wait["status"] == "succeeded" and wait["detail"]["own_node"] == b
    assert wait["end_s"] == pytest.approx(1000.0 + 4 * 3600, abs=1.0)  # when the NPU was back in service
    later = [x for x in inc["actions"] if x["start_s"] >= wait["end_s"] and x["kind"] == "step"]
    assert [x["action"] for x in later] == ["swap_spare", "restart_job"] and later[1]["status"] == "succeeded"
    assert job.state in ("running", "checkpointing") and job.nodes[5] == b and inc["outcome"] == "completed"


def test_a_person_bringing_the_job_back_drops_the_claim() -> None:
    w = world(False, 1200.0, until_s=1000.0)  # paged at t=979 s, the claim held
    orch, sim, job, a, b = w["orch"], w["sim"], w["job"], w["a"], w["b"]
    del sim.control.restart_job  # the world's failing restarts: the person's own scale-in restarts the job
    sim.control.scale_in_job(job.name, [b], {})  # the person paged scales the job in by hand
    sim.run(6 * 3600)
    inc = orch.incident("B")
    wait = _wait(inc)
    resumed = next(e.t for e in sim.telemetry.events if e.kind == "resumed" and e.t > 1000)
    assert wait["status"] == "cancelled" and resumed <= wait["end_s"] <= resumed + 5.0  # as its event arrives
    assert "runs again" in wait["detail"]["reason"]
    assert inc["outcome"] == "escalated_to_human" and len(job.nodes) == 19 and job.state != "down"
    assert a in sim.control.spares  # back at t=1,900 s, not claimed: the job runs
