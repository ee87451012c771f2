"""Simulator parameters: every one has a unit and a source, the docs are generated, overrides are checked."""

from __future__ import annotations

from pathlib import Path

import pytest

from faultlib import paramdoc
from faultlib.params import ParamError, apply_overrides, iter_params
from faultlib.simparams import SimParams

ROWS = iter_params(SimParams)


def test_there_are_parameters_in_every_core_group() -> None:
    groups = {path.split(".")[0] for path, *_ in ROWS}
    assert {"topology", "fabric"} <= groups
    assert len({path for path, *_ in ROWS}) == len(ROWS)  # paths are unique


@pytest.mark.parametrize("path,unit,source", [(r[0], r[2], r[3]) for r in ROWS], ids=[r[0] for r in ROWS])
def test_every_parameter_has_a_unit_and_a_source(path: str, unit: str, source: str) -> None:
    assert unit.strip(), f"{path} has no unit"
    assert source.strip(), f"{path} has no source or reason"


def test_defaults_satisfy_their_own_constraints() -> None:
    # pydantic does not validate defaults; re-validating the dump does.
    defaults = SimParams()
    assert SimParams.model_validate(defaults.model_dump()) == defaults


def test_docs_parameters_md_is_up_to_date(repo_root: Path) -> None:
    doc = repo_root / "docs" / "parameters.md"
    assert doc.read_text(encoding="utf-8") == paramdoc.render(), \
        "docs/parameters.md is stale: run python -m faultlib.paramdoc"


def test_rendered_doc_lists_every_parameter_with_its_unit() -> None:
    text = paramdoc.render()
    for path, _default, unit, _source, _desc in ROWS:
        line = next((ln for ln in text.splitlines() if ln.startswith(f"| `{path}` |")), None)
        assert line is not None, path
        assert f"| {unit} |" in line


def test_paramdoc_check_fails_on_a_stale_file(tmp_path: Path) -> None:
    out = tmp_path / "parameters.md"
    assert paramdoc.main(["--check", "--path", str(out)]) == 1  # missing
    assert paramdoc.main(["--path", str(out)]) == 0
    assert paramdoc.main(["--check", "--path", str(out)]) == 0
    out.write_text(out.read_text(encoding="utf-8").replace("| 48 |", "| 47 |", 1), encoding="utf-8")
    assert paramdoc.main(["--check", "--path", str(out)]) == 1


def test_override_applies_and_leaves_the_original_alone() -> None:
    base = SimParams()
    new = apply_overrides(base, {"fabric.ub_link_gbytes_s": "25", "topology.max_pods": 30})
    assert new.fabric.ub_link_gbytes_s == 25.0 and new.topology.max_pods == 30
    assert base.fabric.ub_link_gbytes_s == 28.0


@pytest.mark.parametrize("path", ["nosuchgroup.x", "fabric.no_such_param", "fabric", "fabric.ub_link_gbytes_s.x"])
def test_unknown_override_is_rejected_with_its_path(path: str) -> None:
    with pytest.raises(ParamError) as err:
        apply_overrides(SimParams(), {path: 1})
    assert err.value.path == path
    assert path in str(err.value)


@pytest.mark.parametrize("path,value", [
    ("fabric.ub_link_gbytes_s", -1),
    ("fabric.inter_node_overhead", 1.5),
    ("topology.nodes_per_pod", 0),
    ("topology.max_pods", "many"),
])
def test_out_of_range_override_is_rejected_with_its_path(path: str, value: object) -> None:
    with pytest.raises(ParamError) as err:
        apply_overrides(SimParams(), {path: value})
    assert err.value.path == path
    assert str(err.value).startswith(f"{path}: ")
