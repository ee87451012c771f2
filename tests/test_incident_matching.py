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


def test_the_fault_is_still_found_through_its_own_part_or_the_whole_that_holds_it() -> None:
    assert about(HBM, {f"{NODE}/npu3", NODE})  # the device line names the NPU that holds the stack
    assert about(f"{NODE}/qingtian", {NODE})  # a node-level line alone names the node that holds the card
    assert about(TARGET_LINK, {TARGET_LINK, NODE})
    assert about(NODE, {OTHER_LINK, TARGET_LINK, NODE})  # a crashed node: its links
    assert about("pod1/l2plane3/sw09", {TARGET_LINK})  # a failed L2 chip: a link of it
    assert about(HBM, {f"{NODE}/npu3", OTHER_LINK, NODE})  # a flap joined the HBM fault's incident: still about it


def _detector() -> tuple[Detector, list[Incident]]:
    clock = [0.0]
    timers: list[tuple[float, Any]] = []

    def schedule(delay: float, fn: Any) -> None:
        timers.append((clock[0] + delay, fn))

    diagnosed: list[Incident] = []
    det = Detector(DetectorParams(reorder_s=0.0), lambda: clock[0], schedule, diagnosed.append)
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
    placement = {"serve/decode0": [NODE]}
    clock = [0.0]
    det = Detector(DetectorParams(reorder_s=0.0), lambda: clock[0], lambda d, f: None, lambda i: None, placement)
    det.feed(_down(100.0, "sw:down", OTHER_LINK))
    det.feed(Signal(700.0, "job:instance_hang", "serve/decode0", None, 2, "instance hang"))
    det.feed(Signal(700.5, "dev:80E18402", f"{NODE}/npu3", f"{NODE}/npu3", 2, "device fault"))
    assert len(det.incidents) == 2  # the job event joins the flap's incident; the device error opens its own
    assert [s.kind for s in det.incidents[1].signals] == ["dev:80E18402"]


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
