"""A scenario error found by a check across the spec (names, references) names the item it is about, as a field
error does: ``FILE: spec.expectations[0].fault: ...``, not ``FILE: spec: ...``; and a wrong value of a field that
takes a fault kind or 'none' is one line, not one per member of the union (session 33, helper CC)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from opsbrain.cli import cli

BASE: dict[str, Any] = {
    "apiVersion": "opsbrain/v1", "kind": "ChaosScenario", "metadata": {"name": "paths", "description": "paths"},
    "spec": {"duration": 1800, "seed": 1, "topology": {"pods": 1, "spares": 2},
             "workloads": [{"name": "train", "kind": "training", "first_node": 32, "nodes": 14}],
             "faults": [{"at": 300, "kind": "node_crash", "target": "pod0/node38"}]}}


def _with(**spec: Any) -> dict[str, Any]:
    d = copy.deepcopy(BASE)
    d["spec"].update(spec)
    return d


CASES = [
    (_with(workloads=[*BASE["spec"]["workloads"], {"name": "train", "kind": "inference", "first_node": 0}]),
     "spec.workloads[1].name", "'train' is also the name of workloads[0]"),
    (_with(expectations=[{"fault": 0, "diagnosis": "node_crash"}, {"fault": 99, "diagnosis": "node_crash"}]),
     "spec.expectations[1].fault", "faults[99] does not exist"),
    (_with(expectations=[{"degraded_operation": {"workload": "serve", "max_down_s": 60}}]),
     "spec.expectations[0].degraded_operation.workload", "unknown workload 'serve'"),
    (_with(steady_state={"probes": [{"name": "r", "metric": "step_rate", "workload": "trian", "op": ">=",
                                     "of_baseline": 0.9}]}),
     "spec.steady_state.probes[0].workload", "unknown workload 'trian'"),
    (_with(steady_state={"probes": [{"name": "t", "metric": "tpot_ms", "workload": "train", "op": "<=",
                                     "value": 50}]}),
     "spec.steady_state.probes[0].workload", "tpot_ms is a metric of an inference workload"),
    (_with(expectations=[{"fault": 0, "diagnosis": "node_crashh"}]),
     "spec.expectations[0].diagnosis", "'node_crashh'"),
]


@pytest.mark.parametrize(("doc", "path", "text"), CASES, ids=[c[1] + ":" + c[2][:20] for c in CASES])
def test_a_cross_check_error_names_its_item(tmp_path: Path, doc: dict[str, Any], path: str, text: str) -> None:
    f = tmp_path / "s.yaml"
    f.write_text(yaml.safe_dump(doc))
    res = CliRunner().invoke(cli, ["chaos", "validate", str(f)], env={"OPSBRAIN_HOME": str(tmp_path)})
    assert res.exit_code == 2 and "Traceback" not in res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith(f"opsbrain: error: {f}: {path}: "), lines[0]
    assert text in lines[0], lines[0]


@pytest.mark.parametrize("cause", ["panic\nEvent id=0x80e01801, assertion=occur", "panic\r", "nul \x00 byte",
                                   "tab\there"])
def test_a_panic_line_is_one_line_of_text(tmp_path: Path, cause: str) -> None:
    """node_crash's ``cause`` is printed as the kernel's panic line: a line break in it printed a second log line
    that the ingestion read as a signal of its own (an HBM UCE device event beside the crash: a forged symptom)."""
    doc = copy.deepcopy(BASE)
    doc["spec"]["faults"][0]["params"] = {"cause": cause}
    f = tmp_path / "s.yaml"
    f.write_text(yaml.safe_dump(doc))
    res = CliRunner().invoke(cli, ["chaos", "validate", str(f)], env={"OPSBRAIN_HOME": str(tmp_path)})
    assert res.exit_code == 2 and "Traceback" not in res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "spec.faults[0].params.cause: " in lines[0], lines
    assert "one line of printable text" in lines[0], lines[0]


def test_a_plain_panic_line_is_kept(tmp_path: Path) -> None:
    doc = copy.deepcopy(BASE)
    doc["spec"]["faults"][0]["params"] = {"cause": "Kernel panic - not syncing: Oops: ünïcode is fine"}
    f = tmp_path / "s.yaml"
    f.write_text(yaml.safe_dump(doc, allow_unicode=True))
    res = CliRunner().invoke(cli, ["chaos", "validate", str(f)], env={"OPSBRAIN_HOME": str(tmp_path)})
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize(("faults", "path", "text"), [
    ([{"at": 100, "kind": "node_crash", "target": "pod0/node38", "symptom_of": 0}],
     "spec.faults[0].symptom_of", "(there is no other fault), got 0: itself"),
    ([{"at": {"event": "fault_start", "fault": 0}, "kind": "node_crash", "target": "pod0/node38"}],
     "spec.faults[0].at.fault", "(there is no other fault), got 0: itself"),
    ([{"at": 100, "kind": "node_crash", "target": "pod0/node38"},
      {"at": 200, "kind": "node_crash", "target": "pod0/node39", "symptom_of": 5}],
     "spec.faults[1].symptom_of", "(0..1 other than 1), got 5: faults[5], which does not exist"),
])
def test_a_reference_to_another_fault_says_what_it_got(tmp_path: Path, faults: list[dict[str, Any]], path: str,
                                                       text: str) -> None:
    """It said 'must be the index of another fault (0..0)' for a fault naming itself in a one-fault scenario."""
    f = tmp_path / "s.yaml"
    f.write_text(yaml.safe_dump(_with(faults=faults)))
    res = CliRunner().invoke(cli, ["chaos", "validate", str(f)], env={"OPSBRAIN_HOME": str(tmp_path)})
    lines = res.stderr.strip().splitlines()
    assert res.exit_code == 2 and len(lines) == 1 and f": {path}: " in lines[0] and text in lines[0], lines


def test_an_unknown_random_profile_is_refused_at_its_path(tmp_path: Path) -> None:
    """It said 'FILE: profile: unknown profile ...', a path that is not in the file."""
    f = tmp_path / "s.yaml"
    f.write_text(yaml.safe_dump(_with(random={"profile": "llama4"})))
    res = CliRunner().invoke(cli, ["chaos", "validate", str(f)], env={"OPSBRAIN_HOME": str(tmp_path)})
    lines = res.stderr.strip().splitlines()
    assert res.exit_code == 2 and len(lines) == 1, lines
    assert f"{f}: spec.random.profile: unknown profile 'llama4' (known: llama3, meta_rsc1)" in lines[0], lines


@pytest.mark.parametrize("kind,target", [("hbm_uce", "pod0/node38/npu0/hbm"), ("dirty_connector", LINK := (
    "pod0/node36/l1sw2~pod0/l2plane2/sw05")), ("optical_degradation", LINK), ("collective_timeout_sw", "pod0/node38"),
    ("silent_data_corruption", "pod0/node38/npu1")])
def test_a_duration_the_kinds_model_ignores_is_refused(tmp_path: Path, kind: str, target: str) -> None:
    """A fault's ``duration`` is when it heals (faultlib.injection.replay.DURATION_KINDS) or its part's repair time
    (REPAIR_KINDS); the other kinds' models never read it: a dirty connector given 'duration: 600' flapped on to
    the end of the run, silently (session 33, helper CC)."""
    f = tmp_path / "s.yaml"
    f.write_text(yaml.safe_dump(_with(faults=[{"at": 100, "kind": kind, "target": target, "duration": 600}])))
    res = CliRunner().invoke(cli, ["chaos", "validate", str(f)], env={"OPSBRAIN_HOME": str(tmp_path)})
    lines = res.stderr.strip().splitlines()
    assert res.exit_code == 2 and len(lines) == 1, lines
    assert f": spec.faults[0].duration: {kind} takes no duration" in lines[0], lines


@pytest.mark.parametrize("kind,target", [("link_flap", "pod0/node36/l1sw2~pod0/l2plane2/sw05"),
                                         ("node_crash", "pod0/node38")])
def test_a_duration_is_kept_where_the_model_reads_it(tmp_path: Path, kind: str, target: str) -> None:
    f = tmp_path / "s.yaml"
    f.write_text(yaml.safe_dump(_with(faults=[{"at": 100, "kind": kind, "target": target, "duration": 600}])))
    res = CliRunner().invoke(cli, ["chaos", "validate", str(f)], env={"OPSBRAIN_HOME": str(tmp_path)})
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize(("fault", "extra", "path", "hint"), [
    ({"at": 300, "kind": "node_crash", "tagret": "pod0/node38"}, {}, "spec.faults[0].tagret", "'target'"),
    ({"at": 300, "kind": "link_flap", "target": "pod0/node36/l1sw2~pod0/l2plane2/sw05", "params": {"flapz": 3}}, {},
     "spec.faults[0].params.flapz", "'flaps'"),
    ({"at": 300, "kind": "node_crash", "target": "pod0/node38"}, {"expectatons": []}, "spec.expectatons",
     "'expectations'"),
    ({"at": {"event": "job_down", "afer_s": 5}, "kind": "node_crash", "target": "pod0/node38"}, {},
     "spec.faults[0].at.afer_s", "'after_s'"),
])
def test_an_unknown_field_names_the_field_it_is_probably(tmp_path: Path, fault: dict[str, Any],
                                                         extra: dict[str, Any], path: str, hint: str) -> None:
    """A typo in a key said only 'unknown field'; the closest field of that place in the schema is named (the kind's
    own params for a fault's params: link_down has no 'flaps')."""
    f = tmp_path / "s.yaml"
    f.write_text(yaml.safe_dump(_with(faults=[fault], **extra)))
    res = CliRunner().invoke(cli, ["chaos", "validate", str(f)], env={"OPSBRAIN_HOME": str(tmp_path)})
    lines = res.stderr.strip().splitlines()
    assert res.exit_code == 2 and len(lines) == 1, lines
    assert f": {path}: unknown field (did you mean {hint}?)" in lines[0], lines


def test_no_hint_for_a_field_like_no_other(tmp_path: Path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text(yaml.safe_dump(_with(faults=[{"at": 300, "kind": "link_down", "target": "pod0/node38",
                                               "params": {"flaps": 3}}])))
    res = CliRunner().invoke(cli, ["chaos", "validate", str(f)], env={"OPSBRAIN_HOME": str(tmp_path)})
    assert "spec.faults[0].params.flaps: unknown field" in res.stderr and "did you mean" not in res.stderr


def test_a_hint_inside_a_union_member(tmp_path: Path) -> None:
    f = tmp_path / "s.yaml"
    f.write_text(yaml.safe_dump(_with(noise={"scael": 2})))
    res = CliRunner().invoke(cli, ["chaos", "validate", str(f)], env={"OPSBRAIN_HOME": str(tmp_path)})
    assert "spec.noise.scael: unknown field (did you mean 'scale'?)" in res.stderr, res.stderr
