"""Background correctable errors are reported as a storm's are (session 34, branch twin34): the device reports
0x80E01805 when the stack's log holds ``faults.ce_log_limit`` errors, whatever filled it
(faultlib.telemetry.celog, the one mechanism the storm and the background use).

Before: every background burst (~20 errors, geometric) printed one 0x80E01805 line at once, below the 64-record limit
the storm's reports follow (session 33), and the steady background errors printed nothing however many they were."""

from __future__ import annotations

import math

import numpy as np
import pytest

from faultlib.engine import Simulation
from faultlib.injection.spec import FaultSpec
from faultlib.params import apply_overrides
from faultlib.simparams import SimParams
from faultlib.telemetry.noise import start_background_noise
from faultlib.topology import Topology

HBM = "pod0/node20/npu3/hbm"
DAY = 86400.0


def _reports(sim: Simulation, hbm: str | None = None) -> list[float]:
    npu = hbm.rsplit("/", 1)[0] if hbm else None
    return [ln.t for ln in sim.telemetry.logs if "event_id=0x80e01805;" in ln.text and "assertion=0[" not in ln.text
            and (npu is None or ln.origin == npu)]  # occurrences (each resumes a check later since session 35)


def _resumes(sim: Simulation) -> list[float]:
    return [ln.t for ln in sim.telemetry.logs if "event_id=0x80e01805;" in ln.text and "assertion=0[" in ln.text]
@pytest.mark.usefixtures("stateful_events")
def test_a_burst_below_the_limit_prints_nothing_and_the_one_that_fills_the_log_reports(topo1: Topology) -> None:
    sim = Simulation(seed=3, topology=topo1)
    log = sim.ce_logs.of(HBM)
    for t in (10.0, 20.0, 30.0):
        sim.run(t)
        log.add(20)  # a background burst's size (noise.hbm_ce_burst_mean)
    sim.run(40.0)
    assert _reports(sim) == [] and log.fill == 60
    log.add(20)  # the log is full: reported at once, and it starts over
    sim.run(50.0)
    assert _reports(sim) == [40.0] and log.fill == 0
    log.add(64)
    log.add(64)  # a full log records no more: one report
    sim.run(50.05)
    checked: list[float] = []
    sim.ce_logs.listeners.append(lambda _hbm, at: checked.append(at))
    log.add(64)  # full again within the same sensor check: reported a check later
    sim.run(60.0)
    check = sim.params.faults.ce_sensor_check_s
    assert checked == pytest.approx([50.0 + check])
    # the log was full at that check, so the event of the report at 50.0 persists: its report is not printed again
    # and it resumes one check later (session 35, events35; before, a second occurrence at 50.1)
    assert _reports(sim) == pytest.approx([40.0, 50.0]) and _resumes(sim) == pytest.approx([40.1, 50.0 + 2 * check])
@pytest.mark.usefixtures("stateful_events")
def test_a_rate_change_while_a_full_log_waits_for_its_check_reports_it_then(topo1: Topology) -> None:
    """A storm starting (a rate set) in the sensor check a burst filled the log in: the report still comes at that
    check (before: a Gamma draw over the negative free records raised ValueError and stopped the run)."""
    sim = Simulation(seed=3, topology=topo1)
    log = sim.ce_logs.of(HBM)
    sim.run(10.0)
    log.add(64)
    sim.run(10.05)
    log.add(70)  # full again within the check of the report at 10.0: due at 10.1
    log.set_rate(0.5)  # a storm starts before that check
    checked: list[float] = []
    sim.ce_logs.listeners.append(lambda _hbm, at: checked.append(at))
    sim.run(10.2)
    check = sim.params.faults.ce_sensor_check_s
    assert checked == pytest.approx([10.0 + check]) and log.fill < 64
    sim.run(10.3)
    assert _reports(sim) == [10.0] and _resumes(sim) == pytest.approx([10.0 + 2 * check])  # the event persisted


def test_a_storm_fills_the_log_the_background_has_partly_filled(topo1: Topology) -> None:
    """The same log: a stack whose log already holds 60 errors reports after ~4 of the storm's errors."""
    rate, firsts = 0.5, {}
    for fill in (0, 60):
        sim = Simulation(seed=3, topology=topo1)
        sim.ce_logs.of(HBM).add(fill)
        sim.inject(FaultSpec(at_s=100.0, kind="hbm_ce_storm", target=HBM, params={"rate_per_s": rate},
                             duration_s=1800.0))
        sim.run(2000.0)
        firsts[fill] = _reports(sim, HBM)[0] - 100.0
        assert sim.faults[0].quiet_s == pytest.approx(firsts[fill])
    limit = Simulation(seed=3, topology=topo1).params.faults.ce_log_limit
    assert firsts[60] < 30.0 < firsts[0]  # 4 errors at 0.5/s (mean 8 s) against 64 (mean 128 s)
    assert abs(firsts[0] - limit / rate) < 6 * (limit / rate) / math.sqrt(limit)


def test_background_reports_follow_the_errors_the_stacks_count(topo1: Topology) -> None:
    """With enough errors to fill each log a few times, the pod's reports are its counted errors over the limit,
    less about half a log per stack (the logs start empty: each holds what it counted since its last report)."""
    days, per_day = 3.0, 64.0
    params = apply_overrides(SimParams(), {"noise.hbm_ce_per_day": per_day, "noise.flap_per_link_day": 0.0})
    sim = Simulation(params, seed=7, topology=topo1)
    start_background_noise(sim)
    sim.run(days * DAY)
    hbms = topo1.by_kind["hbm"]
    limit = params.faults.ce_log_limit
    counted = np.array([sim.telemetry.read("hbm_ce_total", h) for h in hbms])
    expected = counted.sum() / limit - 0.5 * len(hbms)
    got = len(_reports(sim))
    assert abs(got - expected) < 0.1 * expected, (got, expected)
    # each stack's gaps are Gamma-like, not one line per burst: no stack reports twice within a minute
    for h in hbms[:40]:
        ts = _reports(sim, h)
        assert all(b - a > 60.0 for a, b in zip(ts, ts[1:], strict=False))


def test_an_aged_pods_logs_hold_what_their_counters_counted(topo1: Topology) -> None:
    params = apply_overrides(SimParams(), {"noise.counters_age_s": 20 * DAY})
    sim = Simulation(params, seed=2, topology=topo1)
    start_background_noise(sim)
    limit = params.faults.ce_log_limit
    for h in topo1.by_kind["hbm"][:20]:
        assert sim.ce_logs.of(h).fill == int(sim.telemetry.read("hbm_ce_total", h) or 0) % limit


@pytest.mark.parametrize("unknown", [True, False])
def test_a_fresh_pods_logs_start_empty_or_at_the_stationary_fill(topo1: Topology, unknown: bool) -> None:
    """noise.ce_log_fill_unknown: False (the default: a freshly booted pod, as counters_age_s 0 says) every log
    starts empty; True, a log's fill at t=0 is uniform over 0..limit-1 (the stationary fill). The counters start at 0
    either way."""
    params = apply_overrides(SimParams(), {"noise.ce_log_fill_unknown": unknown})
    sim = Simulation(params, seed=3, topology=topo1)
    start_background_noise(sim)
    limit = params.faults.ce_log_limit
    fills = np.array([sim.ce_logs.of(h).fill for h in topo1.by_kind["hbm"]])
    assert all((sim.telemetry.read("hbm_ce_total", h) or 0) == 0 for h in topo1.by_kind["hbm"][:20])
    if unknown:
        assert fills.min() >= 0 and fills.max() < limit
        assert abs(fills.mean() - (limit - 1) / 2) < 4 * limit / math.sqrt(12 * len(fills)), fills.mean()
    else:
        assert not fills.any()


def test_a_storm_on_a_replaced_chip_stops_filling_its_log(topo1: Topology) -> None:
    """A chip replaced mid-storm (its fault ended by replace_part): the new chip's log no longer fills at the storm's
    rate, and its counter no longer climbs at it (before: the interrupted storm left its rate on the log, so the new
    chip reported 0x80E01805 at the storm's rate for the rest of the run)."""
    sim = Simulation(seed=3, topology=topo1)
    npu = HBM.rsplit("/", 1)[0]
    sim.inject(FaultSpec(at_s=100.0, kind="hbm_ce_storm", target=HBM, params={"rate_per_s": 2.0},
                         duration_s=5 * DAY))
    sim.run(300.0)
    sim.control.replace_part(npu)
    sim.run(2 * DAY)
    ended = sim.faults[0].ended_at_s
    assert ended is not None and ended < 2 * DAY  # the replacement ended the storm
    assert _reports(sim, HBM) and max(_reports(sim, HBM)) <= ended
    assert sim.ce_logs.of(HBM).rate == 0.0 and not sim.ce_logs.listeners
    assert sim.telemetry.metrics.slope("hbm_ce_total", HBM, sim.now) == 0.0
