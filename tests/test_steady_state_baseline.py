"""Steady-state probes take their baseline from a fault-free moment (before the first fault, else the workload's
nominal rate from its model) and say so when none can be established; a run with nothing to check is not PASSED."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from opsbrain import chaos
from opsbrain.scenario.loader import load_scenario
from opsbrain.scenario.plan import build_plan

TRAIN = {"name": "train", "kind": "training", "first_node": 32, "nodes": 14}
SERVE = {"name": "serve", "kind": "inference", "first_node": 0}


def _scenario(tmp_path: Path, faults: list[dict[str, Any]], probes: list[dict[str, Any]] | None,
              workloads: list[dict[str, Any]] | None = None, spares: int = 0, duration: float = 3600,
              tolerance_s: float = 60, expectations: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {"duration": duration, "seed": 1, "policy": "auto",
                            "topology": {"pods": 1, "spares": spares}, "workloads": workloads or [TRAIN],
                            "faults": faults}
    if probes is not None:
        spec["steady_state"] = {"probes": probes, "tolerance_s": tolerance_s}
    if expectations:
        spec["expectations"] = expectations
    doc = {"apiVersion": "opsbrain/v1", "kind": "ChaosScenario",
           "metadata": {"name": "probe-test", "description": "steady-state baseline test"}, "spec": spec}
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(doc))
    sc, p = load_scenario(str(path))
    return chaos.run(build_plan(sc, str(p)))


STEPS = {"name": "steps", "metric": "step_rate", "workload": "train", "op": ">=", "of_baseline": 0.95}


def test_an_outage_that_starts_before_the_baseline_minute_is_seen(tmp_path: Path) -> None:
    """A node crash at 30 s with no spare keeps training at 0 for many minutes: the baseline is the fault-free rate
    (not the 0 read during the outage) and the probe deviates far past its 60 s tolerance."""
    j = _scenario(tmp_path, [{"at": 30, "kind": "node_crash", "target": "pod0/node40"}], [STEPS])
    ss = j["steady_state"]
    fault_free = j["workloads"][0]["nominal_step_time_s"]
    assert abs(ss["baseline"]["steps"] - 1 / fault_free) < 1e-6  # the journal rounds to 6 decimals
    assert ss["longest_deviation_s"]["steps"] > 60
    assert ss["deviated"] and ss["hypothesis"] == "deviated"
    assert j["verdict"] == "failed"


def test_a_short_run_with_an_early_crash_is_judged(tmp_path: Path) -> None:
    """The tester's s6-d60: a 60 s run, crash at 5 s, tolerance 10 s: the probe judges every tick after 4 s."""
    j = _scenario(tmp_path, [{"at": 5, "kind": "node_crash", "target": "pod0/node33"}], [STEPS], spares=2,
                  duration=60, tolerance_s=10)
    ss = j["steady_state"]
    assert ss["baseline"]["steps"] > 0
    assert ss["longest_deviation_s"]["steps"] > 10 and j["verdict"] == "failed"


def test_a_fault_at_time_zero_takes_the_training_models_nominal_rate(tmp_path: Path) -> None:
    j = _scenario(tmp_path, [{"at": 0, "kind": "node_crash", "target": "pod0/node40"}], [STEPS])
    ss = j["steady_state"]
    assert abs(ss["baseline"]["steps"] - 1 / j["workloads"][0]["launch_nominal_step_time_s"]) < 1e-6
    assert ss["baseline_source"]["steps"] == "model"
    assert j["verdict"] == "failed"


def test_no_fault_free_moment_and_no_model_rate_leaves_the_probe_unchecked(tmp_path: Path) -> None:
    """TPOT has no nominal value in the inference model: with a fault at 0 the probe cannot be checked, and the
    run says so instead of 'held'."""
    tpot = {"name": "tpot", "metric": "tpot_ms", "workload": "serve", "op": "<=", "of_baseline": 1.2}
    j = _scenario(tmp_path, [{"at": 0, "kind": "hbm_uce", "target": "pod0/node10/npu1/hbm"}], [tpot],
                  workloads=[SERVE])
    ss = j["steady_state"]
    assert "tpot" not in ss["baseline"] and ss["unchecked"] == ["tpot"]
    assert ss["hypothesis"] == "unchecked" and not ss["deviated"]
    assert ss["after"]["tpot"]["ok"] is None
    assert j["verdict"] == "inconclusive" and "tpot" in j["verdict_reason"]


def test_a_fault_free_baseline_is_unchanged_for_a_late_fault(tmp_path: Path) -> None:
    j = _scenario(tmp_path, [{"at": 600, "kind": "node_crash", "target": "pod0/node40"}], [STEPS], spares=2,
                  tolerance_s=900)
    ss = j["steady_state"]
    assert ss["baseline_source"]["steps"] == "measured" and ss["hypothesis"] == "held"
    assert j["verdict"] == "passed"


def test_without_probes_or_expectations_the_run_is_inconclusive(tmp_path: Path) -> None:
    """No steady-state hypothesis and no expectations: nothing was checked, so the verdict is not 'passed'."""
    j = _scenario(tmp_path, [{"at": 600, "kind": "node_crash", "target": "pod0/node40"}], None)
    assert j["steady_state"]["hypothesis"] == "none"
    assert j["verdict"] == "inconclusive"
    assert "no steady-state hypothesis" in j["verdict_reason"]


def test_expectations_alone_can_pass_a_run(tmp_path: Path) -> None:
    j = _scenario(tmp_path, [{"at": 600, "kind": "node_crash", "target": "pod0/node40"}], None, spares=2,
                  expectations=[{"fault": 0, "diagnosis": "node_crash"}])
    assert j["steady_state"]["hypothesis"] == "none" and j["verdict"] == "passed"


def test_the_cli_says_no_hypothesis_rather_than_held(tmp_path: Path, runner: Any) -> None:
    """The tester's s2 (manual policy, the crashed node's spares crash too): no probes, no expectations, the job
    down at the end. Before: 'PASSED' and 'steady state held'."""
    from opsbrain.cli import cli

    doc = {"apiVersion": "opsbrain/v1", "kind": "ChaosScenario",
           "metadata": {"name": "fault-on-spare", "description": "node crash, then the spares crash"},
           "spec": {"duration": 5400, "seed": 5, "policy": "manual", "topology": {"pods": 1, "spares": 2},
                    "workloads": [TRAIN],
                    "faults": [{"at": 600, "kind": "node_crash", "target": "pod0/node38"},
                               {"at": {"event": "recovery_start", "workload": "train", "after_s": 20},
                                "kind": "node_crash", "target": "pod0/node46"}]}}
    path = tmp_path / "s2.yaml"
    path.write_text(yaml.safe_dump(doc))
    res = runner.invoke(cli, ["chaos", "run", str(path), "--data-dir", str(tmp_path / "home")])
    assert "INCONCLUSIVE" in res.output and "PASSED" not in res.output, res.output
    assert "held" not in res.output and "no steady-state hypothesis" in res.output
    assert "train: ETTR" in res.output
    assert res.exit_code == 0


def test_an_empty_trace_is_refused(tmp_path: Path, runner: Any) -> None:
    """Before: an empty trace with --run ran nothing and printed ETTR 1.0, verdict passed."""
    from opsbrain.cli import cli

    for name, text in (("t.json", "[]"), ("t.csv", "host,timestamp,type,description\n")):
        f = tmp_path / name
        f.write_text(text)
        res = runner.invoke(cli, ["chaos", "replay", str(f), "--run", "--data-dir", str(tmp_path / "home")])
        assert res.exit_code == 2, res.output
        assert "nothing to replay" in res.stderr and len(res.stderr.splitlines()) == 1
    orphan = tmp_path / "orphan.csv"  # one event, no fault: the mapping summary is fine, a run of nothing is not
    orphan.write_text("host,timestamp,type,description\nsrv1,100,end,Kernel Panic\n")
    assert runner.invoke(cli, ["chaos", "replay", str(orphan), "--data-dir", str(tmp_path / "home")]).exit_code == 0
    res = runner.invoke(cli, ["chaos", "replay", str(orphan), "--run", "--data-dir", str(tmp_path / "home")])
    assert res.exit_code == 2 and "--run: nothing to run" in res.stderr, res.output


def test_a_replay_run_has_no_verdict_but_its_figures(tmp_path: Path, runner: Any) -> None:
    """A replay has no steady-state hypothesis: it prints its ETTR against the bar and its detection counts, and
    'no verdict' instead of 'verdict passed'."""
    from opsbrain.cli import cli

    f = tmp_path / "t.csv"
    f.write_text("host,timestamp,type,description\nsrv1,100,start,Kernel Panic\nsrv1,4000,end,Kernel Panic\n")
    res = runner.invoke(cli, ["chaos", "replay", str(f), "--run", "--data-dir", str(tmp_path / "home")])
    assert res.exit_code == 0, res.output
    line = next(x for x in res.output.splitlines() if x.startswith("replay:"))
    assert "no verdict (a replay has no steady-state hypothesis)" in line and "verdict passed" not in line
    assert "of 1 faults detected" in line
