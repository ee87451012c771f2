"""Trace replay (issue 17): the InfiniteHBD format as published, the reviewed mapping table, 1:1 placement on
enough pods, trace durations, guards and bounds sized to the trace, and the CLI's JSON summary.

The generated trace (tests/data/traces/infinitehbd_like.json, from make_infinitehbd_like.py beside it) has the
published trace's shape and size; tests on the published trace itself skip when ../shared is absent."""

from __future__ import annotations

import inspect
import json
import math
from pathlib import Path

import numpy as np
import pytest
import yaml
from click.testing import CliRunner

from faultlib.faults.catalog import CATALOG
from faultlib.faults.models import MODELS
from faultlib.injection.replay import DURATION_KINDS, REPAIR_KINDS, load_mapping, replay_trace
from faultlib.injection.spec import FaultPlanError
from faultlib.injection.trace_table import read_trace
from faultlib.topology import Topology
from opsbrain.cli import cli
from opsbrain.errors import ScenarioError
from opsbrain.scenario import replay as rp

GENERATED = Path(__file__).parent / "data" / "traces" / "infinitehbd_like.json"
PUBLISHED = Path(__file__).resolve().parents[1].parent / "shared" / "reference" / "traces" / "infinitehbd" / \
    "fault_trace.json"
needs_published = pytest.mark.skipif(not PUBLISHED.is_file(), reason="../shared/reference/traces absent")


def ev(node: str, t: float, kind: str, level: str, cls: str, desc: str) -> dict:
    return {"node_id": node, "event_time": t, "event_type": kind,
            "fault_type": {"Level": level, "Class": cls, "Desc": desc}}


def write(tmp_path: Path, events: list[dict], name: str = "t.json") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(events))
    return p


def cli_run(*args: str, home: Path) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, list(args), env={"OPSBRAIN_HOME": str(home)})
    return res.exit_code, res.stdout, res.stderr


# ---- reading ---------------------------------------------------------------------------------------------------
def test_nested_fault_type_pairs_on_all_three_fields_and_keeps_zero_length(tmp_path: Path) -> None:
    p = write(tmp_path, [
        ev("a", 1.0, "fault_start", "Software Failure", "Other Failures", "Unknown Error"),
        ev("a", 1.5, "fault_start", "Hardware Failure", "Other Failures", "Unknown Error"),
        ev("a", 2.0, "fault_end", "Hardware Failure", "Other Failures", "Unknown Error"),
        ev("a", 3.0, "fault_end", "Software Failure", "Other Failures", "Unknown Error"),
        ev("b", 4.0, "fault_start", "Software Failure", "Operating System", "Kernel Panic"),
        ev("b", 4.0, "fault_end", "Software Failure", "Operating System", "Kernel Panic"),
        ev("b", 4.5, "fault_start", "Hardware Failure", "GPU", "GPU Lost"),
        ev("c", 4.5001, "fault_start", "Hardware Failure", "GPU", "GPU Lost")])  # the finest gap: 1e-4 day
    tt = read_trace(p, time_unit="days")
    sw, hw, panic, lost, _ = tt.faults
    assert (sw.duration_s, hw.duration_s) == (2 * 86400.0, 0.5 * 86400.0)  # the level tells them apart
    assert panic.zero_length and panic.duration_s == pytest.approx(8.64) and tt.zero_length == 1
    assert tt.resolution_s == pytest.approx(8.64) and lost.duration_s is None
    assert panic.description == "Software Failure / Operating System / Kernel Panic"
    stats = tt.statistics()
    assert stats["faults"] == 5 and stats["servers"] == 3 and stats["starts_with_fault_open"] == 1
    assert stats["interruptions_per_node_day"] == pytest.approx(5 / (3 * 4.5001), rel=1e-5)


@pytest.mark.parametrize("unit, factor", [("s", 1.0), ("min", 60.0), ("h", 3600.0), ("days", 86400.0)])
def test_time_units(tmp_path: Path, unit: str, factor: float) -> None:
    p = tmp_path / "t.csv"
    p.write_text("node_id,event_time,event_type,Level,Class,Desc\n"
                 "n1,2,fault_start,Hardware Failure,GPU,GPU Lost\nn1,5,fault_end,Hardware Failure,GPU,GPU Lost\n")
    (f,) = read_trace(p, time_unit=unit).faults
    assert (f.start_s, f.duration_s, f.cls) == (2 * factor, 3 * factor, "GPU")


def test_a_time_past_the_bound_is_refused_naming_row_and_field(tmp_path: Path) -> None:
    p = write(tmp_path, [ev("a", 1.0, "fault_start", "", "GPU", "GPU Lost"),
                         ev("a", 1e30, "fault_end", "", "GPU", "GPU Lost")])
    with pytest.raises(FaultPlanError, match=r"t\.json\[1\]\.event_time: time 1e\+30 days is beyond the replay"):
        read_trace(p, time_unit="days")


# ---- mapping ---------------------------------------------------------------------------------------------------
def test_the_shipped_table_is_reviewed_row_by_row() -> None:
    rows = yaml.safe_load(rp.MAPPING_TABLE.read_text())["rows"]
    rules = load_mapping(rp.MAPPING_TABLE)  # kinds and regexes checked by the loader
    assert len(rules) == len(rows)
    for row in rows:
        assert row["basis"] in ("documented", "reasoned", "assumed") and len(row["reason"]) > 10, row
        assert row["kind"] is None or row["kind"] in CATALOG


@pytest.mark.parametrize("level, cls, desc, kind", [
    ("Software Failure", "Operating System", "Kernel Panic", "node_crash"),  # not collective_timeout_sw
    ("Hardware Failure", "RAID Card", "Bus Correctable error", None),       # not hbm_ce_storm
    ("Hardware Failure", "GPU", "GPU SBE(Single Bit ECC) > Threshold", "hbm_ce_storm"),
    ("Software Failure", "Other Failures", "Unknown Error", "collective_timeout_sw"),
    ("Hardware Failure", "Other Failures", "Unknown Error", "node_crash"),
    ("Hardware Failure", "Parameter Plane Cable", "Link Down", "roce_port_down"),
])
def test_default_mapping_on_class_and_desc(tmp_path: Path, level: str, cls: str, desc: str, kind: str | None) -> None:
    p = write(tmp_path, [ev("a", 1.0, "fault_start", level, cls, desc), ev("a", 2.0, "fault_end", level, cls, desc)])
    plan, rep = rp.replay_plan(str(p), time_unit="h")
    assert rep.kinds == ({kind: 1} if kind else {})
    if kind is None:
        assert rep.unmapped == {f"{level} / {cls} / {desc}": 1}
        assert "replay_mapping.yaml" in rep.unmapped_reasons[f"{level} / {cls} / {desc}"]


def test_user_mapping_overrides_the_table_and_unknown_rows_are_listed(tmp_path: Path) -> None:
    p = write(tmp_path, [ev("a", 1.0, "fault_start", "Software Failure", "Operating System", "Kernel Panic"),
                         ev("b", 1.0, "fault_start", "Other Failure", "Cosmic", "Ray"),
                         ev("c", 1.0, "fault_start", "Other Failure", "Cosmic", "Ray")])
    m = tmp_path / "m.yaml"
    m.write_text("rows:\n  - {class: 'operating system', desc: 'kernel panic', kind: node_hang, reason: mine}\n")
    _plan, rep = rp.replay_plan(str(p), mapping=str(m))
    assert rep.kinds == {"node_hang": 1} and rep.unmapped == {"Other Failure / Cosmic / Ray": 2}
    assert rep.unmapped_reasons["Other Failure / Cosmic / Ray"] == "no rule matched"
    bad = tmp_path / "bad.yaml"
    bad.write_text("rows:\n  - {desc: x, kind: bogus}\n")
    with pytest.raises(ScenarioError, match="unknown fault kind 'bogus'"):
        rp.replay_plan(str(p), mapping=str(bad))


def test_duration_kinds_are_the_models_that_wait_out_duration_s() -> None:
    src = {k: inspect.getsource(m.run) for k, m in MODELS.items()}
    uses = {k for k, text in src.items() if "duration_s" in text or "heal_after_duration" in text}
    assert uses == DURATION_KINDS
    repairs = {k for k, text in src.items() if "repair_for_duration" in text}
    assert repairs == REPAIR_KINDS and not repairs & DURATION_KINDS


def test_trace_durations_reach_the_fault_specs(tmp_path: Path) -> None:
    p = write(tmp_path, [ev("a", 1.0, "fault_start", "Hardware Failure", "NIC", "NIC Lost"),
                         ev("a", 3.5, "fault_end", "Hardware Failure", "NIC", "NIC Lost"),
                         ev("b", 1.0, "fault_start", "", "Power Supply", "Power Supply Failure detected"),
                         ev("b", 2.0, "fault_end", "", "Power Supply", "Power Supply Failure detected")])
    _plan, rep = rp.replay_plan(str(p), time_unit="h")
    roce = next(s for s in rep.timeline if s.kind == "roce_port_down")
    crash = next(s for s in rep.timeline if s.kind == "node_crash")  # a repair time (REPAIR_KINDS)
    assert roce.duration_s == 2.5 * 3600 and crash.duration_s == 3600 and rep.durations_used == 2
    assert rep.durations_not_modelled == {}
    assert not any("not applied" in n for n in rp.notes(rep))


# ---- placement, guards, plan -----------------------------------------------------------------------------------
def test_servers_map_one_to_one_onto_enough_pods_and_fold_only_on_request() -> None:
    plan, rep = rp.replay_plan(str(GENERATED), time_unit="days")
    assert plan.topology.pods == 6 and len(rep.node_map) == 231 and len(set(rep.node_map.values())) == 231
    assert set(rep.node_map.values()) <= set(plan.placements["train"]) and not rep.folded
    assert not set(rep.node_map.values()) & set(plan.spares)
    with pytest.raises(ScenarioError, match="231 servers, 2 pods hold 92 job nodes: use --pods 6 or --fold"):
        rp.replay_plan(str(GENERATED), time_unit="days", pods=2)
    _p, folded = rp.replay_plan(str(GENERATED), time_unit="days", pods=2, fold=True)
    assert folded.folded and len(set(folded.node_map.values())) == 92
    assert any("folded 231 trace servers onto 92 nodes" in n for n in rp.notes(folded))
    key = "starts_with_fault_open_on_nodes"  # folding piles faults onto nodes that already have one open
    assert rp.summary(folded)[key] > 2 * rp.summary(rep)[key]


def test_plan_guards_and_length_are_sized_to_the_trace() -> None:
    plan, rep = rp.replay_plan(str(GENERATED), time_unit="days")
    spec = plan.scenario.spec
    assert spec.duration == pytest.approx(rep.trace.end_s + rp.TAIL_S) and spec.duration > 90 * 86400
    assert [g.kind for g in spec.guards] == ["isolated_node_share"]  # no one-day SLO-breach budget
    durs = sorted(f.duration_s for f in rep.trace.faults)
    assert plan.monitor_interval_s == pytest.approx(max(10.0, durs[len(durs) // 2] / 100))
    assert spec.guards[0].max >= rp.GUARD_NODE_SHARE and not spec.noise


def test_replay_is_deterministic() -> None:
    a = rp.replay_plan(str(GENERATED), time_unit="days", seed=3)[1].timeline
    assert a == rp.replay_plan(str(GENERATED), time_unit="days", seed=3)[1].timeline
    topo = Topology.build(pods=1)
    one = replay_trace(GENERATED, topo, np.random.default_rng(1), time_unit="days")  # faultlib default: fold
    assert one.folded and len(one.timeline) == one.mapped_total


# ---- CLI -------------------------------------------------------------------------------------------------------
def test_cli_json_summary_of_the_generated_trace(tmp_path: Path) -> None:
    code, out, err = cli_run("chaos", "replay", str(GENERATED), "--time-unit", "days", "--json", home=tmp_path)
    j = json.loads(out)
    assert code == 0 and j["events"] == 1168 and j["faults"] == 584
    assert j["mapped_total"] + j["unmapped_total"] == 584 and sum(j["by_kind"].values()) == j["mapped_total"]
    assert sum(j["unmapped"].values()) == j["unmapped_total"] and set(j["unmapped"]) == set(j["unmapped_reasons"])
    st = j["trace_statistics"]
    assert st["servers"] == 231 and st["zero_length"] == 14
    assert st["interruptions_per_node_day"] == pytest.approx(584 / (231 * st["days"]), rel=1e-4)
    assert j["zero_length"]["count"] == 14 and sum("instant they start" in n for n in j["notes"]) == 1
    assert j["pods"] == 6 and j["nodes_mapped"] == 231 and "run" not in j


@pytest.mark.parametrize("args, needle", [
    (["--pods", "2"], "use --pods 6 or --fold"), (["--pods", "0"], "'--pods'"),
    (["--mapping", "/no/such.yaml"], "no such file")])
def test_cli_bad_options_are_one_line_exit_2(tmp_path: Path, args: list[str], needle: str) -> None:
    code, _out, err = cli_run("chaos", "replay", str(GENERATED), "--time-unit", "days", *args, home=tmp_path)
    assert code == 2 and needle in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_cli_refuses_a_huge_time_at_once(tmp_path: Path) -> None:
    events = json.loads(GENERATED.read_text())
    events[5]["event_time"] = 1e30
    p = write(tmp_path, events)
    code, _out, err = cli_run("chaos", "replay", str(p), "--time-unit", "days", "--run", "--json", home=tmp_path)
    assert code == 2 and "[5].event_time: time 1e+30 days is beyond the replay bound" in err
    assert len(err.strip().splitlines()) == 1


def test_cli_run_reports_ettr_and_interruptions_beside_the_trace(tmp_path: Path) -> None:
    """A 20-day slice of the generated trace, run: the replay's interruption rate is the twin's (faults it began
    whose kind interrupts), within 10% of the slice's own."""
    events = [e for e in json.loads(GENERATED.read_text()) if e["event_time"] <= 20.0]
    p = write(tmp_path, events)
    code, out, _err = cli_run("chaos", "replay", str(p), "--time-unit", "days", "--run", "--json", home=tmp_path)
    j = json.loads(out)
    assert code in (0, 1) and j["run"]["verdict"] != "aborted"
    r, st = j["run"], j["trace_statistics"]
    assert 0 < r["ettr"] <= 1 and r["nodes"] == st["servers"] and r["days"] == st["days"]
    assert math.isclose(r["interruptions_per_node_day"], st["interruptions_per_node_day"], rel_tol=0.10)
    assert j["wall_s"] > 0 and j["cpu_s"] > 0 and j["journal"]["run_id"] == r["run_id"]
    # tester D12: how many recoveries were onto a scaled-in job, the time run scaled in, and goodput
    train = next(w for w in j["journal"]["workloads"] if w["name"] == "train")
    assert r["recovered_full"] + r["recovered_degraded"] == r["recovered"]
    assert r["recovered_degraded"] == j["journal"]["summary"]["recovered_degraded"]
    assert r["degraded_share"] == pytest.approx(train["degraded_s"] / train["elapsed_s"], abs=1e-6)
    assert r["goodput"] == pytest.approx(
        train["useful_steps"] * train["launch_nominal_step_time_s"] / train["elapsed_s"], abs=1e-6)
    assert (r["scale_ins"], r["scale_outs"]) == (train["scale_ins"], train["scale_outs"])


def test_the_replay_line_says_how_many_recoveries_were_scale_ins() -> None:
    """Tester D12: 'ETTR 0.963, 558 detected, 558 recovered' while 335 recoveries were scale-ins and the job ran
    scaled in 61% of the run: the line now splits the recoveries and gives goodput and the time run scaled in."""
    out = {"trace": "t.json", "events": 2, "faults": 1, "mapped_total": 1, "unmapped_total": 0, "nodes_mapped": 1,
           "pods": 1, "by_kind": {}, "unmapped": {}, "unmapped_reasons": {}, "notes": [],
           "trace_statistics": {"servers": 1, "days": 1.0, "interruptions_per_node_day": 1.0},
           "run": {"interruptions_per_node_day": 1.0, "ettr": 0.962557, "goodput": 0.806167, "detected": 558,
                   "faults": 558, "recovered": 558, "recovered_full": 223, "recovered_degraded": 335,
                   "degraded_s": 18415148.2, "degraded_share": 0.610674, "scale_ins": 300, "scale_outs": 309,
                   "verdict": "inconclusive", "run_id": "r"}}
    text = "\n".join(rp.summary_lines(out))
    assert ("goodput 0.806, 558 of 558 faults detected, 558 recovered (223 to full size, 335 scaled in: degraded)"
            in text)
    assert "the job ran scaled in 61% of the run (213.1 days; 300 scale-ins, 309 scale-outs)" in text


# ---- the published trace (skipped without ../shared) -----------------------------------------------------------
@needs_published
def test_published_trace_maps_as_published(tmp_path: Path) -> None:
    code, out, err = cli_run("chaos", "replay", str(PUBLISHED), "--time-unit", "days", "--json", home=tmp_path)
    j = json.loads(out)
    assert code == 0, err
    assert j["events"] == 1168 and j["faults"] == 584 and j["zero_length"]["count"] == 14
    assert j["trace_statistics"]["servers"] == 231 and j["pods"] == 6 and not j["folded"]
    assert j["unmapped"]["Hardware Failure / RAID Card / Bus Correctable error"] == 1
    assert j["mapped"]["Software Failure / Operating System / Kernel Panic"] == 1
    assert j["mapped_total"] + j["unmapped_total"] == 584 and j["unmapped_total"] < 0.1 * 584
    _plan, rep = rp.replay_plan(str(PUBLISHED), time_unit="days")
    panic = next(s for s in rep.timeline if "Kernel Panic" in s.origin)
    assert panic.kind == "node_crash"


def test_a_field_that_is_no_text_an_orphan_end_and_times_before_zero_are_said(tmp_path: Path) -> None:
    bad = write(tmp_path, [{**ev("a", 5.0, "fault_start", "1", "NIC", "x"), "fault_type": {
        "Level": 1, "Class": None, "Desc": ["x"]}}], "bad.json")
    res = CliRunner().invoke(cli, ["chaos", "replay", str(bad), "--data-dir", str(tmp_path)])
    assert res.exit_code == 2 and "Desc: expected text, got a list" in res.stderr, res.output
    orphan = write(tmp_path, [ev("a", 1.0, "fault_end", "Hardware Failure", "NIC", "NIC Lost")], "orphan.json")
    assert any("without a fault_start" in n for n in rp.notes(rp.replay_plan(str(orphan))[1]))
    early = write(tmp_path, [ev("a", -5.0, "fault_start", "", "Power Supply", "Power Supply Failure detected"),
                             ev("a", 3.0, "fault_end", "", "Power Supply", "Power Supply Failure detected")],
                  "neg.json")
    res = CliRunner().invoke(cli, ["chaos", "replay", str(early), "--data-dir", str(tmp_path)])
    assert res.exit_code == 2 and "--rebase" in res.stderr
    res = CliRunner().invoke(cli, ["chaos", "replay", str(early), "--rebase", "--data-dir", str(tmp_path)])
    assert res.exit_code == 0, res.output
