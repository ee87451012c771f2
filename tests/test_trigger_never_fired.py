"""Tester D10: a triggered fault whose trigger never fired was silent (the CLI and the reports of a four-fault
scenario showed three faults and said nothing of the fourth); now the journal's summary, the CLI, Markdown and HTML
say "faults[i] (...): trigger <...> never fired"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.report import build_run_report, render
from opsbrain.report.text import never_fired
from tests.test_chaos_run import scenario_file

NEVER = "faults[1] (hbm_uce on pod0/node33/npu0/hbm): trigger recovery_start of train (occurrence 50) +5s never fired"


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("never")
    path = scenario_file(tmp, "node-crash-training", **{"spec.faults": [
        {"at": 600, "kind": "node_crash", "target": "pod0/node38"},
        {"at": {"event": "recovery_start", "workload": "train", "after_s": 5, "occurrence": 50},
         "kind": "hbm_uce", "target": "pod0/node33/npu0/hbm"}]})
    runner = CliRunner()
    text = runner.invoke(cli, ["chaos", "run", str(path), "--data-dir", str(tmp / "home")])
    js = runner.invoke(cli, ["chaos", "run", str(path), "--data-dir", str(tmp / "home"), "--json"])
    assert "Traceback" not in text.output + js.stderr
    return text.stdout, json.loads(js.stdout)


def test_the_journal_summary_names_the_fault_whose_trigger_never_fired(outputs: tuple[str, dict[str, Any]]) -> None:
    _, j = outputs
    assert j["summary"]["incidents"] == 1
    [t] = j["summary"]["triggers_never_fired"]
    assert (t["fault"], t["kind"], t["target"], t["event"], t["occurrence"]) == (
        1, "hbm_uce", "pod0/node33/npu0/hbm", "recovery_start", 50)
    assert t["seen"] < 50 and t["trigger"] == "recovery_start of train (occurrence 50) +5s"


def test_the_cli_says_the_trigger_never_fired(outputs: tuple[str, dict[str, Any]]) -> None:
    out, _ = outputs
    assert "1 fault (+1 whose trigger never fired)" in out
    assert f"  {NEVER} (its event came " in out


def test_the_reports_say_the_trigger_never_fired(outputs: tuple[str, dict[str, Any]]) -> None:
    _, j = outputs
    model = build_run_report(j)
    assert model["never_fired"] and model["never_fired"][0].startswith(NEVER)
    md = render(model, "md")
    assert "Faults never injected" in md and NEVER.replace("[1]", "\\[1\\]") in md
    assert NEVER in render(model, "html", j.get("series")).replace("&#39;", "'")
    assert "1 triggered fault never injected" in model["headline"]


def test_a_journal_written_before_the_summary_kept_it_still_says_so(outputs: tuple[str, dict[str, Any]]) -> None:
    _, j = outputs
    old = {**j, "summary": {k: v for k, v in j["summary"].items() if k != "triggers_never_fired"},
           "triggers": [{"fault": 1, "event": "recovery_start", "fired": False, "seen": 2}]}
    assert never_fired(old) == ["faults[1]: trigger recovery_start never fired (its event came 2 times)"]


def test_a_plan_prints_the_trigger_in_the_same_words(tmp_path: Path) -> None:
    path = scenario_file(tmp_path, "node-crash-training", **{"spec.faults": [
        {"at": {"event": "recovery_start", "workload": "train", "after_s": 5, "occurrence": 50},
         "kind": "hbm_uce", "target": "pod0/node33/npu0/hbm"}]})
    res = CliRunner().invoke(cli, ["chaos", "run", str(path), "--dry-run"])
    assert res.exit_code == 0 and "faults[0] recovery_start of train (occurrence 50) +5s  hbm_uce" in res.output
