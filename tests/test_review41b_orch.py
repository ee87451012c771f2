"""Session 41 review (review41b) of orch41's recovery changes: a sibling dark link whose run fails is not left
silently dark (it pages a person, as the response's own link does when its ladder runs out); a rung resumed with a
spare that came free during a scale-in's approval escalates, when it fails, from itself in the journal."""

from __future__ import annotations

from typing import Any

import simpy

from faultlib.engine import Simulation
from faultlib.topology import Topology
from opsbrain.recovery import load_runbooks
from tests.test_orch41_dark_links import _world
from tests.test_orch41_spare_during_approval import SLOW_APPROVAL, hang_world, lone_hang


def _fail_sibling_drain(sim: Simulation, links: list[str]) -> None:
    """The sibling's drain fails every attempt (a route push refused)."""
    c, drain = sim.control, sim.control.drain_link

    def drain_or_fail(link: str, holder: str = "") -> simpy.Process:
        return drain(link, holder) if link != links[1] else c._action("drain_link", link, 1.0, 1.0, lambda: None)

    c.drain_link = drain_or_fail  # type: ignore[method-assign]


def test_a_sibling_links_failed_run_pages_a_person(topo1: Topology) -> None:
    _sim, orch, links = _world(topo1, None, patch=_fail_sibling_drain)
    inc: dict[str, Any] = orch.incident("i1")
    drains = [a for a in inc["actions"] if a["action"] == "drain_link" and a["target"] == links[1]]
    assert drains and all(a["status"] == "failed" for a in drains)
    pages = [f for f in inc["follow_ups"] if f["type"] == "page" and f["component"] == links[1]]
    assert pages, [(f["type"], f["component"]) for f in inc["follow_ups"]]  # before: nothing, the link dark
    assert inc["human_steps"] >= 1


def test_a_resumed_rung_that_fails_escalates_from_itself_and_gives_the_spare_back(topo1: Topology) -> None:
    """orch41's spare taken during a scale-in's approval: the rung that wanted it resumes; when that rung fails the
    ladder goes on, and its escalation names the rung that failed (the journal said ``from_rung: scale_in``, a rung
    whose approval had been cancelled); the spare no workload runs on goes back to the pool at the end."""
    def restarts_fail(sim: Simulation) -> None:
        sim.control.p = sim.control.p.model_copy(update={"restart_failure_prob": 1.0})

    w = hang_world(topo1, restarts_fail, until_s=12 * 3600)  # session 42: the scale-in is tried again (approval)
    sim, orch, crashed = w["sim"], w["orch"], w["crashed"]
    inc = orch.incident("hang")
    esc = [(a["detail"]["from_rung"], a["detail"]["to_rung"]) for a in inc["actions"]
           if a["kind"] == "escalation" and "from_rung" in a["detail"]]
    resumed = esc.index(("scale_in", "job_reschedule"))  # the resume
    assert esc[resumed + 1:] == [("job_reschedule", "scale_in"), ("scale_in", "wait_for_repair"),
                                 ("wait_for_repair", "human")], esc
    assert inc["outcome"] == "escalated_to_human"
    assert crashed in sim.control.spares and not orch.exec._spare_waiters  # given back; no waiter left behind


CORDON_AFTER_APPROVAL = """\
id: rb-test-cordon-approval
title: test - a cordon that waits for an approval, after a swap that found no spare
applies_to: [aicore_hang]
level: SeparateNPU
source: review41b test
description: test
rung: job_reschedule
steps:
  - {action: swap_spare, target: node_of(component), when: {affects_workload: true}}
  - {action: restart_job, target: affected_workloads, params: {source: memory, replace: {node_of(component): spare}}}
escalation:
  - rung: scale_in
    steps:
      - {action: cordon, target: node_of(component), approval: required}
"""


def test_an_isolating_step_whose_approval_a_spare_cut_short_keeps_no_reservation(topo1: Topology, tmp_path) -> None:
    """A step that isolates and waits for an approval reserves its targets with the blast-radius guard first; a spare
    that came free cancelled the approval, the step never ran, and the reservation stayed for the rest of the run
    (counted against every later isolation in the pod)."""
    (tmp_path / "rb-test-cordon-approval.yaml").write_text(CORDON_AFTER_APPROVAL)
    rbs = load_runbooks([tmp_path / "rb-test-cordon-approval.yaml"])
    sim, orch, job = lone_hang(topo1, SLOW_APPROVAL, rbs)
    hung, nodes = job.nodes[5], sim.topology.nodes()
    sim.run(500)
    spare = nodes[-1]
    orch.exec.return_spare(spare, orch.records["hang"], how="test: a node back from repair")
    sim.run(6 * 3600)
    inc = orch.incident("hang")
    approvals = [a for a in inc["actions"] if a["action"] == "approval"]
    assert approvals[0]["status"] == "cancelled" and approvals[0]["detail"]["spare"] == spare
    assert hung not in orch.guardrails._pending, "the cordon never ran: its reservation is released"
