"""A link_down first diagnosed below the confidence bar, but sure of the part (the same-part rule runs the link's
runbook), and firmed up seconds later, is responded to once: one isolation, one replacement ticket. Before (tester
T, replay of one link_down): the firmer diagnosis started a second response (i0001.2) that isolated the link again
and opened a second ticket, as if the first response had only paged a person."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from opsbrain.cli import cli


@pytest.mark.parametrize("start", [600, 0])
def test_one_link_down_is_isolated_and_ticketed_once(tmp_path: Path, runner: Any, start: int) -> None:
    trace = tmp_path / "t.csv"
    trace.write_text(f"host,timestamp,type,description\nn2,{start},start,link down\nn2,{start + 5400},end,link down\n")
    res = runner.invoke(cli, ["chaos", "replay", str(trace), "--time-unit", "s", "--run", "--json",
                              "--data-dir", str(tmp_path / "home")])
    assert res.exit_code in (0, 1), res.output
    j = json.loads(res.stdout)["journal"]
    faults = [i for i in j["incidents"] if i["injected"]]
    assert len(faults) == 1
    acts = faults[0]["actions"]
    assert [a["action"] for a in acts if a["status"] == "succeeded"].count("isolate_link") == 1, acts
    assert len(j["recovery"]["open_tickets"]) == 1, j["recovery"]["open_tickets"]
    # (a first guess of another class below the bar, dirty_connector on the same sure part, is a response of its own:
    # its drain is its own holder's and ends without putting traffic back on the isolated link)
    assert [a["action"] for a in acts].count("reroute") == 1, acts
