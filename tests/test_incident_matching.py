"""Incidents are matched to injected faults as an operator would (by the most specific part they name), link-downs
reported by either end of a link group as one event, and a held-out host clock shifts the lines' time stamps."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from faultlib.topology import Topology
from opsbrain.detection import Detector, DetectorParams, Incident
from opsbrain.ingest import Signal
from opsbrain.kb import cases as case_lib
from opsbrain.kb import heldout
from opsbrain.runner.scoring import about, inside, match_incidents, most_specific

NODE = "pod1/node34"
HBM = f"{NODE}/npu3/hbm"
OTHER_LINK = f"{NODE}/l1sw5~pod1/l2plane5/sw01"
TARGET_LINK = f"{NODE}/l1sw3~pod1/l2plane3/sw09"


def test_a_flap_on_another_link_of_the_faults_node_is_not_about_the_fault() -> None:
    flap = {OTHER_LINK, NODE, "serve/decode0"}  # the link, the node's switch-fault line, a job stall
    assert most_specific(flap) == {OTHER_LINK, "serve/decode0"}
    assert not about(HBM, flap)
    assert not about(TARGET_LINK, flap)
    assert match_incidents([("f1", "hbm_row_exhaustion", HBM, 100.0, None)], [("i1", 500.0, flap)], 3600.0) == {}


def test_in_the_same_second_the_fault_whose_target_is_the_root_takes_the_incident() -> None:
    # a node's crash and a link of that node injected in the same second (tester T, session 30): the incident whose
    # diagnosis names the node is the crash's, whatever the fault ids' order (the link's target lies in the node too)
    faults = [("f0002", "node_crash", NODE, 1200.0, None), ("f0001", "link_down", TARGET_LINK, 1200.0, None)]
    incident = [("i1", 1203.0, {NODE, TARGET_LINK})]
    assert match_incidents(faults, incident, 3600.0, roots={"i1": NODE}) == {"i1": "f0002"}
    assert match_incidents(faults, incident, 3600.0, roots={"i1": TARGET_LINK}) == {"i1": "f0001"}


def test_the_fault_is_still_found_through_its_own_part_or_the_whole_that_holds_it() -> None:
    assert about(HBM, {f"{NODE}/npu3", NODE})  # the device line names the NPU that holds the stack
    assert about(f"{NODE}/qingtian", {NODE})  # a node-level line alone names the node that holds the card
    assert about(TARGET_LINK, {TARGET_LINK, NODE})
    assert about(NODE, {OTHER_LINK, TARGET_LINK, NODE})  # a crashed node: its links
    assert about("pod1/l2plane3/sw09", {TARGET_LINK})  # a failed L2 chip: a link of it
    assert about(HBM, {f"{NODE}/npu3", OTHER_LINK, NODE})  # a flap joined the HBM fault's incident: still about it


class _Arrival:
    """The detector's clock: the moment a signal reaches it (its time stamp plus ``delay`` unless told)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _detector(reorder_s: float = 0.0, placement: dict[str, list[str]] | None = None
              ) -> tuple[Detector, list[Incident]]:
    clock = _Arrival()
    timers: list[tuple[float, int, Any]] = []

    def schedule(delay: float, fn: Any) -> None:
        timers.append((clock.now + delay, len(timers), fn))

    diagnosed: list[Incident] = []
    det = Detector(DetectorParams(reorder_s=reorder_s), clock, schedule, diagnosed.append, placement)
    raw_feed = det.feed

    def feed(sig: Signal, arrives: float | None = None) -> None:
        """Deliver ``sig`` at ``arrives`` (default: its stamp), running the timers due before then."""
        at = sig.t if arrives is None else arrives
        while timers and min(timers)[0] <= at:
            due = min(timers)
            timers.remove(due)
            clock.now = max(clock.now, due[0])
            due[2]()
        clock.now = max(clock.now, at)
        raw_feed(sig)

    def drain() -> None:
        while timers:
            due = min(timers)
            timers.remove(due)
            clock.now = max(clock.now, due[0])
            due[2]()

    det.feed = feed  # type: ignore[method-assign,assignment]
    det.drain = drain  # type: ignore[attr-defined]
    return det, diagnosed


def _down(t: float, kind: str, link: str = TARGET_LINK) -> Signal:
    host = link.split("~")[0] if kind == "sw:down" else link.split("~")[1]
    return Signal(t, kind, link, host, 2, f"{kind} {link}")


def test_a_link_going_down_again_joins_its_incident_whichever_end_reported_the_first_down() -> None:
    det, _ = _detector()
    det.feed(_down(100.0, "port:down"))  # the L1 end's line was lost: only the L2 side reported it
    det.feed(_down(105.0, "sw:down"))
    det.feed(_down(105.0, "port:down"))
    assert len(det.incidents) == 1
    assert det.flaps_of(TARGET_LINK, 106.0) == 2


def test_another_link_going_down_later_is_still_its_own_incident() -> None:
    det, _ = _detector()
    det.feed(_down(100.0, "port:down"))
    det.feed(_down(130.0, "sw:down", OTHER_LINK))
    assert len(det.incidents) == 2


def test_a_job_event_does_not_stretch_a_hardware_incidents_window_for_new_errors() -> None:
    det, _ = _detector(placement={"serve/decode0": [NODE]})
    det.feed(_down(100.0, "sw:down", OTHER_LINK))
    det.feed(Signal(700.0, "job:instance_hang", "serve/decode0", None, 2, "instance hang"))
    det.feed(Signal(700.5, "dev:80E18402", f"{NODE}/npu3", f"{NODE}/npu3", 2, "device fault"))
    assert len(det.incidents) == 2  # the job event joins the flap's incident; the device error opens its own
    assert [s.kind for s in det.incidents[1].signals] == ["dev:80E18402"]


def test_a_stalled_jobs_collective_failure_on_another_of_its_nodes_joins_the_fault_that_stalled_it() -> None:
    """link-down-manual (issue 16 d): the dead uplink stalls the job; 5 s later CANN's default retry has run out and
    a rank on another node of the job reports the failed collective (EI0006, the job's crash event). That rank
    reports the fault, it is not one: one incident, live and read back from a bundle alike."""
    other = "pod1/node32"
    det, _ = _detector(placement={"train": [other, NODE]})
    det.feed(_down(600.0, "sw:down"))
    det.feed(Signal(600.0, "job:stalled", "train", None, 2, "train: stalled"))
    det.feed(Signal(605.0, "job:crash", other, None, 2, "train: crash"))
    det.feed(Signal(605.0, "hccl:EI0006", f"{other}/npu0", other, 2, "EI0006: Getting socket times out."))
    det.feed(Signal(605.0, "msg:comm_timeout", f"{other}/npu0", other, 2, "EI0006: Getting socket times out."))
    assert len(det.incidents) == 1
    det, _ = _detector(placement={"train": [other, NODE]})
    det.feed(_down(600.0, "sw:down"))  # no stall of the job joined the link's incident
    det.feed(Signal(605.0, "hccl:EI0006", f"{other}/npu0", other, 2, "EI0006: Getting socket times out."))
    assert len(det.incidents) == 2


def _l2_port_down(t: float, node: int, chip: str = "pod1/l2plane3/sw09") -> Signal:
    link = f"pod1/node{node}/l1sw3~{chip}"
    return Signal(t, "port:down", link, chip, 2, f"port down {link}")


def _node_down(t: float, node: int, plane: int) -> Signal:
    link = f"pod1/node{node}/l1sw{plane}~pod1/l2plane{plane}/sw09"
    return Signal(t, "sw:down", link, f"pod1/node{node}/l1sw{plane}", 2, f"sw down {link}")


def test_a_host_whose_clock_is_ahead_is_moved_onto_the_collectors_clock() -> None:
    """A crashed node's links seen from the L2 side: one L2 chip's clock is 6 s ahead. Its line reaches the detector
    before its own stamp, which proves the lead: it joins the event's incident instead of opening its own."""
    det, _ = _detector(reorder_s=3.0)
    for plane in range(6):
        det.feed(_l2_port_down(100.0, 34, f"pod1/l2plane{plane}/sw09"), arrives=100.4)
    det.feed(_l2_port_down(106.0, 34, "pod1/l2plane6/sw09"), arrives=100.6)
    det.drain()
    assert len(det.incidents) == 1 and len(det.incidents[0].signals) == 7
    assert det.clock_lead["pod1/l2plane6/sw09"] > 5.0 and det.clock_lead["pod1/l2plane0/sw09"] < 0


def test_a_first_line_from_a_clock_that_is_behind_does_not_split_the_event() -> None:
    """An L2 chip's failure seen by its peers: one node's clock is 5 s behind, so its line is processed first and
    opens the incident at its early stamp; the event lies between that stamp and the line's arrival, so the peers'
    lines of the same second still join."""
    det, _ = _detector(reorder_s=3.0)
    det.feed(_node_down(95.0, 3, 3), arrives=100.5)
    for node in range(4, 12):
        det.feed(_node_down(100.0, node, 3), arrives=100.8)
    det.drain()
    assert len(det.incidents) == 1 and len(det.incidents[0].signals) == 9


def test_synchronized_stamps_are_kept_and_a_later_link_down_is_its_own_incident() -> None:
    det, _ = _detector(reorder_s=3.0)
    det.feed(_node_down(100.0, 3, 3), arrives=100.5)
    det.feed(_node_down(100.0, 4, 3), arrives=101.7)
    det.feed(_node_down(108.0, 5, 3), arrives=108.4)  # the same chip, 8 s later: another event
    det.drain()
    assert [len(i.signals) for i in det.incidents] == [2, 1]
    assert [s.t for i in det.incidents for s in i.signals] == [100.0, 100.0, 108.0]


def test_the_clock_axis_is_held_out_and_shifts_time_stamps_per_host(topo1: Topology) -> None:
    axis = next(a for a in heldout.AXES if a.name == "clock")
    assert axis.training == ("synchronized",)
    assert case_lib.TRAIN_WORLD.collected_as_emitted()
    w = heldout.world_for({"clock": axis.held_out[1]})
    assert (w.clock_skew_s, w.skewed_hosts) == (7.0, 0.1) and not w.collected_as_emitted()
    w = replace(case_lib.TRAIN_WORLD, clock_skew_s=5.0, skewed_hosts=1.0)
    sim = case_lib.build_world(11, topo1, world=w)
    ctl = case_lib.CollectedController(sim, case_lib.Recorder(), w, np.random.default_rng(3))
    a, b = ctl.clock_offset("pod0/node3/npu2"), ctl.clock_offset("pod0/node3")
    assert a == b and 0 < abs(a) <= 5.0  # one host, one clock (its NPUs' logs and its syslog)
    offsets = {ctl.clock_offset(f"pod0/node{n}") for n in range(40)} | {ctl.clock_offset("pod0/l2plane1/sw02")}
    assert len(offsets) == 41 and all(abs(x) <= 5.0 for x in offsets)
    seen: list[Signal] = []
    ctl.detector.feed = seen.append  # type: ignore[method-assign,assignment]
    from faultlib.telemetry import LogLine

    ctl._on_record(LogLine(1000.0, "pod0/node3", "syslog", "error",
                           "pod0-node3 kernel: Kernel panic - not syncing: Fatal exception"))
    assert seen and all(s.t == 1000.0 + b for s in seen)


def _brute_most_specific(components: set[str]) -> set[str]:
    return {c for c in components if not any(o != c and inside(o, c) for o in components)}


def _brute_match(faults: list, incidents: list, horizon_s: float) -> dict[str, str]:
    """The definition, scanning every fault for every incident (the reference for the indexed search)."""
    from opsbrain.runner.scoring import names_target

    out = {}
    for inc_id, opened, comps in incidents:
        spec = _brute_most_specific(comps)
        best = None
        for fid, _k, target, onset, ended in faults:
            if onset > opened + 1e-9 or opened > (float("inf") if ended is None else ended) + horizon_s:
                continue
            if names_target(target, spec) and (best is None or (opened - onset, fid) < best):
                best = (opened - onset, fid)
        if best is not None:
            out[inc_id] = best[1]
    return out


def test_indexed_matching_equals_the_scan_of_every_fault() -> None:
    """Random parts of a small pod (nodes, NPUs, HBM stacks, links both ways, L2 chips): the indexed search finds
    exactly what scanning every fault finds, and most_specific equals its quadratic definition."""
    import random

    rng = random.Random(15)
    nodes = [f"pod0/node{i}" for i in range(3)]
    parts = nodes + [f"{n}/npu{k}" for n in nodes for k in range(2)] + [f"{n}/npu0/hbm1" for n in nodes]
    chips = [f"pod0/l2plane{k}/sw0{k}" for k in range(2)]
    links = [f"{n}/l1sw0~{c}/osfp{j}" for n in nodes for c in chips for j in range(2)] + [f"{n}~{c}" for n in nodes
                                                                                           for c in chips]
    names = parts + chips + links
    for _ in range(300):
        faults = [(f"f{k}", "x", rng.choice(names), rng.uniform(0, 100), rng.choice([None, rng.uniform(100, 200)]))
                  for k in range(rng.randint(0, 6))]
        incidents = [(f"i{k}", rng.uniform(0, 300), set(rng.sample(names, rng.randint(1, 5)))) for k in range(4)]
        for _id, _t, comps in incidents:
            assert most_specific(comps) == _brute_most_specific(comps)
        assert match_incidents(faults, incidents, 50.0) == _brute_match(faults, incidents, 50.0)
