"""Every fault kind of the catalogue, acted out on one pod running both workloads (issue 3, "a test per kind").

The pod runs the paper's inference layout on nodes 0-31 (prefill instances on 0-11, decode on 12-31) and a
training job on nodes 32-45. Each test injects one kind at ``T0`` on a component inside a workload (anywhere for
pod-level kinds) and checks, from what an operator would see:

(a) the log lines: source, origin and the fault code / key text as an operator's regex finds it;
(b) the sympathetic effects (follow-on errors, link-downs on every port of a dead part);
(c) the impact on the workloads (crash, stall, slow-down, lost throughput);
(d) whether the plant heals by itself (self-healing kinds end healthy with no action; the others do not);
(e) that the catalogue's MindCluster level and Llama 3 category agree with what the plant shows.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest

from faultlib import ids
from faultlib.engine import Simulation
from faultlib.faults.base import ActiveFault
from faultlib.faults.catalog import CATALOG, HANDLING_LEVELS
from faultlib.faults.models import MODELS
from faultlib.health import Health
from faultlib.injection.profiles import get_profile
from faultlib.injection.spec import FaultSpec
from faultlib.telemetry import formats as fmt
from faultlib.telemetry.delivery import DeliveryParams
from faultlib.telemetry.noise import start_background_noise
from faultlib.telemetry.records import JobEvent, LogLine
from faultlib.topology import Topology
from faultlib.workloads.inference import InferenceService, paper_layout
from faultlib.workloads.training import TrainingJob

T0 = 600.0
"""Injection time: both workloads have run fault-free for ten minutes."""
TRAIN_NODES = [ids.node(0, n) for n in range(32, 46)]
LINK_DOWN = (r"l1sw\d+ %%01IFNET/2/linkDown_active\(l\):CID=0x[0-9a-f]{8}-alarmID=0x08520003;.*?"
             r"ifName=UB0/0/(\d+),")  # an L1 chip's linkDown alarm (the switch OS's layout, session 45)
LINK_UP = (r"l1sw\d+ %%01IFNET/2/linkDown_clear\(l\):CID=0x[0-9a-f]{8}-alarmID=0x08520003-clearType=\w+;.*?"
           r"ifName=UB0/0/(\d+),")
PLUGIN_DEVICE = (r"receive devFaultInfo: common\.DevFaultInfo\{EventID:(\d+), LogicID:(\d+), [^{}]*Severity:(\d), "
                 r"Assertion:1, [^{}]*\}, hex code: ([0-9a-f]{8})")
"""The device plugin's fault callback line (Ascend/mind-cluster ascend-device-plugin pkg/common/fault_code.go:1844)."""


def plugin_severity(level: str) -> str:
    """The DCMI severity the twin's plugin line carries for a handling level: Minor for a no-action level, else
    Major."""
    return "1" if level in ("NotHandle", "SubHealth") else "2"
PLUGIN_SWITCH = (r"switch subscribe got fault:AlarmId: 0x08520003, FaultID: na, .*Assertion: 1, "
                 r".*faultCode:\[0x08520003,na,L2,na\]$")
"""The device plugin's link-down relay (ascend-device-plugin deviceswitch/ascend_switch.go:174 at 22bb3d98)."""
LLAMA3 = {c.name for c in get_profile("llama3").categories}
DOWN_EVENTS = {"crash", "timeout", "instance_crash", "instance_down"}
STALL_EVENTS = {"stalled", "instance_hang", "instance_stalled"}


@dataclass
class Plant:
    sim: Simulation
    inf: InferenceService
    job: TrainingJob

    def inject(self, kind: str, target: str, at: float = T0, params: dict[str, Any] | None = None,
               duration: float | None = None) -> ActiveFault:
        return self.sim.inject(FaultSpec(at_s=at, kind=kind, target=target, params=params or {},
                                         duration_s=duration))

    def run(self, until: float) -> None:
        self.sim.run(until)

    def logs(self, pattern: str, source: str | None = None, origin: str | None = None, since: float = T0,
             until: float = math.inf) -> list[LogLine]:
        """Lines an operator's regex finds (case-insensitive, as codes are matched), optionally by source/origin."""
        rx = re.compile(pattern, re.I)
        return [ln for ln in self.sim.telemetry.logs
                if since <= ln.t <= until and (source is None or ln.source == source)
                and (origin is None or ln.origin == origin) and rx.search(ln.text)]

    def events(self, kind: str | None = None, job: str | None = None, since: float = T0,
               until: float = float("inf")) -> list[JobEvent]:
        return [e for e in self.sim.telemetry.events
                if since <= e.t <= until and (kind is None or e.kind == kind) and (job is None or e.job == job)]

    def event_kinds(self, since: float = T0, until: float = float("inf")) -> set[str]:
        return {e.kind for e in self.events(since=since, until=until)}

    def inst(self, component: str) -> dict[str, Any]:
        """The inference instance holding ``component``: role, state, up, tokens/s."""
        q = self.inf.instance_of(component)
        assert q is not None, component
        return self.inf.instances()[q]

    def others_up(self, component: str) -> bool:
        """Every inference instance but the one holding ``component`` runs."""
        q = self.inf.instance_of(component)
        return all(v["up"] for k, v in self.inf.instances().items() if k != q)


def plant(topo: Topology, seed: int = 5, noise: bool = False) -> Plant:
    sim = Simulation(seed=seed, topology=topo)
    prefill, decode = paper_layout(sim.topology)
    inf = InferenceService("inf", prefill, decode)
    job = TrainingJob("train", TRAIN_NODES)
    sim.add_workload(inf)
    sim.add_workload(job)
    if noise:
        start_background_noise(sim)
    sim.run(T0)
    return Plant(sim, inf, job)


def check_catalogue(p: Plant, kind: str, since: float = T0, until: float = float("inf")) -> None:
    """(e) The catalogue entry agrees with the model and with what the plant showed since ``since``.

    Device-plugin lines for a device fault code carry the severity of the catalogue's handling level (the real
    plugin prints no level on them; switch-fault lines carry the fault tuple only: their level is looked up). A kind
    that interrupts jobs counts in a Llama 3 root-cause category and cost a workload work (a stall, hang or crash);
    a kind that does not counts in no category and took no workload down.
    """
    meta = CATALOG[kind]
    assert kind in MODELS and meta.level in HANDLING_LEVELS and meta.level in fmt.HANDLING_LEVELS
    assert meta.interrupts == (meta.category != "none")
    assert meta.category == "none" or meta.category in LLAMA3
    dev_levels = {m.group(3) for ln in p.logs(PLUGIN_DEVICE, source="device_plugin", since=since)
                  if (m := re.search(PLUGIN_DEVICE, ln.text))}
    assert dev_levels <= {plugin_severity(meta.level)}, f"{kind}: plugin reported {dev_levels}, catalogue {meta.level}"
    seen = p.event_kinds(since, until)
    if meta.interrupts:
        assert seen & (DOWN_EVENTS | STALL_EVENTS), f"{kind} interrupts jobs but no workload noticed"
    else:
        assert not seen & DOWN_EVENTS, f"{kind} is not an interruption but took a workload down: {seen}"


def ended(p: Plant, fault: ActiveFault) -> bool:
    return fault.ended_at_s is not None and any(
        e.kind == "fault_end" and e.detail.get("id") == fault.id for e in p.sim.trace.events)


# ---- HBM ----------------------------------------------------------------------------------------------
def test_hbm_ce_storm_counter_slope_warnings_and_no_impact(topo1: Topology) -> None:
    p = plant(topo1, noise=True)
    hbm = "pod0/node20/npu3/hbm"  # in the decode instance
    npu = ids.npu_of(hbm)
    base = p.sim.telemetry.metrics.slope("hbm_ce_total", hbm, T0)
    rate, dur = 0.5, 1800.0
    f = p.inject("hbm_ce_storm", hbm, params={"rate_per_s": rate}, duration=dur)
    p.run(T0 + dur / 2)
    m = p.sim.telemetry.metrics
    assert m.slope("hbm_ce_total", hbm, p.sim.now) == pytest.approx(base + rate)  # the CE counter climbs fast
    p.run(T0 + dur + 600)
    assert m.slope("hbm_ce_total", hbm, p.sim.now) == pytest.approx(base)  # back to the benign background
    grown = (p.sim.telemetry.read("hbm_ce_total", hbm) or 0) - (p.sim.telemetry.read("hbm_ce_total", hbm, T0) or 0)
    assert grown >= rate * dur
    # (a) periodic device warnings with the CE logging code on the NPU's device log: the same line a background
    # burst prints (the count is in the counter, not in the line)
    warn = p.logs(r"event_id=0x80e01805;.* assertion=2\[One time event\]", source="device_os", origin=npu,
                  until=T0 + dur)
    assert len(warn) >= 5 and all(ln.level == "EVENT" and "severity=1[Warning]" in ln.text for ln in warn)
    assert not p.logs(r"event_id=0x80e01801")  # a precursor: no uncorrectable error yet
    # (c) no impact; (d) heals by itself: nothing unhealthy, the storm ended
    assert p.job.state == "running" and all(v["up"] for v in p.inf.instances().values())
    assert p.inf.throughput_at(p.sim.now) == pytest.approx(p.inf.throughput_at(T0 - 1))
    assert ended(p, f) and f.ended_at_s == pytest.approx(T0 + dur)
    assert CATALOG["hbm_ce_storm"].self_heals and not p.sim.state.unhealthy()
    check_catalogue(p, "hbm_ce_storm")


def test_device_plugin_writes_a_device_fault_at_its_poll_not_at_the_fault(topo1: Topology) -> None:
    """The device plugin finds a device's code at its next poll (uniform phase over its period) and stamps its line
    then; the device's own log line is stamped at the fault. Over a few seeds the poll's phase varies."""
    period = DeliveryParams().device_plugin_poll_s
    lags = []
    for seed in range(4):
        p = plant(topo1, seed=seed)
        p.inject("hbm_uce", "pod0/node33/npu2/hbm")
        p.run(T0 + 10)
        (uce,) = p.logs(r"event_id=0x80e01801;.* assertion=2\[One time event\]", source="device_os")
        (plug,) = p.logs(r"hex code: 80e01801$", source="device_plugin")
        assert uce.t == T0 and T0 < plug.t <= T0 + period
        dt = p.sim.wallclock(plug.t)
        assert f"{dt:%Y/%m/%d %H:%M:%S}.{dt.microsecond:06d}" in plug.text  # the text carries the poll's time
        raised = p.sim.wallclock(T0).replace(tzinfo=UTC).timestamp()  # the event's own time is the fault's
        assert f"AlarmRaisedTime:{int(raised * 1000)}}}" in plug.text
        lags.append(plug.t - T0)
    assert len({round(x, 6) for x in lags}) == len(lags)


def test_hbm_uce_code_followon_errors_and_training_crash(topo1: Topology) -> None:
    p = plant(topo1)
    hbm = "pod0/node33/npu2/hbm"
    npu, node = "pod0/node33/npu2", "pod0/node33"
    f = p.inject("hbm_uce", hbm)
    p.run(T0 + 120)
    # (a) the device log holds the UCE code; the node's device plugin relays it with its handling level
    (uce,) = p.logs(r"event_id=0x80e01801;.* assertion=2\[One time event\]", source="device_os", origin=npu)
    assert uce.t == T0 and uce.level == "EVENT" and "severity=3[Critical]; assertion=2[One time event]" in uce.text
    # the plugin names the A3 logical device: npu2's die 0 is 4 (session 37)
    (plug,) = p.logs(r"LogicID:4, .*Assertion:1, .*hex code: 80e01801$", source="device_plugin", origin=node)
    assert f"Severity:{plugin_severity(CATALOG['hbm_uce'].level)}, " in plug.text
    assert p.logs(r"ErrCode=507053", source="plog", origin=node)
    # (b) no follow-on device codes: the knowledge graph documents none for 0x80E01801
    assert not p.logs(r"event_id=0x80c98000|ErrCode=507015")
    assert p.logs(r"\[rank\d+\]: RuntimeError: InnerRun: NPU error, error code is 507053", source="train", origin=node)
    # (c) the rank's process dies: the training job crashes at once; inference does not notice
    (crash,) = p.events("crash", job="train")
    assert crash.t == T0 and crash.detail["node"] == node
    assert p.job.state == "down" and p.job.throughput_at(p.sim.now) == 0.0
    assert all(v["up"] for v in p.inf.instances().values())
    # (d) nothing restarts the job by itself; the chip itself stays in service (RestartBusiness, not Separate)
    assert ended(p, f) and p.job.state == "down" and p.sim.state.is_up(npu)
    check_catalogue(p, "hbm_uce")


def test_hbm_uce_in_a_prefill_instance_takes_that_instance_down(topo1: Topology) -> None:
    p = plant(topo1)
    hbm = "pod0/node4/npu6/hbm"  # prefill2
    p.inject("hbm_uce", hbm)
    p.run(T0 + 60)
    assert p.logs(r"event_id=0x80e01801", origin="pod0/node4/npu6")
    inst = p.inst(hbm)
    assert inst["role"] == "prefill" and inst["state"] == "down" and not inst["up"]
    assert p.events("instance_crash", job="inf")[0].detail["instance"] == p.inf.instance_of(hbm)
    assert p.others_up(hbm) and p.job.state == "running"


def test_hbm_row_exhaustion_rows_climb_warn_at_16_separate_at_64(topo1: Topology) -> None:
    p = plant(topo1)
    hbm, npu = "pod0/node40/npu5/hbm", "pod0/node40/npu5"
    ctrl = p.sim.params.control
    f = p.inject("hbm_row_exhaustion", hbm, params={"rows_at_onset": 10})
    p.run(T0 + 40 * 3600)
    series = [v for _t, v, _s in p.sim.telemetry.metrics.series("hbm_isolated_rows", hbm)]
    assert series == sorted(series) and series[0] == 11 and series[-1] == ctrl.hbm_rows_replace_threshold
    (warn,) = p.logs(r"event_id=0x80e18401", source="device_os", origin=npu)
    (sep,) = p.logs(r"event_id=0x80e18402", source="device_os", origin=npu)
    assert T0 < warn.t < sep.t
    rows_at_warn = p.sim.telemetry.read("hbm_isolated_rows", hbm, warn.t)
    assert rows_at_warn == ctrl.hbm_rows_warn_threshold  # the counter says how many; the line only the code
    (plug,) = p.logs(r"hex code: 80e18402$", source="device_plugin", origin="pod0/node40")
    assert f"Severity:{plugin_severity(CATALOG['hbm_row_exhaustion'].level)}, " in plug.text
    # each new isolated row is one more multi-bit error report on the device log, a one-time event (session 35)
    assert len(p.logs(r"event_id=0x80e01801;.* assertion=2\[One time event\]", origin=npu)) == 64 - 10
    # (c) the job runs while rows accumulate and stops only when the chip is separated
    stops = p.events(job="train")
    assert [e for e in stops if e.kind in DOWN_EVENTS | STALL_EVENTS][0].t == pytest.approx(sep.t)
    assert p.job.state == "down"
    # (d) the chip is out of service for good: replace it
    assert ended(p, f) and p.sim.state.health(npu) == Health.FAILED
    check_catalogue(p, "hbm_row_exhaustion")


def test_hbm_overtemp_temperature_rises_alarm_then_fatal_stop(topo1: Topology) -> None:
    p = plant(topo1)
    hbm, npu = "pod0/node7/npu5/hbm", "pod0/node7/npu5"  # prefill3
    fp = p.sim.params.faults
    f = p.inject("hbm_overtemp", hbm)
    p.run(T0 + 60)
    tel = p.sim.telemetry
    t60 = tel.read("hbm_temp_c", hbm)
    assert t60 is not None and fp.hbm_temp_nominal_c < t60 < fp.hbm_temp_alarm_c
    assert tel.metrics.slope("hbm_temp_c", hbm, p.sim.now) > 0  # rising
    p.run(T0 + 2 * fp.overtemp_ramp_s)
    (alarm,) = p.logs(r"event_id=0x80e00209", source="device_os", origin=npu)
    (fatal,) = p.logs(r"event_id=0x80e0020b", source="device_os", origin=npu)
    assert T0 < alarm.t < fatal.t and "severity=2[Alarm]" in alarm.text and "severity=3[Critical]" in fatal.text
    assert tel.read("hbm_temp_c", hbm, alarm.t) == pytest.approx(fp.hbm_temp_alarm_c)
    assert tel.read("hbm_temp_c", hbm, fatal.t) == pytest.approx(fp.hbm_temp_fatal_c)
    (plug,) = p.logs(r"hex code: 80e0020b$", source="device_plugin", origin="pod0/node7")
    assert f"Severity:{plugin_severity(CATALOG['hbm_overtemp'].level)}, " in plug.text
    # (c) the prefill instance holding the chip goes down; the others keep serving
    inst = p.inst(hbm)
    assert inst["state"] == "down" and p.others_up(hbm)
    assert [e.t for e in p.events("instance_crash", job="inf")] == [fatal.t]
    assert p.inf.throughput_at(alarm.t) == pytest.approx(p.inf.throughput_at(T0 - 1))  # fine until the stop
    # (d) the chip stays stopped
    assert ended(p, f) and p.sim.state.health(npu) == Health.FAILED
    check_catalogue(p, "hbm_overtemp")


# ---- optical links ------------------------------------------------------------------------------------
def test_optical_degradation_rx_decays_lanes_drop_then_link_dies(topo1: Topology) -> None:
    p = plant(topo1)
    node = "pod0/node40"
    link = "pod0/node40/l1sw4~pod0/l2plane4/sw09"
    lk = p.sim.topology.links[link]
    module = lk.modules[-1]  # the degrading module (Rx side)
    fp, tp = p.sim.params.faults, p.sim.params.telemetry
    rate = 3.0  # dB/h: a fast-ageing module so the test covers the whole progression in a few hours
    dom = p.sim.dom
    rx_start = dom.read_module(module, noise=False)["rx_dbm"].copy()
    f = p.inject("optical_degradation", link, params={"dbm_per_hour": rate})
    nominal = p.job.step_time_s
    p.run(T0 + 3600)
    # (a) DOM: Rx power of every lane decays at the given rate, SNR falls, corrected FEC errors climb faster
    rx_1h = dom.read_module(module, noise=False)["rx_dbm"]
    assert rx_1h == pytest.approx(rx_start - rate, abs=0.05)
    assert (dom.read_module(module)["snr_db"] < dom.read_module(module, T0)["snr_db"]).all()
    assert p.sim.telemetry.metrics.slope("link_fec_corrected_total", link, p.sim.now) > 0
    assert p.sim.state.lanes_down(link) == 0 and p.sim.state.health(link) == Health.HEALTHY
    assert p.job.step_time_s == pytest.approx(nominal)  # still full bandwidth: no workload notices yet
    # lanes drop one after another: the link runs sub-healthy, on fewer lanes, then dies
    lanes_seen: list[tuple[float, int, float]] = []
    while p.sim.state.health(link) != Health.FAILED and p.sim.now < T0 + 12 * 3600:
        p.run(p.sim.now + 300)
        n = p.sim.state.lanes_down(link)
        if n and (not lanes_seen or lanes_seen[-1][1] != n) and p.sim.state.health(link) == Health.HEALTHY:
            lanes_seen.append((p.sim.now, n, p.job.step_time_s))
            # the DOM shows the lost lanes as loss of light at both ends; the others still have light
            for mod in lk.modules:
                rx = dom.read_module(mod)["rx_dbm"]
                assert (rx == tp.dom_los_dbm).sum() == n and (rx > tp.dom_rx_alarm_dbm - 5).sum() == lk.lanes - n
    assert [n for _t, n, _s in lanes_seen] == list(range(1, lk.lanes))
    # the L1 chip raises the lanes-reduced alarm [0x00f10509,...,L2,na] once per width step: to half (132332) at the
    # first lane lost, to a quarter (132333) once fewer than half are left (hicann/driver lqdrv ioctl_comm_def.h)
    lane_lines = p.logs(r"%%01DEVM/1/hwPortFail_active\(l\):CID=\w+-alarmID=0x00f10509;", source="switch", origin=lk.a)
    assert [re.search(r"EntityTrapFaultID=(\d+)", ln.text).group(1) for ln in lane_lines] == ["132332", "132333"]  # type: ignore
    t_lane = lane_lines[0].t
    # the first lane drops when the decayed Rx power reaches the lane-drop level
    assert rx_start.min() - rate * (t_lane - T0) / 3600 == pytest.approx(fp.lane_drop_rx_dbm, abs=0.5)
    steps = [s for _t, _n, s in lanes_seen]
    assert nominal < steps[0] <= steps[-1] < 1.2 * nominal  # sub-healthy: slower, still running
    # (b) link down: the L1 chip's uplink alarm, the L2 chip's port state, the device plugin relay
    (down,) = p.logs(LINK_DOWN, source="switch", origin=lk.a)
    assert down.t > lane_lines[-1].t and down.text.endswith("mainIfname=UB0/0/9)")  # no cause text
    assert rx_start.min() - rate * (down.t - T0) / 3600 == pytest.approx(fp.link_down_rx_dbm, abs=0.5)
    assert p.logs(r"linkDown_active.*ifName=UB0/0/40,", source="switch", origin=lk.b)
    assert p.logs(PLUGIN_SWITCH, source="device_plugin", origin=node)
    assert (dom.read_module(module)["rx_dbm"] == tp.dom_los_dbm).all()  # a dead link: no light on any lane
    # (c) the dead uplink stalls the training job's collectives (no re-route); CANN's re-execution (MaxCnt 1 by
    # default) finds the path still dead, the error surfaces and the job goes down: then it is a link-down
    (stall,) = p.events("stalled", job="train")
    assert stall.t == pytest.approx(down.t)
    crash = p.events("crash", job="train")
    assert not crash or crash[0].t == pytest.approx(down.t + p.job.p.op_retry_hold_s)
    # (d) no self-healing
    assert ended(p, f) and p.sim.state.health(link) == Health.FAILED
    check_catalogue(p, "optical_degradation", since=T0, until=down.t)  # the degradation itself
    assert not p.event_kinds(T0, down.t) - {"stalled", "checkpoint"}  # degradation alone interrupted nothing


def test_link_flap_repeated_down_up_crc_bursts_and_retried_stalls(topo1: Topology) -> None:
    p = plant(topo1)
    link = "pod0/node41/l1sw0~pod0/l2plane0/sw03"
    lk = p.sim.topology.links[link]
    flaps = 6
    f = p.inject("link_flap", link, params={"flaps": flaps})
    p.run(T0 + 3600)
    downs = p.logs(LINK_DOWN, source="switch", origin=lk.a)
    ups = p.logs(LINK_UP, source="switch", origin=lk.a)
    assert len(downs) == len(ups) == flaps
    seq = sorted([(ln.t, "down") for ln in downs] + [(ln.t, "up") for ln in ups])
    assert [s for _t, s in seq] == ["down", "up"] * flaps  # strictly alternating
    assert len({re.search(LINK_DOWN, ln.text).group(1) for ln in downs}) == 1  # type: ignore[union-attr]
    assert len(p.logs(r"linkDown_(active|clear)", origin=lk.b)) == 2 * flaps  # the L2 end sees the same
    tel = p.sim.telemetry
    assert tel.read("link_down_total", link) == flaps
    assert (tel.read("link_crc_total", link) or 0) > 0  # exponential bursts, mean faults.crc_burst per flap
    # (c) each flap stalls the job's collectives (a flap inside a retry window extends that stall); the HCCL
    # retry resumes it: work redone, no crash
    stalls = p.events("stalled", job="train")
    assert 1 <= len(stalls) <= flaps and len(p.events("resumed", job="train")) == len(stalls)
    assert stalls[0].t == T0
    assert not p.event_kinds() & DOWN_EVENTS and p.job.state == "running"
    acc = p.job.accounting()
    assert acc["stalled_s"] >= len(stalls) * p.job.p.op_retry_hold_s  # each stall lasts at least the HoldTime
    assert ended(p, f) and seq[-1][0] <= f.ended_at_s  # type: ignore[operator]
    check_catalogue(p, "link_flap")


def test_link_down_alarms_and_training_times_out_without_reroute(topo1: Topology) -> None:
    p = plant(topo1)
    link = "pod0/node43/l1sw6~pod0/l2plane6/sw15"
    lk = p.sim.topology.links[link]
    f = p.inject("link_down", link)
    p.run(T0 + 1800 + 300)
    (alarm,) = p.logs(LINK_DOWN, source="switch", origin=lk.a)
    assert alarm.t == T0 and alarm.text.endswith("mainIfname=UB0/0/15)")
    (port,) = p.logs(r"linkDown_active.*ifName=UB0/0/43,.*OperStatus=DOWN", source="switch", origin=lk.b)
    (plug,) = p.logs(PLUGIN_SWITCH, source="device_plugin", origin="pod0/node43")
    assert port.t == plug.t == T0
    assert not p.logs(LINK_UP)
    # (c) the collective on the dead path stalls; CANN re-executes it MaxCnt times (default 1, after HoldTime),
    # finds the path still dead, and the error surfaces: the job crashes with EI0006 (no 30 min hang)
    (stall,) = p.events("stalled", job="train")
    (crash,) = p.events("crash", job="train")
    assert stall.t == T0 and crash.t == pytest.approx(T0 + p.job.p.op_retry_hold_s)
    assert p.logs(r"EI0006", source="train") and not p.events("timeout", job="train")
    assert all(v["up"] for v in p.inf.instances().values())
    # (d) stays down
    assert ended(p, f) and p.sim.state.health(link) == Health.FAILED
    check_catalogue(p, "link_down")


def test_dirty_connector_self_heals_and_costs_almost_nothing(topo1: Topology) -> None:
    p = plant(topo1)
    base = plant(topo1)  # the same run without the fault
    dec_link = "pod0/node22/l1sw3~pod0/l2plane3/sw07"  # a decode node
    trn_link = "pod0/node38/l1sw5~pod0/l2plane5/sw02"  # a training node
    fs = [p.inject("dirty_connector", dec_link), p.inject("dirty_connector", trn_link, at=T0 + 1000)]
    end = T0 + 2 * 3600
    p.run(end)
    base.run(end)
    dark_s = {}
    for link in (dec_link, trn_link):
        a = p.sim.topology.links[link].a
        (down,) = p.logs(LINK_DOWN, source="switch", origin=a)
        (up,) = p.logs(LINK_UP, source="switch", origin=a)
        dark_s[link] = up.t - down.t
        assert 0 < dark_s[link] < 10  # re-locks within seconds
        assert p.sim.state.health(link) == Health.HEALTHY  # (d) healed with no action
    assert all(ended(p, f) for f in fs) and not p.sim.state.unhealthy()
    # (c) the decode instance paused for the flap and resumed at HCCL's first re-execution (HoldTime after the
    # stall: the link re-locked before it); the training step was retried
    assert {e.kind for e in p.events(job="inf")} <= {"instance_stalled", "instance_resumed"}
    assert all(v["up"] for v in p.inf.instances().values()) and p.job.state == "running"
    lost_tok = base.inf.accounting()["tokens_served"] - p.inf.accounting()["tokens_served"]
    hold = p.inf.p.op_retry_hold_s
    assert dark_s[dec_link] < hold
    assert 0.99 * hold <= lost_tok / base.inf.throughput_at(T0) <= 1.01 * hold  # the HoldTime's tokens, no more
    lost_s = base.job.accounting()["useful_s"] - p.job.accounting()["useful_s"]
    assert 0 < lost_s < p.job.nominal_step_time_s + 2 * p.job.p.op_retry_hold_s  # at most one step redone
    check_catalogue(p, "dirty_connector")


# ---- switches -------------------------------------------------------------------------------------------
def test_l1_switch_failure_16_uplinks_down_devices_report_ub_port_down(topo1: Topology) -> None:
    p = plant(topo1)
    sw, node = "pod0/node42/l1sw1", "pod0/node42"
    f = p.inject("l1_switch_failure", sw)
    p.run(T0 + 1800 + 300)
    (fe,) = p.logs(r"AssembledFaultCode: \[0x00f103b0,155907,na,na\].*SwitchChipId: 1, SwitchPortId: 4294967295,",
                   source="device_plugin",
                   origin=node)
    assert fe.t == T0
    assert not p.logs(LINK_DOWN, source="switch", origin=sw)  # a dead chip logs nothing
    l2_ports = p.logs(r"linkDown_active.*ifName=UB0/0/42,", source="switch", until=T0)
    assert {ln.origin for ln in l2_ports} == {ids.l2(0, 1, k) for k in range(16)}  # all on plane 1
    dev = p.logs(r"event_id=0x81b18603", source="device_os", until=T0)
    assert {ln.origin for ln in dev} == set(p.sim.topology.npus_of(node))
    # (c) the node's dies lose a plane; without re-route the job's collectives stall, the re-execution fails and
    # the error surfaces (MaxCnt 1)
    assert p.events("stalled", job="train")[0].t == T0 and p.events("crash", job="train")
    assert all(v["up"] for v in p.inf.instances().values())
    assert ended(p, f) and p.sim.state.health(sw) == Health.FAILED
    check_catalogue(p, "l1_switch_failure")


def test_l2_switch_failure_48_link_downs_on_one_plane_stall_every_workload(topo1: Topology) -> None:
    p = plant(topo1)
    sw = "pod0/l2plane3/sw04"
    f = p.inject("l2_switch_failure", sw)
    p.run(T0 + 1800 + 300)
    alarms = p.logs(LINK_DOWN, source="switch", until=T0)
    assert len(alarms) == 48
    assert {ln.origin for ln in alarms} == {ids.l1(0, n, 3) for n in range(48)}  # L1 chip 3 of every node
    assert all(ln.text.endswith("mainIfname=UB0/0/4)") for ln in alarms)
    assert not p.logs(r"linkDown_active", source="switch", origin=sw)  # the dead L2 chip logs nothing
    assert len(p.logs(PLUGIN_SWITCH, source="device_plugin", until=T0)) == 48
    # (c) every node lost one of its 112 uplinks; with static hashing every collective stalls, the re-execution
    # fails and the job and every serving instance go down (MaxCnt 1), the instances' ranks reporting EI0006
    assert p.inf.throughput_at(T0) == 0.0 < p.inf.throughput_at(T0 - 1)
    crashed = p.events("instance_crash", job="inf")
    assert {e.detail["instance"] for e in crashed} == set(p.inf.instances())
    assert all(e.t == pytest.approx(T0 + p.inf.p.op_retry_hold_s) and "EI0006" in e.detail["reason"] for e in crashed)
    assert p.events("crash", job="train")
    assert ended(p, f) and p.sim.state.health(sw) == Health.FAILED
    check_catalogue(p, "l2_switch_failure")


# ---- NPUs -------------------------------------------------------------------------------------------------
def test_aicore_hang_ts_heartbeat_error_then_runtime_timeout_instance_hangs(topo1: Topology) -> None:
    p = plant(topo1)
    die, npu = "pod0/node9/npu4/die1", "pod0/node9/npu4"  # prefill4
    f = p.inject("aicore_hang", die)
    hang_s = p.inf.p.hang_timeout_s
    p.run(T0 + hang_s + 60)
    (ts,) = p.logs(r"event_id=0x80fa4e00", source="device_os", origin=npu)
    assert ts.t == T0 and "die" not in ts.text
    (rt,) = p.logs(r"rtStreamSynchronize:ErrCode=507010$", source="plog", origin="pod0/node9")
    assert rt.t == pytest.approx(T0 + p.sim.params.faults.peer_timeout_report_s)
    # (c) the instance hangs at once and is declared down after the hang timeout
    q = p.inf.instance_of(die)
    hang = [e for e in p.events(job="inf") if e.detail.get("instance") == q]
    assert [e.kind for e in hang][:1] == ["instance_hang"] and hang[0].t == T0
    assert any(e.kind == "instance_down" and e.t == pytest.approx(T0 + hang_s) for e in hang)
    assert p.inst(die)["state"] == "down" and p.others_up(die) and p.job.state == "running"
    assert ended(p, f) and p.sim.state.health(die) == Health.FAILED
    check_catalogue(p, "aicore_hang")


def test_npu_off_bus_pcie_fatal_heartbeat_lost_decode_down(topo1: Topology) -> None:
    p = plant(topo1, noise=True)
    npu, node = "pod0/node25/npu1", "pod0/node25"  # decode
    f = p.inject("npu_off_bus", npu)
    p.run(T0 + 120)
    (pcie,) = p.logs(r"PCIe Bus Error: severity=Uncorrected \(Fatal\), type=[\w ]+ Layer, \(Receiver ID\)$",
                     source="syslog", origin=node)
    # the driver names the A3 logical device: npu1's die 0 is 2 (session 37)
    (hb,) = p.logs(r"\[drv_soft_fault\] \[heart_beat_judge 318\] .*Heartbeat lost! \(device=2;", source="syslog",
                   origin=node)
    assert pcie.t == T0 and T0 < hb.t <= T0 + 10
    assert (p.sim.telemetry.read("npu_heartbeat_age_s", npu) or 0) >= 100  # the NPU stopped beating
    # (c) the single decode instance is lost: the service serves nothing
    assert p.inst(npu)["role"] == "decode" and p.inst(npu)["state"] == "down"
    assert p.inf.throughput_at(p.sim.now) == 0.0 < p.inf.throughput_at(T0 - 1)
    assert p.job.state == "running"
    assert ended(p, f) and p.sim.state.health(npu) == Health.FAILED
    check_catalogue(p, "npu_off_bus")


def test_npu_fail_slow_raises_step_time_by_about_the_factor_then_recovers(topo1: Topology) -> None:
    p = plant(topo1)
    npu, dec_npu = "pod0/node44/npu6", "pod0/node15/npu2"
    factor, dur = 1.5, 1200.0
    nominal, tpot0 = p.job.step_time_s, p.inf.tpot_at(T0 - 1)
    fs = [p.inject("npu_fail_slow", npu, params={"factor": factor}, duration=dur),
          p.inject("npu_fail_slow", dec_npu, params={"factor": factor}, duration=dur)]
    p.run(T0 + dur / 2)
    (warn,) = p.logs(r"event_id=0x80e20207", source="device_os", origin=npu)
    assert "severity=1[Warning]; assertion=2[One time event]" in warn.text
    fp = p.sim.params.faults
    assert p.sim.telemetry.read("npu_temp_c", npu) == fp.npu_temp_throttle_c
    slow = p.job.step_time_s
    # the straggler sets the pace of every synchronous step: compute x factor, communication unchanged
    assert 1 + 0.8 * (factor - 1) < slow / nominal <= factor
    assert p.sim.telemetry.read("rank_step_time_s", npu) == pytest.approx(slow)
    # every rank publishes its step time: the healthy ones are faster than the straggler
    healthy = [p.sim.telemetry.read("rank_step_time_s", r) for r in p.job.ranks if r != npu]
    assert all(h is not None and h < slow for h in healthy)
    assert p.sim.telemetry.read("step_time_s", "train") == pytest.approx(slow)
    assert p.inf.tpot_at(p.sim.now) > 1.2 * tpot0  # the slowed decode NPU drags the instance's TPOT
    assert p.job.state == "running" and all(v["up"] for v in p.inf.instances().values())
    p.run(T0 + dur + 600)
    # the throttling episode ends after its duration: full speed again with no action (note: the catalogue
    # marks npu_fail_slow as not self-healing, while the model ends each episode after its duration)
    assert p.job.step_time_s == pytest.approx(nominal) and p.inf.tpot_at(p.sim.now) == pytest.approx(tpot0)
    assert all(ended(p, f) for f in fs) and not p.sim.state.unhealthy()
    assert (p.sim.telemetry.read("npu_temp_c", npu) or 0.0) < fp.npu_temp_throttle_c
    check_catalogue(p, "npu_fail_slow")


# ---- nodes ------------------------------------------------------------------------------------------------
def test_node_crash_panic_112_uplinks_down_heartbeat_lost_job_crash(topo1: Topology) -> None:
    p = plant(topo1)
    node = "pod0/node35"
    f = p.inject("node_crash", node)
    p.run(T0 + 300)
    (panic,) = p.logs(r"Kernel panic - not syncing", source="syslog", origin=node)
    assert panic.t == T0
    # (b) every L2 chip reports its port toward the node down: 112 port states at once; the node's own L1 chips
    # and device plugin are on the dead board and log nothing
    assert not p.logs(LINK_DOWN, source="switch", until=T0)
    l2 = p.logs(r"linkDown_active.*ifName=UB0/0/35,", source="switch", until=T0)
    assert len(l2) == 112 and len({ln.origin for ln in l2}) == 112  # one port on each of the 112 L2 chips
    assert not p.logs(r".", origin=node, since=T0 + 1)  # nothing more from the dead host
    # (c) the ranks die silently: the job stalls and the peers report the wait for the node
    assert p.events("stalled", job="train")[0].t == T0 and not p.events("crash", job="train")
    peers = p.logs(r"taskType\[Notify Wait\], remote\[" + re.escape(fmt.host_ip(node)) + r"\]", source="plog")
    assert peers and node not in {ln.origin for ln in peers}
    assert all(v["up"] for v in p.inf.instances().values())
    assert ended(p, f) and p.sim.state.health(node) == Health.FAILED
    check_catalogue(p, "node_crash")


def test_node_hang_soft_lockup_heartbeat_lost_devices_up_decode_hangs(topo1: Topology) -> None:
    p = plant(topo1)
    node = "pod0/node28"  # decode
    f = p.inject("node_hang", node)
    hang_s = p.inf.p.hang_timeout_s
    p.run(T0 + hang_s + 60)
    (lock,) = p.logs(r"watchdog: BUG: soft lockup - CPU#\d+ stuck for \d+s! \[python3:\d+\]", source="syslog",
                     origin=node)
    # the watchdog reports a CPU stuck for over 20 s (2 x watchdog_thresh), saying how long: that long after the onset
    stuck = int(re.search(r"stuck for (\d+)s", lock.text).group(1))  # type: ignore[union-attr]
    assert 20 < stuck < 30 and lock.t == T0 + stuck
    assert not p.logs(LINK_DOWN) and not p.logs(r"event_id=")  # no link or device fault: only the host hangs
    # (c) the decode instance hangs (the service stops serving) and is declared down after the hang timeout
    assert p.inf.throughput_at(T0) == 0.0 < p.inf.throughput_at(T0 - 1)
    assert [e.kind for e in p.events(job="inf")] == ["instance_hang", "instance_down"]
    assert p.events("instance_down", job="inf")[0].t == pytest.approx(T0 + hang_s)
    assert ended(p, f) and p.sim.state.health(node) == Health.FAILED
    check_catalogue(p, "node_hang")


def test_qingtian_failure_vpc_and_storage_lost_training_hangs(topo1: Topology) -> None:
    p = plant(topo1)
    card, node = "pod0/node37/qingtian", "pod0/node37"
    f = p.inject("qingtian_failure", card)
    p.run(T0 + 1800 + 300)
    (nfs,) = p.logs(r"nfs: server \S+ not responding, still trying", source="syslog", origin=node)
    hung = p.logs(r"INFO: task python3:\d+ blocked for more than 120 seconds\.", source="syslog", origin=node)
    # one report per blocked rank process (the node's 8 NPUs run the job's ranks), each its own pid
    assert len(hung) == 8 and len({ln.text.split("task python3:")[1].split()[0] for ln in hung}) == 8
    assert nfs.t == T0 and nfs.level == "WARNING" and all(h.t == pytest.approx(T0 + 120) for h in hung)
    assert not p.logs(r"qingtian|dpu card|vpc interface", origin=node)  # no undocumented card text
    # (c) the rank waiting on storage hangs: the job's collectives stall, then time out
    assert p.events("stalled", job="train")[0].t == T0
    assert p.events("timeout", job="train")[0].t == pytest.approx(T0 + p.job.p.hang_timeout_s)
    assert all(v["up"] for v in p.inf.instances().values())
    assert ended(p, f) and p.sim.state.health(card) == Health.FAILED
    check_catalogue(p, "qingtian_failure")


# ---- RDMA and software ----------------------------------------------------------------------------------
def test_roce_port_down_code_hccn_record_cqe_error_prefill_hangs(topo1: Topology) -> None:
    p = plant(topo1)
    port, npu, node = "pod0/node3/npu3/roce1", "pod0/node3/npu3", "pod0/node3"  # prefill1
    f = p.inject("roce_port_down", port)
    hang_s = p.inf.p.hang_timeout_s
    p.run(T0 + hang_s + 60)
    (code,) = p.logs(r"event_id=0x81078603", source="device_os", origin=npu)
    (hccn,) = p.logs(rf"\[devid {3 * 2 + 1}\].*LINK DOWN", source="hccn", origin=node)
    cqe = p.logs(r"\[Heartbeat\]cqe err status\[12\]", source="plog")
    assert len({ln.origin for ln in cqe}) == 2 and node in {ln.origin for ln in cqe}  # both ends report
    assert code.t == hccn.t == T0 and all(ln.t == pytest.approx(T0 + p.sim.params.faults.peer_timeout_report_s)
                                          for ln in cqe)
    # (c) the prefill instance's KV hand-over blocks: it hangs, then is declared down
    assert p.inst(port)["role"] == "prefill" and p.inst(port)["state"] == "down" and p.others_up(port)
    assert p.job.state == "running"
    assert ended(p, f) and p.sim.state.health(port) == Health.FAILED
    check_catalogue(p, "roce_port_down")


def test_collective_timeout_sw_peers_report_ei0002_hardware_healthy(topo1: Topology) -> None:
    p = plant(topo1)
    node = "pod0/node38"
    f = p.inject("collective_timeout_sw", node)
    p.run(T0 + 1800 + 300)
    peers = p.logs(r"taskType\[Notify Wait\], remote\[" + re.escape(fmt.host_ip(node)) + r"\]", source="plog")
    assert len(peers) >= 3 and node not in {ln.origin for ln in peers}
    assert {ln.origin for ln in peers} <= set(TRAIN_NODES)
    assert all(ln.t == pytest.approx(T0 + p.sim.params.faults.peer_timeout_report_s) for ln in peers)
    assert not p.logs(r".", origin=node)  # the stuck rank prints nothing
    # no hardware signal at all: no device codes, no link or switch alarms, nothing unhealthy
    assert not p.logs(r"event_id=|%%01|linkDown_|receive devFaultInfo")
    assert not p.sim.state.unhealthy()
    # (c) the job stalls on the stuck rank and times out
    assert p.events("stalled", job="train")[0].t == T0 and p.events("timeout", job="train")
    assert p.logs(r"EI0002: The wait execution of the Notify register times out", source="train")
    assert ended(p, f)
    check_catalogue(p, "collective_timeout_sw")


def test_silent_data_corruption_nan_loss_line_and_crash_without_hardware_codes(topo1: Topology) -> None:
    p = plant(topo1)
    npu, node = "pod0/node39/npu0", "pod0/node39"
    f = p.inject("silent_data_corruption", npu, params={"detect_delay_s": 90.0})
    p.run(T0 + 600)
    nan = p.logs(r"\[rank\d+\]: AssertionError: Rank \d+: found NaN in local grad norm in backward pass before "
                 r"data-parallel communication collective\. Device: 0, node: pod0-node39$", source="train", origin=node)
    assert nan and nan[0].t == pytest.approx(T0 + 90.0)
    (crash,) = p.events("crash", job="train")
    assert crash.t == pytest.approx(T0 + 90.0) and p.job.state == "down"
    assert not p.logs(r"event_id=|%%01|ErrCode=50|receive devFaultInfo")  # nothing in hardware telemetry
    assert not p.sim.state.unhealthy()
    assert all(v["up"] for v in p.inf.instances().values())
    assert ended(p, f)
    check_catalogue(p, "silent_data_corruption")


def test_every_catalogue_kind_has_a_model_and_a_test_here() -> None:
    assert set(MODELS) == set(CATALOG)
    src = Path(__file__).read_text(encoding="utf-8")
    missing = [k for k in CATALOG if f'check_catalogue(p, "{k}"' not in src]
    assert not missing, f"kinds without a test: {missing}"


@pytest.mark.parametrize("kind", sorted(CATALOG))
def test_catalogue_self_healing_kinds_are_low_level_non_interruptions(kind: str) -> None:
    """A kind that heals by itself needs no handling beyond SubHealth and interrupts nothing; the others do."""
    meta = CATALOG[kind]
    if meta.self_heals:
        assert not meta.interrupts and meta.level in ("NotHandle", "SubHealth")
    else:
        assert meta.level != "NotHandle"
