"""Session 43 (orch43): a scale-in the policy would refuse at once (the job already scaled in by an earlier crash, a
second node lost: 12 of 14 launch nodes is beyond recovery.training_scale_in_max_share) is not put to a person for
approval. Before, the on-call was paged, the response waited for the approval (1,455 s here) and the scale-in then
failed at once; only then did the ladder go on to wait_for_repair, whose reboot brings the node back. The built-in
scenario spare-returns-during-repair-wait with its third crash left to the reboot (no repair time)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from opsbrain import chaos
from opsbrain.scenario.loader import load_scenario
from opsbrain.scenario.plan import build_plan

SCENARIOS = Path(__file__).parents[1] / "scenarios"


@pytest.fixture(scope="module")
def third_crash(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    data = yaml.safe_load((SCENARIOS / "spare-returns-during-repair-wait.yaml").read_text())
    del data["spec"]["faults"][2]["duration"]  # the reboot brings pod0/node42 back
    data["metadata"]["name"] = "third-crash-rebooted"
    data["spec"]["expectations"] = [e for e in data["spec"]["expectations"] if "report_contains" not in e]
    path = tmp_path_factory.mktemp("orch43") / "third-crash-rebooted.yaml"
    path.write_text(yaml.safe_dump(data))
    sc, p = load_scenario(str(path))
    j = chaos.run(build_plan(sc, str(p)))
    third = next(i for i in j["incidents"] if (i["injected"] or {}).get("component") == "pod0/node42")
    return {"journal": j, "third": third}


def test_no_approval_is_asked_for_a_scale_in_the_policy_refuses(third_crash: dict[str, Any]) -> None:
    third = third_crash["third"]
    acts = third["actions"]
    assert not [a for a in acts if a["action"] == "approval"]  # before: 1,455 s waited for a person
    scale = next(a for a in acts if a["action"] == "scale_instance")
    assert scale["status"] == "failed" and "exceeds the policy's 10%" in scale["detail"]["reason"]
    reboot = next(a for a in acts if a["action"] == "reboot_node" and a["rung"] == "wait_for_repair")
    assert reboot["start_s"] == pytest.approx(scale["end_s"])  # the next rung at once
    assert scale["start_s"] - third["injected"]["at_s"] < 60  # the ladder reached it within a minute of the crash
    assert third["human_steps"] == 0
    assert third["ttr_s"] < 1000  # before: 1,886.5 s (the approval wait, then the reboot and restart)
    assert third_crash["journal"]["verdict"] == "passed"
