"""A fault injected too close to the end of the run to be detected is ``censored``, not missed (helper AD, D9): a
node crash 0.1 s before the end (the detector holds every line 3 s), an optical decay whose Rx trend could not
reach its alarm horizon before the end. Censored faults are left out of accuracy and counted apart."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from opsbrain import chaos
from opsbrain.campaign.spec import CampaignSpec
from opsbrain.campaign.summary import seed_record, summarize
from opsbrain.cli import cli
from opsbrain.report.campaign import build_campaign_report
from opsbrain.scenario.loader import load_scenario
from opsbrain.scenario.plan import build_plan
from opsbrain.verdict import incident_outcome


def _write(tmp_path: Path, duration: float, faults: list[dict[str, Any]]) -> Path:
    spec = {"duration": duration, "seed": 1, "noise": False, "topology": {"pods": 1, "spares": 2},
            "workloads": [{"name": "train", "kind": "training", "first_node": 0, "nodes": 46}], "faults": faults}
    f = tmp_path / "late.yaml"
    f.write_text(yaml.safe_dump({"apiVersion": "opsbrain/v1", "kind": "ChaosScenario",
                                 "metadata": {"name": "late", "description": "censoring test"}, "spec": spec}))
    return f


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPSBRAIN_HOME", str(tmp_path / "home"))


def test_a_crash_in_the_runs_last_tenth_of_a_second_is_censored_not_missed(tmp_path: Path) -> None:
    path = _write(tmp_path, 3600, [{"at": 600, "kind": "node_crash", "target": "pod0/node46"},
                                   {"at": 3599.9, "kind": "node_crash", "target": "pod0/node5"}])
    sc, p = load_scenario(str(path))
    j = chaos.run(build_plan(sc, str(p)))
    early, late = (i for i in j["incidents"] if i["injected"])
    assert early["detection"] == "detected" and late["detection"] == "censored"  # was scored missed
    assert "0.1 s before the run's end" in late["detection_note"] and "3 s watermark hold" in late["detection_note"]
    assert j["summary"]["censored"] == 1 and j["summary"]["missed"] == 0
    assert incident_outcome(late)[0].startswith("censored")
    res = CliRunner().invoke(cli, ["chaos", "run", str(path), "--data-dir", str(tmp_path / "d")])
    assert "censored (not counted as missed): node_crash on pod0/node5" in res.output
    assert "not detected" not in res.output
    rec = seed_record(j)
    diag = summarize(CampaignSpec(pods=1, days=1, seeds=1), [rec])["by_policy"]["auto"]["diagnosis"]
    assert diag["faults"] == 1 and diag["censored"] == 1 and diag["accuracy"] == 1.0  # was 0.5
    acc = build_campaign_report([j])["accuracy"]
    assert acc["faults"] == 1 and acc["censored"] == 1 and acc["detected_rate"] == 1.0


def test_an_optical_decay_the_trend_cannot_flag_before_the_end_is_censored(tmp_path: Path) -> None:
    """Its Rx alarm crossing is some 12 h after the onset and the trend alarms 2 h before it: one begun 4 h before
    the end could not be detected; one begun 17 h before it was (at ~10.75 h)."""
    path = _write(tmp_path, 64800, [
        {"at": 600, "kind": "optical_degradation", "target": "pod0/node8/l1sw0~pod0/l2plane0/sw01"},
        {"at": 50000, "kind": "optical_degradation", "target": "pod0/node9/l1sw0~pod0/l2plane0/sw02"}])
    sc, p = load_scenario(str(path))
    j = chaos.run(build_plan(sc, str(p)))
    early, late = (i for i in j["incidents"] if i["injected"])
    assert early["detection"] == "detected" and late["detection"] == "censored"
    assert "alarm horizon" in late["detection_note"]
    horizon = float(late["detection_note"].split("detected is ")[1].split(" s after")[0])
    assert horizon <= early["ttd_s"] and horizon > j["duration_s"] - late["injected"]["at_s"]  # a lower bound


def test_a_silent_corruption_whose_nan_comes_after_the_end_is_censored(tmp_path: Path) -> None:
    """Silent data corruption shows nothing (no code, no metric) until the NaN its model waits ``detect_delay_s``
    for: one whose NaN would come a day after the onset cannot be detected in a 1 h run (it was scored missed);
    one whose NaN comes within the run is detected."""
    path = _write(tmp_path, 3600, [
        {"at": 600, "kind": "silent_data_corruption", "target": "pod0/node5/npu2", "params": {"detect_delay_s": 60}},
        {"at": 900, "kind": "silent_data_corruption", "target": "pod0/node7/npu1",
         "params": {"detect_delay_s": 86400}}])
    sc, p = load_scenario(str(path))
    j = chaos.run(build_plan(sc, str(p)))
    early, late = (i for i in j["incidents"] if i["injected"])
    assert early["detection"] == "detected" and late["detection"] == "censored"  # was missed
    assert "2700.0 s before the run's end" in late["detection_note"]
    assert "86403.0 s after its onset" in late["detection_note"], late["detection_note"]
    assert j["summary"]["censored"] == 1 and j["summary"]["missed"] == 0


def test_an_hbm_overtemperature_that_stays_cool_until_the_end_is_censored(tmp_path: Path) -> None:
    """An HBM over-temperature shows through its stack's temperature, which ramps from 70 C: its first line at the
    95 C alarm, the sweeps' warning at 85 C. A day-long ramp begun 1 h before the end reaches neither (71 C at the
    end): censored, not missed. The default 5-minute ramp is detected."""
    path = _write(tmp_path, 3600, [
        {"at": 600, "kind": "hbm_overtemp", "target": "pod0/node5/npu2/hbm"},
        {"at": 300, "kind": "hbm_overtemp", "target": "pod0/node7/npu1/hbm", "params": {"ramp_s": 86400}}])
    sc, p = load_scenario(str(path))
    j = chaos.run(build_plan(sc, str(p)))
    faults = {i["injected"]["component"]: i for i in j["incidents"] if i["injected"]}
    assert faults["pod0/node5/npu2/hbm"]["detection"] == "detected"
    late = faults["pod0/node7/npu1/hbm"]
    assert late["detection"] == "censored", late["detection"]  # was missed
    # 15 C of the 35 C ramp to the sweeps' 85 C warning: 15/35 of a day
    assert "37028.6 s after its onset" in late["detection_note"] and "85" in late["detection_note"], \
        late["detection_note"]
    assert j["summary"]["censored"] == 1 and j["summary"]["missed"] == 0
