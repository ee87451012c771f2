"""docs/replay.md's example trace (JSON and CSV) maps as the page says, and ``--seed`` changes which part of a node
a fault hits, never which node a server lands on (session 35: ``--help`` said the seed chose the node)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from opsbrain.cli import cli

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "replay.md").read_text()


def _replay(tmp_path: Path, name: str, text: str, *args: str) -> dict:
    f = tmp_path / name
    f.write_text(text)
    res = CliRunner().invoke(cli, ["chaos", "replay", str(f), "--json", *args], env={"OPSBRAIN_HOME": str(tmp_path)})
    assert res.exit_code == 0, res.stderr
    return json.loads(res.stdout)


def test_the_documented_json_and_csv_examples_map_to_one_node_crash(tmp_path: Path) -> None:
    (block,) = re.findall(r"^```json\n(.*?)^```", DOC, re.S | re.M)
    header = re.search(r"a header `([^`]+)`", DOC).group(1)  # type: ignore[union-attr]
    rows = [" ".join(r.split()) for r in re.findall(r"the rows\s+`([^`]+)`\s+and\s+`([^`]+)`", DOC)[0]]
    as_json = _replay(tmp_path, "t.json", block, "--time-unit", "days")
    as_csv = _replay(tmp_path, "t.csv", "\n".join([header, *rows]) + "\n", "--time-unit", "h")
    for rep in (as_json, as_csv):
        assert rep["by_kind"] == {"node_crash": 1} and rep["unmapped_total"] == 0
        (fault,) = rep["timeline"]
        assert (fault["at_s"], fault["duration_s"]) == (43200.0, 34560.0)


def test_the_seed_picks_the_part_not_the_node(tmp_path: Path) -> None:
    events = []
    for k, node in enumerate(["s3", "s1", "s2"]):
        for ev, t in (("fault_start", k + 0.1), ("fault_end", k + 0.5)):
            events.append({"node_id": node, "event_time": t, "event_type": ev, "fault_type": {
                "Level": "Hardware Failure", "Class": "GPU", "Desc": "GPU Fallen off the bus"}})
    runs = [_replay(tmp_path, "t.json", json.dumps(events), "--time-unit", "days", "--seed", str(s)) for s in range(4)]
    assert {json.dumps(r["node_map"], sort_keys=True) for r in runs} == {json.dumps(
        {"s1": "pod0/node0", "s2": "pod0/node1", "s3": "pod0/node2"}, sort_keys=True)}
    assert len({tuple(f["target"] for f in r["timeline"]) for r in runs}) > 1
    help_text = " ".join(CliRunner().invoke(cli, ["chaos", "replay", "--help"]).stdout.split())
    assert "--seed" in help_text and "which node a trace server lands on" not in help_text
