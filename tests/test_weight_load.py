"""Readings of the paper's weight cold-start figure (faultlib.workloads.weight_load) and the start stages an added
instance pays under each; the twin's figures keep the ``resident`` reading."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from faultlib.engine import Simulation
from faultlib.workloads.elastic import ElasticInferenceService
from faultlib.workloads.inference import InferenceParams, Roofline, paper_layout
from faultlib.workloads.weight_load import ACCOUNTINGS, node_bytes, node_share
from opsbrain.ops.schedule_run import ScheduleSetup, run_schedule
from opsbrain.ops.setup import ops_params

P = InferenceParams()


def test_shares_of_the_paper_layouts() -> None:
    """EP320 decode (160 NPUs) and EP32 prefill (16 NPUs) on 8-NPU, 2-die nodes."""
    assert node_share(P, 160, 8, 2, "resident") == pytest.approx(16 * (17.1 + 653.9 / 320) / 671, rel=1e-9)
    assert node_share(P, 16, 8, 2, "resident") == pytest.approx(16 * (17.1 + 653.9 / 32) / 671, rel=1e-9)
    assert node_share(P, 160, 8, 2, "unique") == pytest.approx((17.1 + 653.9 / 20) / 671, rel=1e-9)
    assert node_share(P, 16, 8, 2, "unique") == pytest.approx((17.1 + 653.9 / 2) / 671, rel=1e-9)
    assert node_share(P, 160, 8, 2, "instance") == 1.0
    with pytest.raises(ValueError, match="weight accounting"):
        node_share(P, 16, 8, 2, "per-die")  # type: ignore[arg-type]


def test_resident_is_what_the_roofline_holds_per_node() -> None:
    """The ``resident`` reading is the serving model's own resident weights (inference.py), not a second model."""
    roof = Roofline(P, 392.0, 2)
    for npus in (16, 32, 160):
        assert node_bytes(P, npus, 8, 2, "resident") == pytest.approx(roof.weights_per_npu_bytes(npus) * 8)


@settings(max_examples=60, deadline=None)
@given(nodes=st.integers(1, 48), npn=st.sampled_from([4, 8]), dies=st.sampled_from([1, 2]))
def test_unique_never_exceeds_resident_and_shares_stay_in_range(nodes: int, npn: int, dies: int) -> None:
    npus = nodes * npn
    shares = {a: node_share(P, npus, npn, dies, a) for a in ACCOUNTINGS}
    assert 0.0 < shares["unique"] <= shares["resident"] + 1e-12
    assert shares["resident"] <= shares["instance"] == 1.0
    if dies * npn > 1:  # the dense part is replicated on every die of the node: fewer distinct bytes
        assert node_bytes(P, npus, npn, dies, "unique") < node_bytes(P, npus, npn, dies, "resident")


def _start(accounting: str, overlap: float = 0.0, source: str = "ems") -> dict:
    sim = Simulation(ops_params(), seed=5, pods=1)
    pre, dec = paper_layout(sim.topology, 0, sim.params.inference)
    svc = ElasticInferenceService("serve", pre, dec, sim.params.inference)
    svc.weights_accounting, svc.relaunch_overlap = accounting, overlap  # type: ignore[assignment]
    svc.weights_source = source  # type: ignore[assignment]
    sim.add_workload(svc)
    _q, proc = svc.add_instance("prefill", [f"pod0/node{i}" for i in (32, 33)])
    sim.run(12000.0)
    assert proc.value["ok"]
    return proc.value


def test_an_added_instance_pays_its_reading_of_the_same_draw() -> None:
    """Same seed, same streams: the weight stage scales with the node's share, the relaunch is untouched."""
    runs = {a: _start(a) for a in ACCOUNTINGS}
    for a in ("unique", "instance"):
        assert runs[a]["relaunch_s"] == runs["resident"]["relaunch_s"]
        ratio = node_share(P, 16, 8, 2, a) / node_share(P, 16, 8, 2, "resident")
        assert runs[a]["weights_s"] == pytest.approx(runs["resident"]["weights_s"] * ratio, rel=1e-9)


def test_relaunch_overlap_moves_the_relaunch_beside_the_weights() -> None:
    base, half, full = _start("resident"), _start("resident", 0.5), _start("resident", 1.0)
    r, w = base["relaunch_s"], base["weights_s"]
    assert half["relaunch_s"] == pytest.approx(r / 2) and half["weights_s"] == pytest.approx(max(w, r / 2))
    assert full["relaunch_s"] == 0.0 and full["weights_s"] == pytest.approx(max(w, r))
    assert full["duration_s"] < base["duration_s"]


def test_the_schedule_default_is_the_resident_reading() -> None:
    """ScheduleSetup() runs the twin's model; an explicit "resident" gives the same switch times."""
    a = run_schedule(ScheduleSetup(), 4)
    b = run_schedule(ScheduleSetup(weights_accounting="resident", relaunch_overlap=0.0), 4)
    assert a["node_switch_s"] == b["node_switch_s"]
    u = run_schedule(ScheduleSetup(weights_accounting="unique"), 4)
    assert u["stages_s"]["to inference: prefill_weights"][0] < a["stages_s"]["to inference: prefill_weights"][0]
    assert u["node_switch_s"]["training"] == a["node_switch_s"]["training"]  # dusk loads no serving weights


def test_without_the_model_in_the_ems_pool_the_weights_come_from_object_storage() -> None:
    ems, obs = _start("resident"), _start("resident", source="obs")
    assert obs["action"] == "add_instance(obs)" and ems["action"] == "add_instance(ems)"
    assert obs["weights_s"] > 5 * ems["weights_s"]  # the paper's 2,560 s against 320 s, each with its own draw
