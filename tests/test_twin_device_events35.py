"""A device reports a fault event once until it resumes (session 35, events35).

Before: the twin printed a second 0x80E01801 for a second UCE (or each row of a row exhaustion) on a chip whose
first had not resumed, and a 0x80E01805 for each correctable-error log report with no resume between; the driver
prints neither (hicann/driver@ef377e95: the sensor layer does not report an event state it holds,
dms_sensor.c:885-889; the converge layer refuses an occurrence already reported, dms_event_converge.c:1206-1212,
:1353; only a passed event is logged and handed on, dms_event.c:1456-1464). Now a persisting event prints nothing,
the correctable-error log's event resumes at the sensor check after its report (the log started over:
dms_sensor.c:937-944, with the event's serial), and a device OS that boots again starts afresh. The oracles are the
twin's own trace (faults, actions) and its correctable-error log's reports (``CeLogs.listeners``). An event whose
clearing the twin does not model is a one-time event instead, reported at each occurrence (the lead, after the
merge: events35 had dropped a chip's second UCE until its next boot)."""

from __future__ import annotations

import re
from datetime import UTC

import pytest

from faultlib.engine import Simulation
from faultlib.injection.spec import FaultSpec
from faultlib.params import apply_overrides
from faultlib.simparams import SimParams
from faultlib.telemetry import formats as fmt
from faultlib.topology import Topology
from opsbrain.ingest import parse_line

NODE = "pod0/node20"
NPU = f"{NODE}/npu3"
HBM = f"{NPU}/hbm"
EVENT = re.compile(r"event_id=0x([0-9a-f]+);.*assertion=(\d)\[.*event_serial_num=(\d+); notify_serial_num=(\d+);")


def _sim(topo: Topology, **over: float) -> Simulation:
    params = apply_overrides(SimParams(), {"control.reset_failure_prob": 0.0, **over})
    return Simulation(params, seed=5, topology=topo)


def _events(sim: Simulation, code: str) -> list[tuple[float, int, int, int]]:
    """(time, assertion, event serial, notify serial) of each ``code`` event line of NPU."""
    return [(ln.t, int(m.group(2)), int(m.group(3)), int(m.group(4))) for ln in sim.telemetry.logs
            if ln.origin == NPU and (m := EVENT.search(ln.text)) and m.group(1) == code.lower()]


def _plugin_lines(sim: Simulation, code: str) -> list[float]:
    return [ln.t for ln in sim.telemetry.logs
            if ln.source == "device_plugin" and f"hex code: {code.lower()}" in ln.text]


def _fault_times(sim: Simulation, kind: str) -> list[float]:
    return [e.t for e in sim.trace.of_kind("fault") if e.detail.get("kind") == kind]


def test_a_uce_is_a_one_time_event_reported_at_each_occurrence_and_a_reset_starts_afresh(topo1: Topology) -> None:
    """An event the twin never resumes (no modelled clearing) is a one-time event (``assertion=2``): the driver's
    conversion of a sensor with an assert mask and no deassert mask (dms_event.c:176-185; the masks are firmware
    settings with no public copy: assumed, :data:`faultlib.telemetry.devicelines.RESUMED_EVENTS`). Each UCE is
    reported, never held as active; events35 first dropped the second UCE until a reboot."""
    sim = _sim(topo1)
    for at in (100.0, 400.0):
        sim.inject(FaultSpec(at_s=at, kind="hbm_uce", target=HBM, params={}))
    sim.run(1000.0)
    first, second = _fault_times(sim, "hbm_uce")
    assert _events(sim, "80E01801") == [(first, 2, 1, 1), (second, 2, 2, 2)]
    assert len([t for t in _plugin_lines(sim, "80E01801") if t >= first]) == 2  # the plugin hears each
    sim.env.run(until=sim.control.reset_chip(NPU))
    back = max(e.t for e in sim.trace.of_kind("action") if e.subject == NPU and e.detail["status"] == "succeeded")
    sim.inject(FaultSpec(at_s=back + 50.0, kind="hbm_uce", target=HBM, params={}))
    sim.run(back + 100.0)
    third = _fault_times(sim, "hbm_uce")[-1]
    assert third == pytest.approx(back + 50.0)
    assert _events(sim, "80E01801")[2:] == [(third, 2, 1, 1)]  # the device OS booted again: its serials from 1


def test_a_row_exhaustion_reports_each_rows_uce_as_a_one_time_event(topo1: Topology) -> None:
    sim = _sim(topo1, **{"faults.rows_at_onset": 60, "faults.rows_growth_interval_s": 30.0})
    sim.inject(FaultSpec(at_s=100.0, kind="hbm_row_exhaustion", target=HBM, params={}))
    sim.run(400.0)
    failed = [e.t for e in sim.trace.of_kind("health") if e.subject == NPU and e.detail["new"] == "failed"]
    assert failed, "the rows did not reach the replacement threshold"
    got = [e for e in _events(sim, "80E01801") if e[0] <= failed[0]]
    assert len(got) >= 2 and {e[1] for e in got} == {2}  # one per isolated row, each a one-time event
    assert [e[2] for e in got] == sorted(set(e[2] for e in got))  # each a new event
    iso = _events(sim, "80E18402")
    assert len(iso) == 1 and iso[0][1] == 2 and iso[0][2] > got[-1][2]


def _storm(topo: Topology, rate: float, duration: float, **over: float) -> tuple[Simulation, list[float]]:
    sim = _sim(topo, **over)
    reports: list[float] = []
    sim.ce_logs.listeners.append(lambda hbm, at: reports.append(at) if hbm == HBM else None)
    sim.inject(FaultSpec(at_s=10.0, kind="hbm_ce_storm", target=HBM, params={"rate_per_s": rate},
                         duration_s=duration))
    sim.run(10.0 + duration + 60.0)
    return sim, reports


def test_the_shipped_twin_reports_each_event_as_one_time_and_prints_no_resume(topo1: Topology) -> None:
    """No sensor's deassert mask is public: every event is a one-time event (RESUMED_EVENTS is empty), each CE log
    report and each fail-slow warning an occurrence of its own, and no resume line is printed."""
    sim, reports = _storm(topo1, rate=2.0, duration=400.0)
    sim.inject(FaultSpec(at_s=sim.now + 10.0, kind="npu_fail_slow", target=NPU, params={}, duration_s=300.0))
    sim.inject(FaultSpec(at_s=sim.now + 400.0, kind="npu_fail_slow", target=NPU, params={}, duration_s=300.0))
    sim.run(sim.now + 800.0)
    ce = _events(sim, "80E01805")
    assert len(reports) >= 3 and [e[0] for e in ce] == pytest.approx(reports)
    assert {e[1] for e in ce} == {2} and {e[1] for e in _events(sim, "80E20207")} == {2}
    assert len(_events(sim, "80E20207")) == 2  # the second warning is reported too: nothing was held
    assert not [ln for ln in sim.telemetry.logs if "assertion=0[" in ln.text]


@pytest.mark.usefixtures("stateful_events")
def test_each_ce_log_report_resumes_at_the_next_sensor_check(topo1: Topology) -> None:
    sim, reports = _storm(topo1, rate=2.0, duration=400.0)
    check = sim.params.faults.ce_sensor_check_s
    assert len(reports) >= 3
    want: list[tuple[float, int, int, int]] = []
    for i, r in enumerate(reports, start=1):  # each report a new event, resumed one check later with its serial
        want += [(r, 1, i, 2 * i - 1), (pytest.approx(r + check), 0, i, 2 * i)]  # type: ignore[list-item]
    assert _events(sim, fmt.HBM_CE_CODE) == want  # before: occurrences only, serials 1, 2, 3 ... and no resume
    raised = [int(m.group(1)) for ln in sim.telemetry.logs if ln.origin == NPU
              and (m := re.search(r"event_id=0x80e01805;.*event_raised_time=(\d+) ms", ln.text))]
    assert raised[0::2] == raised[1::2]  # a resume reports when its event was raised (dms_sensor.c:928, :617)
    assert raised[0] == int(sim.wallclock(reports[0]).replace(tzinfo=UTC).timestamp() * 1000)  # the first report
@pytest.mark.usefixtures("stateful_events")
def test_a_log_full_again_by_the_next_check_keeps_its_event(topo1: Topology) -> None:
    # 1000 errors/s fill a 2-record log within each 0.1 s check: the state persists while the storm lasts
    sim, reports = _storm(topo1, rate=1000.0, duration=5.0, **{"faults.ce_log_limit": 2})
    check = sim.params.faults.ce_sensor_check_s
    assert len(reports) > 40
    assert _events(sim, fmt.HBM_CE_CODE) == [(reports[0], 1, 1, 1), (pytest.approx(reports[-1] + check), 0, 1, 2)]
@pytest.mark.usefixtures("stateful_events")
def test_the_twins_resume_lines_read_as_the_events_recovery(topo1: Topology) -> None:
    sim, reports = _storm(topo1, rate=2.0, duration=200.0)
    got = []
    for ln in sim.telemetry.logs:
        if ln.origin == NPU and ln.source == "device_os":
            got += [(s.kind, s.component, s.severity) for s in parse_line(ln.text, ln.t, ln.origin, ln.source,
                                                                           ln.level)]
    die0 = f"{NPU}/die0"  # the NPU's HBM reports through its die 0's logical device (A3 ids, session 37)
    occur = ("dev:80E01805", die0, 1)  # NotHandle: a warning
    assert got == [occur, ("dev:80E01805:recover", die0, 0)] * len(reports)


def _ended(sim: Simulation, kind: str) -> float:
    ends = [e.t for e in sim.trace.of_kind("fault_end") if e.detail.get("kind") == kind]
    assert ends, f"no end of {kind} in the trace"
    return ends[-1]


@pytest.mark.parametrize(("kind", "target", "code"), [
    ("roce_port_down", f"{NPU}/roce0", "81078603"),  # the port is up again
    ("l1_switch_failure", f"{NODE}/l1sw2", "81B18603"),  # the NPUs' UB ports toward the chip are up again
    ("npu_fail_slow", NPU, "80E20207"),  # the SoC is below its temperature threshold again
])
@pytest.mark.usefixtures("stateful_events")
def test_an_event_whose_condition_the_twin_clears_resumes_and_occurs_anew(topo1: Topology, kind: str, target: str,
                                                                            code: str) -> None:
    sim = _sim(topo1)
    sim.inject(FaultSpec(at_s=100.0, kind=kind, target=target, params={}, duration_s=300.0))
    sim.run(1500.0)
    first_end = _ended(sim, kind)
    sim.inject(FaultSpec(at_s=2000.0, kind=kind, target=target, params={}, duration_s=300.0))
    sim.run(3000.0)
    starts = _fault_times(sim, kind)
    assert len(starts) == 2 and _ended(sim, kind) > starts[1]
    # before: (start, 1, 1, 1), (second start, 1, 2, 2), and no resume
    assert _events(sim, code) == [(starts[0], 1, 1, 1), (first_end, 0, 1, 2), (starts[1], 1, 2, 3),
                                  (_ended(sim, kind), 0, 2, 4)]
