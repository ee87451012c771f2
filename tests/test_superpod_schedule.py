"""Day/night schedules (issue 21): cron parsing, the switch stages, a fault mid-switch, the hand-back at dawn."""

from __future__ import annotations

from datetime import datetime

import pytest

from opsbrain.ops.cron import Cron, CronError
from opsbrain.ops.schedule import MidSwitchFault
from opsbrain.ops.schedule_run import ScheduleSetup, run_schedule


def test_cron_fields_and_next_times() -> None:
    c = Cron.parse("0 22 * * *")
    assert c.next_after(datetime(2025, 3, 1, 21, 59)) == datetime(2025, 3, 1, 22, 0)
    assert c.next_after(datetime(2025, 3, 1, 22, 0)) == datetime(2025, 3, 2, 22, 0)
    weekdays = Cron.parse("30 6 * * 1-5")  # 2025-03-01 is a Saturday
    assert weekdays.next_after(datetime(2025, 3, 1, 0, 0)) == datetime(2025, 3, 3, 6, 30)
    steps = Cron.parse("*/15 0 1 * *")
    assert steps.times_between(datetime(2025, 2, 28, 23, 59), datetime(2025, 3, 1, 1, 0)) == [
        datetime(2025, 3, 1, 0, m) for m in (0, 15, 30, 45)]
    either = Cron.parse("0 0 13 * 5")  # day 13 or any Friday (both restricted: OR)
    assert either.next_after(datetime(2025, 3, 1)) == datetime(2025, 3, 7)
    assert Cron.parse("0 0 * * 7").weekdays == frozenset({0})


@pytest.mark.parametrize("bad", ["0 22 * *", "61 * * * *", "a * * * *", "*/0 * * * *", "5-2 * * * *",
                                 "0 0 30 2 *"])
def test_cron_errors_name_the_field(bad: str) -> None:
    with pytest.raises(CronError):
        c = Cron.parse(bad)
        c.next_after(datetime(2025, 3, 1))


@pytest.fixture(scope="module")
def plain() -> dict:
    return run_schedule(ScheduleSetup(), 2)


def test_switches_run_on_the_plan(plain: dict) -> None:
    assert plain["switches"] == 2 and plain["skipped"] == 1  # 06:00 of the first day finds the group serving
    assert plain["failed"] == []
    assert len(plain["node_switch_s"]["training"]) == 22 and len(plain["node_switch_s"]["inference"]) == 22
    assert all(60.0 < s < 1200.0 for d in ("training", "inference") for s in plain["node_switch_s"][d])
    train = next(iter(plain["training"].values()))
    assert train["useful_steps"] > 0  # the job trained through the night
    assert plain["handbacks"] == 1
    hb = plain["handback_detail"][0]
    assert hb["checkpoint_s"] > 0
    assert hb["on_time"] == (hb["duration_s"] <= 120.0)
    assert hb["on_time"] or "deadline" in hb["why_late"]
    assert plain["slo_attainment"] >= 0.99


def test_a_node_crash_mid_switch_recovers_on_a_spare() -> None:
    faults = (MidSwitchFault(0, 100.0, 3), MidSwitchFault(1, 100.0, 5))
    r = run_schedule(ScheduleSetup(faults=faults), 2)
    assert r["failed"] == []
    assert r["attempts"] == 2 and len(r["replaced"]) == 2  # each switch retried once, on a spare
    assert len(r["node_switch_s"]["training"]) == 22 and len(r["node_switch_s"]["inference"]) == 22
    # the group finished after the crash (100 s in) with the retried start on a spare: one start time later
    assert min(r["node_switch_s"]["training"]) > 100.0 and min(r["node_switch_s"]["inference"]) > 100.0
    crashed = [old for swap in r["replaced"] for old in swap]
    assert len(set(crashed)) == 2  # each switch lost its own node (at dawn: the spare that took node 27's slot)


def test_a_memory_hand_back_stops_at_the_step_and_persists_afterwards(plain: dict) -> None:
    """MindIO ACP (checkpoint to the server's memory, persisted asynchronously): the job leaves at its next step
    boundary instead of after the storage write; the write is recorded as running after the hand-back."""
    mem = run_schedule(ScheduleSetup(handback_checkpoint="memory"), 2)
    hb_s, hb_m = plain["handback_detail"][0], mem["handback_detail"][0]
    assert hb_s["checkpoint_to"] == "storage" and "persist_async_s" not in hb_s
    assert hb_m["checkpoint_to"] == "memory" and hb_m["persist_async_s"] == pytest.approx(hb_s["checkpoint_s"])
    assert 0.0 <= hb_m["checkpoint_s"] < hb_s["checkpoint_s"]
    assert hb_m["duration_s"] < hb_s["duration_s"]
    assert mem["failed"] == [] and mem["handbacks_on_time"] == 1
    # the dusk switch is the same on both (same seed, nothing before dawn differs)
    assert sorted(mem["node_switch_s"]["training"]) == sorted(plain["node_switch_s"]["training"])


def test_the_wait_for_the_step_boundary_is_within_one_step() -> None:
    from faultlib import ids
    from faultlib.engine import Simulation
    from faultlib.workloads.switch import to_step_boundary_s
    from faultlib.workloads.training import TrainingJob

    sim = Simulation(seed=1, pods=1)
    job = TrainingJob("t", [ids.node(0, i) for i in range(4)])
    sim.add_workload(job)
    sim.run(1000.0)
    assert job.state == "running" and job._step_s > 0
    wait = to_step_boundary_s(job)
    assert 0.0 <= wait <= job._step_s
    sim.run(sim.now + wait)
    assert to_step_boundary_s(job) in (0.0, pytest.approx(job._step_s))  # at a boundary


# ---- the overlapped operation (per node, SIGKILL after grace, pre-staged checkpoint, N + k launch) ----------------

@pytest.fixture(scope="module")
def overlapped() -> dict:
    from opsbrain.ops.schedule import OVERLAPPED
    return run_schedule(ScheduleSetup(ops=OVERLAPPED, handback_checkpoint="memory"), 2)


def test_overlapped_switch_keeps_the_group_size_and_sets_the_slowest_aside(overlapped: dict) -> None:
    r = overlapped
    assert r["operation"] == "overlapped" and r["failed"] == [] and r["handbacks"] == 1
    assert len(r["node_switch_s"]["training"]) == 22 and len(r["node_switch_s"]["inference"]) == 22
    # N + 2: the job took the first 22 of 24 launched nodes; the group nodes left out became spares for the night
    assert 0 <= r["set_aside"] <= 2
    # a training node's own stages end no later than the job start that ends its switch
    assert len(r["node_ready_s"]) == 22
    assert max(r["node_ready_s"]) <= min(r["node_switch_s"]["training"]) + 1e-6
    # one job start for all ranks: every training node has the same switch time
    assert len(set(round(v, 6) for v in r["node_switch_s"]["training"])) == 1
    assert r["whole_switch_s"]["training"] == [pytest.approx(r["node_switch_s"]["training"][0])]


def test_overlapped_to_training_is_faster_than_sequential_on_the_same_seed(plain: dict, overlapped: dict) -> None:
    assert max(overlapped["node_switch_s"]["training"]) < max(plain["node_switch_s"]["training"])


def test_sigkill_after_the_grace_period_bounds_every_stop() -> None:
    from faultlib.engine import Simulation
    from faultlib.workloads.switch import stop_draws

    sim = Simulation(seed=3, pods=1)
    p = sim.params.switch
    free = stop_draws(sim, 2000, grace=False)
    sim2 = Simulation(seed=3, pods=1)
    capped = stop_draws(sim2, 2000, grace=True)
    assert max(free) > p.stop_grace_s  # the unbounded tail exists (lognormal median 5 s, p90 15 s)
    bound = p.stop_grace_s + p.kill_release_s.quantile(5.0)
    assert max(capped) <= bound
    assert [c for f, c in zip(free, capped, strict=True) if f <= p.stop_grace_s] == \
        [f for f in free if f <= p.stop_grace_s]  # below the grace period nothing changes


def test_a_prestaged_checkpoint_is_waited_for_and_loaded_from_host_memory() -> None:
    """The first start of a switched job skips the launch (done per node) and waits for the pre-staged checkpoint;
    it loads it as an in-memory checkpoint (host memory over UB), far quicker than the storage read."""
    from faultlib import ids
    from faultlib.engine import Simulation
    from faultlib.workloads.switch import SwitchedTrainingJob, checkpoint_read_s

    sim = Simulation(seed=1, pods=1)
    nodes = [ids.node(0, i) for i in range(22)]
    reads = [checkpoint_read_s(sim, len(nodes)) for _ in range(401)]  # draws of the job's storage model
    assert sorted(reads)[200] == pytest.approx(9.394e12 / 200e9, rel=0.1)  # 671 B x 14 bytes over 200 GB/s
    job = SwitchedTrainingJob("t", nodes)
    job.launched, job.prestaged_until = True, 500.0
    sim.add_workload(job)
    proc = job.restart("memory")
    sim.run(499.0)
    assert job.state == "restarting"  # rank table + HCCL init (~25 s) are done; the pre-stage is not
    sim.run(510.0)  # the load from host memory takes well under a second; from storage it would take ~47 s
    assert proc.triggered and proc.value is True and job.state == "running"
    assert job.last_restart["source"] == "memory"
    assert job.launched is False  # only the first start skips the launch


def test_overlapped_switch_with_a_crash_mid_switch_recovers() -> None:
    from opsbrain.ops.schedule import OVERLAPPED
    faults = (MidSwitchFault(0, 100.0, 3), MidSwitchFault(1, 100.0, 5))
    r = run_schedule(ScheduleSetup(ops=OVERLAPPED, handback_checkpoint="memory", faults=faults), 2)
    assert r["failed"] == [] and r["handbacks_on_time"] == 1
    assert len(r["node_switch_s"]["training"]) == 22 and len(r["node_switch_s"]["inference"]) == 22
    assert all(s > 100.0 for s in r["node_switch_s"]["inference"] if s)  # the dawn retry ends after the crash


def test_per_node_options_need_per_node() -> None:
    from opsbrain.ops.schedule import SwitchOps
    with pytest.raises(ValueError, match="need per_node"):
        SwitchOps(launch_spares=2)
    with pytest.raises(ValueError):
        SwitchOps(per_node=True, launch_spares=-1)
    assert SwitchOps().name == "sequential"


def test_a_hand_back_mid_step_loses_at_most_the_step_under_way(overlapped: dict) -> None:
    """memory-last-step: the job stops at once with its last boundary's memory copy; the partial step is lost."""
    from opsbrain.ops.schedule import OVERLAPPED
    now = run_schedule(ScheduleSetup(ops=OVERLAPPED, handback_checkpoint="memory-last-step"), 2)
    hb_w, hb_n = overlapped["handback_detail"][0], now["handback_detail"][0]
    assert hb_n["checkpoint_to"] == "memory-last-step" and hb_n["checkpoint_s"] == 0.0
    assert hb_n["persist_async_s"] == pytest.approx(hb_w["persist_async_s"])
    assert hb_n["abandoned_step_s"] > 0.0  # the job was mid-step at 06:00 (the identity: next test)
    assert hb_n["duration_s"] <= hb_w["duration_s"] + 1e-6
    assert now["failed"] == [] and now["handbacks_on_time"] == 1
    # the dusk switch is the same (same seed; nothing before dawn differs)
    assert sorted(now["node_switch_s"]["training"]) == sorted(overlapped["node_switch_s"]["training"])


def test_step_done_and_step_left_make_one_step() -> None:
    from faultlib import ids
    from faultlib.engine import Simulation
    from faultlib.workloads.switch import step_done_s, to_step_boundary_s
    from faultlib.workloads.training import TrainingJob

    sim = Simulation(seed=4, pods=1)
    job = TrainingJob("t", [ids.node(0, i) for i in range(4)])
    sim.add_workload(job)
    sim.run(1234.5)
    assert job.state == "running"
    done, left = step_done_s(job), to_step_boundary_s(job)
    assert 0.0 < done < job._step_s and done + left == pytest.approx(job._step_s)
