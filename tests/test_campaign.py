"""Campaigns: end to end through the CLI, resume without rerunning, summary math, Dask; the cross-pod RDMA model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from faultlib import ids
from faultlib.engine import Simulation
from faultlib.health import Health
from faultlib.injection.spec import FaultSpec, Timeline
from faultlib.topology import Topology
from faultlib.workloads.training import TrainingJob
from opsbrain.campaign import runner as campaign_runner
from opsbrain.campaign.runner import CampaignStore, Options, run_campaign
from opsbrain.campaign.spec import CampaignSpec, campaign_plan
from opsbrain.campaign.summary import compare, quantile, seed_record, summarize
from opsbrain.cli import cli
from opsbrain.store import RunStore

TINY = dict(pods=1, days=0.5, seeds=2)


def test_tiny_campaign_end_to_end_json(tmp_path: Path) -> None:
    res = CliRunner().invoke(cli, ["chaos", "campaign", "--pods", "1", "--days", "1", "--seeds", "2", "--workers",
                                   "1", "--json", "--data-dir", str(tmp_path)])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    train = out["by_policy"]["auto"]["jobs"]["train"]
    assert train["ettr"]["n"] == 2 and 0.5 < train["ettr"]["mean"] <= 1.0
    assert out["by_policy"]["auto"]["jobs"]["serve"]["kind"] == "inference"
    assert out["runs"] == {"total": 2, "finished": 2, "reused": 0, "ran_now": 2} and out["complete"]
    # journals are in the run store, one per (seed, policy)
    assert len(RunStore(tmp_path).list_runs()) == 2


def test_bad_profile_is_a_usage_error(tmp_path: Path) -> None:
    res = CliRunner().invoke(cli, ["chaos", "campaign", "--profile", "nope", "--data-dir", str(tmp_path)])
    assert res.exit_code == 2


def test_plan_layouts_and_shared_timeline() -> None:
    spec = CampaignSpec(pods=2, days=1, seeds=1, policies=("auto", "manual"))
    topo = Topology.build(pods=2)
    a, m = campaign_plan(spec, 5, "auto", topology=topo), campaign_plan(spec, 5, "manual", topology=topo)
    assert a.placements["train"] == [ids.node(p, n) for p in range(2) for n in range(46)]
    assert a.spares == [ids.node(p, n) for p in range(2) for n in (46, 47)]
    assert [(s.at_s, s.target) for s in a.timeline] == [(s.at_s, s.target) for s in m.timeline]
    one = campaign_plan(CampaignSpec(pods=1, days=1), 5, "auto")
    assert one.placements["serve"][-1] == ids.node(0, 31) and one.placements["train"][0] == ids.node(0, 32)
    with pytest.raises(ValueError):
        CampaignSpec(pods=2, layout="mixed")


def test_resume_does_not_rerun_finished_seeds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[int, str]] = []
    real = campaign_runner.run_task

    def counting(spec_json: str, seed: int, policy: str, home: str | None = None, progress: Any = None) -> Any:
        calls.append((seed, policy))
        return real(spec_json, seed, policy, home, progress)

    monkeypatch.setattr(campaign_runner, "run_task", counting)
    spec = CampaignSpec(**TINY)
    store = RunStore(tmp_path)

    def kill_after_first(done: int, total: int, rec: dict[str, Any] | None) -> None:
        if rec is not None:
            raise KeyboardInterrupt  # the operator's Ctrl-C right after the first run finished

    out = run_campaign(spec, store, Options(workers=1), home=tmp_path, progress=kill_after_first)
    assert not out["complete"] and out["runs"]["finished"] == 1 and calls == [(0, "auto")]
    out = run_campaign(spec, RunStore(tmp_path), Options(workers=1), home=tmp_path)
    assert out["complete"] and out["runs"]["reused"] == 1 and out["runs"]["ran_now"] == 1
    assert calls == [(0, "auto"), (1, "auto")]
    # more seeds later: only the new one runs; the finished records are the stored ones
    run_campaign(spec.model_copy(update={"seeds": 3}), RunStore(tmp_path), Options(workers=1), home=tmp_path)
    assert calls[-1] == (2, "auto") and len(calls) == 3
    assert set(CampaignStore(RunStore(tmp_path)).finished(spec.campaign_id)) == {(0, "auto"), (1, "auto"),
                                                                                  (2, "auto")}


def test_a_worker_reusing_its_topology_repeats_a_run_exactly() -> None:
    spec = CampaignSpec(pods=1, days=0.25, seeds=1).model_dump_json()
    volatile = ("wall_s", "setup_s", "worker_pid", "diagnosis_ms_mean")
    a, b = (campaign_runner.run_task(spec, 4, "auto")["record"] for _ in range(2))
    assert {k: v for k, v in a.items() if k not in volatile} == {k: v for k, v in b.items() if k not in volatile}


def test_cheap_noise_changes_cost_not_results() -> None:
    volatile = ("wall_s", "setup_s", "worker_pid", "diagnosis_ms_mean")
    recs = [{k: v for k, v in campaign_runner.run_task(CampaignSpec(pods=1, days=2, cheap_noise=cheap)
                                                       .model_dump_json(), 6, "auto")["record"].items()
             if k not in volatile} for cheap in (False, True)]
    assert recs[0] == recs[1] and recs[0]["noise_incidents"] > 0
    assert CampaignSpec(cheap_noise=True).campaign_id != CampaignSpec().campaign_id


def _journal(seed: int, policy: str, ettr: float, lost: float, ttrs: list[float | None]) -> dict[str, Any]:
    kinds = ["hbm_uce", "link_down", "dirty_connector"]
    incs = []
    for k, (kind, ttr) in enumerate(zip(kinds, ttrs, strict=True)):
        incs.append({"id": f"f{k}", "injected": {"kind": kind, "component": f"pod0/node{k}", "at_s": 100.0 * k},
                     "diagnosis": {"fault_class": kind if k != 1 else "link_flap"}, "ttd_s": 1.0, "ttdiag_s": 2.0,
                     "ttr_s": ttr, "correct": k != 1, "class_correct": k != 1, "localized": True, "runbook": None,
                     "human_steps": 0 if policy == "auto" else 1, "actions": [
                         {"action": "swap_spare", "status": "succeeded"}] if k == 0 else [], "impact": {}})
    incs.append({"id": "i9", "injected": None, "false_positive": True, "actions": []})
    return {"seed": seed, "policy": policy, "status": "finished", "duration_s": 1000.0,
            "incidents": incs, "recovery": {"spares_left": ["x"], "spares_exhausted": [], "human_steps": 3},
            "summary": {"events": 10},
            "workloads": [{"name": "train", "kind": "training", "ettr": ettr, "lost_npu_s": lost, "npus": 8,
                           "elapsed_s": 1000.0, "useful_steps": 90.0, "nominal_step_time_s": 10.0}]}


def test_summary_math_on_hand_made_journals() -> None:
    tl = Timeline([FaultSpec(at_s=0.0, kind="hbm_uce", target="pod0/node0", category="GPU HBM3 memory"),
                   FaultSpec(at_s=100.0, kind="link_down", target="pod0/node1", category="network switch/cable"),
                   FaultSpec(at_s=200.0, kind="dirty_connector", target="pod0/node2", category="none")])
    recs = [seed_record(_journal(0, "auto", 0.98, 100.0, [10.0, 20.0, 0.0]), tl, spares=2),
            seed_record(_journal(1, "auto", 0.96, 300.0, [30.0, None, 0.0]), tl, spares=2),
            seed_record(_journal(0, "manual", 0.90, 1000.0, [100.0, 200.0, 0.0]), tl, spares=2),
            seed_record(_journal(1, "manual", 0.86, 1000.0, [300.0, 400.0, 0.0]), tl, spares=2)]
    assert recs[0]["faults"][0]["category"] == "GPU HBM3 memory" and recs[0]["spares"]["swaps"] == 1
    assert recs[0]["workloads"][0]["goodput"] == pytest.approx(0.9)
    out = summarize(CampaignSpec(pods=1, days=1, seeds=2, policies=("auto", "manual")), recs)
    auto = out["by_policy"]["auto"]
    assert auto["interruptions"]["total"] == 4 and auto["interruptions"]["background_faults"] == 2
    assert auto["interruptions"]["by_category"]["GPU HBM3 memory"] == {"count": 2, "share": 0.5}
    assert auto["jobs"]["train"]["ettr"]["mean"] == pytest.approx(0.97)
    assert auto["jobs"]["train"]["ettr"]["sd"] == pytest.approx(np.std([0.98, 0.96], ddof=1), abs=1e-6)
    assert auto["ttr_by_class"]["hbm_uce"]["ttr_s"]["p50"] == pytest.approx(20.0)
    assert auto["ttr_by_class"]["link_down"]["recovered"] == 1
    assert auto["diagnosis"]["correct"] == 4 and auto["diagnosis"]["accuracy"] == pytest.approx(4 / 6, abs=1e-4)
    assert auto["diagnosis"]["false_positives"] == 2
    assert auto["recovery"]["handled_without_human"] == pytest.approx(5 / 6, abs=1e-4)  # seed 1's link down never
    # recovered: nobody handled it (it counted as handled without a human before, session 26)
    assert auto["spares"]["swaps"] == 2
    cmp_ = out["auto_vs_manual"]["jobs"]["train"]
    assert cmp_["ettr_gain"] == pytest.approx(0.09) and cmp_["lost_npu_s_reduction"] == pytest.approx(0.8)
    ttr = out["auto_vs_manual"]["ttr_s"]
    assert ttr["pairs"] == 5  # faults recovered under both policies (seed 1's link_down never recovered in auto)
    assert ttr["auto"]["p50"] == pytest.approx(quantile([10.0, 20.0, 0.0, 30.0, 0.0], 0.5))
    assert compare([recs[0]], [])["seeds"] == []


def test_dask_local_cluster(tmp_path: Path) -> None:
    dd = pytest.importorskip("dask.distributed")
    with dd.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None) as cluster:
        spec = CampaignSpec(pods=1, days=0.25, seeds=2)
        out = run_campaign(spec, RunStore(tmp_path), Options(workers=1, executor="dask",
                                                             scheduler=cluster.scheduler_address), home=tmp_path)
    assert out["complete"] and out["runs"]["ran_now"] == 2
    assert out["by_policy"]["auto"]["jobs"]["train"]["ettr"]["n"] == 2


def test_dask_scheduler_address_errors_name_the_option(tmp_path: Path) -> None:
    pytest.importorskip("dask.distributed")
    from opsbrain.cli import cli

    res = CliRunner().invoke(cli, ["chaos", "campaign", "--pods", "1", "--days", "0.01", "--seeds", "1",
                                   "--executor", "dask", "--scheduler", "bogus:::", "--data-dir", str(tmp_path)])
    assert res.exit_code == 2
    assert "--scheduler" in res.output and "bogus:::" in res.output and "Traceback" not in res.output


def test_training_across_pods_uses_rdma_and_feels_roce_ports() -> None:
    sim = Simulation(seed=0, topology=Topology.build(pods=2))
    two = [ids.node(p, n) for p in range(2) for n in range(8)]
    job = TrainingJob("t", two)
    sim.add_workload(job)
    one = TrainingJob("u", [ids.node(0, n) for n in range(8, 24)])
    sim.add_workload(one)
    assert job._rdma_b > 0 and one._rdma_b == 0
    base = job.step_time_s
    npu = job.ranks[3]
    p0, p1 = f"{npu}/roce0", f"{npu}/roce1"
    sim.state.set_health(p0, Health.FAILED)
    assert job.step_time_s > base and job.state == "running"  # the other die's port carries the traffic
    assert one.step_time_s == one.nominal_step_time_s  # a job inside one pod does not use RDMA
    sim.state.set_health(p1, Health.FAILED)
    assert job.state == "stalled"
    sim.state.set_health(p0, Health.HEALTHY)
    sim.state.set_health(p1, Health.HEALTHY)
    sim.run(60.0)
    assert job.state == "running" and job.step_time_s == pytest.approx(base)
