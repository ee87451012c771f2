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
