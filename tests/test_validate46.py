"""Session 46 (validate46): `chaos validate` (and `chaos run`, which validates first) says every error of a file in
one pass: field errors, references across the spec, and the plan's (placements, targets, spares, components).

newuser46's m16 (a percentage of 250, a `pod2` target in a 2-pod scenario, a `symptom_of` cycle, a training job
running into the spare `pod0/node46`) took 3 rounds of fix-and-rerun: the checks across the spec ran only once every
field was valid, and the placement check (in `build_plan`) only once those passed, and it stopped at its first error.
A check that an earlier error makes meaningless is still skipped (a cycle through a fault that is itself invalid).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

from opsbrain import chaos as lib
from opsbrain.cli import cli

M16 = """\
apiVersion: opsbrain/v1
kind: ChaosScenario
metadata: {name: job-over-spares, description: a job running into the spares}
spec:
  duration: 1800
  topology: {pods: 2, spares: 2}
  workloads:
    - {name: big, kind: training, first_node: 40, nodes: 20}
  faults:
    - {at: 100, kind: node_crash, target: pod0/node41, symptom_of: 1}
    - {at: 100, kind: link_down, target: pod0/node41/l1sw0~pod0/l2plane0/sw01, symptom_of: 0}
    - {at: 100, kind: node_crash, target: pod2/node1}
    - {at: 100, kind: node_crash, selector: {node: 41}, mode: fixed-percent, value: 250}
"""
"""newuser46's /tmp/newuser46/m16-job-over-spares.yaml, as written."""

M16_ERRORS = [
    "spec.faults[3]: mode fixed-percent needs a percentage value in (0, 100], got 250",  # a field
    "spec.faults[0].symptom_of: the faults refer to each other in a cycle",  # across the spec
    "spec.workloads[0]: node pod0/node46 is already used by spares",  # the plan's
    "spec.faults[2].target: no component 'pod2/node1'",
]


def _write(tmp_path: Path, text: str, name: str = "m16") -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    return str(path)


def _file(tmp_path: Path, spec: dict[str, Any], name: str = "mine") -> str:
    doc = {"apiVersion": "opsbrain/v1", "kind": "ChaosScenario",
           "metadata": {"name": name, "description": "an operator's own scenario"},
           "spec": {"duration": 1800, "seed": 1, "topology": {"pods": 1, "spares": 2}, **spec}}
    return _write(tmp_path, yaml.safe_dump(doc), name)


def _paths(errors: list[str]) -> list[str]:
    return [e.split(": ")[1] for e in errors]


def test_four_mistakes_of_four_kinds_in_one_run(tmp_path: Path) -> None:
    f = _write(tmp_path, M16)
    assert lib.validate([f]) == [f"{f}: {e}" for e in M16_ERRORS]  # fields, references, plan


def test_chaos_validate_and_chaos_run_print_all_four_exit_2(tmp_path: Path) -> None:
    f = _write(tmp_path, M16)
    for args in (["chaos", "validate", f], ["chaos", "run", f, "--data-dir", str(tmp_path / "home")],
                 ["chaos", "run", f, "--dry-run", "--data-dir", str(tmp_path / "home")]):
        res = CliRunner().invoke(cli, args)
        assert res.exit_code == 2 and "Traceback" not in res.output, res.output
        lines = res.stderr.splitlines()
        assert sorted(lines) == sorted(f"opsbrain: error: {f}: {e}" for e in M16_ERRORS), args


def test_every_plan_error_not_the_first_only(tmp_path: Path) -> None:
    """Two workloads on spares, two spares_taken wrong, two components wrong, and an expectation: all said."""
    f = _file(tmp_path, {
        "workloads": [{"name": "a", "kind": "training", "first_node": 40, "nodes": 8},
                      {"name": "b", "kind": "training", "first_node": 44, "nodes": 2},
                      {"name": "c", "kind": "training", "first_node": 0, "nodes": 4, "params": {"no_such": 1}}],
        "faults": [{"at": 100, "kind": "node_crash", "target": "pod0/node1"}],
        "initial_state": {"spares_taken": ["pod0/node3", "pod0/node47", "pod0/node47"],
                          "components": [{"id": "pod0/node99", "health": "failed"},
                                         {"id": "pod0/node2", "lanes_down": 1}]},
        "expectations": [{"fault": 0, "component": "pod0/node77"}]})
    assert _paths(lib.validate([f])) == [
        "spec.workloads[0]", "spec.workloads[1]", "spec.workloads[2].params.no_such",
        "spec.initial_state.spares_taken[0]", "spec.initial_state.spares_taken[2]",
        "spec.initial_state.components[0].id", "spec.initial_state.components[1].lanes_down",
        "spec.expectations[0].component"]


def test_references_are_checked_beside_field_errors(tmp_path: Path) -> None:
    """A bad field in one item does not hide a reference error in another: an unknown workload in a probe, a
    trigger's unknown job, an expectation of a fault that does not exist, a fault after the end."""
    f = _file(tmp_path, {
        "workloads": [{"name": "train", "kind": "training", "first_node": 0, "nodes": 4}],
        "steady_state": {"probes": [{"name": "p", "metric": "step_rate", "workload": "trian", "op": ">=",
                                     "value": 1}]},
        "faults": [{"at": -5, "kind": "node_crash", "target": "pod0/node1"},
                   {"at": {"event": "job_down", "workload": "serve"}, "kind": "node_crash", "target": "pod0/node2"},
                   {"at": 9000, "kind": "node_crash", "target": "pod0/node3"}],
        "expectations": [{"fault": 5, "diagnosis": "node_crash"}]})
    assert _paths(lib.validate([f])) == [
        "spec.faults[0].at", "spec.steady_state.probes[0].workload", "spec.expectations[0].fault",
        "spec.faults[1].at.workload", "spec.faults[2].at"]


def test_a_check_an_earlier_error_makes_meaningless_is_skipped(tmp_path: Path) -> None:
    """A cycle through a fault of an unknown kind, a probe of a workload whose kind is misspelt, a target against
    a pod count that is itself wrong: only the first error is said, no guess beside it."""
    f = _file(tmp_path, {
        "topology": {"pods": 1, "spares": 2},
        "workloads": [{"name": "serve", "kind": "inferense", "first_node": 0}],
        "steady_state": {"probes": [{"name": "p", "metric": "tpot_ms", "workload": "serve", "op": "<=",
                                     "value": 90}]},
        "faults": [{"at": {"event": "fault_start", "fault": 1}, "kind": "node_crash", "target": "pod0/node35"},
                   {"at": {"event": "fault_start", "fault": 0}, "kind": "node_crsh", "target": "pod0/node36"}]})
    assert _paths(lib.validate([f])) == ["spec.workloads[0].kind", "spec.faults[1].kind"]
    g = _file(tmp_path, {"topology": {"pods": 0}, "workloads": [{"name": "t", "kind": "training", "nodes": 4}],
                         "faults": [{"at": 10, "kind": "node_crash", "target": "pod3/node1"}]}, name="pods")
    assert _paths(lib.validate([g])) == ["spec.topology.pods"]


def test_a_valid_file_still_validates_plans_and_runs(tmp_path: Path) -> None:
    f = _file(tmp_path, {
        "duration": 900, "workloads": [{"name": "train", "kind": "training", "first_node": 32, "nodes": 14}],
        "steady_state": {"probes": [{"name": "steps", "metric": "step_rate", "workload": "train", "op": ">=",
                                     "of_baseline": 0.5}]},
        "faults": [{"at": 200, "kind": "node_crash", "target": "pod0/node35"}],
        "expectations": [{"fault": 0, "diagnosis": "node_crash", "component": "pod0/node35"}]})
    assert lib.validate([f]) == []
    res = CliRunner().invoke(cli, ["chaos", "validate", f])
    assert res.exit_code == 0 and "1 scenario file valid" in res.output
    run = CliRunner().invoke(cli, ["chaos", "run", f, "--data-dir", str(tmp_path / "home")])
    assert run.exit_code == 0 and "Traceback" not in run.output, run.output


def test_each_check_needs_only_its_own_parts(tmp_path: Path) -> None:
    """A bad spare count stops the placements, not the targets (they need the pod count only); a workload name off
    the pattern is still the name a probe's reference is compared with."""
    f = _file(tmp_path, {
        "topology": {"pods": 2, "spares": 50},
        "workloads": [{"name": "Train", "kind": "training", "first_node": 0, "nodes": 4}],
        "steady_state": {"probes": [{"name": "p", "metric": "step_rate", "workload": "nobody", "op": ">=",
                                     "value": 1}]},
        "faults": [{"at": 100, "kind": "node_crash", "target": "pod5/node3"}]})
    assert _paths(lib.validate([f])) == [
        "spec.topology.spares", "spec.workloads[0].name", "spec.steady_state.probes[0].workload",
        "spec.faults[0].target"]
