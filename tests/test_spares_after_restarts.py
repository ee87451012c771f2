"""Tester K's four crashes during a recovery (session 29): a job left below its launch size by a scale-in whose
restart failed scales back out once a spare is free; pending restarts join the restart that brought the job back
instead of restarting it again; a node the orchestrator already returned to the pool is not returned twice; and
rb-collective-timeout-sw leaves a job that runs again alone (``workload_stopped``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from faultlib.topology import Topology
from opsbrain.recovery import Orchestrator, RunbookSet, load_runbooks
from tests.test_chaos_run import run
from tests.test_orchestrator import diag, training

FOUR_CRASHES = {
    "apiVersion": "opsbrain/v1", "kind": "ChaosScenario",
    "metadata": {"name": "during-recovery", "description": "the spare crashes during the restart onto it and again"},
    "spec": {
        "duration": 7200, "seed": 11, "topology": {"pods": 1, "spares": 2},
        "workloads": [{"name": "train", "kind": "training", "first_node": 32, "nodes": 14}],
        "faults": [
            {"at": 600, "kind": "node_crash", "target": "pod0/node38"},
            {"at": {"event": "recovery_start", "workload": "train", "after_s": 1}, "kind": "node_crash",
             "target": "pod0/node46"},
            {"at": {"event": "recovery_start", "workload": "train", "after_s": 2, "occurrence": 2},
             "kind": "node_crash", "target": "pod0/node47"},
            {"at": {"event": "recovery_start", "workload": "train", "after_s": 2, "occurrence": 3},
             "kind": "node_crash", "target": "pod0/node39"},
        ]}}


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("four-crashes")
    path = tmp / "during_recovery.yaml"
    path.write_text(yaml.safe_dump(FOUR_CRASHES))
    code, out, err = run(CliRunner(), "chaos", "run", str(path), "--seed", "2", "--json", home=tmp)
    assert code == 0 and "Traceback" not in err
    return dict(json.loads(out))


def _actions(journal: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for inc in journal["incidents"] for a in inc["actions"]]


def test_a_job_left_smaller_by_a_failed_scale_in_scales_back_out(journal: dict[str, Any]) -> None:
    acts = _actions(journal)
    shrunk = [a for a in acts if a["action"] == "scale_instance" and a["status"] in ("failed", "cancelled")
              and (a["detail"].get("checkpoint") or {}).get("dropped")]  # cancelled: stopped as doomed (session 38)
    assert shrunk, "the scenario no longer leaves the job smaller through a failed scale-in"
    out = [a for a in acts if a["action"] == "scale_out"]
    assert [a["status"] for a in out] == ["succeeded"] and out[0]["rung"] == "scale_out"
    assert out[0]["detail"]["nodes_before"] == 13 and out[0]["detail"]["nodes"] == 14
    train = journal["workloads"][0]
    assert train["nodes"] == 14 and train["scale_outs"] == 1 and train["degraded"] is None
    assert journal["summary"]["degraded_workloads"] == []


def test_the_pool_never_holds_more_than_the_nodes_the_job_gave_back(journal: dict[str, Any]) -> None:
    left = journal["recovery"]["spares_left"]
    assert len(left) == len(set(left)) <= 2  # 16 nodes: 14 in the job, the rest in the pool
    for a in _actions(journal):
        if a["action"] == "add_spare" and a["status"] == "succeeded":
            assert a["detail"]["spares"] <= 2
            # the orchestrator returned the node when it came back in service; the follow-up does not again
            assert "already_returned_at_s" in a["detail"]


def test_pending_restarts_join_the_one_that_brought_the_job_back(journal: dict[str, Any]) -> None:
    restarts = [a for a in _actions(journal) if a["action"] == "restart_job" and a["status"] == "succeeded"]
    ran = [a for a in restarts if not a["detail"].get("joined")]
    assert len(ran) == 1  # one restart brought the job back; the others joined it
    assert journal["workloads"][0]["restarts"] == len(ran) + 1  # + the scale-out's process-level rescale


@pytest.fixture(scope="module")
def rbs() -> RunbookSet:
    return load_runbooks()


def test_collective_timeout_leaves_a_running_job_alone(topo1: Topology, rbs: RunbookSet) -> None:
    sim, job = training(topo1)
    sim.run(200)
    assert job.state == "running"
    orch = Orchestrator(sim, rbs)
    orch.handle("late", diag("collective_timeout_sw", job.nodes[2]))  # read from a job since brought back
    sim.run(260)
    acts = orch.actions_for("late")
    rp = next(a for a in acts if a["action"] == "restart_process")
    assert rp["status"] == "skipped" and "every affected workload runs" in rp["detail"]["reason"]
    assert job.accounting()["in_place_recoveries"] == 0 and job.accounting()["restarts"] == 0
    assert orch.incident("late")["outcome"] == "no_action"


def test_collective_timeout_still_recovers_a_stalled_job(topo1: Topology, rbs: RunbookSet) -> None:
    sim, job = training(topo1)
    sim.run(100)
    job.fail(job.ranks[3], "hang", "rank stuck in software")
    sim.run(105)
    assert job.state == "stalled"
    orch = Orchestrator(sim, rbs)
    orch.handle("hang", diag("collective_timeout_sw", job.nodes[0]))
    sim.run(1000)
    rp = next(a for a in orch.actions_for("hang") if a["action"] == "restart_process")
    assert rp["status"] == "succeeded" and job.state == "running"


def test_the_runbook_guard_is_documented() -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "recovery.md").read_text()
    assert "`workload_stopped`" in doc


def test_collective_timeout_files_no_software_ticket_for_a_skipped_restart(topo1: Topology, rbs: RunbookSet) -> None:
    """The ticket hands a live hang's stack evidence to the framework team; a job running again has no stuck rank
    left, so the skipped restart leaves the ticket unfiled and the journal says why (no 'rank stuck' ticket)."""
    sim, job = training(topo1)
    sim.run(200)
    orch = Orchestrator(sim, rbs)
    orch.handle("late", diag("collective_timeout_sw", job.nodes[2]))
    sim.run(260)
    ticket = next(a for a in orch.actions_for("late") if a["action"] == "ticket")
    assert ticket["status"] == "skipped"
    assert "restart_process" in ticket["detail"]["reason"]
    assert "every affected workload runs" in ticket["detail"]["reason"]
    assert not [f for f in orch.incident("late")["follow_ups"] if f["type"] == "ticket"]


def test_collective_timeout_files_its_ticket_after_a_restart(topo1: Topology, rbs: RunbookSet) -> None:
    sim, job = training(topo1)
    sim.run(100)
    job.fail(job.ranks[3], "hang", "rank stuck in software")
    sim.run(105)
    orch = Orchestrator(sim, rbs)
    orch.handle("hang", diag("collective_timeout_sw", job.nodes[0]))
    sim.run(1000)
    ticket = next(a for a in orch.actions_for("hang") if a["action"] == "ticket")
    assert ticket["status"] == "succeeded" and ticket["detail"]["kind"] == "software"
    assert [f for f in orch.incident("hang")["follow_ups"] if f["type"] == "ticket"]
