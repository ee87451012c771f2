"""The opsbrain CLI: topology counts, bad input -> exit 2 with one line, GraphML export, python -m."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import networkx as nx
import pytest
from click.testing import CliRunner, Result

from opsbrain.cli import cli

CM384 = {"pods": 1, "nodes": 48, "npus": 384, "dies": 768, "cpus": 192, "l1_switches": 336,
         "l2_switches": 112, "l1_l2_links": 5376, "racks": 16}


def _json(result: Result) -> dict:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)  # stdout must be JSON and nothing else


def _assert_one_line_error(result: Result, *needles: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("opsbrain: error: ")
    assert "Traceback" not in result.output
    for needle in needles:
        assert needle in lines[0]


def test_topology_json_counts_match_cloudmatrix384(runner: CliRunner) -> None:
    data = _json(runner.invoke(cli, ["topology", "--json"]))
    assert {k: data[k] for k in CM384} == CM384
    bw = data["bandwidth"]
    assert bw["npu_ub_gbytes_s"] == pytest.approx(392.0)
    assert bw["npu_rdma_gbits_s"] == pytest.approx(400.0)
    assert bw["node_vpc_gbits_s"] == pytest.approx(400.0)


def test_topology_param_override_changes_bandwidth(runner: CliRunner) -> None:
    data = _json(runner.invoke(cli, ["topology", "--json", "--param", "fabric.die_link_gbytes_s=14"]))
    assert data["bandwidth"]["npu_ub_gbytes_s"] == pytest.approx(196.0)


def test_topology_27_pods_is_the_10k_card_cluster(runner: CliRunner) -> None:
    data = _json(runner.invoke(cli, ["topology", "--pods", "27", "--json"]))
    assert data["npus"] == 10_368
    assert data["nodes"] == 27 * 48
    assert data["l1_l2_links"] == 27 * 5376


def test_topology_table_on_terminal(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["topology"])
    assert result.exit_code == 0, result.output
    assert "5,376" in result.stdout and "392 GB/s" in result.stdout


@pytest.mark.parametrize("pods", ["0", "-3", "65"])
def test_bad_pod_count_is_one_line_exit_2(runner: CliRunner, pods: str) -> None:
    _assert_one_line_error(runner.invoke(cli, ["topology", "--pods", pods, "--json"]), "--pods", pods)


def test_negative_bandwidth_is_one_line_exit_2(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["topology", "--param", "fabric.ub_link_gbytes_s=-1"])
    _assert_one_line_error(result, "fabric.ub_link_gbytes_s", "greater than 0")


@pytest.mark.parametrize("args", [
    ["topology", "--param", "fabric.no_such=1"],
    ["topology", "--param", "novalue"],
    ["topology", "--pods", "many"],
    ["topology", "--no-such-option"],
    ["no-such-command"],
])
def test_bad_input_and_usage_errors_exit_2(runner: CliRunner, args: list[str]) -> None:
    _assert_one_line_error(runner.invoke(cli, args))


def test_export_graphml_is_readable_by_networkx(runner: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "pod.graphml"
    data = _json(runner.invoke(cli, ["topology", "--json", "--export-graphml", str(out)]))
    assert data["graphml"] == str(out)
    g = nx.read_graphml(out)
    kinds = nx.get_node_attributes(g, "kind")
    assert sum(1 for k in kinds.values() if k == "npu") == 384
    assert sum(1 for _, _, k in g.edges(data="kind") if k == "ub_optical") == 5376
    assert [p.name for p in tmp_path.iterdir()] == ["pod.graphml"]  # no temporary file left behind


def test_export_graphml_into_missing_directory_is_exit_2(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(cli, ["topology", "--export-graphml", str(tmp_path / "nope" / "g.graphml")])
    _assert_one_line_error(result, "does not exist")


def test_params_json_lists_every_parameter_with_overrides(runner: CliRunner) -> None:
    data = _json(runner.invoke(cli, ["params", "--json", "--param", "fabric.ub_link_gbytes_s=25"]))
    rows = {r["path"]: r for r in data["parameters"]}
    assert rows["topology.nodes_per_pod"]["value"] == 48
    assert rows["fabric.ub_link_gbytes_s"]["value"] == 25
    assert rows["fabric.ub_link_gbytes_s"]["default"] == 28
    assert all(r["unit"] for r in rows.values())


def test_version(runner: CliRunner) -> None:
    result = runner.invoke(cli, ["--version"])
    assert result.exit_code == 0
    assert result.stdout.startswith("opsbrain ")


def test_python_dash_m_opsbrain(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "opsbrain", "topology", "--json"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["npus"] == 384


def test_readme_set_up_is_two_commands_that_ci_runs(repo_root: Path) -> None:
    readme = (repo_root / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    blocks = [b.split("```", 1)[0].strip() for b in section.split("```sh\n")[1:]]
    assert len(blocks) == 2 and all("\n" not in b for b in blocks), blocks
    ci = (repo_root / ".ci" / "run").read_text(encoding="utf-8")
    for command in blocks:
        assert command in ci, command
