"""Telemetry an operator sees: log-line formats, optical DOM readings, background noise."""

from __future__ import annotations

import math
import re
from collections import Counter
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from faultlib import ids
from faultlib.engine import Simulation
from faultlib.health import Health
from faultlib.params import apply_overrides
from faultlib.simparams import SimParams
from faultlib.telemetry import formats as fmt
from faultlib.telemetry.dom import classify
from faultlib.telemetry.noise import HEARTBEAT, resume_heartbeat, start_background_noise, stop_heartbeat
from faultlib.topology import Topology

DT = datetime(2025, 3, 1, 10, 3, 20, 123456)
DAY = 86400.0
SLOG_TS = r"(\d{4}-\d{2}-\d{2}-\d{2}:\d{2}:\d{2}\.\d{3}\.\d{3})"


def _sim(topo: Topology, seed: int = 0, **overrides: object) -> Simulation:
    params = apply_overrides(SimParams(), dict(overrides)) if overrides else SimParams()
    return Simulation(params, seed=seed, topology=topo)


# ---- formats --------------------------------------------------------------------------------------------
def test_device_os_event_line_is_the_drivers_fault_manager_line() -> None:
    """hicann/driver@ef377e95: the slog frame of log_drv_write_ring_buffer.c:166 (``[EVENT] DRV(%d,%s):%s
    [%s:%d][%s]%s``), the uptime of fms_define.h:65 and dms_event.c:1410's event fields, with the names of the driver's
    node-type and sensor tables. Before (session 31): ``[ERROR] DRV(1187,dmp_daemon):... [dms_fault.c:688][dev3]Event
    id=0x80e01801, assertion=occur``, a frame no driver prints."""
    line = fmt.device_os_event(DT, 3, "80E01801", uptime_s=1234.5678901, serial=7)
    assert line == ("[EVENT] DRV(1187,dms_poll_task):2025-03-01-10:03:20.123.456 [dms_event.c:1410][fault_manager]"
                    "[ 1234.567890] event_id=0x80e01801; device_id=3; node_type=0x70[HBM/3DRAM]; node_id=0; "
                    "sub_node_id=0; event_type=0x1[Uncorrectable ECC / other uncorrectable memory error. ]; "
                    "severity=3[Critical]; assertion=1[Event occur]; description=[]; os_id=0; event_serial_num=7; "
                    "notify_serial_num=7; event_raised_time=1740823400123 ms.")
    assert re.match(r"^\[EVENT\] DRV\(\d+,dms_poll_task\):" + SLOG_TS + " ", line)
    assert "event_id=0x80e01801" in line  # a substring ascend-fd's knowledge graph keys on (kg-config.json NPU_OS)
    ce = fmt.device_os_event(DT, 0, "0x80e01805")
    assert "event_type=0x5[Correctable ECC / other correctable memory error logging limit reached. ]" in ce
    assert "severity=1[Warning]" in ce and ce.startswith("[EVENT]")  # one level for every event
    down = fmt.device_os_event(DT, 0, 0x81078603, assertion=False)
    assert "node_type=0x83[PORT]" in down and "assertion=0[Event resume]" in down
    with pytest.raises(ValueError):
        fmt.device_os_event(DT, 0, "80E01809")  # no driver text in the twin's table: refused, not invented


def test_history_record_is_the_black_boxs_layout_for_the_events_it_records() -> None:
    """A UCE's black-box record as ascend-fd's fixture history.log prints 0xA8028802 (the code hicann/driver's
    dms_event_distribute_proc.c:29 gives an occurring 0x80E01801); no record for an event without a sourced one.
    Before: ``[2025-03-01 10:03:20.123456] device-3 exception record: ...``, the twin's own layout."""
    assert fmt.history_record(DT, "80E01801") == (
        "[2025-03-01-10:03:20.123456] system exception code [0xA8028802]: ModuleName [DRIVER], ExceptionReason "
        "[DRIVER_EXCEPTION], TimeStamp [20250301100320-123456000].")
    assert fmt.history_record(DT, "80E01801", assertion=False) is None
    assert fmt.history_record(DT, "80FA4E00") is None


def test_device_plugin_line_is_the_plugins_fault_callback_line() -> None:
    """The format string of Ascend/mind-cluster ascend-device-plugin pkg/common/fault_code.go:1844 (commit 22bb3d98),
    ``receive devFaultInfo: %#v, hex code: %v``, with ascend-common devmanager/common/types.go:212's DevFaultInfo."""
    line = fmt.device_plugin_fault(DT, 5, "0x80e01801", "RestartBusiness")
    m = re.match(r"^\[INFO\] +(\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}\.\d{6}) +\d+ +common/fault_code\.go:1844 +(.*)$",
                 line)
    assert m, line
    assert m.group(1) == "2025/03/01 10:03:20.123456"
    body = re.fullmatch(r"receive devFaultInfo: common\.DevFaultInfo\{EventID:(\d+), LogicID:(\d+), ModuleType:0, "
                        r"ModuleID:0, SubModuleType:0, SubModuleID:0, Severity:(\d), Assertion:(\d), "
                        r"AlarmRaisedTime:(\d+)\}, hex code: ([0-9a-f]+)", m.group(2))
    assert body, m.group(2)
    assert body.groups()[:4] == ("2162169857", "5", "2", "1") and body.group(6) == "80e01801"
    assert int(body.group(5)) == int(DT.replace(tzinfo=UTC).timestamp() * 1000)  # the wall clock as UTC
    rec = fmt.device_plugin_fault(DT, 5, "80E01805", "NotHandle", recovered=True, raised=DT - timedelta(seconds=2))
    assert "Severity:1, Assertion:0," in rec and f"AlarmRaisedTime:{int(body.group(5)) - 2000}}}" in rec
    assert "Ascend910-" not in line  # the twin's former line, which no MindCluster source prints
    with pytest.raises(ValueError):
        fmt.device_plugin_fault(DT, 0, "80E01801", "Reboot")


def test_device_plugin_switch_line_is_the_plugins_switch_callback_line() -> None:
    """Ascend/mind-cluster ascend-device-plugin pkg/device/deviceswitch/ascend_switch.go:174 (commit 22bb3d98):
    ``switch subscribe got fault:%s, faultCode:%v`` at WARN, the event as ``AlarmId: 0x%08x, FaultID: %v, ...``; a
    link-down has no fault id (``na``, setExtraFaultInfo), a chip-level fault port 0xFFFFFFFF."""
    sw = fmt.device_plugin_switch_fault(DT, "0x08520003", "L2", 7, "NotHandle", chip=3)
    assert re.fullmatch(r"\[WARN\] {5}2025/03/01 10:03:20\.123456 17 +deviceswitch/ascend_switch\.go:174 {4}switch "
                        r"subscribe got fault:AlarmId: 0x08520003, FaultID: na, AssembledFaultCode: "
                        r"\[0x08520003,na,L2,na\], PeerPortDevice: 2, PeerPortId: 0, SwitchChipId: 3, SwitchPortId: 7, "
                        r"Assertion: 1, AlarmRaisedTime: \d{13}, faultCode:\[0x08520003,na,L2,na\]", sw), sw
    assert "faultCode:[0x08520003,,L2" not in sw  # the twin's former empty fault id: the plugin writes na
    rec = fmt.device_plugin_switch_fault(DT, "0x08520003", "L2", 7, "NotHandle", recovered=True)
    assert rec.startswith("[WARN]") and "Assertion: 0," in rec  # Warnf for a recovery too
    chip = fmt.device_plugin_switch_fault(DT, "0x00f103b0", "na", 0, "SeparateNPU", fault_id="155907")
    assert "FaultID: 155907, AssembledFaultCode: [0x00f103b0,155907,na,na], PeerPortDevice: 0" in chip
    assert "SwitchPortId: 4294967295," in chip
    with pytest.raises(ValueError):
        fmt.device_plugin_switch_fault(DT, "0x08520003", "L3", 7, "NotHandle")


def test_syslog_has_no_year_and_pads_the_day_dmesg_t_has_ctime() -> None:
    line = fmt.syslog(DT, "pod0-node12", "NPU driver: device 3 heartbeat lost")
    m = re.match(r"^([A-Z][a-z]{2}) ([ \d]\d) (\d{2}:\d{2}:\d{2}) (\S+) kernel: (.*)$", line)
    assert m and m.groups()[:4] == ("Mar", " 1", "10:03:20", "pod0-node12"), line
    assert "2025" not in line
    assert fmt.syslog(DT, "h", "x", proc="systemd", pid=1).startswith("Mar  1 10:03:20 h systemd[1]: x")
    assert re.match(r"^\[\w{3} \w{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}\] x$", fmt.dmesg_t(DT, "x"))
    assert fmt.dmesg_t(DT, "x") == "[Sat Mar  1 10:03:20 2025] x"


def test_plog_lines_match_cann_layout_and_carry_codes() -> None:
    plog_re = re.compile(r"^\[(ERROR|WARNING|INFO|DEBUG)\] (\w+)\((\d+),python\):" + SLOG_TS +
                         r" \[([\w.]+\.cc):(\d+)\]\[(\d+)\](.*)$")
    hccl = fmt.plog_notify_wait(DT, 4242, 4250, "10.0.0.17")
    m = plog_re.match(hccl)
    assert m and m.group(2) == "HCCL" and m.group(3) == "4242" and m.group(7) == "4250", hccl
    # kg-config.json AISW_CANN_HCCL_027's substrings, in order
    assert re.search(r"\[TaskExceptionHandler\]\[Callback\]Task run failed, base information is streamID.*taskID.*"
                     r"taskType\[Notify Wait\]", m.group(8))
    cqe = fmt.plog_cqe_error(DT, 4242, 4250, "10.0.0.17")
    assert plog_re.match(cqe) and "[Heartbeat]cqe err status[12]" in cqe and "ip:[10.0.0.17]" in cqe
    rt = fmt.plog_runtime_error(DT, 4242, 4250, 507053, device=3)
    m = plog_re.match(rt)
    assert m and m.group(2) == "RUNTIME" and re.search(r"ErrCode=(\d+)", rt).group(1) == "507053"
    init = fmt.plog_hcom_init(DT, 4242, 4250, 384, 17, "10.0.0.3", 1)
    assert plog_re.match(init)
    g = re.search(r"hcom init by file success, .*rankNum\[(\d+)\], rank\[(\d+)\], server\[([\d.]+)\], "
                  r"device\[(\d+)\]", init)
    assert g and g.groups() == ("384", "17", "10.0.0.3", "1")
    assert re.search(r"\]\d+rtStreamSynchronize:ErrCode=507053$", rt)


def test_training_console_lines() -> None:
    step = fmt.train_step(DT, 1200, 50000, 1.2345, 2.5, 12345.6)
    m = re.search(r"iteration +(\d+)/ *(\d+) \| elapsed time per iteration \(ms\): ([\d.]+) \| lm loss: ([\d.E+-]+)",
                  step)
    assert m and m.group(1) == "1200" and float(m.group(3)) == pytest.approx(1234.5)
    assert step.startswith("[2025-03-01 10:03:20,123] [INFO]")
    err = fmt.train_hccl_error(DT, 12, "EI0002", remote=17)
    # kg-config.json AISW_CANN_ERRMSG_Custom_03's substrings, in order
    assert re.search(r"\[rank12\] RuntimeError: EI0002: The wait execution of the Notify register times out. "
                     r"Reason: The "
                     r"Notify register has not received the Notify record from remote rank: \[17\]\. base information: "
                     r".*task information: ", err), err
    assert "InnerRun: NPU error, error code is 507053" in fmt.train_runtime_error(DT, 3, 507053)


def test_switch_and_hccn_lines() -> None:
    # the switch OS's layout (session 45): ``Mar 1 2025 10:03:20 <sysname> %%01IFNET/2/linkDown_active(l):CID=...``
    alarm_re = re.compile(r"^(\w{3} \d{1,2} \d{4} \d\d:\d\d:\d\d) (\S+) %%01IFNET/2/linkDown_(active|clear)\(l\):"
                          r"CID=0x[0-9a-f]{8}-alarmID=(0x[0-9a-f]{8})(?:-clearType=\w+)?;"
                          r"The interface status changes\. "
                          r"\(ifName=UB0/0/(\d+), AdminStatus=UP, OperStatus=(UP|DOWN), ")
    a = alarm_re.search(fmt.switch_alarm(DT, "pod0-node3-l1sw2", "0x08520003", "L2", 7))
    assert a and a.groups() == ("Mar 1 2025 10:03:20", "pod0-node3-l1sw2", "active", "0x08520003", "7", "DOWN")
    r = alarm_re.search(fmt.switch_alarm(DT, "pod0-node3-l1sw2", "0x08520003", "L2", 7, active=False))
    assert r and r.group(3) == "clear" and r.group(6) == "UP"
    assert "linkDown_active" in fmt.switch_port_state(DT, "sw", 3, up=False)
    assert "linkDown_clear" in fmt.switch_port_state(DT, "sw", 3, up=True)
    rec = fmt.hccn_link_record(DT, 9, up=False)
    m = re.match(r"^\[devid (\d+)\]\s+(\w{3} \w{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4})\s+LINK (UP|DOWN)$", rec)
    assert m and m.groups() == ("9", "Sat Mar  1 10:03:20 2025", "DOWN")
    stat = fmt.hccn_link_stat(DT, 9, [(datetime(2025, 3, 1, 9), True), (DT, False)])
    assert stat[1].endswith(": 1") and stat[3].endswith("LINK DOWN")  # newest record first
    opt = fmt.hccn_optical(9, [-3.0, -2.0], [1.0, 1.5], [7.5, 8.0], [24.0, 25.0], temp_c=45)
    rx = [float(v) for v in re.findall(r"Rx Power\d+\s+: ([\d.]+) mW", "\n".join(opt))]
    assert [10 * math.log10(v) for v in rx] == pytest.approx([-3.0, -2.0], abs=0.01)


def test_names_and_indices_from_component_ids() -> None:
    assert fmt.hostname("pod0/node12") == fmt.hostname("pod0/node12/npu3/hbm") == "pod0-node12"
    assert fmt.hostname("pod0/node12/l1sw4/osfp07") == "pod0-node12-l1sw4"
    assert fmt.hostname("pod0/l2plane4/sw07") == fmt.hostname("pod0/l2plane4/sw07/osfp12") == "pod0-l2plane4-sw07"
    assert fmt.hostname("pod0/node2/l1sw1~pod0/l2plane1/sw03") == "pod0-node2-l1sw1"
    # A3 logical device ids (session 37): die d of NPU k is device k * 2 + d; a part of the whole NPU its die 0's
    assert fmt.device_index("pod0/node12/npu3/die1") == 7 and fmt.device_index("pod0/node12/npu3/hbm") == 6
    assert fmt.npu_index("pod0/node12/npu3/die1") == 3
    assert fmt.npu_of_device("pod0/node12", 7) == fmt.npu_of_device("pod0/node12", 6) == "pod0/node12/npu3"
    assert all(ids.npu_die(ids.logical_device(k, d)) == (k, d) for k in range(8) for d in range(2))
    assert fmt.roce_devid("pod0/node12/npu3/roce1") == 7 and fmt.roce_devid("pod0/node12/npu0/die0") == 0
    assert fmt.switch_port("pod0/l2plane4/sw07/osfp12") == 12
    assert len({fmt.host_ip(ids.node(p, n)) for p in range(3) for n in range(48)}) == 144
    assert fmt.pid_of("pod0/node1/npu2") == fmt.pid_of("pod0/node1/npu2") != fmt.pid_of("pod0/node1/npu3")
    assert fmt.norm_code("0x80e01801") == fmt.norm_code(0x80E01801) == "80E01801"
    with pytest.raises(ValueError):
        fmt.norm_code("0xZZ")


def test_wallclock_maps_sim_time_into_lines(topo1: Topology) -> None:
    sim = _sim(topo1)
    line = fmt.plog(sim.wallclock(3.5), "INFO", "HCCL", 1, 2, "a.cc:1", "x")
    assert "2025-03-01-00:00:03.500.000" in line


# ---- DOM ---------------------------------------------------------------------------------------------------
def test_dom_full_pod_is_healthy_and_shaped(topo1: Topology) -> None:
    sim = _sim(topo1, seed=11)
    dom = sim.dom
    r = dom.read(1234.5)
    assert len(dom.modules) == 10752
    for k in ("rx_dbm", "tx_dbm", "bias_ma", "snr_db"):
        assert r[k].shape == (10752, 4) and np.isfinite(r[k]).all()
    sev = classify(r, sim.params.telemetry)
    lanes_ok = (sev["rx"] == 0) & (sev["tx"] == 0) & (sev["bias"] == 0) & (sev["snr"] == 0)
    assert lanes_ok.mean() > 0.99
    assert (sev["worst"] == 0).mean() > 0.99
    assert (sev["worst"] == 2).sum() == 0  # nothing in alarm on a healthy pod
    m = dom.modules[100]
    assert np.array_equal(dom.read_module(m, 1234.5)["rx_dbm"], r["rx_dbm"][dom.row[m]])
    assert dom.link_of[dom.row[m]] in topo1.links and m in topo1.links[dom.link_of[dom.row[m]]].modules


def test_dom_is_deterministic_per_seed_and_noise_per_time_bucket(topo1: Topology) -> None:
    a, b, c = _sim(topo1, seed=5).dom, _sim(topo1, seed=5).dom, _sim(topo1, seed=6).dom
    assert np.array_equal(a.read(100.0)["rx_dbm"], b.read(100.0)["rx_dbm"])
    assert not np.array_equal(a.read(100.0)["rx_dbm"], c.read(100.0)["rx_dbm"])
    r1, r2 = a.read(100.2)["rx_dbm"].copy(), a.read(100.7)["rx_dbm"]  # same 1 s bucket: same noise
    assert np.allclose(r1, r2, atol=1e-6)  # only the (tiny) ageing drift moves within a bucket
    r3 = a.read(101.2)["rx_dbm"]
    diff = r3 - r1
    assert 0.05 < diff.std() < 0.3  # fresh measurement noise (sd ~0.1 dB per read)
    base = a.read(101.2, noise=False)["rx_dbm"]
    assert abs((r3 - base).std() - a.p.dom_noise_rx_db) < 0.01


def test_dom_reads_cost_no_trace_events_or_metrics(topo1: Topology) -> None:
    sim = _sim(topo1)
    dom = sim.dom
    n_trace, n_metrics = len(sim.trace), len(sim.telemetry.metrics.metrics())
    for i in range(40):
        dom.read(i * 977.0)
        dom.read_module(dom.modules[i], i * 977.0)
    assert len(sim.trace) == n_trace and len(sim.telemetry.metrics.metrics()) == n_metrics
    with pytest.raises(ValueError):
        dom.read(5.0)["rx_dbm"][0, 0] = 0.0  # read-only arrays: callers cannot corrupt the cache


def test_dom_decay_crosses_warn_then_alarm_at_predicted_time(topo1: Topology) -> None:
    sim = _sim(topo1, seed=2)
    dom, p = sim.dom, sim.params.telemetry
    mod = dom.modules[777]
    start, rate = 3600.0, 0.6
    dom.set_decay(mod, start, rate)
    rx0 = dom.read_module(mod, start, noise=False)["rx_dbm"]
    lane = int(np.argmin(rx0))
    t_warn = start + (rx0[lane] - p.dom_rx_warn_dbm) / rate * 3600
    t_alarm = start + (rx0[lane] - p.dom_rx_alarm_dbm) / rate * 3600
    assert dom.crossing_time(mod, lane, p.dom_rx_warn_dbm, 0.0) == pytest.approx(t_warn, abs=60)
    assert dom.crossing_time(mod, lane, p.dom_rx_alarm_dbm, 0.0) == pytest.approx(t_alarm, abs=60)
    assert dom.crossing_time(mod, lane, p.dom_rx_alarm_dbm, 0.0, horizon_s=t_warn) is None

    def sev(t: float) -> int:
        r = {k: v[None, :] for k, v in dom.read_module(mod, t).items()}
        return int(classify(r, p)["rx"].max())

    assert sev(start - 60) == 0 and sev(t_warn - 1800) == 0
    assert sev(t_warn + 1800) == 1 and sev(t_alarm - 1800) == 1
    assert sev(t_alarm + 1800) == 2
    snr = dom.read_module(mod, t_alarm, noise=False)["snr_db"]
    assert snr[lane] < p.dom_snr_alarm_db + 1.5  # SNR follows the lost power
    # other modules are untouched; clearing the override restores the module
    other = dom.modules[778] if dom.link_of[778] != dom.link_of[777] else dom.modules[779]
    assert dom.read_module(other, t_alarm, noise=False)["rx_dbm"].min() > p.dom_rx_warn_dbm
    assert dom.clear(mod) == 1
    assert dom.read_module(mod, t_alarm, noise=False)["rx_dbm"] == pytest.approx(rx0, abs=0.01)


def test_dom_tx_decay_shows_at_the_peer_and_offsets_apply_per_lane(topo1: Topology) -> None:
    sim = _sim(topo1)
    dom = sim.dom
    lid = next(iter(lk for lk in topo1.links.values() if lk.kind == "ub_optical")).id
    a, b = dom.modules_of(lid)
    before_b = dom.read_module(b, 7200, noise=False)["rx_dbm"]
    before_a = dom.read_module(a, 7200, noise=False)["tx_dbm"]
    dom.set_decay(a, 0.0, 1.0, field="tx", lanes=[2])
    after_a = dom.read_module(a, 7200, noise=False)
    after_b = dom.read_module(b, 7200, noise=False)["rx_dbm"]
    assert after_b[2] == pytest.approx(before_b[2] - 2.0, abs=0.01)
    assert after_b[[0, 1, 3]] == pytest.approx(before_b[[0, 1, 3]], abs=0.01)
    assert after_a["tx_dbm"] == pytest.approx(before_a - np.array([0.0, 0.0, 2.0, 0.0]), abs=0.01)
    dom.set_offset(lid, -3.0, start_t=0.0, lanes=[0])  # a dirty connector on the fibre: both directions
    assert dom.read_module(b, 7200, noise=False)["rx_dbm"][0] == pytest.approx(before_b[0] - 3.0, abs=0.01)
    with pytest.raises(ValueError):
        dom.set_decay(a, 0.0, 1.0, lanes=[9])
    with pytest.raises(KeyError):
        dom.set_decay("pod0/node0/l1sw0/osfp99", 0.0, 1.0)


def test_dom_shows_loss_of_light_for_failed_links_lanes_and_switches(topo1: Topology) -> None:
    sim = _sim(topo1)
    dom, los = sim.dom, sim.params.telemetry.dom_los_dbm
    lid = topo1.uplinks[("pod0/node3", 2)][5]
    a, b = dom.modules_of(lid)
    sim.state.set_lanes_down(lid, 2)
    r = dom.read(10.0)
    for m in (a, b):
        assert (r["rx_dbm"][dom.row[m]] == los).sum() == 2
        assert (r["tx_dbm"][dom.row[m]] > los).all()  # lasers still on
    dark = np.flatnonzero(r["rx_dbm"][dom.row[a]] == los)
    assert np.array_equal(dark, np.flatnonzero(r["rx_dbm"][dom.row[b]] == los))  # same lanes at both ends
    sim.state.set_health(lid, Health.FAILED)
    r = dom.read(10.0)
    assert (r["rx_dbm"][[dom.row[a], dom.row[b]]] == los).all()
    assert (r["snr_db"][[dom.row[a], dom.row[b]]] == 0).all()
    sim.state.set_health(lid, Health.HEALTHY)
    sim.state.set_lanes_down(lid, 0)
    assert (dom.read(10.0)["rx_dbm"][[dom.row[a], dom.row[b]]] > los).all()
    sw = ids.l2(0, 4, 7)
    sim.state.set_health(sw, Health.FAILED)
    r = dom.read(20.0)
    l2_rows = [dom.row[m] for m in dom.modules if m.startswith(sw + "/")]
    peers = dom.peer[l2_rows]
    assert len(l2_rows) == 48
    assert (r["tx_dbm"][l2_rows] == los).all() and (r["rx_dbm"][peers] == los).all()
    assert (r["tx_dbm"][peers] > los).all()
    assert (classify(r, sim.params.telemetry)["worst"] == 2).sum() == 96


# ---- noise -------------------------------------------------------------------------------------------------
def _noisy(topo: Topology, seed: int, until: float = DAY, **overrides: object) -> Simulation:
    sim = _sim(topo, seed, **overrides)
    start_background_noise(sim)
    sim.run(until)
    return sim


def test_noise_is_deterministic_per_seed(topo1: Topology) -> None:
    a, b, c = (_noisy(topo1, s, 6 * 3600, **{"noise.flap_per_link_day": 0.05}) for s in (4, 4, 9))
    assert [(x.t, x.text) for x in a.telemetry.logs] == [(x.t, x.text) for x in b.telemetry.logs]
    assert a.trace.digest() == b.trace.digest() != c.trace.digest()
    h = "pod0/node7/npu2/hbm"
    assert a.telemetry.metrics.series("hbm_ce_total", h) == b.telemetry.metrics.series("hbm_ce_total", h)
    assert [x.text for x in a.telemetry.logs] != [x.text for x in c.telemetry.logs]


def test_flaps_self_heal_and_rates_over_a_day_match_parameters(topo1: Topology) -> None:
    rate, bursts = 0.05, 0.5
    sim = _noisy(topo1, 1, DAY, **{"noise.flap_per_link_day": rate, "noise.hbm_ce_bursts_per_day": bursts})
    sim.run(DAY + 60)  # let a flap in progress at the end heal
    n_links = sum(1 for lk in topo1.links.values() if lk.kind == "ub_optical")
    downs = [e for e in sim.trace.of_kind("health") if e.detail["cause"] == "noise:flap" and e.detail["new"] ==
             "failed"]
    ups = [e for e in sim.trace.of_kind("health") if e.detail["cause"] == "noise:flap" and e.detail["new"] ==
           "healthy"]
    in_day = [e for e in downs if e.t <= DAY]
    expected = n_links * rate
    assert abs(len(in_day) - expected) < 4 * math.sqrt(expected)
    assert len(ups) == len(downs) and not sim.state.unhealthy()  # every flap healed by itself
    durations = [u.t - d.t for d, u in zip(sorted(downs, key=lambda e: (e.subject, e.t)),
                                           sorted(ups, key=lambda e: (e.subject, e.t)), strict=True)]
    assert min(durations) >= 0 and np.mean(durations) == pytest.approx(sim.params.noise.flap_down_mean_s, rel=0.25)
    assert max(durations) < 20.0  # below MindCluster's escalation threshold
    alarms = Counter(re.search(r"linkDown_(active|clear)", x.text).group(1) for x in sim.telemetry.logs  # type: ignore
                     if x.source == "switch" and "alarmID=0x08520003" in x.text and "l1sw" in x.text)
    assert alarms["active"] == alarms["clear"] == len(downs)  # the L1 chip's linkDown alarm, raised and cleared
    # HBM correctable errors: a device-os line only when a stack's log is full (session 34: not one per burst, whose
    # ~20 errors fall short of the 64-record limit; tests/test_ce_background.py checks the rate)
    ce_lines = [x for x in sim.telemetry.logs if x.source == "device_os" and "event_id=0x80e01805;" in x.text
                and x.t <= DAY]
    n_hbm = len(topo1.by_kind["hbm"])
    assert len(ce_lines) < n_hbm * bursts / 4  # 192 bursts, ~20 errors each, into logs that started empty
    assert all(ids.npu_of(x.origin) == x.origin for x in ce_lines)
    # background slopes: median CE rate per stack and total down counts
    m = sim.telemetry.metrics
    slopes = np.array([m.slope("hbm_ce_total", h, DAY) for h in topo1.by_kind["hbm"]]) * DAY
    assert np.median(slopes) == pytest.approx(sim.params.noise.hbm_ce_per_day, rel=0.25)
    assert sum(m.read("link_down_total", lid, DAY + 60) for lid in {e.subject for e in downs}) == len(downs)
    fec = m.read("link_fec_corrected_total", downs[0].subject, DAY)
    assert fec > 0 and m.read("link_crc_total", downs[0].subject, DAY) > 0
    # temperatures re-drawn about every temp_update_interval_s per NPU
    npus = topo1.by_kind["npu"]
    writes = sum(len(m.series("npu_temp_c", n)) - 1 for n in npus)
    exp_w = len(npus) * DAY / sim.params.noise.temp_update_interval_s
    assert abs(writes - exp_w) < 4 * math.sqrt(exp_w)
    temps = [m.read("npu_temp_c", n, DAY) for n in npus]
    assert 40 < np.mean(temps) < 70 and max(m.read("hbm_temp_c", ids.hbm(0, 0, k), DAY) for k in range(8)) < 95


def test_new_pod_flaps_more_in_its_first_window(topo1: Topology) -> None:
    sim = _noisy(topo1, 3, DAY, **{"noise.new_link_flap_fraction": 0.37, "noise.new_link_window_s": DAY / 2,
                                   "noise.flap_per_link_day": 0.005})
    downs = [e.t for e in sim.trace.of_kind("health") if e.detail["new"] == "failed"]
    n_links = sum(1 for lk in topo1.links.values() if lk.kind == "ub_optical")
    first = sum(1 for t in downs if t < DAY / 2)
    exp_first = 0.37 * n_links + n_links * 0.005 / 2
    assert abs(first - exp_first) < 4 * math.sqrt(exp_first)
    assert len(downs) - first < 40  # back to the in-service rate (~13 expected)


def test_nothing_an_operator_sees_marks_noise(topo1: Topology) -> None:
    sim = _noisy(topo1, 2, 6 * 3600, **{"noise.flap_per_link_day": 0.05})
    assert sim.telemetry.logs
    for line in sim.telemetry.logs:
        low = line.text.lower()
        assert not any(w in low for w in ("noise", "benign", "inject", "ground truth", "simulat")), line.text


def test_flap_shows_as_loss_of_light_in_the_dom(topo1: Topology) -> None:
    sim = _sim(topo1, 8, **{"noise.flap_per_link_day": 0.05})
    seen: list[np.ndarray] = []

    def on_change(cid: str, old: Health, new: Health) -> None:
        if new == Health.FAILED and cid in topo1.links:
            seen.append(sim.dom.read()["rx_dbm"][list(sim.dom.rows_of(cid))])

    sim.state.subscribe(on_change)
    start_background_noise(sim)
    sim.run(3 * 3600)
    assert seen and all((s == sim.params.telemetry.dom_los_dbm).all() for s in seen)


def test_heartbeat_age_grows_only_after_the_npu_stops(topo1: Topology) -> None:
    sim = _sim(topo1)
    start_background_noise(sim)
    npu, hub = "pod0/node5/npu2", sim.telemetry
    sim.run(100.3)
    assert hub.read(HEARTBEAT, npu) == 0.0
    sim.state.set_health(npu, Health.FAILED)
    sim.run(130.3)
    age = hub.read(HEARTBEAT, npu)
    assert 30.0 <= age < 30.0 + sim.params.noise.npu_heartbeat_period_s
    sim.state.set_health(npu, Health.RESETTING)  # still silent: the age keeps growing, not restarted
    sim.run(140.3)
    assert hub.read(HEARTBEAT, npu) == pytest.approx(age + 10.0)
    sim.state.set_health(npu, Health.HEALTHY)
    assert hub.read(HEARTBEAT, npu) == 0.0
    sim.state.set_health("pod0/node5", Health.FAILED)  # a node crash silences all its NPUs
    sim.run(150.3)
    assert all(hub.read(HEARTBEAT, n) >= 10.0 for n in topo1.npus_of("pod0/node5"))
    assert hub.read(HEARTBEAT, "pod0/node6/npu0") == 0.0
    sim.state.set_health("pod0/node6/npu1", Health.ISOLATED)  # isolated chips still beat
    assert hub.read(HEARTBEAT, "pod0/node6/npu1") == 0.0
    stop_heartbeat(sim, "pod0/node6/npu0")  # a hang whose health stays up, as a fault model would report it
    sim.run(160.3)
    assert hub.read(HEARTBEAT, "pod0/node6/npu0") >= 10.0
    resume_heartbeat(sim, "pod0/node6/npu0")
    assert hub.read(HEARTBEAT, "pod0/node6/npu0") == 0.0


def test_noise_does_not_overwrite_a_temperature_a_fault_set(topo1: Topology) -> None:
    sim = _sim(topo1, 1, **{"noise.temp_update_interval_s": 600.0})
    start_background_noise(sim)
    npu = "pod0/node1/npu1"
    sim.run(10.0)
    sim.telemetry.metric("npu_temp_c", npu, 95.0)
    sim.run(6 * 3600)
    assert sim.telemetry.read("npu_temp_c", npu) == 95.0
    assert len(sim.telemetry.metrics.series("npu_temp_c", "pod0/node1/npu2")) > 5  # the others keep moving


def test_counters_age_fills_the_cumulative_counters_with_the_background_counts(topo1: Topology) -> None:
    fresh = _noisy(topo1, 2, 0.0)
    days = 20.0
    aged = _noisy(topo1, 2, 0.0, **{"noise.counters_age_s": days * DAY})
    hbms, links = topo1.by_kind["hbm"], sorted(lid for lid, lk in topo1.links.items() if lk.kind == "ub_optical")
    m0, m1 = fresh.telemetry.metrics, aged.telemetry.metrics
    assert all(m0.read("hbm_ce_total", h, 0.0) == 0.0 for h in hbms)  # 0: counters start with the run
    assert [x.text for x in fresh.telemetry.logs] == [x.text for x in aged.telemetry.logs]  # no line, no other draw
    ce = np.array([m1.read("hbm_ce_total", h, 0.0) for h in hbms])
    p = aged.params.noise
    # steady errors (lognormal per-stack rate, mean e^(sigma^2/2) x median) plus benign bursts
    expected = days * (p.hbm_ce_per_day * math.exp(p.hbm_ce_rate_sigma ** 2 / 2) + p.hbm_ce_bursts_per_day
                       * p.hbm_ce_burst_mean)
    assert ce.mean() == pytest.approx(expected, rel=0.3) and np.median(ce) > days  # most stacks count tens
    assert [m1.slope("hbm_ce_total", h, 0.0) for h in hbms] == [m0.slope("hbm_ce_total", h, 0.0) for h in hbms]
    crc = np.array([m1.read("link_crc_total", lid, 0.0) for lid in links])
    assert crc.mean() == pytest.approx(days * (p.crc_per_link_day + p.flap_per_link_day * p.flap_crc_burst_mean),
                                       rel=0.3)
    assert all(m1.read("link_fec_corrected_total", lid, 0.0) > 0 for lid in links[:50])
