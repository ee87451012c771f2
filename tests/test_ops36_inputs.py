"""Session 36: bad values in a scenario's ``spec.superpod`` block are one line -- file, YAML path, what is wrong --
exit 2, at validation (before, some ran and passed, some named no file, some only failed mid-run)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from opsbrain.cli import cli


def _file(tmp_path: Path, block: dict) -> str:
    doc = {"apiVersion": "opsbrain/v1", "kind": "ChaosScenario", "metadata": {"name": "bad", "description": "bad"},
           "spec": {"duration": 3600, "seed": 0, "superpod": {"seeds": 1, **block}}}
    f = tmp_path / "bad.yaml"
    f.write_text(yaml.safe_dump(doc))
    return str(f)


CASES = [
    # a parameter value out of range: named neither the file nor the block
    ({"schedule": {"params": {"switch.drain_timeout_s": -5}}}, "spec.superpod.schedule.params",
     "switch.drain_timeout_s"),
    # an unknown parameter: refused only when the block ran, as 'spec.superpod: cannot run the block'
    ({"elastic": {"duration": 3600, "params": {"demand.nope": 1}}}, "spec.superpod.elastic.params", "demand.nope"),
    # an elastic fault after the run's end: never fired, the run passed
    ({"elastic": {"duration": 3600, "faults": [{"at": 7200}]}}, "spec.superpod.elastic", "faults[0].at"),
    # a budget below one decode + one prefill instance: the opening layout exceeded it (352 NPU-h in 1 h, budget 16)
    ({"elastic": {"duration": 3600, "pods": 1, "budget_npus": 16}}, "spec.superpod.elastic", "budget_npus"),
    # a mid-switch fault on a switch the plan never runs: never injected
    ({"schedule": {"faults": [{"switch": 5, "after": 60}]}}, "spec.superpod.schedule", "faults[0].switch"),
    # a node index past the group: wrapped round to another node
    ({"schedule": {"faults": [{"switch": 0, "after": 60, "node": 999}]}}, "spec.superpod.schedule",
     "faults[0].node"),
]


@pytest.mark.parametrize(("block", "path", "what"), CASES)
def test_bad_superpod_values_are_one_line_exit_2(tmp_path: Path, block: dict, path: str, what: str) -> None:
    for cmd in (["chaos", "validate"], ["superpod", "run", "--no-store"]):
        r = CliRunner().invoke(cli, [*cmd, _file(tmp_path, block)], catch_exceptions=False)
        lines = r.stderr.strip().splitlines()
        assert r.exit_code == 2 and len(lines) == 1, (cmd, r.exit_code, r.stderr, r.stdout[-300:])
        assert "bad.yaml" in lines[0] and path in lines[0] and what in lines[0], lines[0]
        assert "Traceback" not in r.stderr
