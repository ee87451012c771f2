"""A chip's event serials, a new part's counters and a rebooting host, as the devices show them (session 35, twin35b).

Before: the twin printed one number as both ``event_serial_num`` and ``notify_serial_num``, so a resume took a new
event serial; a replaced part's HBM and port error counters went on from the old part's count; and a hung host went
on writing lines (kernel, device events, plugin) while its reboot was under way. Now the driver's two counters are
kept (hicann/driver@ef377e95: a new event takes the next sensor-event serial, dms_sensor.c:822, and its resume
keeps it, :929/:943; each notification takes the next notify serial, dms_event_converge.c:1435; a resume of an
event not raised since the device OS booted is not reported, :1239-1246), a new part's counters start at 0 and are
read as reset (not as a drop), and a rebooting host writes nothing from the reboot's start until it is back. The
times the oracles use are the twin's own trace (actions, health changes) and the actions' results."""

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
ROCE = f"{NPU}/roce0~pod0/rdma"
EVENT = re.compile(r"event_id=0x([0-9a-f]+);.*assertion=(\d)\[.*event_serial_num=(\d+); notify_serial_num=(\d+);")


def _sim(topo: Topology, **over: float) -> Simulation:
    params = apply_overrides(SimParams(), {"control.reset_failure_prob": 0.0, "control.isolate_failure_prob": 0.0,
                                           **over})
    return Simulation(params, seed=3, topology=topo)


def _events(sim: Simulation, since: float) -> list[tuple[str, int, int, int]]:
    """(event id, assertion, event serial, notify serial) of each device event of NPU printed from ``since`` on."""
    return [(m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4))) for ln in sim.telemetry.logs
            if ln.t >= since and ln.origin == NPU and (m := EVENT.search(ln.text))]


def _done_at(sim: Simulation, action: str, target: str, status: str = "succeeded") -> float:
    ends = [e.t for e in sim.trace.of_kind("action") if e.subject == target and e.detail.get("action") == action
            and e.detail.get("status") == status]
    assert ends, f"no {status} {action} of {target} in the trace"
    return ends[-1]


# ---- 1. two serial numbers -------------------------------------------------------------------------------------
@pytest.mark.usefixtures("stateful_events")
def test_a_resume_keeps_its_events_serial_and_takes_the_next_notify_serial(topo1: Topology) -> None:
    sim = _sim(topo1)
    sim.run(100.0)
    em = Emitter(sim)
    em.device_event(NPU, "80E20207")  # a chip throttling (an event that resumes: RESUMED_EVENTS)
    em.device_event(NPU, "80E0020B")  # a one-time event (assertion 2)
    em.device_event(NPU, "80E20207", recovered=True)  # it resumes: its event's serial, the next notification
    em.device_event(NPU, "80E20207")  # throttling again: a new event
    em.device_event(NPU, "81078603", recovered=True)  # never raised: the driver reports no resume
    assert _events(sim, 0.0) == [("80e20207", 1, 1, 1), ("80e0020b", 2, 2, 2), ("80e20207", 0, 1, 3),
                                 ("80e20207", 1, 3, 4)]  # before: 3/3 for the resume, 4/4, and a resume 5/5
    sim.env.run(until=sim.control.reset_chip(NPU))
    back = _done_at(sim, "reset_chip", NPU)
    em.device_event(NPU, "80E0020B", recovered=True)  # a one-time event has nothing to resume
    em.device_event(NPU, "80E20207")
    em.device_event(NPU, "80E20207", recovered=True)
    assert _events(sim, back) == [("80e20207", 1, 1, 1), ("80e20207", 0, 1, 2)]  # both counters restart at boot


# ---- 2. a new part's counters ----------------------------------------------------------------------------------
@pytest.mark.parametrize("replaced", [HBM, NPU, NODE])
def test_a_replaced_parts_error_counters_start_at_zero_and_read_as_a_reset(topo1: Topology, replaced: str) -> None:
    sim = _sim(topo1)
    hub = sim.telemetry
    l1_link = next(lid for lid in topo1.links_of[f"{NODE}/l1sw0"] if topo1.links[lid].kind == "ub_optical")
    hub.metric("hbm_ce_total", HBM, 500.0, slope=0.01)  # the old part's count, growing 0.01/s
    hub.metric("hbm_uce_total", HBM, 2.0)
    hub.metric("link_crc_total", ROCE, 40.0)
    hub.metric("link_crc_total", l1_link, 70.0)
    sim.run(10.0)
    sim.env.run(until=sim.control.replace_part(replaced))
    back = _done_at(sim, "replace_part", replaced)
    sim.run(back + 100.0)
    read = sim.telemetry.scraped.read_many
    assert read("hbm_ce_total", [HBM], back) == [0.0]  # before: 500 + 0.01 x back, the old stack's count
    assert read("hbm_ce_total", [HBM], back + 100.0) == pytest.approx([1.0])  # at the stack's rate from 0
    assert read("hbm_uce_total", [HBM], back) == [0.0]
    assert read("link_crc_total", [ROCE], back) == [0.0 if replaced != HBM else 40.0]  # the chip's port counter
    assert read("link_crc_total", [l1_link], back) == [0.0 if replaced == NODE else 70.0]  # the L1 chip's
    inc = sim.telemetry.scraped.increase_many("hbm_ce_total", [HBM], back - 50.0, back + 100.0)
    assert inc == pytest.approx([0.5 + 1.0])  # a reset: the 0.5 before it and the 1.0 since; never a drop


def test_the_sweep_reads_a_new_parts_counter_as_a_reset(topo1: Topology) -> None:
    from opsbrain.sweeps.snapshot import SweepHistory, take_snapshot

    sim = _sim(topo1)
    sim.telemetry.metric("hbm_ce_total", HBM, 100_000.0, slope=0.01)  # an old stack that had counted many errors
    sim.run(10.0)
    sim.env.run(until=sim.control.replace_part(HBM))
    back = _done_at(sim, "replace_part", HBM)
    sim.run(back + 60.0)
    for history in (None, SweepHistory()):  # the one-off read and the sweep's cached path
        snap = take_snapshot(sim, history=history)
        got = float(snap.hbm_ce[snap.hbms.index(HBM)])
        window = snap.windows["hbm_ce"]
        assert got == pytest.approx(0.01 * window)  # before: about -100,000 (the drop read as a count)


# ---- 3. a rebooting host -------------------------------------------------------------------------------------
def _writes(sim: Simulation, t0: float, t1: float) -> list[str]:
    """Lines the node or its parts wrote in [t0, t1)."""
    return [f"{ln.t} {ln.origin} {ln.text[:60]}" for ln in sim.telemetry.logs
            if t0 <= ln.t < t1 and (ln.origin == NODE or ln.origin.startswith(NODE + "/"))]


def test_a_rebooting_host_writes_nothing_until_it_is_back(topo1: Topology) -> None:
    sim = _sim(topo1)
    sim.inject(FaultSpec(at_s=100.0, kind="node_hang", target=NODE, params={}, duration_s=None))
    sim.run(200.0)
    proc = sim.control.reboot_node(NODE)
    sim.run(210.0)
    em = Emitter(sim)
    em.kernel(NODE, "watchdog: BUG: soft lockup - CPU#3 stuck for 22s! [python3:1234]")
    em.device_event(NPU, "80E01801")
    em.plugin(NPU, "80E01801", "RestartBusiness")
    assert sim.telemetry.scraped.absent([NPU], 210.0) == [(0, 200.0)]  # its exporter serves nothing either
    sim.env.run(until=proc)
    res = proc.value
    back = _done_at(sim, "reboot_node", NODE)
    assert res.status == "succeeded" and res.start_s == 200.0 and back == res.end_s
    assert _writes(sim, res.start_s, back) == []  # before: the kernel line, the event and the plugin's line
    sim.run(back + 30.0)
    em.device_event(NPU, "80E01801")
    assert len(_writes(sim, back, back + 31.0)) == 1  # back: it writes again
    ports_up = [ln for ln in sim.telemetry.logs if back <= ln.t and "linkDown_clear" in ln.text]
    assert ports_up == []  # its board stayed powered: no port went down, so none comes up
    assert not sim.state.host_down(NODE) and sim.state.health(NODE) == Health.HEALTHY


def test_a_failed_reboot_leaves_the_host_down_until_it_is_back_in_service(topo1: Topology) -> None:
    sim = _sim(topo1, **{"control.reset_failure_prob": 1.0})
    sim.run(100.0)
    proc = sim.control.reboot_node(NODE)
    sim.env.run(until=proc)
    failed = _done_at(sim, "reboot_node", NODE, "failed")
    assert sim.state.health(NODE) == Health.FAILED and sim.state.host_down(NODE)
    Emitter(sim).device_event(NPU, "80E01801")
    assert _writes(sim, 100.0, failed + 1.0) == []
    sim.env.run(until=sim.control.replace_part(NODE))
    back = _done_at(sim, "replace_part", NODE)
    Emitter(sim).device_event(NPU, "80E01801")
    assert len(_writes(sim, back, back + 1.0)) == 1 and not sim.state.host_down(NODE)
