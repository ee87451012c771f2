"""A CE storm's reports follow its rate (tester CC, session 33): 0x80E01805 says the correctable errors reached their
logging limit, so a faster storm reaches it sooner. The twin printed one report every ~300 s whatever ``rate_per_s``
(detection ~903 s even at 10,000 errors/s). Now a report each time the storm has added ``faults.ce_log_limit``
errors (the time to add them Gamma-distributed: the errors arrive independently), no more often than the device's
sensor check (``faults.ce_sensor_check_s``); a storm that never reaches the limit before it ends prints nothing (its
counter still climbs)."""

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
    return [ln.t - T0 for ln in sim.telemetry.logs if _occurs(ln.text)], sim


def _occurs(text: str) -> bool:
    """An occurrence of 0x80E01805 (since session 35, events35, each is followed by its resume one check later)."""
    return "0x80e01805" in text.lower() and "assertion=0[" not in text


@pytest.mark.parametrize("rate", [0.2, 0.5, 5.0])
def test_a_report_each_time_the_storm_adds_the_logging_limit(topo1: Topology, rate: float) -> None:
    """The gaps are the times the storm's independent errors take to reach the limit again: Gamma (shape: the
    limit), mean limit / rate, a spread, never constant; the first report is the fault's quiet time."""
    sim0 = Simulation(seed=3, topology=topo1)
    limit = sim0.params.faults.ce_log_limit
    times, sim = _reports(topo1, rate)
    mean = limit / rate
    gaps = [b - a for a, b in zip([0.0, *times], times, strict=False)]
    assert len(gaps) >= 2 and len(set(round(g, 6) for g in gaps)) == len(gaps)  # a spread, not a constant
    sd = mean / math.sqrt(limit)
    assert abs(sum(gaps) / len(gaps) - mean) < 4 * sd / math.sqrt(len(gaps))
    assert all(abs(g - mean) < 6 * sd for g in gaps)
    assert times[-1] <= 1800.0 and 1800.0 - times[-1] < mean + 6 * sd  # no report after the storm, none missing
    assert sim.faults[0].quiet_s == pytest.approx(times[0], abs=1e-6)


def test_the_report_schedule_is_the_faults_own_draw(topo1: Topology) -> None:
    """The same seed gives the same reports; another seed other ones (the fault's own random stream)."""
    a, _ = _reports(topo1, 0.5)
    b, _ = _reports(topo1, 0.5)
    assert a == b
    sim = Simulation(seed=4, topology=topo1)
    sim.inject(FaultSpec(at_s=T0, kind="hbm_ce_storm", target=HBM, params={"rate_per_s": 0.5}, duration_s=1800.0))
    sim.run(T0 + 1810)
    assert [ln.t - T0 for ln in sim.telemetry.logs if _occurs(ln.text)] != a
@pytest.mark.usefixtures("stateful_events")
def test_a_faster_storm_reports_sooner_down_to_the_sensor_check(topo1: Topology) -> None:
    slow, _ = _reports(topo1, 0.5)
    sim = Simulation(seed=3, topology=topo1)
    checks: list[float] = []
    sim.ce_logs.listeners.append(lambda hbm, at: checks.append(at - T0))
    sim.inject(FaultSpec(at_s=T0, kind="hbm_ce_storm", target=HBM, params={"rate_per_s": 10_000.0}, duration_s=60.0))
    sim.run(T0 + 70.0)
    check = sim.params.faults.ce_sensor_check_s
    assert checks[0] < slow[0] and checks[2] < 1.0  # the log is full at every check from the first
    assert min(b - a for a, b in zip(checks, checks[1:], strict=False)) == pytest.approx(check)
    assert len(checks) == pytest.approx(60.0 / check, abs=1)
    # since session 35 (events35) the device prints it as one event: it persists while the log is full at each check
    # (the driver reports an event once until it resumes), and resumes at the check after the storm ends; before,
    # one occurrence per check (600 lines)
    events = [(ln.t - T0, "assertion=0[" not in ln.text) for ln in sim.telemetry.logs
              if "0x80e01805" in ln.text.lower()]
    assert events == [(checks[0], True), (pytest.approx(checks[-1] + check), False)]


def test_a_storm_too_weak_to_reach_the_limit_prints_nothing_and_is_quiet(topo1: Topology) -> None:
    times, sim = _reports(topo1, 0.01)  # 18 errors in 30 min: short of the limit
    assert times == [] and math.isinf(sim.faults[0].quiet_s)
    times, sim = _reports(topo1, 0.5)
    assert sim.faults[0].quiet_s == pytest.approx(times[0], abs=1e-6)
