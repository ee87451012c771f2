"""Tester D3: a run's reports say where each workload stood at the end from the journal's own final state (down /
stalled / degraded / running), Markdown and JSON carry the workload table HTML has (one builder), an incident with
a workload down, failed restarts or escalations is never noise, and the CLI prints the ETTR of a FAILED run."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.report import build_run_report, render
from opsbrain.report.workloads import end_state
from opsbrain.verdict import incident_outcome, is_noise, needs_attention

DOWN = {"name": "train", "kind": "training", "state": "down", "nodes": 42, "launch_nodes": 46, "ettr": 0.165586,
        "useful_steps": 103.8, "redone_steps": 2.5, "elapsed_s": 21600.0, "nominal_step_time_s": 36.8,
        "launch_nominal_step_time_s": 33.6, "downtime_s": 15171.6, "stalled_s": 2763.1, "lost_npu_s": 6055861.3,
        "restarts": 5, "in_place_recoveries": 0, "scale_ins": 4, "degraded_s": 1737.0,
        "degraded": {"since_s": 2234.8, "nodes": 42, "launch_nodes": 46, "throughput_share": 0.913154}}
SERIES = {"train": {"kind": "training", "fields": ["t", "steps_per_s"],
                    "points": [[0.0, 0.0297], [5000.0, 0.0], [5601.0, 0.0272], [6000.0, 0.0]]}}
STUCK = {"id": "w0001", "injected": None, "false_positive": False, "detected_at_s": 12540.1,
         "diagnosis": {"fault_class": "workload_stuck", "component": "train", "confidence": 1.0},
         "actions": [{"action": "restart_process", "target": "train", "status": "failed"}] * 3
         + [{"action": "escalate", "status": "succeeded", "detail": {"to_rung": "process_reschedule"}}]
         + [{"action": "restart_job", "target": "train", "status": "failed"}] * 6
         + [{"action": "escalate", "status": "succeeded", "detail": {"to_rung": "human"}}] * 2}


def _journal(**workload: Any) -> dict[str, Any]:
    return {"scenario": "dry", "seed": 5, "policy": "auto", "verdict": "failed", "duration_s": 21600.0,
            "ended_at_s": 21600.0, "summary": {"incidents": 0}, "incidents": [], "series": SERIES,
            "workloads": [DOWN | workload], "recovery": {}}


def test_the_end_state_is_the_journals_final_state() -> None:
    down = end_state(DOWN, SERIES, 21600.0)
    assert (down["state"], down["idle_since_s"], down["idle_s"], down["degraded"]) == ("down", 6000.0, 15600.0, None)
    assert down["words"].startswith("down at the end of the run, no step made since t=6000.0 s")
    assert "last placed on 42 of 46 launch nodes" in down["words"]
    running = end_state(DOWN | {"state": "running"}, {}, 21600.0)
    assert running["state"] == "degraded" and running["words"].startswith("degraded: 42 of 46 launch nodes")
    assert end_state(DOWN | {"state": "checkpointing", "degraded": None, "nodes": 46}, {}, 1.0)["state"] == "running"
    assert end_state(DOWN | {"state": "stalled"}, SERIES, 21600.0)["words"].startswith(
        "stalled at the end of the run (up), no step made since t=6000.0 s")
    assert end_state(DOWN | {"state": "stalled"}, {}, 1.0)["words"] == (
        "stalled at the end of the run (up, no step made)")
    assert end_state(DOWN | {"state": "restarting"}, {}, 1.0)["words"].startswith(
        "down at the end of the run (job state: restarting)")
    assert end_state({"name": "train", "kind": "training"}, {}, 1.0)["state"] == "unknown"


def test_a_down_job_is_not_said_to_run_degraded_in_any_format() -> None:
    j = _journal()
    model = build_run_report(j)
    md, html = render(model, "md"), render(model, "html", j["series"])
    for text in (md, html):
        assert "down at the end of the run, no step made since t=6000.0 s" in text
        assert "train on 42 of 46 launch nodes" not in text and "91% of its launch throughput" not in text
    assert "- degraded operation: none" in md
    up = _journal(state="running")  # the same job running scaled in: that is degraded operation
    assert "- degraded operation: train on 42 of 46 launch nodes since t=2234.8 s" in render(
        build_run_report(up), "md")


def test_markdown_and_json_carry_the_workload_table_html_has() -> None:
    j = _journal()
    model = build_run_report(j)
    table = json.loads(render(model, "json"))["workload_table"]
    assert table["head"][:4] == ["workload", "kind", "state at the end", "ETTR"]
    row = table["rows"][0]
    assert row[3] == "0.166" and "6,055,861 NPU-s" in row[5]
    md, html = render(model, "md"), render(model, "html", j["series"])
    assert "## Workloads" in md and "| " + " | ".join(row) + " |" in md
    cells = re.findall(r"<tr data-workload=\"train\"[^>]*>(.*?)</tr>", html, flags=re.S)
    assert cells and re.findall(r"<td[^>]*>(.*?)</td>", cells[0]) == row


def test_an_incident_with_a_workload_down_failed_restarts_or_escalations_is_no_noise() -> None:
    assert not is_noise(STUCK) and needs_attention(STUCK)
    assert incident_outcome(STUCK) == ("needs attention", "bad")
    restarted = {**STUCK, "actions": [{"action": "restart_process", "status": "succeeded"}]}
    assert not is_noise(restarted)  # the workload was down: no background event, even when the restart worked
    other = {**STUCK, "diagnosis": {"fault_class": "collective_timeout_sw", "component": "pod0/node3"}}
    assert not is_noise(other) and not is_noise({**other, "actions": STUCK["actions"][3:4]})
    quiet = {**other, "id": "i0004", "diagnosis": {"fault_class": "dirty_connector"}, "actions": [
        {"action": "drain_link", "status": "succeeded"}]}
    assert is_noise(quiet) and incident_outcome(quiet) == ("ignored", "ok")
    fp = {**other, "false_positive": True}  # acted on: still counted among noise, as a false positive
    assert is_noise(fp) and not needs_attention(fp)
    j = _journal() | {"incidents": [copy.deepcopy(STUCK), quiet]}
    md = render(build_run_report(j), "md")
    attention = md.split("## Incidents that need attention (1)")[1].split("## Other incidents (1)")
    assert "train down, 9 failed restarts, 3 escalations, the last to a person" in attention[0]
    assert "w0001" not in attention[1]


SCENARIO = {  # the tester's s03: six node crashes, one spare; the job is down for the last 15,600 s
    "apiVersion": "opsbrain/v1", "kind": "ChaosScenario",
    "metadata": {"name": "spares-dry", "description": "one spare, six node crashes with long repairs"},
    "spec": {"duration": 21600, "seed": 5, "policy": "auto", "topology": {"pods": 1, "spares": 2},
             "initial_state": {"spares_taken": ["pod0/node47"]},
             "workloads": [{"name": "train", "kind": "training", "first_node": 0, "nodes": 46}],
             "steady_state": {"probes": [{"name": "step", "metric": "step_rate", "workload": "train", "op": ">=",
                                          "of_baseline": 0.8}], "tolerance_s": 1800},
             "faults": [{"at": 1000 * k, "kind": "node_crash", "target": f"pod0/node{4 * k - 1}", "duration": 36000}
                        for k in range(1, 7)]}}


@pytest.fixture(scope="module")
def dry_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, Any], Path]:
    tmp = tmp_path_factory.mktemp("dry")
    path = tmp / "dry.yaml"
    path.write_text(yaml.safe_dump(SCENARIO))
    runner = CliRunner()
    text = runner.invoke(cli, ["chaos", "run", str(path), "--data-dir", str(tmp / "home")])
    res = runner.invoke(cli, ["chaos", "run", str(path), "--data-dir", str(tmp / "home"), "--json"])
    assert "Traceback" not in text.output + res.stderr
    return text.stdout, json.loads(res.stdout), tmp


def test_the_cli_of_a_failed_run_prints_the_ettr_and_the_incident_that_needs_attention(
        dry_run: tuple[str, dict[str, Any], Path]) -> None:
    out, j, _ = dry_run
    assert j["verdict"] == "failed" and j["workloads"][0]["state"] == "down"
    assert f"train: ETTR {j['workloads'][0]['ettr']:.3f}" in out
    assert "down at the end of the run, no step made since t=6000.0 s" in out
    stuck = [i for i in j["incidents"] if (i["diagnosis"] or {}).get("fault_class") == "workload_stuck"]
    waiting = [i for i in j["incidents"] if any(a["action"] == "waiting_for_spare" and (a.get("detail") or {}).get(
        "in_flight") for a in i.get("actions") or [])]
    if waiting and not stuck:  # session 44 (orch44b): the paged response holds a claim on the next spare, so the
        # progress watchdog raises no stall incident of its own; the job's line names the incident that waits
        assert f"{waiting[0]['id']} paged a person at t=" in out and "waits for a spare of pod0" in out
        assert j["summary"]["noise_incidents"] == sum(is_noise(i) for i in j["incidents"])
        return
    assert stuck and all(not is_noise(i) for i in stuck)
    assert "workload_stuck 1" not in out  # never folded into the noise row
    if stuck[0].get("consequence_of"):  # since detectfix the stall is tied to the crash that caused it
        assert f"consequence of {stuck[0]['consequence_of']}" in out
    else:
        assert "(attention)" in out
        assert f"{stuck[0]['id']} (workload_stuck on train) needs attention: train down" in out
    assert j["summary"]["noise_incidents"] == sum(is_noise(i) for i in j["incidents"])


def test_the_reports_of_the_dry_run_say_the_job_is_down(dry_run: tuple[str, dict[str, Any], Path]) -> None:
    _, j, tmp = dry_run
    md = render(build_run_report(j), "md")
    state = md.split("## State after the run")[1].split("##")[0]
    assert "- train: down at the end of the run" in state and "- degraded operation: none" in state
    assert "## Workloads" in md
    assert ("## Incidents that need attention" in md) == any(needs_attention(i) for i in j["incidents"])


def test_the_run_summary_lists_a_job_down_at_the_end_as_down_not_degraded(
        dry_run: tuple[str, dict[str, Any], Path]) -> None:
    """Tester, session 32: ``summary.degraded_workloads`` listed a job that ended down (it had scaled in before it
    went down): the summary's lists come from each workload's end state, as the workload table says it."""
    _, j, _ = dry_run
    train = j["workloads"][0]
    assert train["state"] == "down" and train["degraded"] is not None  # scaled in, then down to the end
    s = j["summary"]
    assert s["degraded_workloads"] == []
    (down,) = s["down_workloads"]
    assert down["workload"] == "train" and down["journal_state"] == "down" and down["idle_since_s"] == 6000.0
    assert down["last_placement"]["nodes"] == train["degraded"]["nodes"]  # where it last ran, scaled in
    end = j["ended_at_s"]
    for key, state in (("degraded_workloads", "degraded"), ("down_workloads", "down"),
                       ("stalled_workloads", "stalled")):
        assert [w["workload"] for w in s[key]] == [w["name"] for w in j["workloads"]
                                                   if end_state(w, j["series"], end)["state"] == state]
