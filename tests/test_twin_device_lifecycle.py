"""A chip's device-side telemetry follows the chip through replacement, down time and reset (session 35).

Before: a replaced part's HBM kept the old correctable-error log fill (a burst after the replacement reported the old
part's errors); a failed, resetting or stopped chip's log went on filling while it was down (and a burst arriving
as it came back reported what a dead chip never recorded), and a fault event on a down chip was still printed;
after a chip reset or a host reboot the device's events went on numbering from the run's first event. Now a new
part's log starts empty, a down chip records and prints nothing until it is back, and a chip's uptime stamp and
event serials restart at the boot of its device OS (the fault manager stamps the device kernel's local_clock;
its serials are counters of the device's kernel module: hicann/driver@ef377e95 fms_define.h:65, dms_sensor.c:60,
dms_event_converge.c:52). An isolated chip is not down: its full log is reported (before, dropped). The times the
oracles use are the twin's own trace (health changes, actions)."""

from __future__ import annotations

import re

import pytest

from faultlib.engine import Simulation
from faultlib.health import Health
from faultlib.injection.spec import FaultSpec
from faultlib.params import apply_overrides
from faultlib.simparams import SimParams
from faultlib.telemetry.emit import Emitter
from faultlib.topology import Topology

NODE = "pod0/node20"
NPU = f"{NODE}/npu3"
HBM = f"{NPU}/hbm"
EVENT = re.compile(r"\[fault_manager\]\[\s*(\d+\.\d{6})\].*event_serial_num=(\d+); notify_serial_num=(\d+);")


def _sim(topo: Topology) -> Simulation:
    params = apply_overrides(SimParams(), {"control.reset_failure_prob": 0.0, "control.isolate_failure_prob": 0.0})
    return Simulation(params, seed=3, topology=topo)


def _ce_reports(sim: Simulation) -> list[float]:
    return [ln.t for ln in sim.telemetry.logs if ln.origin == NPU and "event_id=0x80e01805;" in ln.text
            and "assertion=0[" not in ln.text]  # occurrences (one-time events, session 35)


def _events(sim: Simulation, since: float) -> list[tuple[float, float, int]]:
    """(time, uptime stamp, event serial) of each device event of NPU printed from ``since`` on."""
    out = []
    for ln in sim.telemetry.logs:
        if ln.t >= since and ln.origin == NPU and (m := EVENT.search(ln.text)):
            assert m.group(2) == m.group(3)  # occurrences only here: the two counters go together (twin35b)
            out.append((ln.t, float(m.group(1)), int(m.group(2))))
    return out


def _done_at(sim: Simulation, action: str, target: str) -> float:
    """When the trace says ``action`` on ``target`` succeeded."""
    ends = [e.t for e in sim.trace.of_kind("action") if e.subject == target and e.detail.get("action") == action
            and e.detail.get("status") == "succeeded"]
    assert ends, f"no successful {action} of {target} in the trace"
    return ends[-1]


@pytest.mark.parametrize("replaced", [HBM, NPU, NODE])
def test_a_replaced_parts_ce_log_starts_empty(topo1: Topology, replaced: str) -> None:
    sim = _sim(topo1)
    log = sim.ce_logs.of(HBM)
    log.add(60)  # the old part's log: 4 records short of the limit
    sim.run(10.0)
    sim.env.run(until=sim.control.replace_part(replaced))
    back = _done_at(sim, "replace_part", replaced)
    sim.ce_logs.of(HBM).add(20)  # the new part's first burst: 20 of its own 64 records
    sim.run(back + 60.0)
    assert _ce_reports(sim) == []  # before: 60 + 20 filled the old log and reported at once
    assert sim.ce_logs.of(HBM).fill == 20
    sim.ce_logs.of(HBM).add(44)  # the new log full: reported
    sim.run(back + 120.0)
    assert _ce_reports(sim) == [back + 60.0]


def test_a_down_chip_records_and_prints_nothing_until_it_is_back(topo1: Topology) -> None:
    sim = _sim(topo1)
    log = sim.ce_logs.of(HBM)
    log.add(60)
    sim.inject(FaultSpec(at_s=100.0, kind="npu_off_bus", target=NPU, params={}, duration_s=900.0))
    sim.run(200.0)
    down = [e.t for e in sim.trace.of_kind("health") if e.subject == NPU and e.detail["new"] == "failed"]
    assert down == [100.0]
    log.add(20)  # a burst while the chip is off the bus: not recorded
    log.set_rate(1.0)  # a storm's worth of errors arriving at a dead chip: none recorded
    Emitter(sim).device_event(NPU, "80E01801")  # a fault event of a dead chip: not written
    Emitter(sim).plugin(NPU, "80E01801", "RestartBusiness")  # nor relayed by the plugin
    sim.run(999.0)
    assert _ce_reports(sim) == [] and log.fill == 60  # before: the log filled and reported while the chip was dead
    assert _events(sim, 100.0) == [] and not [ln for ln in sim.telemetry.logs if ln.source == "device_plugin"]
    log.set_rate(0.0)
    sim.run(1100.0)
    back = [e.t for e in sim.trace.of_kind("health") if e.subject == NPU and e.detail["new"] == "healthy"]
    assert back == [1000.0]  # repaired at the fault's repair time
    log.add(4)  # back: records again, from what the log held
    sim.run(1101.0)
    assert _ce_reports(sim) == [1100.0]


def test_a_stopped_hosts_chips_record_nothing(topo1: Topology) -> None:
    sim = _sim(topo1)
    log = sim.ce_logs.of(HBM)
    log.add(60)
    sim.inject(FaultSpec(at_s=100.0, kind="node_crash", target=NODE, params={}, duration_s=None))
    sim.run(200.0)
    log.add(20)
    sim.state.set_health(NODE, Health.HEALTHY, cause="reboot")  # back at 200
    sim.run(300.0)
    assert _ce_reports(sim) == [] and log.fill == 60


def test_an_isolated_chip_still_runs_and_reports_its_full_log(topo1: Topology) -> None:
    sim = _sim(topo1)
    sim.env.run(until=sim.control.isolate(NPU))  # taken out of service, still powered: it beats and logs
    t = _done_at(sim, "isolate", NPU)
    sim.ce_logs.of(HBM).add(64)
    sim.run(t + 1.0)
    assert _ce_reports(sim) == [t]  # before: the report was dropped and the log started over silently


def test_a_dead_chip_isolated_stays_dead_until_it_is_back_in_service(topo1: Topology) -> None:
    """Session 35 review: isolating a chip off the bus (FAILED -> ISOLATED) brought its device OS back: it beat
    again, recorded CE noise and printed events while the driver no longer listed it."""
    from faultlib.telemetry.noise import HEARTBEAT, start_background_noise

    sim = _sim(topo1)
    start_background_noise(sim)
    sim.inject(FaultSpec(at_s=100.0, kind="npu_off_bus", target=NPU, params={}, duration_s=None))
    sim.run(150.0)
    sim.env.run(until=sim.control.isolate(NPU))
    t = _done_at(sim, "isolate", NPU)
    assert sim.state.health(NPU) == Health.ISOLATED and sim.state.device_down(NPU)
    Emitter(sim).device_event(NPU, "80E01801")
    sim.ce_logs.of(HBM).add(64)
    sim.run(t + 60.0)
    assert _events(sim, t) == [] and _ce_reports(sim) == []
    age = sim.telemetry.metrics.read(HEARTBEAT, NPU, t + 60.0)
    assert age is not None and age >= t + 60.0 - 100.0 - 1.0  # no beat since the chip left the bus
    sim.state.set_health(NPU, Health.HEALTHY, cause="replaced")  # back in service: it runs again
    assert not sim.state.device_down(NPU)


def test_a_chip_resets_uptime_and_event_serials_restart_at_its_boot(topo1: Topology) -> None:
    sim = _sim(topo1)
    p = sim.params.telemetry
    sim.run(100.0)
    for code in ("80E01801", "80E00209", "80E0020B"):  # three events (a repeat of one is not printed, events35)
        Emitter(sim).device_event(NPU, code)
    assert _events(sim, 0.0) == [(100.0, 100.0 + p.boot_lead_s, n) for n in (1, 2, 3)]
    sim.env.run(until=sim.control.reset_chip(NPU))
    back = _done_at(sim, "reset_chip", NPU)
    sim.run(back + 50.0)
    Emitter(sim).device_event(NPU, "80E01801")  # raised before the reset: a new event of the new device OS
    Emitter(sim).device_event(NPU, "80E00209")
    up = p.chip_boot_uptime_s + 50.0  # before: serials 4, 5 and the uptime of the run's start (back + 50 + 1200)
    assert _events(sim, back) == [(back + 50.0, up, 1), (back + 50.0, up, 2)]
    other = f"{NODE}/npu1"  # another chip of the host was not reset: it goes on
    Emitter(sim).device_event(other, "80E01801")
    got = [ln.text for ln in sim.telemetry.logs if ln.origin == other]
    assert len(got) == 1 and f"[{back + 50.0 + p.boot_lead_s:12.6f}] " in got[0] and "event_serial_num=1;" in got[0]


def test_a_rebooted_hosts_devices_number_their_events_from_the_boot(topo1: Topology) -> None:
    sim = _sim(topo1)
    p = sim.params.telemetry
    sim.run(100.0)
    Emitter(sim).device_event(NPU, "80E01801")
    sim.inject(FaultSpec(at_s=200.0, kind="node_hang", target=NODE, params={}, duration_s=None))
    sim.run(300.0)
    sim.env.run(until=sim.control.reboot_node(NODE))  # a hung host stops for its reboot and boots
    back = _done_at(sim, "reboot_node", NODE)
    sim.run(back + 30.0)
    Emitter(sim).device_event(NPU, "80E01801")
    Emitter(sim).kernel(NODE, "text")
    assert _events(sim, back) == [(back + 30.0, p.boot_uptime_s + 30.0, 1)]  # before: serial 2, uptime from the run
    kern = [ln.text for ln in sim.telemetry.logs if ln.t >= back and ln.source == "syslog"]
    assert len(kern) == 1 and f"[{p.boot_uptime_s + 30.0:12.6f}]" in kern[0]
