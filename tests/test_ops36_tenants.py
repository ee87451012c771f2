"""Session 36: tenant slices as an operator reads them -- each campaign fault's own diagnosis (two faults on one node),
refused steps named by the journal's incident id (with its seed), and the per-tenant page's action counts
recomputed from the journal with pandas."""

from __future__ import annotations

import pandas as pd

from opsbrain.ops.scenario_run import run_tenants_block
from opsbrain.ops.superpod_journal import attach
from opsbrain.ops.tenant_run import CampaignItem, run_campaign
from opsbrain.report.superpod import build_superpod_report
from opsbrain.scenario.superpod import TenantsBlock
from opsbrain.verdict import NO_ACTION


def test_each_fault_on_a_node_keeps_its_own_diagnosis() -> None:
    """A crash of node12 diagnosed right, then (later) one diagnosed on b's node30. Before: the test device moved
    every verdict on node12 to node30, so the first, right, diagnosis was refused and the crash held for a person."""
    r = run_campaign([CampaignItem(100.0, "node_crash", "pod0/node12", "pod0/node12"),
                      CampaignItem(1500.0, "node_crash", "pod0/node12", "pod0/node30")], seed=0)
    first = min(r["incident_log"], key=lambda i: i["started_at_s"])
    assert first["diagnosis"]["component"] == "pod0/node12" and first["outcome"] == "completed"
    assert r["actions_on_b"] == [] and r["actions"]["a"] > 0


def _journal() -> dict:
    block = TenantsBlock.model_validate({"campaign": [
        {"at": 100, "kind": "node_crash", "target": "pod0/node13", "diagnosed": "pod0/node36"},
        {"at": 900, "kind": "hbm_uce", "target": "pod0/node5/npu3/hbm", "diagnosed": "pod0/node27/npu3/hbm"}]})
    out = {"seeds": [0, 1], "tenants": [run_tenants_block(block, [0, 1])]}
    return attach({"verdict": "passed", "incidents": [], "expectations": [], "scenario": "x"}, out)


def test_refused_steps_name_the_journal_incident_and_counts_agree_with_the_journal() -> None:
    j = _journal()
    pages = {p["tenant"]: p for p in build_superpod_report(j)["tenants"][0]["pages"]}
    ids = {i["id"] for i in j["incidents"]}
    refused = pages["a"]["refused"]
    assert refused and all(r["incident"] in ids for r in refused)  # t0-s1-i0002, not i0002 (two seeds have one)
    assert {r["incident"].split("-")[1] for r in refused} == {"s0", "s1"}
    # recompute from the journal: actions that did something, per incident, per tenant
    rows = [{"incident": i["id"], "tenant": i["tenant"], "action": a["action"]} for i in j["incidents"]
            for a in i["actions"] if a["action"] not in NO_ACTION and a.get("status") != "skipped"
            and a.get("kind") != "guardrail"]
    df = pd.DataFrame(rows, columns=["incident", "tenant", "action"])
    per_incident = df.groupby("incident").size()
    assert len(pages["a"]["actions"]) == int((df["tenant"] == "a").sum())
    for inc in pages["a"]["incidents"]:  # the incidents table's action column is the same count
        assert inc["actions"] == int(per_incident.get(inc["id"], 0)), inc
