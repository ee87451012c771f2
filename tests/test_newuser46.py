"""Session 46 (newuser46): a new operator's own scenarios and mistakes.

- An expectation naming a component that does not exist (`component: pod0/node99`) was accepted by `chaos
  validate`; the run could only fail it ("localized to pod0/node35, expected pod0/node99").
- Two of the checks across the spec said `spec:` instead of their item's path: a fault given twice
  (`spec: faults[1] repeats faults[0] ...`), and a trigger's workload was put at `spec.faults[0].at`.
- A fault at t=0 on an inference service was scored `ttr 0.0`, "recovered before detection", with none of the
  service's loss (all of it `unattributed`), while the same fault at t=1 cost 17 s and 704,536 tokens: the
  service had no reading before the fault and no model value to measure the dip against.
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

TRAIN = [{"name": "train", "kind": "training", "first_node": 32, "nodes": 14}]
SERVE = [{"name": "serve", "kind": "inference", "first_node": 0}]
LINK = "pod0/node3/l1sw0~pod0/l2plane0/sw01"


def _file(tmp_path: Path, spec: dict[str, Any], name: str = "mine") -> str:
    doc = {"apiVersion": "opsbrain/v1", "kind": "ChaosScenario",
           "metadata": {"name": name, "description": "an operator's own scenario"},
           "spec": {"duration": 1800, "seed": 1, "topology": {"pods": 1, "spares": 2}, "workloads": TRAIN,
                    **spec}}
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(doc))
    return str(path)


def test_an_expectation_on_a_component_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    f = _file(tmp_path, {"faults": [{"at": 300, "kind": "node_crash", "target": "pod0/node35"}],
                         "expectations": [{"fault": 0, "diagnosis": "node_crash", "component": "pod0/node35"},
                                          {"fault": 0, "component": "pod0/node99"}]})
    assert lib.validate([f]) == [f"{f}: spec.expectations[1].component: no component 'pod0/node99'"]
    res = CliRunner().invoke(cli, ["chaos", "run", f, "--dry-run", "--data-dir", str(tmp_path / "home")])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert res.stderr.count("opsbrain: error: ") == 1


def test_an_expectation_on_a_link_or_an_hbm_stack_is_valid(tmp_path: Path) -> None:
    """The control: ids of every level (a link, an HBM stack, a pod's L2 chip) are components."""
    f = _file(tmp_path, {"faults": [{"at": 300, "kind": "link_down", "target": LINK}],
                         "expectations": [{"fault": 0, "component": LINK},
                                          {"fault": 0, "component": "pod0/node35/npu3/hbm"},
                                          {"fault": 0, "component": "pod0/l2plane2/sw05"}]})
    assert lib.validate([f]) == []


def test_a_fault_given_twice_names_its_item(tmp_path: Path) -> None:
    f = _file(tmp_path, {"faults": [{"at": 300, "kind": "node_crash", "target": "pod0/node35"},
                                    {"at": 300, "kind": "node_crash", "target": "pod0/node35"}]})
    (line,) = lib.validate([f])
    assert line.startswith(f"{f}: spec.faults[1]: repeats faults[0] (the same kind, target and time)")


def test_a_triggers_unknown_workload_names_its_field_and_the_workloads(tmp_path: Path) -> None:
    f = _file(tmp_path, {"faults": [{"at": {"event": "checkpoint_write_start", "workload": "trian"},
                                     "kind": "node_crash", "target": "pod0/node35"}]})
    assert lib.validate([f]) == [f"{f}: spec.faults[0].at.workload: 'trian' is not a training workload of this "
                                 "scenario (training workloads: train)"]


def _run(tmp_path: Path, at: float) -> dict[str, Any]:
    f = _file(tmp_path, {"workloads": SERVE, "faults": [{"at": at, "kind": "link_down", "target": LINK}]},
              name=f"link-at-{at:g}")
    res = CliRunner().invoke(cli, ["chaos", "run", f, "--json"])  # the session's data home: its model cached
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


@pytest.mark.parametrize("at", [0.0])
def test_an_inference_fault_at_time_zero_is_scored_as_at_one_second(tmp_path: Path, at: float) -> None:
    """The link's prefill instance is out for 17 s either way; at t=0 the scorer measures the dip against the
    service's fault-free rate from its model (its demand, below its fault-free capacity), as its loss accounting
    does, instead of finding no pre-fault rate and calling the fault never felt."""
    zero, one = _run(tmp_path, at), _run(tmp_path, 1.0)
    (f0,), (f1,) = ([i for i in j["incidents"] if i.get("injected")] for j in (zero, one))
    assert f1["ttr_s"] > 0 and f1["impact"]["serve"]["lost_tokens"] > 0  # the control
    assert f0["recovery"] == "after_detection"
    assert f0["ttr_s"] == pytest.approx(f1["ttr_s"])
    assert f0["impact"]["serve"] == pytest.approx(f1["impact"]["serve"])  # lost tokens, SLO s, instance-s down
    (w,) = zero["workloads"]
    assert w["unattributed"]["lost_tokens"] == pytest.approx(0.0, abs=1e-6)
