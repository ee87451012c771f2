"""Session 41 (scen41, operator-written scenarios): a fault's own duration is in its journal record.

An operator who writes ``duration: 1200`` on an L1 switch failure, or replays a trace whose rows carry repair
times, reads the journal to see what was injected; before, ``injected`` had kind, component, onset and params only,
so the fault's duration (when it heals, or its part's repair time) was in no fault's record (the scenario's
definition has the scripted value, not a replayed or selected fault's). Now ``injected.duration_s`` and
``duration_is`` (``heals_after`` / ``repair_time``) say it, null where the kind's model uses none.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.runner.journal_schema import journal_schema


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPSBRAIN_HOME", str(tmp_path / "home"))


def _scenario(tmp_path: Path, faults: list[dict[str, Any]]) -> Path:
    spec = {"duration": 1800, "seed": 3, "noise": False, "topology": {"pods": 1, "spares": 2},
            "workloads": [{"name": "train", "kind": "training", "first_node": 0, "nodes": 46}], "faults": faults}
    f = tmp_path / "durations.yaml"
    f.write_text(yaml.safe_dump({"apiVersion": "opsbrain/v1", "kind": "ChaosScenario",
                                 "metadata": {"name": "durations", "description": "fault durations"}, "spec": spec}))
    return f


def _injected(res_output: str) -> list[dict[str, Any]]:
    j = json.loads(res_output)
    jsonschema.validate(j, journal_schema())
    return [i["injected"] for i in j["incidents"] if i["injected"]]


def test_a_scripted_duration_is_in_the_faults_journal_record(tmp_path: Path) -> None:
    path = _scenario(tmp_path, [
        {"at": 300, "kind": "l1_switch_failure", "target": "pod0/node31/l1sw6", "duration": 600},
        {"at": 400, "kind": "node_crash", "target": "pod0/node12", "duration": 900},
        {"at": 500, "kind": "dirty_connector", "target": "pod0/node20/l1sw4~pod0/l2plane4/sw11"}])
    res = CliRunner().invoke(cli, ["chaos", "run", str(path), "--json", "--data-dir", str(tmp_path / "d")])
    assert res.exit_code in (0, 1), res.output
    chip, crash, connector = _injected(res.output)
    assert (chip["duration_s"], chip["duration_is"]) == (600, "heals_after"), chip
    assert (crash["duration_s"], crash["duration_is"]) == (900, "repair_time"), crash
    assert connector["duration_s"] is None and "duration_is" not in connector, connector  # lasts until responded to


def test_a_replayed_duration_the_kind_does_not_use_is_not_reported(tmp_path: Path) -> None:
    trace = tmp_path / "t.csv"
    trace.write_text("node,time,event,level,class,desc\n"
                     "srv-a,0.5,fault_start,Software Failure,OS,Kernel Panic\n"
                     "srv-a,0.9,fault_end,Software Failure,OS,Kernel Panic\n"
                     "srv-c,0.7,fault_start,Hardware Failure,NPU,HBM Uncorrectable Error\n"
                     "srv-c,0.8,fault_end,Hardware Failure,NPU,HBM Uncorrectable Error\n")
    res = CliRunner().invoke(cli, ["chaos", "replay", str(trace), "--time-unit", "h", "--run", "--json",
                                   "--data-dir", str(tmp_path / "d")])
    assert res.exit_code == 0, res.output
    by_kind = {i["injected"]["kind"]: i["injected"] for i in json.loads(res.output)["journal"]["incidents"]
               if i["injected"]}
    assert by_kind["node_crash"]["duration_s"] == pytest.approx(0.4 * 3600)
    assert by_kind["node_crash"]["duration_is"] == "repair_time"
    assert by_kind["hbm_uce"]["duration_s"] is None  # the trace's 0.1 h: its model does not use it (said by replay)


def test_the_dry_run_says_each_faults_duration_and_symptom(tmp_path: Path) -> None:
    path = _scenario(tmp_path, [
        {"at": 300, "kind": "node_crash", "target": "pod0/node12", "duration": 900},
        {"at": {"event": "fault_start", "fault": 0}, "kind": "link_down",
         "target": "pod0/node12/l1sw2~pod0/l2plane2/sw02", "symptom_of": 0}])
    res = CliRunner().invoke(cli, ["chaos", "run", str(path), "--dry-run"])
    assert res.exit_code == 0, res.output
    crash, link = (ln for ln in res.output.splitlines() if ln.lstrip().startswith("faults["))
    assert "pod0/node12  duration 900 s  runbooks:" in crash, crash
    assert "symptom of faults[0]" in link and "duration" not in link, link
