"""Issue 15, variety the real world has: how many lines a stall prints follows the job it hits, and the torch_npu
release decides how a rank's device error reads; both reach the ops brain through the same parsers."""

from __future__ import annotations

import re

from faultlib.topology import Topology
from opsbrain.ingest import parse_line
from opsbrain.kb import cases as case_lib
from opsbrain.kb import heldout
from tests import twin_emissions as te

NEWER = {"telemetry.torch_npu_messages": "error_codes"}  # the newer torch_npu alone


def _waits(lines: list[te.LogLine]) -> list[te.LogLine]:
    return [ln for ln in lines if "taskType[Notify Wait]" in ln.text]


def test_every_peer_rank_of_a_stalled_job_reports_its_own_wait() -> None:
    e = te.emit("collective_timeout_sw")
    waits = _waits(e.lines)
    peers = len(te.TRAINING_NODES) - 1
    assert len(waits) == peers * 8, len(waits)  # every rank (8 per node) on the 13 other nodes
    pids = {re.search(r"HCCL\((\d+),", ln.text).group(1) for ln in waits}  # type: ignore[union-attr]
    assert len(pids) == len(waits)  # each from its own process's plog
    assert len({ln.origin for ln in waits}) == peers


def test_a_smaller_job_prints_fewer_waits() -> None:
    small = heldout.world_for({"job_size": "8 nodes"})
    assert len(small.training_nodes) == 8 and len(case_lib.TRAIN_WORLD.training_nodes) == 14
    assert small.training_nodes == case_lib.TRAIN_WORLD.training_nodes[:8]


def test_the_newer_torch_npu_prints_the_pta_error_and_the_parsers_read_it() -> None:
    old, new = te.emit("hbm_uce"), te.emit("hbm_uce", sim_params=NEWER)
    crash_old = [ln.text for ln in old.lines if ln.source == "train"]
    crash_new = [ln.text for ln in new.lines if ln.source == "train"]
    assert crash_old and all("InnerRun" in t for t in crash_old)
    assert crash_new and all("ERR00100 PTA call acl api failed" in t and "error code is 507053" in t
                             for t in crash_new)
    kinds_old = {s.kind for t in crash_old for s in parse_line(t, 0.0, origin="pod0/node40")}
    kinds_new = {s.kind for t in crash_new for s in parse_line(t, 0.0, origin="pod0/node40")}
    assert "rt:507053" in kinds_old and "rt:507053" in kinds_new
    assert "err:ERR00100" in kinds_new and "err:ERR00100" not in kinds_old


def test_the_newer_megatron_stops_a_nan_gradient_through_the_rerun_state_machine() -> None:
    e = te.emit("silent_data_corruption", sim_params=case_lib.SOFTWARE["newer"])
    crash = [ln.text for ln in e.lines if ln.source == "train"]
    assert crash and all("Unexpected result nan (message='found NaN in local grad norm for bucket #0" in t
                         for t in crash)
    kinds = {s.kind for t in crash for s in parse_line(t, 0.0, origin="pod0/node40")}
    assert {"train:nan", "py:RuntimeError"} <= kinds


def test_a_lane_loss_is_relayed_by_the_node_device_plugin() -> None:
    e = te.emit("optical_degradation", params={"dbm_per_hour": 60.0})  # fast enough to lose lanes in the window
    lanes = [ln for ln in e.lines if "0x00f10509" in ln.text]
    assert {ln.source for ln in lanes} == {"switch", "device_plugin"}
    assert sum(ln.source == "switch" for ln in lanes) == sum(ln.source == "device_plugin" for ln in lanes)


def test_the_held_out_axes_set_the_release_the_job_and_the_serving_layout() -> None:
    assert heldout.world_for({}).software == "older" and heldout.world_for({}).prefill == (6, 2)
    runs = heldout.plan_heldout(1)
    assert all(args[-1].software == "newer" for args, _v in runs)
    assert all(len(args[-1].training_nodes) in (8, 11) for args, _v in runs)
    assert all(args[-1].prefill in ((3, 4), (4, 4)) and args[-1].decode_nodes in (16, 20) for args, _v in runs)
    assert {(args[-1].prefill, args[-1].decode_nodes) for args, _v in runs} == {((3, 4), 20), ((4, 4), 16),
                                                                                 ((3, 4), 16)}
    w = next(args[-1] for args, _v in runs if args[-1].prefill == (4, 4))
    sim = case_lib.build_world(1, Topology.build(pods=w.pods), world=w)
    assert sim.params.telemetry.torch_npu_messages == "error_codes"
    ip = sim.params.inference
    assert (ip.prefill_instances, ip.prefill_nodes_per_instance, ip.decode_nodes) == (4, 4, 16)
    serve = next(w for w in sim.workloads.values() if w.kind == "inference")
    first, last = serve.nodes[0], serve.nodes[-1]
    assert sum(serve.instance_of(n) == serve.instance_of(first) for n in serve.nodes) == 4
    assert sum(serve.instance_of(n) == serve.instance_of(last) for n in serve.nodes) == 16  # the decode instance
