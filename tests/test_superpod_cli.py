"""``opsbrain superpod run``: the built-in scenarios' superpod blocks, JSON output, bad input in one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.scenario.loader import parse_scenario

REPO = Path(__file__).resolve().parents[1]


def _run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return r.exit_code, r.stdout, r.stderr


def test_tenant_scenario_json() -> None:
    code, out, _err = _run("superpod", "run", "tenant-slices", "--seeds", "1", "--tenant-faults", "0,2", "--json",
                           "--no-store")
    assert code == 0
    data = json.loads(out)
    assert [t["random_faults"] for t in data["tenants"]] == [0, 2]
    for t in data["tenants"]:
        assert t["actions_on_b"] == 0 and t["ems_reads_b"] == 0 and t["blast_b"] == 0
    assert data["tenants"][0]["refusals"] >= 1  # the scripted campaign's wrong diagnosis on b was refused


def test_schedule_scenario_text() -> None:
    code, out, _err = _run("superpod", "run", "day-night-switch", "--seeds", "1", "--no-store")
    assert code == 0
    assert "per-node switch p50" in out and "hand-backs on time" in out
    assert "without the injected faults (same seeds): per-node switch p50" in out  # the claim's population
    assert "the faulted node's slot working again p50" in out  # the repair, reported apart


@pytest.mark.parametrize("args, needle", [
    (["superpod", "run", "hbm-uce-training"], "no spec.superpod block"),
    (["superpod", "run", "tenant-slices", "--demand-scale", "x"], "--demand-scale"),
    (["superpod", "run", "tenant-slices", "--tenant-faults", "999"], "--tenant-faults"),
])
def test_bad_input_is_one_line_exit_2(args: list[str], needle: str) -> None:
    code, _out, err = _run(*args)
    assert code == 2
    assert needle in err and len(err.strip().splitlines()) == 1


def test_bad_cron_names_its_path(tmp_path: Path) -> None:
    data = yaml.safe_load((REPO / "scenarios" / "day-night-switch.yaml").read_text())
    data["spec"]["superpod"]["schedule"]["dusk"] = "0 25 * * *"
    with pytest.raises(Exception, match="hour"):
        parse_scenario(data, "x.yaml")
    f = tmp_path / "bad.yaml"
    f.write_text(yaml.safe_dump(data))
    code, _out, err = _run("superpod", "run", str(f))
    assert code == 2 and "spec.superpod.schedule.dusk" in err


def test_a_tenant_campaigns_target_on_tenant_b_is_refused(tmp_path: Path) -> None:
    """The campaign's faults hit tenant a (a wrong diagnosis on b is set with ``diagnosed``); a target on tenant b
    was run as if it were a's (session 25's leftover)."""
    data = yaml.safe_load((REPO / "scenarios" / "tenant-slices.yaml").read_text())
    item = data["spec"]["superpod"]["tenants"]["campaign"][0]
    item["target"] = "pod0/node30" if item["kind"] in ("node_crash", "node_hang") else "pod0/node30/npu1/hbm"
    item.pop("diagnosed", None)
    f = tmp_path / "b.yaml"
    f.write_text(yaml.safe_dump(data))
    code, _out, err = _run("chaos", "validate", str(f))
    assert code == 2 and "is not a component of tenant a" in err and "spec.superpod.tenants.campaign[0]" in err
