"""Session 44 (newuser44): a new SRE's own scenarios, written from the docs with the mistakes users make.

- Validation said "every error" but stopped at a stage: a fault after the run's end hid every fault's bad target,
  and a field error (a negative time) hid the fault after the end; the user fixed one round to meet the next.
- A run that ended early (a guard, Ctrl-C, SIGTERM) dropped the faults it never reached from every count and said
  nothing of them: "1 fault" for a scenario of two.
- A guard's bar was printed rounded to whole percent: `8/384 isolated > 0%` for `max: 0.001`.
- A name that broke the pattern did not say what it got.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from opsbrain import chaos as lib
from opsbrain.cli import cli
from opsbrain.report import build_run_report, render

TRAIN = [{"name": "train", "kind": "training", "first_node": 32, "nodes": 14}]


def _file(tmp_path: Path, spec: dict[str, Any], name: str = "mine") -> str:
    doc = {"apiVersion": "opsbrain/v1", "kind": "ChaosScenario",
           "metadata": {"name": name, "description": "a user's own scenario"},
           "spec": {"duration": 1800, "seed": 3, "workloads": TRAIN, **spec}}
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True))
    return str(path)


def test_a_fault_after_the_end_does_not_hide_a_bad_target(tmp_path: Path) -> None:
    f = _file(tmp_path, {"faults": [{"at": 2400, "kind": "node_crash", "target": "pod0/node35"},
                                    {"at": 300, "kind": "node_crash", "target": "pod0/node48"}]})
    errors = lib.validate([f])
    assert f"{f}: spec.faults[0].at: 2400.0 s is not before the end of the run (duration 1800.0 s): the fault " \
           "would never start" in errors
    assert f"{f}: spec.faults[1].target: no component 'pod0/node48'" in errors
    assert len(errors) == 2


def test_a_field_error_does_not_hide_a_late_fault_or_a_bad_target(tmp_path: Path) -> None:
    f = _file(tmp_path, {"faults": [{"at": -1, "kind": "node_crash", "target": "pod0/node34"},
                                    {"at": 2400, "kind": "node_crash", "target": "pod0/node35"},
                                    {"at": 300, "kind": "hbm_uce", "target": "pod0/node33/npu8/hbm"}]})
    errors = lib.validate([f])
    assert [e.split(": ")[1] for e in errors] == ["spec.faults[0].at", "spec.faults[1].at", "spec.faults[2].target"]
    assert "2400.0 s is not before the end of the run" in errors[1]
    # the same lines from `chaos run FILE`, exit 2, before anything runs
    res = CliRunner().invoke(cli, ["chaos", "run", f, "--data-dir", str(tmp_path / "home")])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert res.stderr.count("opsbrain: error: ") == 3


def test_only_the_stage_checks_of_a_valid_duration_and_topology(tmp_path: Path) -> None:
    """A bad duration or pod count is said once; no guess is made against it (no false second error)."""
    f = _file(tmp_path, {"duration": -5, "topology": {"pods": 0},
                         "faults": [{"at": 2400, "kind": "node_crash", "target": "pod3/node1"}]})
    assert [e.split(": ")[1] for e in lib.validate([f])] == ["spec.duration", "spec.topology.pods"]


@pytest.fixture(scope="module")
def aborted(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("abort")
    f = _file(tmp, {"seed": 5, "duration": 3600,
                    "faults": [{"at": 300, "kind": "node_crash", "target": "pod0/node33"},
                               {"at": 2000, "kind": "hbm_uce", "target": "pod0/node40/npu3/hbm"}],
                    "guards": [{"kind": "isolated_npu_share", "max": 0.001}]}, name="guard-abort")
    runner = CliRunner()
    text = runner.invoke(cli, ["chaos", "run", f, "--data-dir", str(tmp / "home")])
    js = runner.invoke(cli, ["chaos", "run", f, "--data-dir", str(tmp / "home"), "--json"])
    assert text.exit_code == 1 and js.exit_code == 1, text.output
    return text.stdout, json.loads(js.stdout)


def test_the_journal_names_the_faults_an_aborted_run_never_reached(aborted: tuple[str, dict[str, Any]]) -> None:
    _, j = aborted
    assert j["status"] == "aborted" and j["ended_at_s"] < 2000
    assert j["summary"]["incidents"] == 1
    assert j["summary"]["faults_not_reached"] == [
        {"fault": 1, "kind": "hbm_uce", "target": "pod0/node40/npu3/hbm", "at_s": 2000.0, "source": "scripted"}]


def test_the_cli_and_reports_say_the_faults_not_reached(aborted: tuple[str, dict[str, Any]]) -> None:
    out, j = aborted
    line = (f"faults[1] (hbm_uce on pod0/node40/npu3/hbm): scheduled at 2000 s, not reached: the run was aborted "
            f"at {j['ended_at_s']:g} s")
    assert "1 fault (+1 not reached: the run was aborted)" in out
    assert f"  {line}" in out
    model = build_run_report(j)
    assert line in model["never_fired"]
    assert line.replace("[1]", "\\[1\\]") in render(model, "md")
    assert "1 scheduled fault never injected: the run was aborted first." in model["headline"]


def test_the_guard_says_its_bar_unrounded(aborted: tuple[str, dict[str, Any]]) -> None:
    _, j = aborted
    assert j["abort_reason"] == "guard isolated_npu_share: 8/384 isolated (2.1%) > 0.1%"


def test_a_name_off_the_pattern_says_what_it_got(tmp_path: Path) -> None:
    f = _file(tmp_path, {"workloads": [{**TRAIN[0], "name": "trainé"}]}, name="mine")
    [err] = lib.validate([f])
    assert err.endswith("spec.workloads[0].name: String should match pattern '^[a-z0-9][a-z0-9-]*$' (got 'trainé')")
