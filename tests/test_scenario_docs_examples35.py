"""Every YAML example in docs/scenarios.md is a valid scenario (session 35: a new user writes theirs from them),
and a share guard's ``max`` is a share (``isolated_node_share: 25`` was accepted and could never trip)."""

from __future__ import annotations

import copy
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from opsbrain.cli import cli

ROOT = Path(__file__).resolve().parents[1]
BLOCKS = re.findall(r"^```yaml\n(.*?)^```", (ROOT / "docs" / "scenarios.md").read_text(), re.S | re.M)


def _validate(tmp_path: Path, text: str) -> tuple[int, str]:
    f = tmp_path / "s.yaml"
    f.write_text(text)
    res = CliRunner().invoke(cli, ["chaos", "validate", str(f)], env={"OPSBRAIN_HOME": str(tmp_path)})
    return res.exit_code, res.stderr


def test_the_doc_has_examples_with_both_workload_kinds_and_probes() -> None:
    docs = [yaml.safe_load(b) for b in BLOCKS]
    kinds = {w["kind"] for d in docs for w in d["spec"].get("workloads", [])}
    assert len(docs) >= 2 and kinds == {"training", "inference"}
    assert any(d["spec"].get("steady_state", {}).get("probes") for d in docs)


@pytest.mark.parametrize("k", range(len(BLOCKS)))
def test_each_example_validates(tmp_path: Path, k: int) -> None:
    assert _validate(tmp_path, BLOCKS[k]) == (0, "")


@pytest.mark.parametrize(("kind", "cap", "ok"), [("isolated_node_share", 25, False), ("isolated_npu_share", 1.5, False),
                                                 ("isolated_node_share", 1, True), ("slo_breach_s", 7200, True)])
def test_a_share_guard_takes_a_share(tmp_path: Path, kind: str, cap: float, ok: bool) -> None:
    doc = yaml.safe_load(BLOCKS[-1])
    doc = copy.deepcopy(doc)
    doc["spec"]["guards"] = [{"kind": kind, "max": cap}]
    code, err = _validate(tmp_path, yaml.safe_dump(doc))
    if ok:
        assert (code, err) == (0, "")
    else:
        assert code == 2 and len(err.strip().splitlines()) == 1 and "spec.guards[0]" in err and "0..1" in err, err
