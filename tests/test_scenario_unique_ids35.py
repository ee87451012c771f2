"""Ids a run keys its records by are unique in a scenario (session 35): two steady-state probes of one name shared
one baseline, one streak and one "off s" in the monitor (the second probe's readings were judged against the
first's baseline), and two starting states of one component applied in file order, the later silently winning."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from opsbrain.cli import cli

LINK = "pod0/node36/l1sw2~pod0/l2plane2/sw05"
BASE: dict[str, Any] = {
    "apiVersion": "opsbrain/v1", "kind": "ChaosScenario", "metadata": {"name": "ids", "description": "ids"},
    "spec": {"duration": 1800, "seed": 1, "topology": {"pods": 1, "spares": 2},
             "workloads": [{"name": "serve", "kind": "inference", "first_node": 0},
                           {"name": "train", "kind": "training", "first_node": 32, "nodes": 14}],
             "steady_state": {"probes": [
                 {"name": "decode", "metric": "decode_tokens_per_npu", "workload": "serve", "op": ">=",
                  "of_baseline": 0.95},
                 {"name": "tpot", "metric": "tpot_ms", "workload": "serve", "op": "<=", "value": 50}]},
             "initial_state": {"components": [{"id": LINK, "rx_dbm": -8.0}, {"id": "pod0/node37/npu1",
                                                                             "health": "degraded"}]},
             "faults": [{"at": 300, "kind": "node_crash", "target": "pod0/node38"}]}}


def _validate(tmp_path: Path, doc: dict[str, Any]) -> tuple[int, str]:
    f = tmp_path / "s.yaml"
    f.write_text(yaml.safe_dump(doc))
    res = CliRunner().invoke(cli, ["chaos", "validate", str(f)], env={"OPSBRAIN_HOME": str(tmp_path)})
    return res.exit_code, res.stderr


def test_distinct_ids_validate(tmp_path: Path) -> None:
    assert _validate(tmp_path, BASE) == (0, "")


def _probe_twice(doc: dict[str, Any]) -> None:
    doc["spec"]["steady_state"]["probes"][1]["name"] = "decode"


def _component_twice(doc: dict[str, Any]) -> None:
    doc["spec"]["initial_state"]["components"][1] = {"id": LINK, "rx_dbm": -3.0}


@pytest.mark.parametrize(("change", "path", "text"), [
    (_probe_twice, "spec.steady_state.probes[1].name", "'decode' is also the name of probes[0]"),
    (_component_twice, "spec.initial_state.components[1].id", f"'{LINK}' is also the id of components[0]"),
], ids=["probe", "component"])
def test_a_repeated_id_is_one_line_exit_2(tmp_path: Path, change: Any, path: str, text: str) -> None:
    doc = copy.deepcopy(BASE)
    change(doc)
    code, err = _validate(tmp_path, doc)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    assert lines[0].startswith(f"opsbrain: error: {tmp_path / 's.yaml'}: {path}: "), lines[0]
    assert text in lines[0], lines[0]
