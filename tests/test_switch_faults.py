"""A fault mid-switch is reported apart from the switch (issue 21): its slot's spare, the repair's seconds, the
fault domain; the scenario checks the < 5 min claim on the same seeds without the faults."""

from __future__ import annotations

import pytest

from opsbrain.ops.schedule import OVERLAPPED, MidSwitchFault, SwitchRecord
from opsbrain.ops.schedule_run import ScheduleSetup, run_schedule
from opsbrain.ops.switch_faults import fault_report, slot_holder


def _record() -> SwitchRecord:
    rec = SwitchRecord(1, "flex", "inference", 1000.0)
    rec.faults = [{"node": "n3", "kind": "node_crash", "after_s": 100.0}]
    rec.replaced = {"n3": "s1", "s1": "s2"}  # the first spare died too
    rec.node_end_s = {"n1": 1300.0, "n2": 1300.0, "s2": 1450.0, "p1": 1250.0}
    rec.node_unit = {"n1": "decode", "n2": "decode", "s2": "decode", "p1": "prefill"}
    return rec


def test_the_slot_is_followed_to_the_spare_that_ended_in_it() -> None:
    rec = _record()
    assert slot_holder(rec, "n3") == "s2" and slot_holder(rec, "n1") == "n1"
    rec.took_slot = {"n9": "s7"}
    assert slot_holder(rec, "n9") is None  # s7 never worked


def test_fault_report_splits_the_fault_domain_from_the_rest() -> None:
    rep = fault_report(_record())
    (f,) = rep["faults"]
    assert f["slot_holder"] == "s2" and not f["switched_before_fault"]
    assert f["slot_working_after_fault_s"] == pytest.approx(350.0)  # 1450 - 1000 - 100
    assert sorted(rep["domain_s"]) == [300.0, 300.0, 450.0] and rep["outside_s"] == [250.0]


def test_a_fault_after_the_node_switched_is_not_a_repair_of_the_switch() -> None:
    rec = _record()
    rec.replaced, rec.faults = {}, [{"node": "n1", "kind": "node_crash", "after_s": 400.0}]
    (f,) = fault_report(rec)["faults"]
    assert f["switched_before_fault"] and f["slot_working_after_fault_s"] is None
    assert fault_report(rec)["domain_s"] == []


def test_run_schedule_reports_every_mid_switch_fault() -> None:
    faults = (MidSwitchFault(0, 100.0, 3), MidSwitchFault(1, 100.0, 3))
    r = run_schedule(ScheduleSetup(ops=OVERLAPPED, handback_checkpoint="memory-last-step", faults=faults), 0)
    fs = r["faulted"]["faults"]
    assert [f["to"] for f in fs] == ["training", "inference"]
    assert all(f["slot_holder"] not in (None, f["node"]) for f in fs)  # a spare works in the crashed node's slot
    assert all(f["slot_working_after_fault_s"] > 0 for f in fs)
    # the job's ranks and the instance's nodes waited for the spare: their times carry the repair
    assert min(r["faulted"]["domain_s"]) >= 100.0 + min(f["slot_working_after_fault_s"] for f in fs) - 1e-6
    assert r["fault_free_node_switch_s"] == []  # every switch of this run had a fault
    clean = run_schedule(ScheduleSetup(ops=OVERLAPPED, handback_checkpoint="memory-last-step"), 0)
    assert clean["faulted"]["faults"] == [] and len(clean["fault_free_node_switch_s"]) == 44


def test_the_scenario_checks_the_claim_without_the_faults_and_reports_them() -> None:
    from opsbrain.ops.scenario_run import run_schedule_block
    from opsbrain.ops.superpod_journal import expectations
    from opsbrain.scenario.superpod import ScheduleBlock, SwitchFault
    b = ScheduleBlock(operation="overlapped", handback_checkpoint="memory-last-step",
                      faults=[SwitchFault(switch=0, after=100, node=3), SwitchFault(switch=1, after=100, node=3)])
    out = run_schedule_block(b, [0, 1])
    f = out["faulted"]
    assert f["faults"] == 4 and f["slots_never_working"] == 0 and out["fault_free_failed_switches"] == []
    assert out["fault_free_node_switch_s"]["n"] == 88 and f["slot_working_after_fault_s"]["n"] == 4
    # the faulted switches are slower than the same seeds' switches without the fault
    assert f["fault_domain_node_switch_s"]["p50"] > out["fault_free_node_switch_s"]["p50"]
    exp = {e["check"]: e for e in expectations({"schedule": [out]})}
    assert exp["superpod.switch_p90"]["value"] == out["fault_free_node_switch_s"]["p90"]
    assert "without an injected fault" in exp["superpod.switch_p90"]["bound"]
    assert exp["superpod.switches_recovered"]["met"]
    out["faulted"]["slots_never_working"] = 1
    assert not {e["check"]: e for e in expectations({"schedule": [out]})}["superpod.switches_recovered"]["met"]
    out["faulted"]["slots_never_working"], out["fault_free_failed_switches"] = 0, ["training did not start"]
    assert not {e["check"]: e for e in expectations({"schedule": [out]})}["superpod.switches_recovered"]["met"]


def test_the_report_shows_the_fault_free_and_faulted_rows() -> None:
    from opsbrain.report.superpod import build_superpod_report, render_md
    pct = {"n": 4, "p50": 200.0, "p90": 290.0, "p99": 299.0, "min": 1.0, "max": 299.0}
    bad = {**pct, "p50": 311.0, "p90": 426.0, "max": 472.0}
    block = {"demand_scale": 1.0, "operation": "overlapped", "node_switch_s": bad, "fault_free_node_switch_s": pct,
             "faulted": {"faults": 2, "switched_before_fault": 0, "slots_never_working": 0,
                         "fault_domain_node_switch_s": bad, "outside_domain_node_switch_s": pct,
                         "slot_working_after_fault_s": {**pct, "p90": 326.0}},
             "handbacks_on_time": 1, "handbacks": 1, "failed_switches": [], "retries": 1}
    text = render_md(build_superpod_report({"superpod": {"seeds": [0], "schedule": [block]}, "expectations": []}))
    assert "without the injected faults | 200 | 290" in text
    assert "faulted node's fault domain | 311 | 426" in text and "faulted slot working again after the fault" in text


def test_a_device_fault_mid_switch_hits_the_nodes_npu_and_is_reported_on_the_node() -> None:
    """``kind: npu_off_bus`` (allowed by the scenario schema) targets an NPU, not the node (was a traceback)."""
    r = run_schedule(ScheduleSetup(ops=OVERLAPPED, handback_checkpoint="memory-last-step",
                                   faults=(MidSwitchFault(1, 100.0, 3, "npu_off_bus"),)), 0)
    (f,) = r["faulted"]["faults"]
    assert f["target"] == f["node"] + "/npu0" and f["slot_holder"] not in (None, f["node"])
    assert r["failed"] == []
