"""The training-job fluid model: step time physics, stalls and timeouts, restarts, accounting, cost."""

from __future__ import annotations

import pytest

from faultlib.durations import Dist
from faultlib.engine import Simulation
from faultlib.health import Health
from faultlib.topology import Topology
from faultlib.workloads.training import TrainingJob, TrainingParams

HOUR = 3600.0


def fixed(**over: object) -> TrainingParams:
    """Training parameters with every stage duration fixed at its median (p90 = median): the mechanics tests below
    check the arithmetic of a restart; the spread is checked in test_stage_durations_spread_per_seed."""
    p = TrainingParams()
    meds = {k: getattr(p, k).median for k, v in p if isinstance(v, Dist)}
    return p.model_copy(update={k: Dist(median=m, p90=m) for k, m in meds.items()} | over)


def make(topo: Topology, n_nodes: int = 48, seed: int = 7, **over: object) -> tuple[Simulation, TrainingJob]:
    sim = Simulation(seed=seed, topology=topo)
    job = TrainingJob("llm", sim.topology.nodes()[:n_nodes], fixed(**over))
    sim.add_workload(job)
    return sim, job


def kinds(sim: Simulation) -> list[str]:
    return [e.kind for e in sim.telemetry.events]


def uplink(sim: Simulation, node: str, i: int = 5) -> str:
    return sim.fabric.node_uplinks(node)[i]


def test_fault_free_step_time_mfu_and_ettr(topo1: Topology) -> None:
    sim, job = make(topo1)
    step = job.step_time_s
    assert 5.0 < step < 60.0
    assert job.throughput_at(10.0) == pytest.approx(1 / step)
    sim.run(2 * HOUR + 200)  # the interval runs from the end of the previous write
    acc = job.accounting()
    assert acc["nominal_mfu"] == pytest.approx(0.30, abs=0.01)  # calibration target of compute_efficiency
    assert acc["persistent_ckpts"] == 2
    # only the checkpoint writes stall a fault-free job
    assert acc["ettr"] == pytest.approx(1 - acc["ckpt_stall_s"] / acc["elapsed_s"], rel=1e-9)
    assert 0.97 < acc["ettr"] < 1.0
    assert acc["redone_steps"] == 0 and acc["lost_npu_s"] == 0
    assert acc["useful_steps"] == pytest.approx(acc["running_s"] / step, rel=1e-9)
    # the write time is the checkpoint size over the modelled storage bandwidth
    p = job.p
    write_s = p.total_params_b * 1e9 * p.state_bytes_per_param / (p.storage_aggregate_gbytes_s * 1e9)
    assert acc["ckpt_stall_s"] == pytest.approx(2 * write_s)
    ckpt_steps = [e.detail["step"] for e in sim.telemetry.events if e.kind == "checkpoint"]
    assert len(ckpt_steps) == 2 and ckpt_steps[-1] == acc["last_persistent_ckpt_step"]
    assert ckpt_steps[0] == pytest.approx(HOUR / step, abs=1)  # taken at the step boundary after the timer
    rates = [r for _t, r in job.rate_history()]
    assert rates == pytest.approx([1 / step, 0.0, 1 / step, 0.0, 1 / step])  # run, write, run, write, run


def test_step_time_rises_with_lane_loss_and_after_link_failure_and_reroute(topo1: Topology) -> None:
    sim, job = make(topo1)
    node = job.nodes[3]
    base = job.step_time_s
    sim.run(100)
    sim.state.set_lanes_down(uplink(sim, node), 1)
    one = job.step_time_s
    sim.state.set_lanes_down(uplink(sim, node), 2)
    two = job.step_time_s
    assert base < one < two
    assert two / base > 1.01  # half the bandwidth on one uplink throttles the node's whole inter-node traffic
    assert job.throughput_at(sim.now) == pytest.approx(1 / two)
    assert job.throughput_at(50.0) == pytest.approx(1 / base)
    sim.state.set_lanes_down(uplink(sim, node), 0)
    assert job.step_time_s == pytest.approx(base)
    sim.run(200)
    sim.state.set_health(uplink(sim, node), Health.FAILED)
    assert job.state == "stalled"
    sim.fabric.reroute(node)
    sim.run(200 + job.p.op_retry_hold_s + 1)
    assert job.state == "running"
    assert job.step_time_s > base
    acc = job.accounting()
    assert acc["stalled_s"] == pytest.approx(job.p.op_retry_hold_s)
    assert acc["redone_steps"] == 0  # operator retry re-executes the collective in flight, not the step
    assert "timeout" not in kinds(sim)


def test_dead_path_errors_after_maxcnt_reexecutions(topo1: Topology) -> None:
    """CANN: a failed collective is re-executed at most MaxCnt times (HoldTime, then every IntervalTime); if the
    path is still dead the error surfaces and the processes exit (no 30 min hang)."""
    for max_cnt in (1, 4):
        sim, job = make(topo1, n_nodes=16, op_retry_max_cnt=max_cnt)
        p = job.p
        sim.run(1000)
        sim.state.set_health(uplink(sim, job.nodes[2]), Health.FAILED)
        assert job.state == "stalled" and job.throughput_at(1000) == 0.0
        last = 1000 + p.op_retry_hold_s + (max_cnt - 1) * p.op_retry_interval_s  # the last re-execution
        sim.run(last - 0.01)
        assert job.state == "stalled"
        sim.run(last + 0.01)
        assert job.state == "down"
        lines = [ln for ln in sim.telemetry.logs if ln.source == "train"]
        assert len(lines) == 1 and "EI0006" in lines[0].text and lines[0].origin in job.nodes
        assert [e.kind for e in sim.telemetry.events][-1] == "crash"
        assert job.accounting()["stalled_s"] == pytest.approx(last - 1000)


def test_dead_path_with_a_hung_peer_still_waits_for_the_30_min_timeout(topo1: Topology) -> None:
    sim, job = make(topo1, n_nodes=16)
    sim.run(1000)
    job.fail(job.ranks[20], "hang", "aicore task stuck")  # a hang is not a path failure: no re-execution count
    sim.run(1000 + 1799)
    assert job.state == "stalled" and sim.telemetry.read("step_time_s", "llm") > 1799
    sim.run(1000 + 1801)
    assert job.state == "down"
    timeout = [e for e in sim.telemetry.events if e.kind == "timeout"]
    assert len(timeout) == 1 and timeout[0].t == pytest.approx(1000 + 1800)


def test_job_resumes_when_rerouted_before_the_retries_run_out(topo1: Topology) -> None:
    sim, job = make(topo1, n_nodes=16, op_retry_max_cnt=10)
    base = job.step_time_s
    sim.run(1000)
    sim.state.set_health(uplink(sim, job.nodes[2]), Health.FAILED)
    sim.run(1008.4)
    sim.fabric.reroute(job.nodes[2])
    assert job.state == "stalled"  # the next HCCL re-execution: 1000 + hold + k * interval >= 1008.4
    sim.run(1008.99)
    assert job.state == "stalled"
    sim.run(1009.001)
    assert job.state == "running"
    sim.run(4 * HOUR)
    assert "timeout" not in kinds(sim) and "crash" not in kinds(sim) and job.state == "running"
    assert kinds(sim)[:3] == ["started", "stalled", "resumed"]
    assert job.accounting()["stalled_s"] == pytest.approx(9)
    assert job.throughput_at(1008.9) == 0.0 and job.throughput_at(2000) == pytest.approx(1 / job.step_time_s)
    assert job.step_time_s > base


def _crash_and_restart(topo: Topology, source: str) -> tuple[Simulation, TrainingJob, dict]:
    sim, job = make(topo)
    sim.run(5000)  # one persistent checkpoint at ~1 h
    assert job.fail(job.ranks[13], "crash", "ACL stream synchronize failed, error code is 507053")
    assert job.state == "down"
    sim.run(5100)
    proc = job.restart(source)
    sim.env.run(until=proc)
    assert proc.value is True and job.state == "running"
    sim.run(3 * HOUR)
    return sim, job, job.accounting()


def test_crash_restart_from_memory_loses_far_less_than_from_persistent(topo1: Topology) -> None:
    sim_m, job_m, mem = _crash_and_restart(topo1, "memory")
    _sim_p, job_p, per = _crash_and_restart(topo1, "persistent")
    assert mem["redone_steps"] < 1.0
    assert per["redone_steps"] > 30  # ~20 min of work since the hourly checkpoint
    assert per["lost_npu_s"] > 5 * mem["lost_npu_s"]
    assert per["ettr"] < mem["ettr"]
    p = job_m.p
    # downtime is modelled: crash-to-restart wait + launch + HCCL init + checkpoint load
    shard_load = job_m._shard_b / (sim_m.params.fabric.npu_ub_gbytes_s * 1e9 * 0.97)
    assert mem["downtime_s"] == pytest.approx(100 + p.launch_s.median + p.rank_table_s.median + p.hccl_init_s.median
                                               + shard_load)
    assert per["downtime_s"] > mem["downtime_s"] + 30  # reading 9.4 TB from storage
    crash = [ln for ln in sim_m.telemetry.logs if ln.source == "train"]
    assert "507053" in crash[0].text and crash[0].origin == job_m.nodes[1]
    seq = [k for k in kinds(sim_m) if k != "checkpoint"]
    assert seq == ["started", "crash", "restart", "resumed"]


def test_node_loss_stalls_peers_then_restart_onto_spare(topo1: Topology) -> None:
    sim, job = make(topo1, n_nodes=16)
    bad, spare = job.nodes[4], sim.topology.nodes()[40]
    sim.run(2000)
    sim.state.set_health(bad, Health.FAILED)  # no fail() call: peers hang in their collectives
    assert job.state == "stalled"
    proc = job.restart("memory", replace={bad: spare})
    sim.env.run(until=proc)
    assert proc.value is True and job.state == "running"
    assert spare in job.nodes and bad not in job.nodes
    assert job.accounting()["restarts"] == 1
    assert job.accounting()["downtime_s"] > job.p.replace_node_s.median
    # a node and its replica peer (half the job away) losing host memory destroy the in-memory checkpoint
    pair = [job.nodes[0], job.replica_peers()[job.nodes[0]]]
    assert pair[1] == job.nodes[8]
    for nd in pair:
        sim.state.set_health(nd, Health.FAILED)
    spares = sim.topology.nodes()[41:43]
    proc = job.restart("memory", replace=dict(zip(pair, spares, strict=True)))
    assert [e for e in sim.telemetry.events if e.kind == "restart"][-1].detail["source"] == "persistent"
    sim.env.run(until=proc)
    assert proc.value is True


def test_restart_reinitialises_communication_around_dead_ports(topo1: Topology) -> None:
    sim, job = make(topo1, n_nodes=8)
    node = job.nodes[1]
    sim.state.set_health(uplink(sim, node), Health.FAILED)
    sim.run(1801)
    assert job.state == "down" and not sim.fabric.is_rerouted(node)
    proc = job.restart("memory")
    sim.env.run(until=proc)
    assert proc.value is True and sim.fabric.is_rerouted(node)


def test_restart_fails_while_a_job_device_is_out_of_service(topo1: Topology) -> None:
    sim, job = make(topo1, n_nodes=4)
    sim.state.set_health(job.ranks[9], Health.FAILED)
    proc = job.restart("memory")
    sim.env.run(until=proc)
    assert proc.value is False and job.state == "down"
    assert kinds(sim)[-1] == "restart_failed"


def test_hang_times_out_and_clear_hang_resumes(topo1: Topology) -> None:
    sim, job = make(topo1, n_nodes=4)
    die = job.ranks[3] + "/die1"
    sim.run(500)
    assert job.fail(die, "hang", "aicore task stuck")
    assert job.state == "stalled"
    sim.run(900)
    job.clear_hang(die)
    sim.run(900 + job.p.op_retry_hold_s + 0.01)
    assert job.state == "running"
    job.fail(die, "hang", "aicore task stuck")
    sim.run(1000 + job.p.hang_timeout_s + 1)
    assert job.state == "down" and kinds(sim).count("timeout") == 1
    assert not job.fail("pod0/node40/npu0", "crash", "not ours")


def test_recover_in_place_redoes_only_the_current_step(topo1: Topology) -> None:
    sim, job = make(topo1)
    sim.run(3000)
    job.fail(job.ranks[5] + "/hbm", "crash", "device memory uncorrectable error, error code is 507054")
    proc = job.recover_in_place()
    sim.env.run(until=proc)
    assert proc.value is True and job.state == "running"
    acc = job.accounting()
    p = job.p
    stages = (p.stop_step_s.median + max(p.abort_tasks_s.median, p.memory_repair_s.median) + p.comm_resume_s.median
              + p.rollback_s.median)
    assert stages <= acc["downtime_s"] < stages + 1.0  # + the optimizer shard reload from a peer
    sim.run(3200)
    assert job.accounting()["redone_steps"] < 1.0
    # a node that rebooted lost the process state: in-place recovery is refused
    sim.state.set_health(job.nodes[7], Health.FAILED)
    sim.state.set_health(job.nodes[7], Health.HEALTHY)
    proc = job.recover_in_place()
    sim.env.run(until=proc)
    assert proc.value is False and kinds(sim)[-1] == "recover_failed"


def test_serial_online_recovery_takes_the_four_stages_one_after_another(topo1: Topology) -> None:
    sim = Simulation(seed=7, topology=topo1)
    job = TrainingJob("llm", sim.topology.nodes()[:48], fixed(repair_during_abort=False))
    sim.add_workload(job)
    sim.run(3000)
    job.fail(job.ranks[5] + "/hbm", "crash", "device memory uncorrectable error, error code is 507054")
    sim.env.run(until=job.recover_in_place())
    p = job.p
    serial = sum(getattr(p, k).median for k in ('stop_step_s', 'abort_tasks_s', 'memory_repair_s', 'comm_resume_s',
                                                 'rollback_s'))
    assert serial <= job.accounting()["downtime_s"] < serial + 1.0


def test_slow_rank_sets_the_synchronous_step(topo1: Topology) -> None:
    sim, job = make(topo1, n_nodes=8)
    base = job.step_time_s
    compute = job._compute_s()
    sim.run(100)
    job.set_slowdown(job.ranks[10], 1.5)
    job.set_slowdown(job.ranks[20], 1.2)
    assert job.step_time_s == pytest.approx(base + 0.5 * compute)
    assert sim.telemetry.read("rank_step_time_s", job.ranks[10]) == pytest.approx(job.step_time_s)
    assert sim.telemetry.read("rank_step_time_s", job.ranks[20]) < job.step_time_s
    assert sim.telemetry.read("step_time_s", "llm") == pytest.approx(job.step_time_s)
    sim.run(200)
    job.set_slowdown(job.ranks[10], 1.0)
    job.set_slowdown(job.ranks[20], 1.0)
    assert job.step_time_s == pytest.approx(base)
    acc = job.accounting()
    assert acc["slowdown_loss_s"] == pytest.approx(100 * (1 - base / (base + 0.5 * compute)))
    # the NPU-seconds a fail-slow wastes are lost NPU-seconds (tester T, session 30: they were left out of
    # lost_npu_s and of every fault's impact)
    assert acc["lost_npu_s"] == pytest.approx(acc["slowdown_loss_s"] * acc["npus"])
    with pytest.raises(ValueError):
        job.set_slowdown("pod0/node40/npu0", 2.0)


def _scenario(topo: Topology, seed: int) -> tuple[dict, str]:
    sim, job = make(topo, n_nodes=16, seed=seed)
    sim.run(4000)
    sim.state.set_lanes_down(uplink(sim, job.nodes[1]), 2)
    sim.run(5000)
    job.fail(job.ranks[40], "crash", "lost heartbeat, error code is 507010")
    sim.run(5100)
    sim.env.run(until=job.restart("memory"))
    sim.run(3 * HOUR)
    return job.accounting(), sim.trace.digest()


def test_same_seed_same_accounting(topo1: Topology) -> None:
    assert _scenario(topo1, 3) == _scenario(topo1, 3)


def test_thirty_days_with_only_checkpoints_is_cheap(topo1: Topology) -> None:
    sim, job = make(topo1)
    steps = 0
    step = sim.env.step

    def counting_step() -> None:
        nonlocal steps
        steps += 1
        step()

    sim.env.step = counting_step  # type: ignore[method-assign]
    sim.run(30 * 24 * HOUR)
    acc = job.accounting()
    assert len(sim.trace) < 5000 and steps < 5000
    assert 700 < acc["persistent_ckpts"] < 721
    assert acc["ettr"] == pytest.approx(1 - acc["ckpt_stall_s"] / acc["elapsed_s"], rel=1e-9)


def test_params_validation_and_dense_model(topo1: Topology) -> None:
    with pytest.raises(ValueError):
        TrainingParams(active_params_b=800.0)
    dense = TrainingParams(total_params_b=70.6, active_params_b=70.6, routed_expert_params_b=0.0, layers=80,
                           moe_layers=0, hidden=8192, experts_per_token=0, tensor_parallel=8, seq_len=8192,
                           global_batch_seqs=512)
    sim = Simulation(seed=1, topology=topo1)
    job = TrainingJob("dense", sim.topology.nodes()[:16], dense)
    sim.add_workload(job)
    assert job.p is dense
    assert 5.0 < job.step_time_s < 120.0


def test_a_controller_reacting_synchronously_to_events_can_restart(topo1: Topology) -> None:
    sim, job = make(topo1, n_nodes=8)
    procs = []

    def on_record(rec: object) -> None:
        if getattr(rec, "kind", None) == "crash":
            procs.append(job.restart("memory"))

    sim.telemetry.subscribe(on_record, {"job"})
    sim.state.set_health(uplink(sim, job.nodes[2]), Health.FAILED)  # retries run out: the job crashes
    sim.run(1800 + 300)
    assert len(procs) == 1 and procs[0].value is True and job.state == "running"
    assert [k for k in kinds(sim) if k != "checkpoint"] == ["started", "stalled", "crash", "restart", "resumed"]


def test_a_drained_link_that_flaps_does_not_stall_the_job(topo1: Topology) -> None:
    sim, job = make(topo1, n_nodes=16)
    base = job.step_time_s
    sim.run(100)
    link = uplink(sim, job.nodes[2])
    sim.fabric.drain(link)
    assert job.state == "running" and base < job.step_time_s < base * 1.001  # one of 112 uplinks routed around
    sim.state.set_health(link, Health.FAILED)  # a flap on the drained link
    assert job.state == "running"
    sim.fabric.undrain(link)  # the hold-down ends while the link is dark: it stays out of the routes
    sim.state.set_health(link, Health.HEALTHY)
    assert job.state == "running" and job.step_time_s > base
    sim.fabric.undrain(link)
    assert job.step_time_s == pytest.approx(base) and not sim.fabric.drained


def test_hccl_retry_hold_and_interval_set_when_a_flapped_collective_resumes(topo1: Topology) -> None:
    sim = Simulation(seed=7, topology=topo1)
    job = TrainingJob("llm", sim.topology.nodes()[:16], TrainingParams(op_retry_hold_s=1.0, op_retry_interval_s=1.0,
                                                                       op_retry_max_cnt=10))
    sim.add_workload(job)
    sim.run(100)
    link = uplink(sim, job.nodes[2])
    sim.state.set_health(link, Health.FAILED)
    sim.run(100.5)
    sim.state.set_health(link, Health.HEALTHY)  # back before the first re-execution at 101
    sim.run(101.001)
    assert job.state == "running" and job.accounting()["stalled_s"] == pytest.approx(1.0)
    sim.state.set_health(link, Health.FAILED)
    sim.run(103.2)
    sim.state.set_health(link, Health.HEALTHY)  # the re-executions at 102.001 and 103.001 found it dark
    sim.run(103.99)
    assert job.state == "stalled"  # waits for the next re-execution instant
    sim.run(104.01)
    assert job.state == "running" and job.accounting()["stalled_s"] == pytest.approx(1.0 + 3.0)


def test_stage_durations_spread_per_seed_and_grow_with_the_job(topo1: Topology) -> None:
    """Restart stages are draws (different per seed, the same for the same seed); launch, rank table and HCCL init
    grow with the job's size."""
    def downtime(seed: int, n_nodes: int) -> float:
        sim = Simulation(seed=seed, topology=topo1)
        job = TrainingJob("llm", sim.topology.nodes()[:n_nodes])
        sim.add_workload(job)
        sim.run(100)
        job.fail(job.ranks[3], "crash", "ACL stream synchronize failed, error code is 507053")
        sim.env.run(until=job.restart("memory"))
        return job.accounting()["downtime_s"]

    small = [downtime(s, 8) for s in range(12)]
    big = [downtime(s, 48) for s in range(12)]
    assert len(set(small)) == len(small)  # no two seeds alike
    assert downtime(3, 8) == small[3]  # deterministic per seed
    assert max(small) / min(small) > 1.2  # spread across seeds
    assert sorted(big)[6] > sorted(small)[6]  # median grows with the job (48 vs 8 nodes)


def test_persistent_checkpoint_writes_and_reads_spread_around_the_storage_model(topo1: Topology) -> None:
    """A persistent checkpoint write or read is the storage model's time (bytes over min(nodes x per-node share,
    aggregate)) times a draw of ``storage_io_factor`` (median 1, p90 1.5): its median is the model's time, two
    writes of one job differ, the same seed gives the same writes, and a fixed factor gives the model's time."""
    import numpy as np

    from faultlib.workloads.training import storage_io_s

    p = TrainingParams()
    model_s = p.total_params_b * 1e9 * p.state_bytes_per_param / (p.storage_aggregate_gbytes_s * 1e9)
    sim = Simulation(seed=5, topology=topo1)
    writes = [storage_io_s(sim, p, 48, "write") for _ in range(3000)]
    assert np.median(writes) == pytest.approx(model_s, rel=0.05)
    assert np.quantile(writes, 0.9) == pytest.approx(1.5 * model_s, rel=0.07)
    assert storage_io_s(sim, p.model_copy(update={"storage_io_factor": Dist(median=1.0, p90=1.0)}), 48,
                        "read") == pytest.approx(model_s)

    def job_writes(seed: int) -> list[float]:
        s = Simulation(seed=seed, topology=topo1)
        job = TrainingJob("llm", s.topology.nodes()[:48])
        s.add_workload(job)
        s.run(3 * HOUR + 300)
        return [e.detail["write_s"] for e in s.telemetry.events if e.kind == "checkpoint"]

    a = job_writes(1)
    assert len(a) == 3 and len(set(a)) == 3  # each write its own draw
    assert job_writes(1) == a and job_writes(2) != a


def test_online_recovery_waits_for_the_slowest_rank_and_rolls_the_training_state_back() -> None:
    """Stop and abort run on every rank and end with the slowest (the median is the stage's at scale_ref_npus,
    growing with the rank count, its spread narrower than one rank's); the memory repair is the faulty device's
    alone (one draw whatever the job's size); training adds every rank's rollback to the step, inference does not."""
    from dataclasses import dataclass, field

    import numpy as np

    from faultlib.durations import Durations
    from faultlib.workloads.training import online_recovery_stages

    @dataclass
    class Seeded:
        seed: int
        durations: Durations = field(init=False)

        def __post_init__(self) -> None:
            self.durations = Durations(self)  # type: ignore[arg-type]

    p = TrainingParams()
    runs = {n: [online_recovery_stages(Seeded(s), p, n) for s in range(600)]  # type: ignore[arg-type]
            for n in (112, p.scale_ref_npus, 9504)}

    def q(n: int, stage: str, pct: float) -> float:
        return float(np.percentile([r[stage] for r in runs[n]], pct))

    assert q(p.scale_ref_npus, "stop_step", 50) == pytest.approx(p.stop_step_s.median, rel=0.05)
    assert q(112, "stop_step", 50) < q(p.scale_ref_npus, "stop_step", 50) < q(9504, "stop_step", 50)
    assert q(9504, "rollback", 50) > 1.3 * q(112, "rollback", 50)
    ref = p.scale_ref_npus
    assert q(ref, "stop_step", 90) / q(ref, "stop_step", 50) < p.stop_step_s.p90 / p.stop_step_s.median
    # the repair draw of a seed is the same at every job size (one device); with it taken apart from the abort
    serial = p.model_copy(update={"repair_during_abort": False})
    for seed in range(3):
        small = online_recovery_stages(Seeded(seed), serial, 112)  # type: ignore[arg-type]
        big = online_recovery_stages(Seeded(seed), serial, 9504)  # type: ignore[arg-type]
        abort_small = Seeded(seed).durations.draw_slowest("training.abort_tasks_s", p.abort_tasks_s, 112, ref)
        abort_big = Seeded(seed).durations.draw_slowest("training.abort_tasks_s", p.abort_tasks_s, 9504, ref)
        assert small["abort_or_repair"] - abort_small == pytest.approx(big["abort_or_repair"] - abort_big)
    assert "rollback" not in online_recovery_stages(Seeded(1), p, 112, rollback=False)  # type: ignore[arg-type]


def test_stall_resume_cycles_add_no_per_rank_segments_when_step_times_are_unchanged(topo1: Topology) -> None:
    """Memory at scale (issue 16): every resume re-publishes the rank step times; an unchanged value must not add a
    segment to each rank's series, or a 9,936-rank job grows by GBs per simulated day (27 pods: ~2.4 GB/day before
    commit 6336302, ~0.07 GB/day after; docs/recovery-results.md)."""
    sim = Simulation(seed=7, topology=topo1)
    job = TrainingJob("llm", sim.topology.nodes()[:16], TrainingParams(op_retry_hold_s=1.0, op_retry_interval_s=1.0,
                                                                       op_retry_max_cnt=10))
    sim.add_workload(job)
    sim.run(100)
    healthy = job.ranks[40]
    before = len(sim.telemetry.metrics.series("rank_step_time_s", healthy))
    link = uplink(sim, job.nodes[2])
    for k in range(30):  # 30 flaps the operator retry rides out
        t = 100 + 10 * k
        sim.state.set_health(link, Health.FAILED)
        sim.run(t + 0.5)
        sim.state.set_health(link, Health.HEALTHY)
        sim.run(t + 10)
    assert job.accounting()["stalls"] >= 30 and job.state == "running"
    assert len(sim.telemetry.metrics.series("rank_step_time_s", healthy)) <= before + 2


def test_loss_totals_at_any_moment_match_the_accounting_then_and_the_redo_ends_where_the_rerun_does(
        topo1: Topology) -> None:
    """A scorer charges a job's loss to intervals it picks after the run (:meth:`loss_totals_at`); the figures at
    a moment are the accounting's at that moment, and the redo of a restart from the persistent checkpoint is over
    once the job is back where it was (:meth:`redo_until`)."""
    sim, job = make(topo1)
    sim.run(5000)
    assert job.fail(job.ranks[13], "crash", "ACL stream synchronize failed, error code is 507053")
    sim.run(5100)
    live = {}
    proc = job.restart("persistent")
    sim.env.run(until=proc)
    back = sim.now
    for t in (back + 200.0, back + 900.0, 3 * HOUR):
        sim.run(t)
        live[t] = job.accounting()
    for t, acc in live.items():
        got = job.loss_totals_at(t)
        assert got == {k: pytest.approx(acc[k], rel=1e-9, abs=1e-9) for k in got}
    assert job.loss_totals_at(100.0)["lost_npu_s"] == 0.0
    redo = job.redo_until(back)
    assert back < redo < 3 * HOUR
    assert job.loss_totals_at(redo)["redone_steps"] == pytest.approx(live[3 * HOUR]["redone_steps"], rel=1e-6)
    assert job.loss_totals_at(redo - 60.0)["redone_steps"] < live[3 * HOUR]["redone_steps"]
    assert job.redo_until(3 * HOUR) == 3 * HOUR  # nothing being redone then
