"""Two readings an operator has beside the lines reach the features: the pace of a link's lane losses (its alarm
history) and whether a workload runs on the incident's nodes (the scheduler's allocation)."""

from __future__ import annotations

from faultlib.topology import Topology
from opsbrain.controller import Controller
from opsbrain.detection import NO_HISTORY, Detector, DetectorParams, LinkHistory
from opsbrain.diagnosis.features import MAGNITUDE_FLOOR, MAGNITUDE_SHIFT, gap_magnitude, incident_features
from opsbrain.ingest import Signal
from opsbrain.kb import cases as case_lib
from opsbrain.kb.cases import Recorder

LINK = "pod0/node40/l1sw3~pod0/l2plane3/sw05"
NODE = "pod0/node40"


def _lanes(t: float) -> Signal:
    return Signal(t, "sw:lanes", LINK, "pod0/node40/l1sw3", 2, "")


class _Records:
    def __init__(self, times: tuple[float, ...]) -> None:
        self.times = times

    def flaps(self, link: str) -> int:
        return 0

    def lanes_lost(self, link: str) -> bool:
        return bool(self.times)

    def lane_losses(self, link: str) -> tuple[float, ...]:
        return self.times if link == LINK else ()


def test_gap_magnitude_is_hours_in_factors_of_two() -> None:
    bins = [gap_magnitude(h * 3600.0) - MAGNITUDE_SHIFT for h in (0.2, 0.3, 0.5, 1.0, 1.9, 2.0, 4.5)]
    assert bins == [-3, -2, -1, 0, 0, 1, 2]
    assert gap_magnitude(0.0) == gap_magnitude(1.0) == MAGNITUDE_FLOOR + MAGNITUDE_SHIFT  # never log of zero
    assert gap_magnitude(0.0) > 0  # a reading never looks like an absent feature (0 in the vectorizer)


def test_the_gap_counts_from_the_previous_lane_loss_not_this_incidents_own() -> None:
    now = 20_000.0
    slow = incident_features([_lanes(now)], now, _Records((now - 5 * 3600.0, now)))
    fast = incident_features([_lanes(now)], now, _Records((now - 0.4 * 3600.0, now - 10.0, now)))
    assert (slow["lane_gap_log2"], fast["lane_gap_log2"]) == (2.0 + MAGNITUDE_SHIFT, -2.0 + MAGNITUDE_SHIFT)
    assert "lane_gap_log2" not in incident_features([_lanes(now)], now, _Records((now - 10.0, now)))
    assert "lane_gap_log2" not in incident_features([_lanes(now)], now, NO_HISTORY)  # pasted text: no records


def test_the_detector_keeps_24h_of_lane_losses_per_link() -> None:
    clock = {"t": 0.0}
    det = Detector(DetectorParams(reorder_s=0.0), lambda: clock["t"], lambda _d, _f: None, lambda _i: None, {})
    for t in (100.0, 4000.0, 90_000.0):
        clock["t"] = t
        det.feed(_lanes(t))
    assert LinkHistory(det, 90_000.0).lane_losses(LINK) == (4000.0, 90_000.0)  # 100 s is older than 24 h
    assert LinkHistory(det, 90_000.0).lane_losses("pod0/node1/l1sw0~pod0/l2plane0/sw00") == ()
    assert NO_HISTORY.lane_losses(LINK) == ()


def test_idle_nodes_come_from_the_allocation_and_are_absent_without_one() -> None:
    sig = Signal(10.0, "dev:80E00209", NODE + "/npu3", NODE + "/npu3", 2, "")
    busy = incident_features([sig], 12.0, metric=lambda n, c: 8.0 if n == "node_npus_allocated" else None)
    idle = incident_features([sig], 12.0, metric=lambda n, c: 0.0 if n == "node_npus_allocated" else None)
    assert ("idle_nodes" not in busy, round(idle["idle_nodes"], 4)) == (True, 0.6931)
    assert "idle_nodes" not in incident_features([sig], 12.0, metric=lambda n, c: None)
    assert "idle_nodes" not in incident_features([sig], 12.0)


def test_the_controller_reads_the_allocation_from_the_workloads_placement() -> None:
    sim = case_lib.build_world(3, Topology.build())
    ctl = Controller(sim, Recorder())
    per_node = sim.topology.params.npus_per_node
    train = case_lib.TRAIN_WORLD.training_nodes[0]
    assert ctl.metric("node_npus_allocated", f"pod{train[0]}/node{train[1]}") == float(per_node)
    assert ctl.metric("node_npus_allocated", "pod0/node47") == 0.0  # no workload there in the training world
    assert ctl.metric("node_npus_allocated", "pod0/node47/npu0") is None  # not a node


def test_a_faster_cooling_loss_reads_a_faster_climb_at_the_alarm() -> None:
    from faultlib.injection.spec import FaultSpec
    from opsbrain.diagnosis.features import rise_magnitude

    topo = Topology.build()
    hbm = NODE + "/npu3/hbm"

    def climb_at_alarm(ramp_s: float) -> float:
        sim = case_lib.build_world(4, topo)
        ctl = Controller(sim, Recorder())
        sim.inject(FaultSpec(at_s=100.0, kind="hbm_overtemp", target=hbm, params={"ramp_s": ramp_s}))
        sim.run(100.0 + ramp_s * 25.0 / 35.0 + 1.0)  # nominal 70 -> alarm 95 of fatal 105 degC
        rise = ctl.metric("hbm_temp_rise_c_per_min", hbm)
        assert rise is not None and rise > 0
        return rise_magnitude(rise)

    assert climb_at_alarm(90.0) > climb_at_alarm(300.0) > climb_at_alarm(1500.0)
    assert Controller(case_lib.build_world(4, topo), Recorder()).metric("hbm_temp_rise_c_per_min", hbm) is None
