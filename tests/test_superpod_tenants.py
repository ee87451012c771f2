"""Tenant slices (issue 21): a fault campaign on tenant a never acts on, reads the cache of, or takes out of service
a component of tenant b -- a property over random campaigns run through the real detection and diagnosis path
(telemetry -> signals -> detector -> engine), including verdicts moved onto b's parts (a localisation error)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from faultlib import ids
from faultlib.ems import EmsPool, NamespaceError
from opsbrain.ops.tenant_run import TENANT_NODES, CampaignItem, build, run_campaign
from opsbrain.ops.tenants import PROVIDER

KINDS = ("node_crash", "hbm_uce", "npu_off_bus", "aicore_hang", "link_down", "node_hang")


def _component(kind: str, node: str, npu: int, die: int, plane: int) -> str:
    if kind in ("node_crash", "node_hang"):
        return node
    if kind == "hbm_uce":
        return f"{node}/npu{npu}/hbm"
    if kind == "npu_off_bus":
        return f"{node}/npu{npu}"
    if kind == "aicore_hang":
        return f"{node}/npu{npu}/die{die}"
    return f"{node}/l1sw{plane}~pod0/l2plane{plane}/sw{npu:02d}"  # link_down: an L1-L2 link of the node


@st.composite
def campaign_items(draw: st.DrawFn) -> CampaignItem:
    kind = draw(st.sampled_from(KINDS))
    a_node = ids.node(0, draw(st.sampled_from(list(TENANT_NODES["a"]))))
    npu, die, plane = draw(st.integers(0, 7)), draw(st.integers(0, 1)), draw(st.integers(0, 6))
    target = _component(kind, a_node, npu, die, plane)
    wrong = draw(st.booleans())
    diag = (_component(kind, ids.node(0, draw(st.sampled_from(list(TENANT_NODES["b"])))), npu, die, plane)
            if wrong else target)
    return CampaignItem(draw(st.floats(0, 1800).map(round)), kind, target, diag)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items=st.lists(campaign_items(), min_size=1, max_size=4), seed=st.integers(0, 1000))
def test_campaign_on_a_never_touches_b(items: list[CampaignItem], seed: int) -> None:
    r = run_campaign(items, seed, horizon_s=1800.0)
    assert r["actions_on_b"] == []
    assert r["ems_reads"]["b"] == 0
    assert r["blast_b"] == 0
    b_nodes = {ids.node(0, i) for i in TENANT_NODES["b"]}
    for inc in r["incident_log"]:
        assert inc["tenant"] != "b"  # only a's telemetry raises incidents: the faults are all on a
        comp = (inc["diagnosis"] or {}).get("component")
        acted = [a for a in inc["actions"] if a.get("status") != "skipped"]  # (a skipped step touched nothing)
        if comp and ids.node_of(comp) in b_nodes and acted:  # a verdict naming b's part is refused
            assert any("tenant scope" in x["reason"] for x in inc["refused"]), inc


def test_without_the_guard_a_wrong_diagnosis_acts_on_b() -> None:
    """The property above can fail: the same campaign without the scope guard acts on b and reads b's cache."""
    items = [CampaignItem(100.0, "node_crash", "pod0/node12", "pod0/node30")]
    off = run_campaign(items, 0, guarded=False)
    on = run_campaign(items, 0, guarded=True)
    assert off["actions_on_b"] and off["ems_reads"]["b"] > 0
    assert on["actions_on_b"] == [] and on["ems_reads"]["b"] == 0
    (inc,) = on["incident_log"]
    assert inc["outcome"] == "held_by_guardrail" and inc["tenant"] == "a"  # the telemetry's tenant, not the verdict's
    assert inc["diagnosis"]["component"] == "pod0/node30"


def test_the_campaign_runs_the_real_detection_and_diagnosis_path() -> None:
    """No verdict is built from the injected kind: the controller's detector opens the incidents and the engine
    names class and component (an HBM UCE and a node crash, both found on their own parts)."""
    r = run_campaign([CampaignItem(100.0, "node_crash", "pod0/node12", "pod0/node12"),
                      CampaignItem(900.0, "hbm_uce", "pod0/node5/npu3/hbm", "pod0/node5/npu3/hbm")], 0)
    assert r["detected"] >= 2
    found = {(i["diagnosis"]["fault_class"], i["diagnosis"]["component"]) for i in r["incident_log"]}
    assert ("node_crash", "pod0/node12") in found and ("hbm_uce", "pod0/node5/npu3/hbm") in found
    assert all(i["id"].startswith("i") and i["tenant"] == "a" for i in r["incident_log"])
    assert r["slo_attainment"]["b"] == 1.0 and r["slo_attainment"]["a"] < 1.0


def test_a_right_diagnosis_is_repaired_inside_a() -> None:
    r = run_campaign([CampaignItem(100.0, "node_crash", "pod0/node12", "pod0/node12")], 0)
    assert list(r["outcomes"].values()) == ["completed"]
    assert r["actions"]["a"] > 0 and r["actions"]["b"] == 0
    assert r["ems_reads"]["a"] >= 1  # the instance restarted with its weights from a's namespace


def test_ownership_and_spare_rule() -> None:
    sim, _orch, guard, _ems, _ctl = build(0)
    m = guard.map
    assert m.tenant_of("pod0/node3/npu2/hbm") == "a"
    assert m.tenant_of("pod0/node30/l1sw1~pod0/l2plane1/sw03") == "b"  # a link belongs to its L1 end's node
    assert m.tenant_of("pod0/l2plane1/sw03") == PROVIDER  # the shared L2 fabric
    assert m.tenant_of("serve-b/decode0") == "b"
    assert m.spare_quota("a") == 2 and m.spare_quota("b") == 2  # ceil(4 spares x 1/2)
    guard.open("i1", "a")
    m.give_spare("a", "pod0/node44")
    m.give_spare("a", "pod0/node45")
    assert "spare quota" in (guard.refuse("i1", "swap_spare", ["pod0/node3"]) or "")
    assert m.tenant_of("pod0/node44") == "a"


def test_ems_namespaces_refuse_other_tenants() -> None:
    pool = EmsPool()
    pool.put("a", "weights/x", 1.0)
    assert pool.read(0.0, "a", "a", "weights/x") == 1.0
    with pytest.raises(NamespaceError):
        pool.read(0.0, "a", "b", "weights/x")
    assert pool.reads_of("b") == 0


def test_run_store_view_per_tenant(tmp_path: Path) -> None:
    from opsbrain.ops.tenants import TenantStoreView
    from opsbrain.store import RunStore

    store = RunStore(tmp_path)
    sim, _orch, guard, _ems, _ctl = build(0)
    inc = [{"id": "i1", "injected": {"kind": "node_crash", "component": "pod0/node3"}, "diagnosis": None},
           {"id": "i2", "injected": {"kind": "node_crash", "component": "pod0/node30"}, "diagnosis": None}]
    both = store.begin_run("shared", 0, "auto")
    store.finish(both, {"verdict": "passed", "tenants": ["a", "b"], "incidents": inc})
    only_b = store.begin_run("b-only", 0, "auto")
    store.finish(only_b, {"verdict": "passed", "tenants": ["b"], "incidents": inc[1:]})
    view = TenantStoreView(store, "a", lambda c: guard.map.tenant_of(c) == "a")
    assert [r["id"] for r in view.list_runs()] == [both]
    j = view.get_journal(both)
    assert j is not None and [i["id"] for i in j["incidents"]] == ["i1"]
    assert view.get_journal(only_b) is None
    # an incident tagged with its tenant (a superpod journal) is that tenant's, whatever part its verdict names
    tagged = [{"id": "i3", "tenant": "a", "injected": None,
               "diagnosis": {"fault_class": "node_crash", "component": "pod0/node30"}}]
    run = store.begin_run("tagged", 0, "auto")
    store.finish(run, {"verdict": "passed", "tenants": ["a", "b"], "incidents": tagged})
    b_view = TenantStoreView(store, "b", lambda c: guard.map.tenant_of(c) == "b")
    assert (b_view.get_journal(run) or {})["incidents"] == []
    assert [i["id"] for i in (view.get_journal(run) or {})["incidents"]] == ["i3"]


def test_blast_radius_is_counted_per_tenant() -> None:
    """Isolations are bounded by the share of the tenant's own slice, not the pod's."""
    from faultlib.health import Health

    sim, _orch, guard, _ems, _ctl = build(0)
    guard.open("i1", "a")
    share = guard.p.max_isolated_node_share
    a_nodes = sorted(guard.map.tenants["a"].nodes, key=lambda n: int(n.rsplit("node", 1)[1]))
    allowed = int(share * len(a_nodes))  # isolating one more would exceed the share of a's 22 nodes
    for n in a_nodes[:allowed]:
        sim.state.set_health(n, Health.ISOLATED, "test")
    why = guard.refuse("i1", "isolate", [a_nodes[allowed]])
    assert why is not None and "tenant blast radius" in why
    guard.open("i2", "b")
    assert guard.refuse("i2", "isolate", ["pod0/node30"]) is None  # b's slice is untouched
    assert guard.map.out_of_service("b") == set()


def test_an_incident_belongs_to_the_tenant_of_its_telemetry() -> None:
    """Signals from one tenant's parts make its incident; signals spanning tenants (or only the shared fabric) make a
    provider incident, on which no tenant's component may be acted."""
    _sim, _orch, guard, _ems, _ctl = build(0)
    assert guard.telemetry_tenant(["pod0/node3", "pod0/node3/npu1"]) == "a"
    assert guard.telemetry_tenant(["pod0/node3", "pod0/node30"]) == PROVIDER
    assert guard.telemetry_tenant(["pod0/l2plane1/sw03"]) == PROVIDER
    guard.open("i9", PROVIDER)
    assert "tenant scope" in (guard.refuse("i9", "reboot_node", ["pod0/node3"]) or "")
