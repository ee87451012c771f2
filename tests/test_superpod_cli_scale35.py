"""``superpod run --demand-scale`` with a scale whose peak layout does not fit the elastic block's pods is refused
naming the option (session 35: docs/superpod-ops.md's own example ``0.8,1,1.2`` on ``elastic-decode-autoscale``
ended in ``FILE: spec.superpod: cannot run the block: no pod has 20 free nodes``, blaming the scenario)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.ops import scenario_run


def test_a_demand_scale_too_large_for_the_pods_is_one_line_naming_the_option(tmp_path: Path) -> None:
    res = CliRunner().invoke(cli, ["superpod", "run", "elastic-decode-autoscale", "--no-store", "--seeds", "1",
                                   "--demand-scale", "1.2"], env={"OPSBRAIN_HOME": str(tmp_path)})
    lines = res.stderr.strip().splitlines()
    assert res.exit_code == 2 and len(lines) == 1, res.stderr
    assert lines[0].startswith("opsbrain: error: --demand-scale: 1.2: the static-peak layout"), lines[0]
    assert "does not fit" in lines[0] and "spec.superpod" not in lines[0]


def test_every_scale_is_validated_before_any_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A scale that does not fit is refused before the earlier scales run (session 35: ``1,1.2`` ran the whole of
    scale 1 first)."""
    ran: list[float] = []

    def recorded(b: object, seeds: list[int], demand_scale: float = 1.0) -> dict[str, object]:
        ran.append(demand_scale)
        return {"demand_scale": demand_scale}

    monkeypatch.setattr(scenario_run, "run_elastic_block", recorded)
    res = CliRunner().invoke(cli, ["superpod", "run", "elastic-decode-autoscale", "--no-store", "--seeds", "2",
                                   "--demand-scale", "0.8,1,1.2"], env={"OPSBRAIN_HOME": str(tmp_path)})
    lines = res.stderr.strip().splitlines()
    assert res.exit_code == 2 and len(lines) == 1, res.stderr
    assert lines[0].startswith("opsbrain: error: --demand-scale: 1.2: the static-peak layout"), lines[0]
    assert ran == []
