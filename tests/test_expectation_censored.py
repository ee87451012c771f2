"""An expectation on a censored fault is not judged (tester CC, session 33): a node crash 1 s before the run's end
(too late to detect: censored, not counted as missed) with an expectation on its diagnosis failed the run ("diagnosed
none, expected node_crash"). The run cannot judge it: the result says so (``met`` null, ``unjudged``) and the verdict
is inconclusive unless another check failed, as for a probe with no fault-free baseline."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.runner.journal_schema import journal_schema
from opsbrain.verdict import run_verdict
from tests.test_scoring_censored import _write
from tests.test_scoring_impact import _run

LATE = {"at": 3599, "kind": "node_crash", "target": "pod0/node5"}


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPSBRAIN_HOME", str(tmp_path / "home"))


def _with_expectations(tmp_path: Path, expectations: list[dict[str, object]]) -> Path:
    path = _write(tmp_path, 3600, [{"at": 600, "kind": "node_crash", "target": "pod0/node46"}, LATE])
    doc = yaml.safe_load(path.read_text())
    doc["spec"]["expectations"] = expectations
    path.write_text(yaml.safe_dump(doc))
    return path


def test_an_expectation_on_a_censored_fault_is_unjudged_and_the_run_inconclusive(tmp_path: Path) -> None:
    path = _with_expectations(tmp_path, [{"fault": 0, "diagnosis": "node_crash"},
                                         {"fault": 1, "diagnosis": "node_crash", "component": "pod0/node5"}])
    j = _run(path)
    early, late = j["expectations"]
    assert early["met"] is True
    assert late["met"] is None and late["problems"] == [] and "censored" in late["unjudged"][0], late
    assert j["verdict"] == "inconclusive" and "faults[1]" in j["verdict_reason"], (j["verdict"], j["verdict_reason"])
    jsonschema.validate(j, journal_schema())
    res = CliRunner().invoke(cli, ["chaos", "run", str(path), "--data-dir", str(tmp_path / "d")])
    assert "INCONCLUSIVE" in res.output and "not met" not in res.output, res.output
    assert "expectation on faults[1] not judged" in res.output, res.output


def test_a_failed_check_still_fails_the_run_beside_an_unjudged_one(tmp_path: Path) -> None:
    j = _run(_with_expectations(tmp_path, [{"fault": 0, "diagnosis": "link_down"},
                                           {"fault": 1, "diagnosis": "node_crash"}]))
    assert j["expectations"][0]["met"] is False and j["expectations"][1]["met"] is None
    assert j["verdict"] == "failed"


def test_no_action_on_a_censored_fault_is_still_judged(tmp_path: Path) -> None:
    j = _run(_with_expectations(tmp_path, [{"fault": 1, "no_action": True}]))
    assert j["expectations"][0]["met"] is True and j["verdict"] == "passed"


def test_run_verdict_treats_an_unjudged_expectation_as_unchecked() -> None:
    unjudged = {"fault": 1, "check": "faults[1]", "met": None, "problems": [], "unjudged": ["f0002: censored"]}
    assert run_verdict("finished", "held", [], [{"met": True}, unjudged])[0] == "inconclusive"
    assert run_verdict("finished", "held", [], [{"met": False}, unjudged])[0] == "failed"
    assert run_verdict("finished", "deviated", [], [unjudged])[0] == "failed"
