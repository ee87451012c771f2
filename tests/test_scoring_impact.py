"""A fault is recovered only once the workloads it degraded are back (throughput within the 95% bar, an inference
service inside its latency SLO; a degradation that stayed inside the bar once it stopped), never at the onset of a
fault that hurt a workload; a workload's loss is shared among the faults that caused it, so the faults' figures add
up to the workload's (tester K: a fail-slow scored ttr 0 beside 600 s of SLO breach; four faults on one job each
carrying all of its 12,743 lost NPU-seconds)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from opsbrain import chaos
from opsbrain.runner import scoring
from opsbrain.scenario.loader import load_scenario
from opsbrain.scenario.plan import build_plan


def test_a_dip_below_the_bar_recovers_when_back_within_it() -> None:
    series = [(0.0, 100.0), (600.0, 10.0), (700.0, 97.0), (2000.0, 100.0)]
    assert scoring.time_to_recover(series, 600.0, 3600.0) == 100.0  # 97% is within the bar


def test_a_degradation_inside_the_bar_is_charged_until_it_stopped() -> None:
    series = [(0.0, 100.0), (600.0, 96.0), (1200.0, 100.0)]
    assert scoring.time_to_recover(series, 600.0, 3600.0) == 600.0
    assert scoring.time_to_recover([(0.0, 100.0), (600.0, 96.0)], 600.0, 3600.0) is None  # it never stopped
    assert scoring.time_to_recover([(0.0, 100.0), (900.0, 100.0)], 600.0, 3600.0) == 0.0  # nothing degraded


def test_a_latency_slo_breach_is_out_of_the_bar() -> None:
    """The fail-slow of the repro: decode throughput at 95.4% (inside the bar) while TPOT is over its bound."""
    series = [(0.0, 248659.85), (600.0, 237156.69), (1200.0, 248659.85)]
    breach = [(0.0, 0.0), (600.0, 1.0), (1200.0, 0.0)]
    assert scoring.time_to_recover(series, 600.0, 3600.0, breach=breach) == 600.0
    late = [(0.0, 0.0), (600.0, 1.0), (1800.0, 0.0)]  # the SLO back only after the throughput
    assert scoring.time_to_recover(series, 600.0, 3600.0, breach=late) == 1200.0


def test_loss_owners_share_a_segment_among_the_faults_live_at_its_start() -> None:
    cuts = [0.0, 600.0, 900.0, 3000.0, 7200.0]
    wins = [("a", 600.0, 1500.0), ("b", 600.0, 1500.0), ("c", 900.0, 2000.0), ("d", 3000.0, 3000.0)]
    got = scoring.loss_owners(cuts, wins)
    assert got[0] == []  # before any fault: no one's
    assert got[1] == ["a", "b"]  # simultaneous: both
    assert got[2] == ["a", "b", "c"]  # c began while a and b still hurt the job
    assert got[3] == []  # every impact over (d never degraded it): unattributed


def test_loss_owners_give_an_unhurt_fault_nothing_beside_a_live_one() -> None:
    wins = [("crash", 600.0, 700.0), ("missed", 600.0, 600.0)]
    assert scoring.loss_owners([600.0, 7200.0], wins) == [["crash"]]


def _write(tmp_path: Path, name: str, spec: dict[str, Any]) -> Path:
    f = tmp_path / f"{name}.yaml"
    f.write_text(yaml.safe_dump({"apiVersion": "opsbrain/v1", "kind": "ChaosScenario",
                                 "metadata": {"name": name, "description": "scoring test"}, "spec": spec}))
    return f


def _run(path: Path) -> dict[str, Any]:
    sc, p = load_scenario(str(path))
    return chaos.run(build_plan(sc, str(p)))


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPSBRAIN_HOME", str(tmp_path / "home"))


def test_a_fail_slow_breaching_the_slo_is_not_recovered_at_its_onset(tmp_path: Path) -> None:
    j = _run(_write(tmp_path, "failslow", {
        "duration": 3600, "seed": 4, "noise": False, "workloads": [{"name": "serve", "kind": "inference",
                                                                    "first_node": 0}],
        "faults": [{"at": 600, "kind": "npu_fail_slow", "target": "pod0/node22/npu3"}]}))
    f = next(i for i in j["incidents"] if i["injected"])
    assert f["impact"]["serve"]["slo_violation_s"] > 0
    assert f["ttr_s"] is not None and f["ttr_s"] >= f["impact"]["serve"]["slo_violation_s"] - 1e-6
    assert f["recovered_at_s"] > f["injected"]["at_s"]


def test_simultaneous_faults_on_one_job_share_its_loss(tmp_path: Path) -> None:
    j = _run(_write(tmp_path, "simultaneous", {
        "duration": 7200, "seed": 5, "topology": {"pods": 1, "spares": 2},
        "workloads": [{"name": "serve", "kind": "inference", "first_node": 0},
                      {"name": "train", "kind": "training", "first_node": 32, "nodes": 14}],
        "faults": [{"at": 600, "kind": "node_crash", "target": "pod0/node38"},
                   {"at": 600, "kind": "hbm_uce", "target": "pod0/node40/npu2/hbm"},
                   {"at": 600, "kind": "npu_off_bus", "target": "pod0/node5/npu1"}]}))
    train = next(w for w in j["workloads"] if w["name"] == "train")
    total = train["lost_npu_s"]
    shares = [i["impact"]["train"]["lost_npu_s"] for i in j["incidents"] if "train" in i.get("impact", {})]
    assert total > 0 and len(shares) == 2
    assert sum(shares) + train["unattributed"]["lost_npu_s"] == pytest.approx(total, rel=1e-6)
    assert sum(shares) > 0.5 * total  # the crash and the UCE own the restart, not nobody
    assert all(s < total for s in shares)
    crash, uce = (i for i in j["incidents"] if "train" in i.get("impact", {}))
    assert crash["impact_shared_with"]["train"] == [uce["id"]] and uce["impact_shared_with"]["train"] == [crash["id"]]
