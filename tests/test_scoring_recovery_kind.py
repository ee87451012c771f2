"""Recoveries before detection are no recoveries by the response (helper AD, D5 and D6): a fault whose workloads were
back before anything detected it (it healed by itself, or needed no action) is marked ``before_detection``, counted
apart, and left out of the headline median ttr and of the ttr distributions that are compared to Huawei's figures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from opsbrain import chaos
from opsbrain.campaign.spec import CampaignSpec
from opsbrain.campaign.summary import seed_record, summarize
from opsbrain.cli import cli
from opsbrain.runner.run import recovery_kind


def test_a_recovery_before_the_detection_is_said_apart() -> None:
    assert recovery_kind(600.0, 1.0, 603.0) == "before_detection"  # a flap re-locked before the incident opened
    assert recovery_kind(600.0, 0.0, 1500.0) == "before_detection"  # never degraded (a CE storm): no action needed
    assert recovery_kind(600.0, 17.0, 603.0) == "after_detection"
    assert recovery_kind(600.0, 3.0, 603.0) == "after_detection"  # back at the detection itself
    assert recovery_kind(600.0, None, 603.0) == "not_recovered"


@pytest.fixture(autouse=True)
def _home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPSBRAIN_HOME", str(tmp_path / "home"))


def test_a_self_healing_flap_is_not_the_runs_median_ttr(tmp_path: Path) -> None:
    """The built-in dirty connector heals in about a second, before its incident opens (ttd 3 s): its run's median
    ttr was 1.0 s; now it has none (no fault needed a response) and says the flap came back before detection."""
    j = chaos.run(chaos.plan("dirty-connector-flap", seed=11))
    f = next(i for i in j["incidents"] if i["injected"])
    assert f["recovery"] == "before_detection" and f["recovered_at_s"] < f["detected_at_s"]
    s = j["summary"]
    assert s["median_ttr_s"] is None and s["recovered_before_detection"] == 1
    assert s["median_ttr_before_detection_s"] == f["ttr_s"] and s["recovered"] == 1
    out = CliRunner().invoke(cli, ["chaos", "run", "dirty-connector-flap", "--seed", "11", "--output", "plain",
                                   "--data-dir", str(tmp_path)])
    assert "\t1.0 (before det.)\tcorrect" in out.output  # the ttr marked in words (`*`: a quantile's mark)
    out = CliRunner().invoke(cli, ["chaos", "run", "dirty-connector-flap", "--seed", "11", "--data-dir", str(tmp_path)])
    assert "(0 after detection, 1 before it)" in out.output and "back before it was detected" in out.output


def _journal(seed: int, policy: str, faults: list[tuple[str, float, str]]) -> dict[str, Any]:
    incs = [{"id": f"f{k}", "injected": {"kind": kind, "component": f"pod0/node{k}", "at_s": 100.0 * k},
             "diagnosis": {"fault_class": kind}, "ttd_s": 3.0, "ttdiag_s": 5.0, "ttr_s": ttr, "recovery": how,
             "correct": True, "class_correct": True, "localized": True, "runbook": None, "human_steps": 0,
             "actions": [], "impact": {}} for k, (kind, ttr, how) in enumerate(faults)]
    return {"seed": seed, "policy": policy, "status": "finished", "duration_s": 1000.0, "incidents": incs,
            "recovery": {}, "summary": {}, "workloads": []}


def test_campaign_ttr_figures_leave_out_recoveries_before_detection() -> None:
    auto = [("dirty_connector", 1.0, "before_detection"), ("dirty_connector", 1.0, "before_detection"),
            ("node_crash", 120.0, "after_detection"), ("dirty_connector", 40.0, "after_detection")]
    manual = [("dirty_connector", 5.0, "after_detection"), ("dirty_connector", 1.0, "before_detection"),
              ("node_crash", 3000.0, "after_detection"), ("dirty_connector", 900.0, "after_detection")]
    recs = [seed_record(_journal(0, "auto", auto)), seed_record(_journal(0, "manual", manual))]
    out = summarize(CampaignSpec(pods=1, days=1, seeds=1, policies=("auto", "manual")), recs)
    a = out["by_policy"]["auto"]
    dc = a["ttr_by_class"]["dirty_connector"]
    assert dc["recovered"] == 3 and dc["recovered_before_detection"] == 2 and dc["ttr_s"]["n"] == 1
    assert dc["ttr_s"]["p50"] == 40.0  # was 1.0: two flaps that healed before anything saw them
    rec = a["recovery"]
    assert rec["ttr_after_detection_s"]["n"] == 2 and rec["ttr_after_detection_s"]["p50"] == pytest.approx(80.0)
    assert rec["recovered_before_detection"] == 2 and rec["ttr_before_detection_s"]["p50"] == 1.0
    ttr = out["auto_vs_manual"]["ttr_s"]
    assert ttr["pairs"] == 2 and ttr["pairs_before_detection"] == 2  # f0 (auto early) and f1 (both early) left out
