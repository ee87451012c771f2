"""The chaos runner through the CLI: validation, journal contract, verdicts and exit codes, abort, dry run, store."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.store import RunStore

JOURNAL_KEYS = ("scenario", "seed", "policy", "verdict", "steady_state", "incidents", "workloads", "summary")
INCIDENT_KEYS = ("id", "injected", "detected_at_s", "diagnosis", "runbook", "actions", "recovered_at_s", "ttd_s",
                 "ttdiag_s", "ttr_s", "correct", "impact")


def run(runner: CliRunner, *args: str, home: Path) -> tuple[int, str, str]:
    res = runner.invoke(cli, list(args), env={"OPSBRAIN_HOME": str(home)})
    return res.exit_code, res.stdout, res.stderr


def scenario_file(tmp_path: Path, base: str, **changes: object) -> Path:
    data = yaml.safe_load((Path(__file__).parents[1] / "scenarios" / f"{base}.yaml").read_text())
    for dotted, value in changes.items():
        node = data
        parts = dotted.split(".")
        for p in parts[:-1]:
            node = node[p]
        node[parts[-1]] = value
    path = tmp_path / f"{base}-variant.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_every_builtin_scenario_validates(runner: CliRunner, tmp_path: Path) -> None:
    names = [s["name"] for s in json.loads(run(runner, "chaos", "list", "--json", home=tmp_path)[1])["scenarios"]]
    assert len(names) >= 20
    code, out, err = run(runner, "chaos", "validate", *names, home=tmp_path)
    assert code == 0, err


def test_malformed_scenario_gets_path_qualified_errors(runner: CliRunner, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: opsbrain/v1\nkind: ChaosScenario\nmetadata: {name: x, description: y}\n"
                   "spec:\n  faults:\n    - {at: -5, kind: no_such_fault, target: pod0/node1}\n"
                   "    - {at: 10, kind: hbm_uce, target: pod0/node99/npu1/hbm}\n")
    code, _out, err = run(runner, "chaos", "validate", str(bad), home=tmp_path)
    assert code == 2 and "Traceback" not in err
    assert "spec.faults[0].at" in err and "spec.faults[0].kind" in err
    other = tmp_path / "target.yaml"
    other.write_text(bad.read_text().replace("{at: -5, kind: no_such_fault, target: pod0/node1}",
                                             "{at: 5, kind: node_crash, target: pod0/node1}"))
    code, _out, err = run(runner, "chaos", "validate", str(other), home=tmp_path)
    assert code == 2 and "spec.faults[1].target" in err and "pod0/node99" in err


def test_run_writes_complete_journal_and_store(runner: CliRunner, tmp_path: Path) -> None:
    code, out, err = run(runner, "chaos", "run", "link-down-training", "--json", "--out", str(tmp_path / "j"),
                         home=tmp_path)
    j = json.loads(out)
    assert code == (0 if j["verdict"] in ("passed", "inconclusive") else 1)
    assert all(k in j for k in JOURNAL_KEYS)
    faults = [i for i in j["incidents"] if i["injected"]]
    assert len(faults) == 1 and all(k in faults[0] for k in INCIDENT_KEYS)
    f = faults[0]
    assert f["diagnosis"]["fault_class"] == "link_down" and f["correct"]
    assert f["ttd_s"] is not None and 0 <= f["ttd_s"] <= f["ttdiag_s"]
    assert any(a["action"] == "reroute" and a["status"] == "succeeded" for a in f["actions"])
    assert f["human_steps"] == 0 and f["ttr_s"] <= 30  # a lone link down needs no person (issue 16)
    assert list((tmp_path / "j").glob("*.json"))
    store = RunStore(tmp_path)
    runs = store.list_runs()
    assert runs[0]["id"] == j["run_id"] and runs[0]["status"] == "finished"
    assert store.get_journal(j["run_id"])["verdict"] == j["verdict"]
    code, out, _ = run(runner, "runs", "show", j["run_id"], "--json", home=tmp_path)
    assert code == 0 and json.loads(out)["run_id"] == j["run_id"]


def test_failed_expectation_exits_1(runner: CliRunner, tmp_path: Path) -> None:
    path = scenario_file(tmp_path, "link-down-training",
                         **{"spec.expectations": [{"fault": 0, "diagnosis": "node_crash"}]})
    code, out, _ = run(runner, "chaos", "run", str(path), "--json", home=tmp_path)
    j = json.loads(out)
    assert code == 1 and j["verdict"] == "failed"
    assert not j["expectations"][0]["met"] and "expected node_crash" in j["expectations"][0]["problems"][0]


def test_guard_aborts_and_journal_is_still_complete(runner: CliRunner, tmp_path: Path) -> None:
    path = scenario_file(tmp_path, "node-crash-inference", **{"spec.guards": [{"kind": "slo_breach_s", "max": 5}],
                                                               "spec.policy": "manual"})
    code, out, _ = run(runner, "chaos", "run", str(path), "--json", home=tmp_path)
    j = json.loads(out)
    assert code == 1 and j["verdict"] == "aborted" and "slo_breach_s" in j["abort_reason"]
    assert j["ended_at_s"] < j["duration_s"]
    assert all(k in j for k in JOURNAL_KEYS) and j["incidents"]


def test_dry_run_plans_without_running(runner: CliRunner, tmp_path: Path) -> None:
    code, out, _ = run(runner, "chaos", "run", "concurrent-faults", "--dry-run", "--json", home=tmp_path)
    plan = json.loads(out)
    assert code == 0 and plan["dry_run"] and len(plan["faults"]) == 2
    assert "rb-hbm-uce" in plan["faults"][0]["eligible_runbooks"]
    assert RunStore(tmp_path).list_runs() == []


def test_manual_policy_is_slower_than_auto(runner: CliRunner, tmp_path: Path) -> None:
    auto = json.loads(run(runner, "chaos", "run", "link-down-training", "--json", home=tmp_path)[1])
    manual = json.loads(run(runner, "chaos", "run", "link-down-training", "--policy", "manual", "--json",
                            home=tmp_path)[1])
    fa = next(i for i in auto["incidents"] if i["injected"])
    fm = next(i for i in manual["incidents"] if i["injected"])
    assert manual["policy"] == "manual"
    assert fm["ttd_s"] > fa["ttd_s"] and (fm["ttr_s"] is None or fm["ttr_s"] > 10 * fa["ttr_s"])


def test_store_stays_consistent_after_a_kill(tmp_path: Path) -> None:
    env = {**os.environ, "OPSBRAIN_HOME": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "opsbrain", "chaos", "run", "llama3-random-week", "--json"],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    db = tmp_path / "runs.sqlite"
    deadline = time.time() + 60
    while time.time() < deadline:
        if db.exists():
            try:
                with sqlite3.connect(db) as con:
                    if con.execute("SELECT COUNT(*) FROM runs").fetchone()[0]:
                        break
            except sqlite3.OperationalError:  # the schema is not there yet
                pass
        time.sleep(0.1)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    store = RunStore(tmp_path)  # a later open notices the dead run
    rows = store.list_runs()
    assert len(rows) == 1 and rows[0]["status"] == "interrupted"
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert con.execute("SELECT COUNT(*) FROM incidents").fetchone()[0] == 0


@pytest.mark.parametrize("args", [["chaos", "run", "no-such-scenario"], ["runs", "show", "nope"],
                                  ["chaos", "run", "link-down-training", "--policy", "sometimes"]])
def test_bad_input_is_one_line_exit_2(runner: CliRunner, tmp_path: Path, args: list[str]) -> None:
    code, _out, err = run(runner, *args, home=tmp_path)
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_replay_maps_counts_and_runs_a_trace(runner: CliRunner, tmp_path: Path) -> None:
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps([
        {"node": "a", "time": 120, "type": "fault_start", "description": "kernel panic"},
        {"node": "a", "time": 400, "type": "fault_end", "description": "kernel panic"},
        {"node": "b", "time": 300, "type": "fault_start", "description": "cosmic rays"}]))
    code, out, _ = run(runner, "chaos", "replay", str(trace), "--json", home=tmp_path)
    rep = json.loads(out)
    assert code == 0 and rep["by_kind"] == {"node_crash": 1} and rep["unmapped"] == {"cosmic rays": 1}
    code, out, _ = run(runner, "chaos", "replay", str(trace), "--run", "--json", home=tmp_path)
    j = json.loads(out)
    fault = next(i for i in j["journal"]["incidents"] if i["injected"])
    assert fault["injected"]["kind"] == "node_crash" and fault["diagnosis"]["fault_class"] == "node_crash"
    assert j["unmapped_total"] == 1 and j["run"]["interruptions"] == 1 and j["run"]["run_id"]


@pytest.mark.parametrize("content, needle", [
    ("node,time,type,description\nn1,0.5,fault_start,x\nn1,0.2,fault_end,x\n", "before its fault_start"),
    ("{not json", "bad JSON"), ("node,time,type\nn1,1,fault_start\n", "missing field 'description'")])
def test_malformed_trace_is_one_line_exit_2(runner: CliRunner, tmp_path: Path, content: str, needle: str) -> None:
    trace = tmp_path / ("t.json" if content.startswith("{") else "t.csv")
    trace.write_text(content)
    code, _out, err = run(runner, "chaos", "replay", str(trace), home=tmp_path)
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_root_named_after_a_first_diagnosis_without_one_gets_a_response(runner: CliRunner, tmp_path: Path) -> None:
    """An NPU off the bus is first seen without its device (no component): the response must follow once the
    diagnosis names it, or the dead NPU stays in the job."""
    path = scenario_file(tmp_path, "npu-off-bus-inference", **{
        "spec.faults": [{"at": 600, "kind": "npu_off_bus", "target": "pod0/node40/npu2"}],
        "spec.expectations": [{"fault": 0, "diagnosis": "npu_off_bus", "component": "pod0/node40/npu2"}]})
    code, out, _ = run(runner, "chaos", "run", str(path), "--json", home=tmp_path)
    j = json.loads(out)
    fault = next(i for i in j["incidents"] if i["injected"])
    assert fault["diagnosis"]["component"] == "pod0/node40/npu2"
    assert fault["ttr_s"] is not None and fault["ttr_s"] < 600
    assert any(a["action"] == "restart_job" and a["status"] == "succeeded" for a in fault["actions"])


def test_scoring_mends_from_a_new_users_scenarios(runner: CliRunner, tmp_path: Path) -> None:
    """Session 26, a new user's scenarios: a fault after the run's end is refused by validate (it ran and failed
    'fault never started'); an output path the write would refuse is refused before the run (it was refused after
    it, the verdict lost)."""
    path = scenario_file(tmp_path, "link-down-training", **{"spec.faults": [
        {"at": 999999, "kind": "link_down", "target": "pod0/node3/l1sw2~pod0/l2plane2/sw05"}]})
    code, _out, err = run(runner, "chaos", "validate", str(path), home=tmp_path)
    assert code == 2 and "is not before the end of the run" in err
    code, _out, err = run(runner, "chaos", "run", "link-down-training", "--out", "../x", home=tmp_path)
    assert code == 2 and "'..' segments" in err and not RunStore(tmp_path).list_runs()


def test_a_crash_during_a_checkpoint_write_fires_the_recovery_start_trigger(runner: CliRunner, tmp_path: Path) -> None:
    doc = {"apiVersion": "opsbrain/v1", "kind": "ChaosScenario",
           "metadata": {"name": "ckpt-crash", "description": "a crash 3 s into a checkpoint write, then its trigger"},
           "spec": {"duration": 7200, "seed": 5, "noise": False,
                    "workloads": [{"name": "train", "kind": "training", "first_node": 0, "nodes": 20,
                                   "params": {"ckpt_interval_s": 1800}}],
                    "faults": [{"at": {"event": "checkpoint_write_start", "workload": "train", "after_s": 3},
                                "kind": "node_crash", "target": "pod0/node7"},
                               {"at": {"event": "recovery_start", "workload": "train", "after_s": 5},
                                "kind": "hbm_uce", "target": "pod0/node5/npu2/hbm"}]}}
    path = tmp_path / "ckpt.yaml"
    path.write_text(json.dumps(doc))
    code, out, err = run(runner, "chaos", "run", str(path), "--json", home=tmp_path)
    j = json.loads(out)
    started = [i for i in j["incidents"] if i["injected"]]
    assert len(started) == 2, err  # the second fault's trigger fired (before: "fault never started")
    assert not [t for t in j["triggers"] if t.get("fired") is False], j["triggers"]


def test_the_manual_policy_gets_no_detection_before_its_person_has_detected(runner: CliRunner,
                                                                            tmp_path: Path) -> None:
    """A node crash 60 s before the end under the manual policy: the person's detection is still under way, so the
    fault has no time to detect or diagnose and is not correct (before: the tool's own 3 s / 5 s were credited)."""
    doc = {"apiVersion": "opsbrain/v1", "kind": "ChaosScenario",
           "metadata": {"name": "late-crash", "description": "a crash the person cannot see in time"},
           "spec": {"duration": 3600, "seed": 1, "noise": False, "policy": "manual",
                    "workloads": [{"name": "train", "kind": "training", "first_node": 0, "nodes": 8}],
                    "faults": [{"at": 3540, "kind": "node_crash", "target": "pod0/node3"}]}}
    path = tmp_path / "late.yaml"
    path.write_text(json.dumps(doc))
    _code, out, _err = run(runner, "chaos", "run", str(path), "--json", home=tmp_path)
    (f,) = [i for i in json.loads(out)["incidents"] if i["injected"]]
    assert f["ttd_s"] is None and f["ttdiag_s"] is None and not f["correct"]


def test_validate_names_every_faults_bad_target_at_once(runner: CliRunner, tmp_path: Path) -> None:
    """A new user's five bad targets took five rounds of validate-and-fix (session 26)."""
    path = scenario_file(tmp_path, "link-down-training", **{"spec.faults": [
        {"at": 10, "kind": "node_crash", "target": "pod0/node48"},
        {"at": 20, "kind": "hbm_uce", "target": "pod0/node3"},
        {"at": 30, "kind": "node_crash", "target": "pod0/node5"}]})
    code, _out, err = run(runner, "chaos", "validate", str(path), home=tmp_path)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 2
    assert "spec.faults[0].target: no component 'pod0/node48'" in lines[0] and "spec.faults[1].target" in lines[1]


def test_a_dry_run_names_each_fault_and_its_trigger_in_the_scenarios_order(runner: CliRunner, tmp_path: Path) -> None:
    """Triggered faults came out of order, without their index, workload or occurrence (session 26)."""
    doc = {"apiVersion": "opsbrain/v1", "kind": "ChaosScenario",
           "metadata": {"name": "dry", "description": "three triggered faults"},
           "spec": {"duration": 7200, "workloads": [{"name": "train", "kind": "training", "first_node": 0,
                                                     "nodes": 8}],
                    "faults": [{"at": {"event": "job_down", "workload": "train", "occurrence": 5},
                                "kind": "node_crash", "target": "pod0/node3"},
                               {"at": {"event": "fault_start", "fault": 0, "after_s": 60},
                                "kind": "hbm_uce", "target": "pod0/node5/npu2/hbm"},
                               {"at": 100, "kind": "node_crash", "target": "pod0/node2"}]}}
    path = tmp_path / "dry.yaml"
    path.write_text(json.dumps(doc))
    code, out, _err = run(runner, "chaos", "run", str(path), "--dry-run", home=tmp_path)
    rows = [ln.strip() for ln in out.splitlines() if ln.strip().startswith("faults[")]
    assert code == 0 and [r.split()[0] for r in rows] == ["faults[2]", "faults[0]", "faults[1]"]
    assert "job_down of train (occurrence 5) +0s" in rows[1] and "fault_start of faults[0] +60s" in rows[2]


def test_a_passed_run_that_missed_a_fault_says_so(tmp_path: Path) -> None:
    """No probe and no expectation: the verdict passes on the steady state, and the output says a fault went
    undetected rather than leave "PASSED" alone beside "0 diagnosed"."""
    f = tmp_path / "tiny.yaml"
    f.write_text(yaml.safe_dump({
        "apiVersion": "opsbrain/v1", "kind": "ChaosScenario", "metadata": {"name": "tiny", "description": "x"},
        "spec": {"duration": 0.001, "workloads": [{"name": "train", "kind": "training", "first_node": 32,
                                                   "nodes": 14}],
                 "faults": [{"at": 0, "kind": "node_crash", "target": "pod0/node33"}]}}))
    res = CliRunner().invoke(cli, ["chaos", "run", str(f), "--data-dir", str(tmp_path)])
    # a 1 ms run leaves no time to detect anything (the detector holds a line 3 s): the fault is censored, and said so
    assert res.exit_code == 0 and "censored (not counted as missed): node_crash on pod0/node33" in res.output, \
        res.output


def test_a_fault_undetected_with_time_to_spare_is_still_said_missed(tmp_path: Path) -> None:
    """Censoring takes only the faults no path could have seen in time: a CE storm whose first report (32 s in at 2
    errors/s: faults.ce_log_limit 64) came with the detector's 3 s hold and more to spare in a 60 s run is missed (its
    burst count was not reached: the lower bound is its first report and the hold). At the default 0.5 errors/s
    its first report would come after the run's end (128 s): censored (session 33)."""
    f = tmp_path / "storm.yaml"
    f.write_text(yaml.safe_dump({
        "apiVersion": "opsbrain/v1", "kind": "ChaosScenario", "metadata": {"name": "storm", "description": "x"},
        "spec": {"duration": 60, "noise": False, "workloads": [{"name": "train", "kind": "training",
                                                                 "first_node": 32, "nodes": 14}],
                 "faults": [{"at": 0, "kind": "hbm_ce_storm", "target": "pod0/node33/npu1/hbm",
                             "params": {"rate_per_s": 2}}]}}))
    res = CliRunner().invoke(cli, ["chaos", "run", str(f), "--data-dir", str(tmp_path)])
    assert res.exit_code == 0 and "1 fault not detected" in res.output and "censored" not in res.output
