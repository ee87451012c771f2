"""A person's steps on an incident count once (tester, session 32): a fault folded into another fault's incident
(``covered_by``) took that incident's human steps as its own, so per-fault sums and means counted them once per
folded fault. Each step is counted with the fault its incident is matched to; a folded fault says so."""

from __future__ import annotations

import copy
import os
from typing import Any

import pytest

from opsbrain.report import build_run_report, render
from opsbrain.report.campaign import build_campaign_report
from tests.test_scoring_impact import _run, _write

L2 = "pod0/l2plane2/sw05"


def link(n: int) -> str:
    return f"pod0/node{n}/l1sw2~{L2}"


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("folded")
    old = os.environ.get("OPSBRAIN_HOME")
    os.environ["OPSBRAIN_HOME"] = str(tmp / "home")
    try:  # four links of one L2 chip dark within half a second: one incident, three faults folded into it
        return _run(_write(tmp, "folded-links", {
            "duration": 3600, "seed": 2, "policy": "manual", "noise": False, "topology": {"pods": 1, "spares": 2},
            "workloads": [{"name": "train", "kind": "training", "first_node": 32, "nodes": 14}],
            "faults": [{"at": 600.0 + 0.125 * k, "kind": "link_down", "target": link(22 + k)} for k in range(4)]}))
    finally:
        if old is None:
            os.environ.pop("OPSBRAIN_HOME", None)
        else:
            os.environ["OPSBRAIN_HOME"] = old


def _faults(j: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for i in j["incidents"] if i["injected"]]


def test_each_human_step_is_counted_once_with_the_incidents_fault(journal: dict[str, Any]) -> None:
    faults = _faults(journal)
    folded = [f for f in faults if f.get("covered_by")]
    assert len(folded) >= 2 and journal["recovery"]["human_steps"] > 0
    assert sum(f["human_steps"] for f in faults) == journal["recovery"]["human_steps"]  # before: 4 x the steps
    owner = next(f for f in faults if f["incident_ids"] == [folded[0]["covered_by"]])
    for f in folded:
        assert f["human_steps"] == 0 and f["human_steps_folded"] == {
            "into": f["covered_by"], "steps": owner["human_steps"], "counted_with": owner["id"]}
    assert journal["summary"]["handled_without_human"] == 0  # a person handled the incident the folded ones are in


def test_the_reports_say_a_folded_faults_steps_are_counted_with_another(journal: dict[str, Any]) -> None:
    f = next(f for f in _faults(journal) if f.get("covered_by"))
    md = render(build_run_report(journal), "md")
    steps = f["human_steps_folded"]["steps"]
    assert (f"- **Human steps:** 0 (folded into {f['covered_by']}: its {steps} step{'s' * (steps != 1)} counted with "
            f"{f['human_steps_folded']['counted_with']})") in md


def test_the_campaigns_mean_human_steps_per_fault_counts_each_step_once(journal: dict[str, Any]) -> None:
    auto = copy.deepcopy(journal) | {"policy": "auto"}
    (row,) = build_campaign_report([auto, journal])["vs_manual"]
    faults = _faults(journal)
    assert row["manual"]["human_steps"] == pytest.approx(journal["recovery"]["human_steps"] / len(faults))
