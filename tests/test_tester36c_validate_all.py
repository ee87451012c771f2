"""Tester 36c (session 36): ``chaos validate`` prints every error of the checks across a scenario, not the first.

Two faults after the run's end (``at: 1000`` and ``at: 5000`` in a 1,000 s run) printed only the first; fixing it
and validating again showed the second. The checks across the spec (unique names, references, triggers, durations,
times) now report each problem on its own line, with its own YAML path, exit 2.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from click.testing import CliRunner

from opsbrain.cli import cli


def test_every_cross_spec_problem_is_its_own_line(tmp_path: Path) -> None:
    doc = {"apiVersion": "opsbrain/v1", "kind": "ChaosScenario", "metadata": {"name": "v36c", "description": "x"},
           "spec": {"duration": 1000, "workloads": [{"name": "train", "kind": "training", "first_node": 32,
                                                     "nodes": 14}],
                    "faults": [{"at": 1000, "kind": "node_crash", "target": "pod0/node38"},
                               {"at": 5000, "kind": "node_crash", "target": "pod0/node39"},
                               {"at": 10, "kind": "hbm_uce", "target": "pod0/node40/npu0/hbm", "duration": 60}],
                    "expectations": [{"fault": 7, "diagnosis": "node_crash"}]}}
    path = tmp_path / "v36c.yaml"
    path.write_text(yaml.safe_dump(doc))
    res = CliRunner().invoke(cli, ["chaos", "validate", str(path)])
    assert res.exit_code == 2, res.output
    lines = [x for x in res.output.splitlines() if x.strip()]
    paths = [x.split(": ")[3] for x in lines]
    assert paths == ["spec.expectations[0].fault", "spec.faults[2].duration", "spec.faults[0].at",
                     "spec.faults[1].at"], res.output
    assert all(x.startswith(f"opsbrain: error: {path}: ") for x in lines) and "Traceback" not in res.output
