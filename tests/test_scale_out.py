"""Issue 17: a training job the policy scaled in (no warm spare left) scales back out to its launch size once a
spare or its repaired node returns to the pool: a process-level rescale with the modelled restart stages,
journaled on the incident that scaled it in (rung ``scale_out``), ending in full-size operation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from faultlib.engine import Simulation
from faultlib.health import Health
from faultlib.topology import Topology
from faultlib.workloads.training import TrainingJob
from opsbrain.report.build import build_run_report
from opsbrain.report.markdown import render_run
from tests.test_chaos_run import run
from tests.test_training import fixed

ROOT = Path(__file__).resolve().parents[1]


def _scaled_in(topo: Topology) -> tuple[Simulation, TrainingJob, str, float]:
    sim = Simulation(seed=3, topology=topo)
    job = TrainingJob("llm", sim.topology.nodes()[:8], fixed())
    sim.add_workload(job)
    sim.run(600.0)
    launch_step = job.nominal_step_time_s
    dead = job.nodes[3]
    sim.state.set_health(dead, Health.FAILED, cause="test")
    sim.run(sim.now + 60)
    proc = sim.control.scale_in_job("llm", [dead])
    sim.run(sim.now + 1800)
    assert proc.value is not None and proc.value.status == "succeeded" and len(job.nodes) == 7
    return sim, job, dead, launch_step


def test_a_scaled_in_job_scales_back_out_to_its_launch_size(topo1: Topology) -> None:
    sim, job, dead, launch_step = _scaled_in(topo1)
    assert job.degraded() is not None and job.nominal_step_time_s > launch_step
    scale_in_s = next(e for e in reversed(sim.telemetry.events) if e.kind == "resumed").t - next(
        e for e in reversed(sim.telemetry.events) if e.kind == "restart").t
    sim.state.set_health(dead, Health.HEALTHY, cause="repaired")
    proc = sim.control.scale_out_job("llm", [dead])
    sim.run(sim.now + 1800)
    res = proc.value
    assert res is not None and res.status == "succeeded"
    assert res.detail["checkpoint"]["source"] == "memory" and res.detail["checkpoint"]["added"] == [dead]
    assert len(job.nodes) == 8 and job.degraded() is None
    assert job.nominal_step_time_s == pytest.approx(launch_step)  # full throughput again
    acc = job.accounting()
    assert acc["scale_ins"] == 1 and acc["scale_outs"] == 1
    ev = next(e for e in reversed(sim.telemetry.events) if e.kind == "restart")
    assert ev.detail["added"] == [dead] and ev.detail["scope"] == "process"
    # a process-level rescale (warm attach, rank-table read, communicator re-form) is cheaper than the job-level
    # restart the scale-in was
    assert 0 < res.end_s - res.start_s < scale_in_s


def test_scale_out_refuses_a_node_that_is_not_free(topo1: Topology) -> None:
    sim, job, _dead, _s = _scaled_in(topo1)
    with pytest.raises(ValueError, match="not a free node"):
        job.restart("memory", scope="process", add=[job.nodes[0]])
    with pytest.raises(ValueError, match="not a free node"):
        job.restart("memory", scope="process", add=["pod0/node0/npu0"])


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("scale-out")
    code, out, err = run(CliRunner(), "chaos", "run", "scale-out-after-repair", "--json", home=tmp)
    assert "Traceback" not in err
    return dict(json.loads(out), exit_code=code)


def _crash(journal: dict[str, Any]) -> dict[str, Any]:
    return next(i for i in journal["incidents"] if (i["injected"] or {}).get("kind") == "node_crash")


def test_the_repaired_node_returns_and_the_job_scales_back_out(journal: dict[str, Any]) -> None:
    inc = _crash(journal)
    acts = inc["actions"]
    scale_in = next(a for a in acts if a["action"] == "scale_instance" and a["status"] == "succeeded")
    back = next(a for a in acts if a["action"] == "add_spare" and a["status"] == "succeeded")
    out = [a for a in acts if a["action"] == "scale_out"]
    assert len(out) == 1 and out[0]["status"] == "succeeded" and out[0]["rung"] == "scale_out"
    assert scale_in["end_s"] < back["end_s"] <= out[0]["start_s"]
    assert out[0]["detail"]["add"] == [inc["injected"]["component"]]
    assert out[0]["detail"]["nodes_before"] == 13 and out[0]["detail"]["nodes"] == 14
    assert out[0]["detail"]["checkpoint"]["source"] == "memory"
    train = next(w for w in journal["workloads"] if w["name"] == "train")
    assert train["nodes"] == 14 and train["scale_ins"] == 1 and train["scale_outs"] == 1
    assert train["degraded"] is None and train["degraded_s"] > 0
    assert train["nominal_step_time_s"] == pytest.approx(train["launch_nominal_step_time_s"])  # full rate again
    assert journal["summary"]["degraded_workloads"] == []


def test_the_spare_pool_is_journaled_at_the_scale_out(journal: dict[str, Any]) -> None:
    inc = _crash(journal)
    out = next(a for a in inc["actions"] if a["action"] == "scale_out")
    assert out["detail"]["spares_left"] == 0  # the returned node was the pod's only free one, now taken
    md = render_run(build_run_report(journal))
    assert "scaled train back out to 14 of 14 launch nodes" in md
    assert "1 node added (scaled back out)" in md
    assert "0 spare nodes left (scale out, succeeded)" in md
    assert "rungs tried, in order: process_reschedule, job_reschedule, scale_in, scale_out" in md


def test_the_built_in_scenario_meets_its_expectations(journal: dict[str, Any]) -> None:
    assert journal["exit_code"] == 0 and journal["verdict"] == "passed"
    assert all(e["met"] for e in journal["expectations"])


def test_a_failed_scale_out_gives_the_node_back_and_the_next_return_tries_again(topo1: Topology) -> None:
    from opsbrain.recovery.orchestrator import Orchestrator
    from opsbrain.recovery.record import IncidentRecord

    sim, job, dead, _s = _scaled_in(topo1)
    orch = Orchestrator(sim)
    rec = IncidentRecord("i1", "auto", False, sim.now, None)
    orch.records["i1"] = rec
    sim.control.p = sim.control.p.model_copy(update={"restart_failure_prob": 1.0, "spare_failure_prob": 0.0})
    orch.scale_out.note_scale_in("llm", rec)  # the pool is empty: nothing to do yet
    sim.run(sim.now + 60)
    assert not [a for a in rec.actions if a["action"] == "scale_out"]
    sim.state.set_health(dead, Health.HEALTHY, cause="repaired")
    orch.exec.return_spare(dead, rec, how="back in service")  # the node rejoins the pool: the rescale starts
    sim.run(sim.now + 600)
    failed = [a for a in rec.actions if a["action"] == "scale_out"]
    assert [a["status"] for a in failed] == ["failed"] and failed[0]["rung"] == "scale_out"
    assert len(job.nodes) == 7 and job.degraded() is not None  # still scaled in ...
    assert sim.control.spares == [dead]  # ... and the node is back in the pool
    sim.control.p = sim.control.p.model_copy(update={"restart_failure_prob": 0.0})
    orch.scale_out.try_all()  # e.g. the next response ending
    sim.run(sim.now + 600)
    assert [a["status"] for a in rec.actions if a["action"] == "scale_out"] == ["failed", "succeeded"]
    assert len(job.nodes) == 8 and job.degraded() is None and sim.control.spares == []
