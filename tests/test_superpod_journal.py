"""Superpod runs as run journals (issue 21): ``chaos run`` runs a scenario's ``spec.superpod`` block, scores it
against the must-show bounds and journals it; ``superpod run`` stores its run too; ``report RUN_ID`` gives a page
per tenant."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import yaml
from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.ops.superpod_journal import attach, expectations
from opsbrain.report.superpod import build_superpod_report, render_html, render_md
from opsbrain.runner.journal_schema import journal_schema

SCENARIO = {
    "apiVersion": "opsbrain/v1", "kind": "ChaosScenario",
    "metadata": {"name": "superpod-small", "description": "test: every superpod experiment, one seed"},
    "spec": {"duration": 600, "seed": 0, "superpod": {
        "seeds": 1,
        "elastic": {"duration": 7200, "pods": 2, "policies": ["autoscale"], "faults": [{"at": 3600}]},
        "schedule": {"dusk": "0 1 * * *", "dawn": "0 3 * * *", "duration": 18000},
        "tenants": {"campaign": [{"at": 100, "kind": "node_crash", "target": "pod0/node12"},
                                 {"at": 300, "kind": "hbm_uce", "target": "pod0/node5/npu3/hbm",
                                  "diagnosed": "pod0/node27/npu3/hbm"}]}}},
}


def _run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return r.exit_code, r.stdout, r.stderr


def _scenario(tmp_path: Path) -> str:
    f = tmp_path / "superpod-small.yaml"
    f.write_text(yaml.safe_dump(SCENARIO))
    return str(f)


def test_chaos_run_runs_scores_and_journals_the_superpod_block(tmp_path: Path) -> None:
    home = str(tmp_path / "home")
    code, out, _err = _run("chaos", "run", _scenario(tmp_path), "--data-dir", home, "--json")
    j = json.loads(out)
    checks = {e["check"]: e for e in j["expectations"] if e.get("check", "").startswith("superpod.")}
    assert {"superpod.decode_at_tpot_bound", "superpod.slo_attainment", "superpod.switch_p90",
            "superpod.switches_recovered", "superpod.handback_on_time", "superpod.tenant_isolation"} <= set(checks)
    assert checks["superpod.decode_at_tpot_bound"]["value"] >= 538.0
    assert checks["superpod.tenant_isolation"]["met"]
    assert j["verdict"] == ("passed" if all(e["met"] for e in j["expectations"]) else "failed")
    assert code == (0 if j["verdict"] == "passed" else 1)
    assert set(j["superpod"]) >= {"elastic", "schedule", "tenants"} and j["tenants"] == ["a", "b"]
    assert list(jsonschema.Draft202012Validator(journal_schema()).iter_errors(j)) == []
    tenant_incs = [i for i in j["incidents"] if i.get("tenant")]
    assert tenant_incs and all(i["tenant"] == "a" for i in tenant_incs)
    assert any(i["correct"] for i in tenant_incs)  # the node crash, found by the engine on its node
    code, out, _err = _run("runs", "list", "--data-dir", home, "--json")
    runs = json.loads(out)
    runs = runs["runs"] if isinstance(runs, dict) else runs
    assert [r["id"] for r in runs] == [j["run_id"]] and runs[0]["verdict"] == j["verdict"]


def test_superpod_run_is_stored_and_reported_per_tenant(tmp_path: Path) -> None:
    home = str(tmp_path / "home")
    spec = copy.deepcopy(SCENARIO)
    del spec["spec"]["superpod"]["elastic"], spec["spec"]["superpod"]["schedule"]
    f = tmp_path / "tenants-only.yaml"
    f.write_text(yaml.safe_dump(spec))
    code, out, _err = _run("superpod", "run", str(f), "--data-dir", home, "--json")
    data = json.loads(out)
    assert code == 0 and data["verdict"] == "passed" and data["run_id"]
    md = tmp_path / "r.md"
    code, _out, _err = _run("report", data["run_id"], "--out", str(md), "--data-dir", home)
    assert code == 0
    text = md.read_text()
    assert "## Tenant a (" in text and "## Tenant b (" in text and "## Tenant a: incidents" in text
    assert "tenant scope" in text  # the verdict moved onto b's HBM was refused, and the page says why
    code, _out, _err = _run("report", data["run_id"], "--out", str(tmp_path / "r.html"), "--data-dir", home)
    assert code == 0 and "<h2>Tenant b (" in (tmp_path / "r.html").read_text()


def _out(p90: float, actions_on_b: int = 0) -> dict[str, Any]:
    pct = {"n": 10, "p50": p90 - 50, "p90": p90, "min": 1.0, "max": p90 + 20}
    return {"seeds": [0], "schedule": [{"demand_scale": 1.0, "node_switch_s": pct, "to_training_s": pct,
                                        "to_inference_s": pct, "handbacks_on_time": 1, "handbacks": 1, "late": [],
                                        "failed_switches": [], "retries": 0}],
            "tenants": [{"random_faults": 0, "actions_on_b": actions_on_b, "ems_reads_b": 0, "blast_b": 0,
                         # one fault injected (session 36: a campaign that injected none is not judged)
                         "runs": [{"seed": 0, "incident_log": [], "faults": [
                             {"kind": "node_crash", "component": "pod0/node3", "at_s": 10.0,
                              "diagnosed_as": "pod0/node3"}]}]}]}


def test_the_bounds_can_fail() -> None:
    ok = {e["check"]: e["met"] for e in expectations(_out(299.0))}
    assert ok["superpod.switch_p90"] and ok["superpod.tenant_isolation"]
    bad = {e["check"]: e for e in expectations(_out(301.0, actions_on_b=2))}
    assert not bad["superpod.switch_p90"]["met"] and "301 s" in bad["superpod.switch_p90"]["problems"][0]
    assert not bad["superpod.tenant_isolation"]["met"]
    j = attach({"verdict": "passed", "incidents": [], "expectations": []}, _out(301.0))
    assert j["verdict"] == "failed"


def test_a_tenant_page_counts_actions_on_its_slice_from_outside() -> None:
    """The page of b shows an action that an incident of a ran on b's node (what the guard exists to prevent)."""
    out = _out(200.0)
    out["tenants"][0]["runs"] = [{"seed": 0, "faults": [], "slo_attainment": {"a": 0.9, "b": 1.0},
                                  "out_of_service": {"a": ["pod0/node3"], "b": []}, "ems_reads": {"a": 1, "b": 0},
                                  "incident_log": [{"id": "i0001", "tenant": "a", "started_at_s": 10.0,
                                                    "diagnosis": {"fault_class": "node_crash",
                                                                  "component": "pod0/node30", "confidence": 0.9},
                                                    "outcome": "completed", "refused": [],
                                                    "actions": [{"action": "reboot_node", "target": "pod0/node30",
                                                                 "status": "succeeded"}]}]}]
    j = attach({"verdict": "passed", "incidents": [], "expectations": [], "scenario": "x"}, out)
    m = build_superpod_report(j)
    pages = {p["tenant"]: p for p in m["tenants"][0]["pages"]}
    assert pages["b"]["actions_from_outside"] == [{"incident": "t0-s0-i0001", "incident_tenant": "a",
                                                   "action": "reboot_node", "target": "pod0/node30"}]
    assert pages["a"]["actions"] and pages["a"]["blast_radius"]["per_seed"] == [1]
    assert pages["b"]["slo_attainment"]["min"] == 1.0 and pages["b"]["ems_reads"] == 0
    assert "actions on its slice by other tenants' incidents | 1" in render_md(m)
    assert "<td>pod0/node30</td>" in render_html(m)
