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
