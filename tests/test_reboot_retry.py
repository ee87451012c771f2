"""A step retried after a timeout joins the action still under way instead of issuing it again: a reboot whose
first attempt outlived the step's timeout reboots the node once, and the journal says the retry joined it."""

from __future__ import annotations

from pathlib import Path

from faultlib.topology import Topology
from opsbrain.recovery import Orchestrator, load_runbooks
from tests.test_orchestrator import diag, training

RUNBOOK = """id: rb-slow-reboot
title: test - reboot the hung host, with a step timeout shorter than a reboot
applies_to: [node_hang]
level: RestartBusiness
source: test runbook
rung: wait_for_repair
steps:
  - {action: reboot_node, target: node_of(component), timeout_s: 250, retries: 2}
"""


def test_a_retried_reboot_reboots_the_node_once(topo1: Topology, tmp_path: Path) -> None:
    (tmp_path / "rb-slow-reboot.yaml").write_text(RUNBOOK)
    rbs = load_runbooks([tmp_path])
    sim, job = training(topo1)  # durations at their medians: a reboot takes control.node_reboot_s = 600 s
    node = job.nodes[3]
    sim.run(100)
    orch = Orchestrator(sim, rbs)
    orch.handle("hang", diag("node_hang", node))
    sim.run(3000)
    reboots = [e for e in sim.trace.events if e.kind == "action" and e.subject == node
               and e.detail.get("action") == "reboot_node"]
    assert len(reboots) == 1, [(e.t, e.detail) for e in reboots]
    acts = [a for a in orch.actions_for("hang") if a["action"] == "reboot_node"]
    assert [a["status"] for a in acts] == ["failed", "failed", "succeeded"]
    assert "timed out" in acts[0]["detail"]["reason"]
    assert acts[2]["detail"].get("joined_in_flight") and acts[1]["detail"].get("joined_in_flight")
    assert orch.incident("hang")["outcome"] == "completed"


def test_a_reboot_done_during_the_back_off_is_taken_not_repeated(topo1: Topology, tmp_path: Path) -> None:
    """The reboot (600 s) outlives the 599 s timeout by one second and ends inside the 2 s back-off: the retry
    takes its result instead of rebooting again."""
    (tmp_path / "rb-slow-reboot.yaml").write_text(RUNBOOK.replace("timeout_s: 250", "timeout_s: 599"))
    sim, job = training(topo1)
    node = job.nodes[3]
    sim.run(100)
    orch = Orchestrator(sim, load_runbooks([tmp_path]))
    orch.handle("hang", diag("node_hang", node))
    sim.run(3000)
    reboots = [e for e in sim.trace.events if e.kind == "action" and e.subject == node
               and e.detail.get("action") == "reboot_node"]
    assert [e.t for e in reboots] == [700.0]
    acts = [a for a in orch.actions_for("hang") if a["action"] == "reboot_node"]
    assert [a["status"] for a in acts] == ["failed", "succeeded"] and acts[1]["detail"]["joined_in_flight"]
    assert acts[1]["end_s"] >= acts[1]["start_s"]
