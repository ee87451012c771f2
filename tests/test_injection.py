"""Fault injection planning: specs, selectors, scripted plans, random draws, trace replay."""

from __future__ import annotations

import json

import numpy as np
import pytest

from faultlib import ids
from faultlib.faults.catalog import CATALOG
from faultlib.injection import (
    FaultPlanError,
    FaultSpec,
    TargetIndex,
    Timeline,
    draw_timeline,
    plan_scripted,
    replay_trace,
    resolve,
)
from faultlib.topology import Topology


@pytest.fixture(scope="module")
def topo(topo1: Topology) -> Topology:
    return topo1


@pytest.fixture(scope="module")
def index(topo: Topology) -> TargetIndex:
    return TargetIndex(topo)


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def plan_error(topo: Topology, bad: dict) -> str:
    good = {"at": 0, "kind": "node_crash", "target": "pod0/node1"}
    with pytest.raises(FaultPlanError) as exc:
        plan_scripted(topo, [good, good, good, bad], rng())
    return str(exc.value)


# ---- spec and timeline ---------------------------------------------------------------------------------
def test_spec_validates_and_defaults_category() -> None:
    s = FaultSpec(at_s=5, kind="hbm_uce", target="pod0/node0/npu0/hbm")
    assert s.category == "GPU HBM3 memory" and s.at_s == 5.0 and s.interrupts
    assert not FaultSpec(at_s=0, kind="dirty_connector", target="x~y").interrupts
    for bad, field in [({"at_s": -1}, "at_s"), ({"kind": "nope"}, "kind"), ({"duration_s": 0}, "duration_s"),
                       ({"source": "manual"}, "source"), ({"at_s": float("nan")}, "at_s")]:
        kw = {"at_s": 1.0, "kind": "hbm_uce", "target": "t", **bad}
        with pytest.raises(FaultPlanError, match=f"^{field}:"):
            FaultSpec(**kw)


def test_timeline_sorted_and_json_round_trip() -> None:
    a = FaultSpec(at_s=20, kind="node_crash", target="pod0/node2")
    b = FaultSpec(at_s=10, kind="node_hang", target="pod0/node3", params={"x": 1}, duration_s=5)
    c = FaultSpec(at_s=10, kind="hbm_uce", target="pod0/node3/npu0/hbm")
    tl = Timeline([a, b, c])
    assert [s.kind for s in tl] == ["hbm_uce", "node_hang", "node_crash"]
    assert Timeline([c, a, b]) == tl and Timeline([c, a, b]).to_json() == tl.to_json()
    back = Timeline.from_json(tl.to_json())
    assert back == tl and back[1].params == {"x": 1} and back[1].duration_s == 5.0
    assert tl.by_kind() == {"hbm_uce": 1, "node_crash": 1, "node_hang": 1}
    with pytest.raises(FaultPlanError, match=r"timeline\[0\]\.kind"):
        Timeline.from_json(json.dumps([{"at_s": 0, "kind": "bogus", "target": "x"}]))


# ---- selectors -----------------------------------------------------------------------------------------
def test_target_by_id(index: TargetIndex) -> None:
    assert resolve(index, "node_crash", target="pod0/node4") == ["pod0/node4"]
    link = "pod0/node3/l1sw2~pod0/l2plane2/sw05"
    assert resolve(index, "link_down", target=link) == [link]


def test_mode_one_and_selector_fields(index: TargetIndex) -> None:
    [t] = resolve(index, "hbm_uce", selector={"node": 7}, mode="one", rng=rng())
    assert t.startswith("pod0/node7/npu") and t.endswith("/hbm")
    l2s = resolve(index, "l2_switch_failure", selector={"plane": 3}, mode="all", rng=rng())
    assert len(l2s) == 16 and all(x.startswith("pod0/l2plane3/") for x in l2s)
    links = resolve(index, "link_down", selector={"node": "pod0/node2", "plane": 1}, mode="all", rng=rng())
    assert len(links) == 16 and all(x.startswith("pod0/node2/l1sw1~pod0/l2plane1/") for x in links)
    rack1 = resolve(index, "node_crash", selector={"rack": 1}, mode="all", rng=rng())
    assert rack1 == ["pod0/node4", "pod0/node5", "pod0/node6", "pod0/node7"]
    rack12 = resolve(index, "l2_switch_failure", selector={"rack": "pod0/rack12"}, mode="all", rng=rng())
    assert rack12 and all(index.topology.rack_of[x] == "pod0/rack12" for x in rack12)
    ko = resolve(index, "link_down", selector={"kind": "ub_optical", "pod": 0, "node": [1, 2]}, mode="all",
                 rng=rng())
    assert len(ko) == 2 * 7 * 16


def test_mode_all_fixed_percent(index: TargetIndex) -> None:
    sel = {"node": 5}
    assert len(resolve(index, "aicore_hang", selector=sel, mode="all", rng=rng())) == 16
    fixed = resolve(index, "aicore_hang", selector=sel, mode="fixed", value=3, rng=rng())
    assert len(fixed) == 3 == len(set(fixed)) and all(ids.node_of(x) == "pod0/node5" for x in fixed)
    assert len(resolve(index, "aicore_hang", selector=sel, mode="fixed-percent", value=25, rng=rng())) == 4
    assert len(resolve(index, "aicore_hang", selector=sel, mode="fixed-percent", value="50%", rng=rng())) == 8
    sizes = {len(resolve(index, "aicore_hang", selector=sel, mode="random-max-percent", value=50, rng=rng(s)))
             for s in range(60)}
    assert sizes <= set(range(1, 9)) and len(sizes) > 3
    # at least one even when P% of the selection rounds to zero
    assert len(resolve(index, "aicore_hang", selector=sel, mode="random-max-percent", value=1, rng=rng())) == 1


@pytest.mark.parametrize(("bad", "expected"), [
    ({"at": 1, "kind": "hbm_uce", "target": "pod0/node99"}, "faults[3].target: no component 'pod0/node99'"),
    ({"at": 1, "kind": "hbm_uce", "target": "pod0/node9"}, "faults[3].target: 'pod0/node9' is a node"),
    ({"at": 1, "kind": "hbm_uce", "selector": {"node": 99}}, "faults[3].selector: matches no hbm"),
    ({"at": 1, "kind": "hbm_uce", "selector": {"kind": "l2"}}, "faults[3].selector.kind: fault kind hbm_uce"),
    ({"at": 1, "kind": "hbm_uce", "selector": {"nod": 1}}, "faults[3].selector.nod: unknown selector field"),
    ({"at": 1, "kind": "hbm_uce", "selector": {"node": 1}, "mode": "some"}, "faults[3].mode: unknown mode"),
    ({"at": 1, "kind": "hbm_uce", "selector": {"node": 1}, "mode": "fixed", "value": 9},
     "faults[3].value: fixed 9 asked but the selection has only 8"),
    ({"at": 1, "kind": "hbm_uce", "selector": {"node": 1}, "mode": "fixed", "value": 0}, "faults[3].value"),
    ({"at": 1, "kind": "hbm_uce", "selector": {"node": 1}, "mode": "fixed-percent", "value": 5},
     "faults[3].value: fixed-percent 5% of 8 selects none"),
    ({"at": 1, "kind": "hbm_uce", "selector": {"node": 1}, "mode": "fixed-percent", "value": 150},
     "faults[3].value: must be a percentage"),
    ({"at": 1, "kind": "hbm_uce", "selector": {"node": 1}, "mode": "all", "value": 2}, "faults[3].value"),
    ({"at": 1, "kind": "bogus", "target": "pod0/node1"}, "faults[3].kind: unknown fault kind 'bogus'"),
    ({"at": -5, "kind": "node_crash", "target": "pod0/node1"}, "faults[3].at: must be >= 0"),
    ({"kind": "node_crash", "target": "pod0/node1"}, "faults[3].at: missing"),
    ({"at": 1, "kind": "node_crash", "target": "pod0/node1", "duration": -1}, "faults[3].duration"),
    ({"at": 1, "kind": "node_crash"}, "faults[3]: give exactly one of 'target' or 'selector'"),
    ({"at": 1, "kind": "node_crash", "target": "pod0/node1", "selector": {"node": 1}}, "faults[3]: give exactly"),
    ({"at": 1, "kind": "node_crash", "target": "pod0/node1", "when": 3}, "faults[3].when: unknown field"),
])
def test_errors_name_the_item(topo: Topology, bad: dict, expected: str) -> None:
    assert plan_error(topo, bad).startswith(expected)


def test_plan_scripted_expands_selectors(topo: Topology) -> None:
    items = [{"at": 30, "kind": "l2_switch_failure", "selector": {"plane": 2}, "mode": "fixed", "value": 3},
             {"at": 10, "kind": "node_crash", "target": "pod0/node5", "duration": 100, "params": {"cause": "psu"}}]
    tl = plan_scripted(topo, items, rng())
    assert [s.at_s for s in tl] == [10.0, 30.0, 30.0, 30.0]
    assert tl[0].duration_s == 100.0 and tl[0].params == {"cause": "psu"} and tl[0].origin == "faults[1]"
    assert all(s.source == "scripted" and s.kind == "l2_switch_failure" for s in tl.specs[1:])
    assert len({s.target for s in tl.specs[1:]}) == 3


def test_determinism_by_seed(topo: Topology) -> None:
    items = [{"at": 1, "kind": "link_down", "selector": {"plane": 0}, "mode": "random-max-percent", "value": 5}]
    assert plan_scripted(topo, items, rng(3)) == plan_scripted(topo, items, rng(3))
    assert plan_scripted(topo, items, rng(3)) != plan_scripted(topo, items, rng(4))
    a = draw_timeline("llama3", topo, 60, rng(7), bursty=True, lemons=True)
    b = draw_timeline("llama3", topo, 60, rng(7), bursty=True, lemons=True)
    assert a == b and a.to_json() == b.to_json() and len(a) > 0
    assert a != draw_timeline("llama3", topo, 60, rng(8), bursty=True, lemons=True)


# ---- random draws --------------------------------------------------------------------------------------
def test_draw_targets_match_catalog(topo: Topology, index: TargetIndex) -> None:
    tl = draw_timeline("llama3", topo, 365, rng(1))
    assert len(tl.interruptions()) > 20 and len(tl) > len(tl.interruptions())
    for s in tl:
        assert s.source == "random" and s.target is not None
        assert index.kind_of(s.target) in CATALOG[s.kind].targets
        assert 0 <= s.at_s < 365 * 86400
    # categories without a kind of their own keep their category
    sram = [s for s in tl if s.category == "GPU SRAM"]
    assert all(s.kind == "aicore_hang" for s in sram)
    assert all(s.category == "none" for s in tl if not CATALOG[s.kind].interrupts)
    assert all(s.duration_s == 600.0 for s in tl if s.kind == "npu_fail_slow")


def test_draw_without_topology_and_errors() -> None:
    tl = draw_timeline("llama3", None, 54, rng(0), accelerators=16384, background=False)
    assert all(s.target is None for s in tl) and 300 < len(tl) < 540
    with pytest.raises(FaultPlanError, match="^accelerators:"):
        draw_timeline("llama3", None, 10, rng())
    with pytest.raises(FaultPlanError, match="^lemons:"):
        draw_timeline("llama3", None, 10, rng(), accelerators=10, lemons=True)
    with pytest.raises(FaultPlanError, match="^profile: unknown profile 'nope'"):
        draw_timeline("nope", None, 10, rng(), accelerators=10)
    with pytest.raises(FaultPlanError, match="^days:"):
        draw_timeline("llama3", None, 0, rng(), accelerators=10)


# ---- replay --------------------------------------------------------------------------------------------
CSV_TRACE = """node,time,event,description
n10,0.5,fault_start,GPU HBM3 memory uncorrectable
n2,1.0,fault_start,network switch/cable
n10,0.75,fault_end,GPU HBM3 memory uncorrectable
n3,2,fault_start,cosmic ray
n3,2.5,fault_end,cosmic ray
n3,4,fault_start,cosmic ray
n4,3,fault_end,faulty GPU
n2,3,fault_start,Kernel panic
"""


def test_replay_csv(tmp_path, topo: Topology) -> None:
    path = tmp_path / "trace.csv"
    path.write_text(CSV_TRACE)
    rep = replay_trace(path, topo, rng(), time_unit="days")
    assert rep.events == 8 and rep.mapped_total == 3
    assert rep.mapped == {"GPU HBM3 memory uncorrectable": 1, "Kernel panic": 1, "network switch/cable": 1}
    assert rep.unmapped == {"cosmic ray": 2}
    assert rep.orphan_ends == 1 and rep.open_faults == 2
    # natural sort of the servers with faults: n2, n3, n10 -> node0..node2 (n4 has only an orphan end)
    assert rep.node_map == {"n2": "pod0/node0", "n3": "pod0/node1", "n10": "pod0/node2"}
    hbm, link, crash = rep.timeline
    assert hbm.kind == "hbm_uce" and hbm.at_s == 0.5 * 86400 and hbm.duration_s == 0.25 * 86400
    assert ids.node_of(hbm.target) == "pod0/node2" and hbm.source == "replay"
    assert link.kind == "link_down" and ids.node_of(link.target) == "pod0/node0" and link.duration_s is None
    assert crash.kind == "node_crash" and crash.target == "pod0/node0"
    assert rep.kinds == {"hbm_uce": 1, "link_down": 1, "node_crash": 1}


def test_replay_json_user_mapping_and_modulo(tmp_path, topo: Topology) -> None:
    events = [{"node_id": f"host{i}", "timestamp": 100 + i, "event_type": "fault_start",
               "category": "Widget failure" if i % 2 else "mystery"} for i in range(50)]
    events.append({"node_id": "host1", "timestamp": 400, "event_type": "fault_end", "category": "Widget failure"})
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(events))
    mapping = tmp_path / "map.yaml"
    mapping.write_text("- {pattern: 'widget', kind: qingtian_failure}\n")
    rep = replay_trace(path, topo, rng(), mapping=mapping)
    assert rep.mapped == {"Widget failure": 25} and rep.unmapped == {"mystery": 25}
    assert rep.node_map["host48"] == "pod0/node0" and rep.node_map["host49"] == "pod0/node1"
    first = next(s for s in rep.timeline if s.origin.startswith(f"{path}[1]"))
    assert first.kind == "qingtian_failure" and first.target == "pod0/node1/qingtian" and first.duration_s == 299
    csv_map = tmp_path / "map.csv"
    csv_map.write_text("pattern,kind\nmystery,silent_data_corruption\n")
    rep2 = replay_trace(path, topo, rng(), mapping=csv_map, extend_default=False)
    assert rep2.mapped == {"mystery": 25} and rep2.unmapped == {"Widget failure": 25}
    bad_map = tmp_path / "bad.csv"
    bad_map.write_text("pattern,kind\nx,bogus_kind\n")
    with pytest.raises(FaultPlanError, match=r"bad\.csv row 1\.kind: unknown fault kind"):
        replay_trace(path, topo, rng(), mapping=bad_map)


def test_replay_errors_name_file_row_field(tmp_path, topo: Topology) -> None:
    def err(name: str, text: str, **kw) -> str:
        p = tmp_path / name
        p.write_text(text)
        with pytest.raises(FaultPlanError) as exc:
            replay_trace(p, topo, rng(), **kw)
        return str(exc.value)

    hdr = "node,time,event,description\n"
    assert err("a.csv", hdr + "n1,5,fault_start,hbm\nn1,3,fault_end,hbm\n").startswith(
        f"{tmp_path / 'a.csv'} row 2.time: fault_end at 3 s is before its fault_start at 5 s")
    assert err("b.csv", hdr + "n1,abc,fault_start,hbm\n").startswith(f"{tmp_path / 'b.csv'} row 1.time: bad time")
    assert err("c.csv", hdr + "n1,1,begin,hbm\n").startswith(f"{tmp_path / 'c.csv'} row 1.event: bad event type")
    assert err("d.csv", "node,time,description\nn1,1,hbm\n").startswith(f"{tmp_path / 'd.csv'}: missing field 'event'")
    assert err("e.csv", hdr + "n1,1,fault_start\n").startswith(f"{tmp_path / 'e.csv'} row 1: has 3 fields")
    assert err("f.json", "[{\"node\": 1,").startswith(f"{tmp_path / 'f.json'}: bad JSON")
    assert err("g.json", json.dumps([{"node": "a", "time": 1, "event": "fault_start", "description": "x"},
                                     {"node": "a", "event": "fault_end", "description": "x"}])).startswith(
        f"{tmp_path / 'g.json'}[1].time: missing")
    assert err("h.csv", hdr + "n1,1,fault_start,hbm\n", time_unit="fortnights").startswith("time_unit:")


def test_replay_is_deterministic(tmp_path, topo: Topology) -> None:
    path = tmp_path / "trace.csv"
    path.write_text(CSV_TRACE)
    a = replay_trace(path, topo, rng(5), time_unit="days")
    assert a.timeline == replay_trace(path, topo, rng(5), time_unit="days").timeline
