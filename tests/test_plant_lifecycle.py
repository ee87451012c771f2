"""Plant behaviours of issue 17: a replaced part's faults end with it; a checkpoint write depends on its data path
(the node's Qingtian card); an in-place recovery during a write aborts the write and keeps the in-memory copy."""

from __future__ import annotations

import pytest

from faultlib.engine import Simulation
from faultlib.health import Health
from faultlib.injection.spec import FaultSpec
from faultlib.topology import Topology
from faultlib.workloads.training import TrainingJob
from tests.test_training import fixed

T0 = 600.0
LINK = "pod0/node40/l1sw4~pod0/l2plane4/sw09"


def _job(topo: Topology, seed: int = 3, **over: object) -> tuple[Simulation, TrainingJob]:
    sim = Simulation(seed=seed, topology=topo)
    job = TrainingJob("llm", sim.topology.nodes()[:8], fixed(**over))
    sim.add_workload(job)
    return sim, job


def _in_write(sim: Simulation, job: TrainingJob, limit: float = 4000.0) -> None:
    """Run until the job is writing its persistent checkpoint."""
    while job.state != "checkpointing" and sim.now < limit:
        sim.run(sim.now + 0.5)
    assert job.state == "checkpointing"


def test_replacing_a_degrading_module_ends_its_fault(topo1: Topology) -> None:
    sim = Simulation(seed=5, topology=topo1)
    sim.run(T0)
    f = sim.inject(FaultSpec(at_s=T0, kind="optical_degradation", target=LINK, params={"dbm_per_hour": 0.02}))
    sim.run(T0 + 60)
    done = sim.control.replace_part(LINK)
    sim.run(sim.now + 1.0)
    while not done.triggered:
        sim.run(sim.now + 3600)
    assert done.value.status == "succeeded"
    assert f.ended_at_s == pytest.approx(done.value.end_s)
    end = next(e for e in sim.trace.events if e.kind == "fault_end" and e.detail.get("id") == f.id)
    assert end.detail.get("cause") == "replace_part"
    # the new module does not fail on the old one's schedule (at 0.02 dB/h the old one died within 40 days)
    sim.run(T0 + 40 * 86400)
    assert sim.state.lanes_down(LINK) == 0 and sim.state.health(LINK) == Health.HEALTHY


def test_replacing_a_node_ends_the_faults_of_its_parts(topo1: Topology) -> None:
    sim = Simulation(seed=5, topology=topo1)
    npu = sim.topology.npus_of("pod0/node3")[0]
    week = 7 * 86400.0
    f = sim.inject(FaultSpec(at_s=10.0, kind="npu_fail_slow", target=npu, params={}, duration_s=week))
    other = sim.inject(FaultSpec(at_s=10.0, kind="npu_fail_slow", target=sim.topology.npus_of("pod0/node4")[0],
                                 params={}, duration_s=week))
    sim.run(20.0)
    done = sim.control.replace_part("pod0/node3")
    while not done.triggered:
        sim.run(sim.now + 3600)
    sim.run(sim.now + 1.0)
    assert f.ended_at_s is not None and f.ended_at_s <= done.value.end_s + 1e-9
    assert other.ended_at_s is None  # a part of another node keeps its fault


def test_a_replaced_chip_comes_back_with_its_dies_and_its_node_is_in_service_again(topo1: Topology) -> None:
    """Issue 16 (ETTR trap): a hung AI Core with no repair time of its own leaves its die failed; the replacement of
    the chip brings a new chip, dies and HBM rows included, so its node is back in service and a job placed there
    can start (before: the die stayed failed under the new chip and every restart of the job failed on it)."""
    from faultlib import ids
    from opsbrain.recovery.targets import out_of_service

    sim, job = _job(topo1)
    node = job.nodes[3]
    npu = sim.topology.npus_of(node)[5]
    die = f"{npu}/die1"
    sim.inject(FaultSpec(at_s=100.0, kind="aicore_hang", target=die, params={}))
    sim.run(200.0)
    rows = sim.control.isolate_hbm_rows(f"{npu}/hbm", 3)
    sim.run(300.0)
    assert rows.value.status == "succeeded" and sim.state.health(die) == Health.FAILED and out_of_service(sim, node)
    done = sim.control.replace_part(npu)
    while not done.triggered:
        sim.run(sim.now + 3600)
    assert done.value.status == "succeeded"
    assert sim.state.health(die) == Health.HEALTHY and ids.node_of(die) == node and not out_of_service(sim, node)
    assert done.value.detail["renewed"] == [die]  # the journal says which parts came back with it
    assert f"{npu}/hbm" not in sim.control.isolated_rows  # a new chip's HBM has no isolated rows
    sim.control.p = sim.control.p.model_copy(update={"restart_failure_prob": 0.0})  # no injected init failure
    restart = sim.control.restart_job("llm", "persistent")
    while not restart.triggered:
        sim.run(sim.now + 60)
    assert restart.value.status == "succeeded", restart.value.detail
    assert job.state in ("running", "checkpointing")


def test_a_replaced_chip_reads_no_isolated_hbm_rows(topo1: Topology) -> None:
    """A chip whose HBM rows ran out is replaced: the new chip's HBM reads 0 isolated rows (npu-smi's isolated
    pages count, what the runbook's ``isolated_rows_at_least`` and the sweeps read), and a later row exhaustion of
    the new chip starts from its own onset count, not from the old chip's 64 (before: the reading kept the old
    chip's count, so the new chip failed at once and any HBM incident on it asked for another replacement)."""
    sim = Simulation(seed=5, topology=topo1)
    npu = sim.topology.npus_of("pod0/node3")[2]
    hbm = f"{npu}/hbm"
    sim.inject(FaultSpec(at_s=10.0, kind="hbm_row_exhaustion", target=hbm, params={}))
    while sim.state.health(npu) != Health.FAILED:
        sim.run(sim.now + 600)
    assert (sim.telemetry.read("hbm_isolated_rows", hbm) or 0) >= sim.params.control.hbm_rows_replace_threshold
    done = sim.control.replace_part(npu)
    while not done.triggered:
        sim.run(sim.now + 3600)
    assert done.value.status == "succeeded" and sim.state.health(npu) == Health.HEALTHY
    assert sim.telemetry.read("hbm_isolated_rows", hbm) == 0.0
    again = sim.now + 10.0
    sim.inject(FaultSpec(at_s=again, kind="hbm_row_exhaustion", target=hbm, params={}))
    sim.run(again + 1.0)
    assert sim.state.health(npu) == Health.HEALTHY  # rows climb again from the onset count (40), not past 64 at once


def test_a_qingtian_failure_mid_write_fails_the_write(topo1: Topology) -> None:
    sim, job = _job(topo1, ckpt_interval_s=300.0)
    _in_write(sim, job)
    before = job.last_persistent_step
    sim.state.set_health("pod0/node2/qingtian", Health.FAILED, cause="test")
    sim.run(sim.now + 600)
    assert job.last_persistent_step == before  # the write never completed
    assert any(e.kind == "checkpoint_failed" for e in sim.telemetry.events)
    assert not any(e.kind == "job_checkpoint" and e.t > sim.now - 600 for e in sim.trace.events)


def test_in_place_recovery_during_a_write_aborts_it_and_keeps_the_memory_copy(topo1: Topology) -> None:
    sim, job = _job(topo1, ckpt_interval_s=300.0)
    _in_write(sim, job)
    mem = job.last_memory_step
    before = job.last_persistent_step
    proc = job.recover_in_place()
    sim.run(sim.now + 900)
    assert proc.value is True
    assert job.state in ("running", "checkpointing")
    assert job.accounting()["in_place_recoveries"] == 1
    assert job.last_memory_step >= mem
    ev = [e for e in sim.telemetry.events if e.kind == "checkpoint_aborted"]
    assert ev and ev[0].detail.get("kept") == "memory"
    assert job.last_persistent_step >= before  # the aborted write is retried later


def test_a_training_job_scales_in_onto_its_healthy_nodes(topo1: Topology) -> None:
    sim, job = _job(topo1)
    sim.run(T0)
    nominal = job.step_time_s
    dead = job.nodes[3]
    sim.state.set_health(dead, Health.FAILED, cause="test")
    sim.run(sim.now + 60)
    assert job.state != "running"
    proc = sim.control.scale_in_job("llm", [dead])
    sim.run(sim.now + 1800)
    assert proc.value.status == "succeeded"
    assert job.state in ("running", "checkpointing") and dead not in job.nodes and len(job.nodes) == 7
    acc = job.accounting()
    assert acc["scale_ins"] == 1 and acc["nodes"] == 7
    # one data-parallel replica fewer (TP x PP = 8 ranks = one node): the same global batch on 7/8 of the NPUs
    assert job.nominal_step_time_s > nominal
    ev = next(e for e in sim.telemetry.events if e.kind == "restart" and e.detail.get("dropped"))
    assert ev.detail["dropped"] == [dead] and ev.detail["source"] == "memory"


def test_scale_in_refuses_to_drop_every_node(topo1: Topology) -> None:
    sim, job = _job(topo1)
    sim.run(T0)
    with pytest.raises(ValueError, match="no node"):
        job.restart("memory", drop=list(job.nodes))


def test_a_trace_repair_time_holds_a_crashed_node_down(topo1: Topology) -> None:
    sim = Simulation(seed=5, topology=topo1)
    node, repair = "pod0/node7", 36 * 3600.0
    f = sim.inject(FaultSpec(at_s=100.0, kind="node_crash", target=node, params={}, duration_s=repair))
    sim.run(200.0)
    assert sim.state.health(node) == Health.FAILED
    boot = sim.control.reboot_node(node)  # the host cannot boot before its hardware is repaired
    sim.run(100.0 + repair - 60)
    assert not boot.triggered and sim.state.health(node) == Health.FAILED and f.ended_at_s is None
    sim.run(100.0 + repair + 3 * 3600)
    assert boot.value.status in ("succeeded", "failed") and boot.value.end_s >= 100.0 + repair
    assert f.ended_at_s == pytest.approx(100.0 + repair)
    assert sim.state.health(node) == Health.HEALTHY or boot.value.status == "failed"


def test_an_untouched_crashed_node_returns_after_its_repair_time(topo1: Topology) -> None:
    sim = Simulation(seed=5, topology=topo1)
    node = "pod0/node8"
    sim.inject(FaultSpec(at_s=10.0, kind="node_hang", target=node, params={}, duration_s=7200.0))
    sim.run(7000.0)
    assert sim.state.health(node) == Health.FAILED
    sim.run(7300.0)
    assert sim.state.health(node) == Health.HEALTHY
