"""A CE storm's reports follow its rate (tester CC, session 33): 0x80E01805 says the correctable errors reached their
logging limit, so a faster storm reaches it sooner. The twin printed one report every ~300 s whatever ``rate_per_s``
(detection ~903 s even at 10,000 errors/s). Now a report each time the storm has added ``faults.ce_log_limit``
errors, no more often than the device's sensor check (``faults.ce_sensor_check_s``); a storm that never reaches the
limit before it ends prints nothing (its counter still climbs)."""

from __future__ import annotations

import math

import pytest

from faultlib.engine import Simulation
from faultlib.injection.spec import FaultSpec
from faultlib.topology import Topology

HBM = "pod0/node20/npu3/hbm"
T0 = 100.0


def _reports(topo: Topology, rate: float, dur: float = 1800.0) -> tuple[list[float], Simulation]:
    sim = Simulation(seed=3, topology=topo)
    sim.inject(FaultSpec(at_s=T0, kind="hbm_ce_storm", target=HBM, params={"rate_per_s": rate}, duration_s=dur))
    sim.run(T0 + dur + 10)
    return [ln.t - T0 for ln in sim.telemetry.logs if "0x80e01805" in ln.text.lower()], sim


@pytest.mark.parametrize("rate", [0.2, 0.5, 5.0])
def test_a_report_each_time_the_storm_adds_the_logging_limit(topo1: Topology, rate: float) -> None:
    sim0 = Simulation(seed=3, topology=topo1)
    limit = sim0.params.faults.ce_log_limit
    times, _ = _reports(topo1, rate)
    step = limit / rate
    assert times == pytest.approx([step * k for k in range(1, int(1800 * rate // limit) + 1)])


def test_a_faster_storm_reports_sooner_down_to_the_sensor_check(topo1: Topology) -> None:
    slow, _ = _reports(topo1, 0.5)
    fast, sim = _reports(topo1, 10_000.0, dur=60.0)
    check = sim.params.faults.ce_sensor_check_s
    assert fast[0] < slow[0] and fast[2] < 1.0  # the third report (the detector's burst count) within a second
    assert min(b - a for a, b in zip(fast, fast[1:], strict=False)) == pytest.approx(check)
    assert len(fast) == pytest.approx(60.0 / check, abs=1)


def test_a_storm_too_weak_to_reach_the_limit_prints_nothing_and_is_quiet(topo1: Topology) -> None:
    times, sim = _reports(topo1, 0.01)  # 18 errors in 30 min: short of the limit
    assert times == [] and math.isinf(sim.faults[0].quiet_s)
    _, sim = _reports(topo1, 0.5)
    assert sim.faults[0].quiet_s == pytest.approx(sim.params.faults.ce_log_limit / 0.5)
