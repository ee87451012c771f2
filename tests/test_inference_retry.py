"""HCCL operator retry in the inference service: a stalled collective resumes on the re-execution grid, and the
error surfaces when MaxCnt re-executions found the path dead (CANN HCCL_OP_RETRY_PARAMS; workloads/op_retry.py)."""

from __future__ import annotations

import pytest

from faultlib.engine import Simulation
from faultlib.health import Health
from faultlib.topology import Topology
from faultlib.workloads.inference import InferenceService, paper_layout
from faultlib.workloads.op_retry import reexecution_offsets_s

AUTO = {"op_retry_hold_s": 1.0, "op_retry_interval_s": 4.0, "op_retry_max_cnt": 10}  # the auto policy's launch


def _svc(topo: Topology, **overrides: float) -> tuple[Simulation, InferenceService, list[str]]:
    sim = Simulation(seed=0, topology=topo)
    pre, dec = paper_layout(sim.topology)
    svc = InferenceService("dsr1", pre, dec, sim.params.inference.model_copy(update=overrides))
    sim.add_workload(svc)
    return sim, svc, dec


def _kill_path(sim: Simulation, node: str) -> None:
    sim.state.set_health(sim.fabric.node_uplinks(node)[7], Health.FAILED, "test")


def _events(sim: Simulation, kind: str) -> list:
    return [e for e in sim.telemetry.events if e.kind == kind]


def test_the_cann_defaults_are_the_services_own() -> None:
    from faultlib.simparams import SimParams

    p = SimParams().inference
    assert (p.op_retry_hold_s, p.op_retry_interval_s, p.op_retry_max_cnt) == (5.0, 1.0, 1)
    assert reexecution_offsets_s(p) == [5.0]
    assert reexecution_offsets_s(p.model_copy(update=AUTO)) == [1.0 + 4.0 * k for k in range(10)]


@pytest.mark.parametrize("back_after", [0.5, 2.5, 11.7])
def test_a_stalled_decode_resumes_at_the_first_reexecution_after_the_path_is_back(
        topo1: Topology, back_after: float) -> None:
    sim, svc, dec = _svc(topo1, **AUTO)
    sim.run(100.0)
    _kill_path(sim, dec[0])
    assert svc.throughput_at(100.0) == 0.0
    sim.run(100.0 + back_after)
    sim.fabric.reroute(dec[0])  # the path is back ...
    assert svc.throughput_at(sim.now) == 0.0  # ... but the collective waits for its next re-execution
    want = next(100.0 + o for o in reexecution_offsets_s(svc.p) if 100.0 + o >= 100.0 + back_after)
    sim.run(want - 1e-6)
    assert svc.throughput_at(sim.now) == 0.0
    sim.run(want + 1e-6)
    assert svc.throughput_at(sim.now) > 0.99 * svc.accounting()["demand_tokens_per_s"]
    resumed = _events(sim, "instance_resumed")[-1]
    assert resumed.t == pytest.approx(want) and resumed.detail["after"] == "retry"
    assert svc.instances()["dsr1/decode0"]["state"] == "running"


def test_with_the_cann_default_maxcnt_the_error_surfaces_at_the_holdtime(topo1: Topology) -> None:
    sim, svc, dec = _svc(topo1)  # MaxCnt 1, HoldTime 5 s, as CANN ships
    sim.run(100.0)
    _kill_path(sim, dec[2])
    sim.run(104.9)
    assert svc.instances()["dsr1/decode0"]["state"] == "running"  # stalled, not yet failed
    sim.run(105.1)
    assert svc.instances()["dsr1/decode0"]["state"] == "down"
    crash = _events(sim, "instance_crash")[-1]
    assert crash.t == pytest.approx(105.0)
    assert "EI0006" in crash.detail["reason"] and crash.detail["node"] != dec[2]  # a peer reports it
    sim.fabric.reroute(dec[2])  # too late: the processes exited
    assert svc.throughput_at(sim.now) == 0.0


def test_maxcnt_reexecutions_that_all_find_the_path_dead_take_the_instance_down(topo1: Topology) -> None:
    sim, svc, dec = _svc(topo1, **AUTO)
    sim.run(100.0)
    _kill_path(sim, dec[5])
    last = 100.0 + reexecution_offsets_s(svc.p)[-1]  # 137 s
    sim.run(last - 0.01)
    assert svc.instances()["dsr1/decode0"]["state"] == "running"
    sim.run(last + 0.01)
    assert svc.instances()["dsr1/decode0"]["state"] == "down"
    assert _events(sim, "instance_crash")[-1].t == pytest.approx(last)


def test_a_flap_shorter_than_the_holdtime_costs_the_holdtime(topo1: Topology) -> None:
    sim, svc, dec = _svc(topo1, **AUTO)
    sim.run(100.0)
    link = sim.fabric.node_uplinks(dec[1])[7]
    sim.state.set_health(link, Health.FAILED, "test")
    sim.run(100.4)
    sim.state.set_health(link, Health.HEALTHY, "test")
    sim.run(100.99)
    assert svc.throughput_at(sim.now) == 0.0
    sim.run(101.01)
    assert svc.throughput_at(sim.now) > 0.0
    assert _events(sim, "instance_resumed")[-1].detail["stalled_s"] == pytest.approx(1.0)


def test_a_path_back_after_the_hang_timeout_still_resumes_on_its_reexecution(topo1: Topology) -> None:
    slow = {"op_retry_hold_s": 30.0, "op_retry_interval_s": 60.0, "op_retry_max_cnt": 10}  # 30, 90, .., 570 s
    # re-executions that outlast the 360 s timeout: a path still dead then times out ...
    sim, svc, dec = _svc(topo1, **slow)
    _kill_path(sim, dec[1])
    sim.run(svc.p.hang_timeout_s + 1.0)
    assert svc.instances()["dsr1/decode0"]["state"] == "down"
    assert svc.instances()["dsr1/decode0"]["reason"] == "collective timeout"
    # ... and one back before it waits for its next re-execution (390 s)
    sim2, svc2, dec2 = _svc(topo1, **slow)
    _kill_path(sim2, dec2[1])
    sim2.run(350.0)
    sim2.fabric.reroute(dec2[1])
    sim2.run(svc2.p.hang_timeout_s + 1.0)
    assert svc2.instances()["dsr1/decode0"]["state"] == "running" and svc2.throughput_at(sim2.now) == 0.0
    sim2.run(391.0)
    assert svc2.throughput_at(sim2.now) > 0.0
    assert _events(sim2, "instance_resumed")[-1].t == pytest.approx(390.0)
