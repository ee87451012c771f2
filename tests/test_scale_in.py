"""Issue 17: with no warm spare left a training job scales in (one data-parallel replica fewer per node given up)
when the policy allows, rather than wait down for the crashed node's reboot; the journal records the checkpoint
the restart loaded, and the report says that spares ran out, the spare count at each moment and every rung tried."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from opsbrain.report.build import build_run_report
from opsbrain.report.markdown import render_run
from tests.test_chaos_run import run, scenario_file


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    import json

    tmp = tmp_path_factory.mktemp("scale-in")
    # the crashed node stays down for the run (a 10 h repair): the job runs scaled in to the end (a node back in
    # the pool would scale it back out: tests/test_scale_out.py)
    path = scenario_file(tmp, "node-crash-training", **{"spec.topology.spares": 0, "spec.faults": [
        {"at": 600, "kind": "node_crash", "target": "pod0/node38", "duration": 36000}]})
    code, out, err = run(CliRunner(), "chaos", "run", str(path), "--json", home=tmp)
    assert "Traceback" not in err
    return json.loads(out)


def _crash(journal: dict[str, Any]) -> dict[str, Any]:
    return next(i for i in journal["incidents"] if (i["injected"] or {}).get("kind") == "node_crash")


def test_no_spare_left_the_job_scales_in_and_runs_again(journal: dict[str, Any]) -> None:
    inc = _crash(journal)
    scale = [a for a in inc["actions"] if a["action"] == "scale_instance"]
    assert scale and scale[-1]["status"] == "succeeded"
    assert scale[-1]["detail"]["checkpoint"]["source"] == "memory"
    assert scale[-1]["detail"]["checkpoint"]["dropped"] == [inc["injected"]["component"]]
    assert not any(a["rung"] == "wait_for_repair" for a in inc["actions"])  # it did not wait for the reboot
    train = next(w for w in journal["workloads"] if w["name"] == "train")
    assert train["state"] in ("running", "checkpointing") and train["scale_ins"] == 1
    assert train["nodes"] == 13


def test_the_report_says_spares_ran_out_with_the_count_at_each_moment_and_the_rungs(
        journal: dict[str, Any]) -> None:
    md = render_run(build_run_report(journal))
    assert "spares ran out: no warm spare was left" in md
    assert "0 spare nodes left (swap spare, failed)" in md
    assert "rungs tried, in order: process_reschedule, job_reschedule, scale_in" in md
    assert "restart from the memory checkpoint" in md
    assert "spares ran out: 1 time" in md


def test_scale_in_refused_by_policy_is_said(tmp_path: Path) -> None:
    from faultlib.engine import Simulation
    from opsbrain.recovery.actions import Executor
    from opsbrain.recovery.schema import Step

    sim = Simulation(seed=1)
    ex = Executor(sim, scale_in_max_share=0.0)

    class Ctx:
        workloads = [("train", None)]

    sim.workloads["train"] = type("W", (), {"kind": "training"})()  # type: ignore[assignment]
    why = ex.unsupported(Step(action="scale_instance", target="affected_workloads"), Ctx())  # type: ignore[arg-type]
    assert why is not None and "not allowed by the policy" in why


def test_a_node_taken_out_returns_to_the_pool_once_back_in_service() -> None:
    from faultlib.control import ActionResult
    from faultlib.engine import Simulation
    from faultlib.health import Health
    from opsbrain.recovery.orchestrator import Orchestrator
    from opsbrain.recovery.record import IncidentRecord

    sim = Simulation(seed=1)
    orch = Orchestrator(sim)
    node = "pod0/node9"
    rec = IncidentRecord("i1", "auto", False, 0.0, None)
    orch.records["i1"] = rec
    sim.state.set_health(node, Health.FAILED, cause="test")
    orch._after_success(rec, "isolate", node, ActionResult("isolate", node, "succeeded", 0.0, 1.0))
    sim.state.set_health(node, Health.ISOLATED, cause="isolate")
    assert node not in sim.control.spares
    sim.state.set_health(node, Health.HEALTHY, cause="reboot_node")  # e.g. a reboot that outlasted its step
    assert sim.control.spares == [node]
    assert rec.follow_ups[-1]["type"] == "returned_to_spares"


# ---- degraded operation (issue 17): a scaled-in job runs slower; journal, report and scoring say so -------------
def test_the_journal_records_degraded_operation_since_when_and_at_what_share(journal: dict[str, Any]) -> None:
    inc = _crash(journal)
    train = next(w for w in journal["workloads"] if w["name"] == "train")
    deg = train["degraded"]
    assert deg is not None and (deg["nodes"], deg["launch_nodes"]) == (13, 14) and train["launch_nodes"] == 14
    scale = [a for a in inc["actions"] if a["action"] == "scale_instance" and a["status"] == "succeeded"][-1]
    assert scale["start_s"] <= deg["since_s"] <= scale["end_s"]  # the scale-in restart placed it on 13 nodes
    # one data-parallel replica fewer, same global batch: below full throughput, above 13/14 of it (comms shrink)
    assert 0.85 < deg["throughput_share"] < 1.0
    ended = journal["ended_at_s"]
    assert 0 < train["degraded_s"] <= ended - deg["since_s"]
    assert train["degraded_loss_s"] == pytest.approx(train["degraded_s"] * (1 - deg["throughput_share"]), rel=1e-4)


def test_scoring_counts_a_recovery_in_degraded_operation(journal: dict[str, Any]) -> None:
    from opsbrain.campaign.summary import seed_record

    inc = _crash(journal)
    assert inc["ttr_s"] is not None  # recovered, against the 13-node placement's rate ...
    assert [d["workload"] for d in inc["degraded"]] == ["train"]  # ... and said to be degraded
    assert inc["degraded"][0]["throughput_share"] < 1.0
    assert journal["summary"]["recovered_degraded"] == 1
    assert [w["workload"] for w in journal["summary"]["degraded_workloads"]] == ["train"]
    train = next(w for w in journal["workloads"] if w["name"] == "train")
    rec = next(w for w in seed_record(journal)["workloads"] if w["name"] == "train")
    el = train["elapsed_s"]
    assert rec["goodput"] == pytest.approx(train["useful_steps"] * train["launch_nominal_step_time_s"] / el, abs=1e-3)
    assert train["launch_nominal_step_time_s"] < train["nominal_step_time_s"]  # goodput counts the slower steps


def test_the_report_states_degraded_operation(journal: dict[str, Any]) -> None:
    md = render_run(build_run_report(journal))
    assert "recovered in degraded operation: train on 13 of 14 launch nodes since t=" in md
    assert "- degraded operation: train on 13 of 14 launch nodes" in md
    from opsbrain.report import render_run_report

    html = render_run_report(journal, "html")
    assert "degraded: 13 of 14 launch nodes" in html
