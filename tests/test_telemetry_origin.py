"""Issue 15: the twin prints only what real devices and programs print, and no ground truth reaches the ops brain.

1. Content: every fault kind runs briefly in the twin (no background noise, so each line is the fault's); every line
   it emits must fit one documented layout (table below, each with its source), every code in it must be in the
   vendor's fault-level files or the documented code tables, and no line names a fault kind, a health state or a
   plant component id. Job events carry only scheduler fields of plain types.
2. Isolation: everything the controller hands the detector and the diagnoser is plain signals (str / int / float /
   None fields), metric readings are floats, and no string contains an injected fault's kind, its spec id or a
   health state, whatever the fault.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
import yaml

from faultlib import ids
from faultlib.faults.catalog import CATALOG
from faultlib.health import Health
from faultlib.telemetry import formats as fmt
from faultlib.telemetry.records import JobEvent, LogLine
from opsbrain.controller import Controller
from opsbrain.ingest import Signal
from opsbrain.ingest.where import node_of
from opsbrain.kb import cases as case_lib
from opsbrain.verdict import Diagnosis
from tests import twin_emissions as te

ROOT = Path(__file__).resolve().parents[1]
VENDOR = ROOT.parent / "shared" / "reference" / "vendor"
CODES = yaml.safe_load((ROOT / "knowledge_base" / "codes.yaml").read_text(encoding="utf-8"))
RT_CODES = {int(r["code"]) for r in CODES["acl_runtime"]}
E_CODES = {str(r["code"]) for r in CODES["cann_error_codes"]}

# every layout a fault may print: (name, regex on the line, source of the layout and its fixed text)
LAYOUTS: list[tuple[str, re.Pattern[str], str]] = [(n, re.compile(rx), src) for n, rx, src in [
    ("device event", r"^\[EVENT\] DRV\(\d+,dms_poll_task\):\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d\.\d{3}\.\d{3} "
     r"\[dms_event\.c:1410\]\[fault_manager\]\[ *\d+\.\d{6}\] event_id=0x(?P<dev>[0-9a-f]{8}); device_id=\d+; "
     r"node_type=0x[0-9a-f]+\[[^\]]+\]; node_id=0; sub_node_id=0; event_type=0x[0-9a-f]+\[[^\]]+\]; "
     r"severity=[0-3]\[(OK|Warning|Alarm|Critical)\]; "
     r"assertion=([01]\[Event (resume|occur)\]|2\[One time event\]); description=\[\]; "
     r"os_id=0; event_serial_num=\d+; notify_serial_num=\d+; event_raised_time=\d{13} ms\.$",
     "hicann/driver@ef377e95 dms_event.c:1410 (dms_record_fault_event_log), log_drv_write_ring_buffer.c:166, "
     "fms_define.h:65"),
    ("plugin npu fault", r" common/fault_code\.go:1844 +receive devFaultInfo: common\.DevFaultInfo\{"
     r"EventID:(?P<evid>\d+), LogicID:\d+, ModuleType:0, ModuleID:0, SubModuleType:0, SubModuleID:0, Severity:[12], "
     r"Assertion:[01], AlarmRaisedTime:\d{13}\}, hex code: (?P<dev>[0-9a-f]{8})$",
     "Ascend/mind-cluster ascend-device-plugin pkg/common/fault_code.go:1844 at 22bb3d98 (DoSaveDevFaultInfo)"),
    ("plugin switch fault", r" deviceswitch/ascend_switch\.go:174 +switch subscribe got fault:AlarmId: 0x[0-9a-f]{8}, "
     r"FaultID: (na|\d+), AssembledFaultCode: (?P<sw>\[[^\]]+\]), PeerPortDevice: [0-2], PeerPortId: 0, "
     r"SwitchChipId: \d+, SwitchPortId: \d+, Assertion: [01], AlarmRaisedTime: \d{13}, faultCode:\[[^\]]+\]$",
     "Ascend/mind-cluster ascend-device-plugin pkg/device/deviceswitch/ascend_switch.go:174 at 22bb3d98"),
    ("switch lanes alarm", r" %%01DEVM/1/hwPortFail_active\(l\):CID=0x80fc0101-alarmID=0x00f10509;The port failed "
     r"partially\. \(EntPhysicalIndex=\d+, EntPhysicalName=UB0/0/\d+, EntityTrapFaultID=13233[23], "
     r"Reason=Port real lanes are less than (half|quarter) of the configured lanes\.\)$",
     "ascend-fd fixture st_module_testcase/kg_parse/lcne_log (the quarter line; half by analogy)"),
    ("switch port state", r" %%01IFNET/2/linkDown_(active|clear)\(l\):CID=0x807a0404-alarmID=0x08520003"
     r"(-clearType=service_resume)?;The interface status changes\. \(ifName=(UB0/0/\d+), AdminStatus=UP, "
     r"OperStatus=(UP|DOWN), Reason=Interface physical link is (up|down), mainIfname=\3\)$",
     "Huawei IFNET/2/linkDown_active (EDOC1100039602), alarm ID 0x08520003 (IFNET_1.3.6.1.6.3.1.1.5.3 linkDown)"),
    ("kernel panic", r"kernel: \[ *[\d.]+\] Kernel panic - not syncing: Fatal (machine check|hardware error)$",
     "kernel/panic.c"),
    ("soft lockup", r"kernel: \[ *[\d.]+\] watchdog: BUG: soft lockup - CPU#\d+ stuck for \d+s! \[\w+:\d+\]$",
     "kernel/watchdog.c"),
    ("hung task", r"kernel: \[ *[\d.]+\] INFO: task \w+:\d+ blocked for more than \d+ seconds\.$",
     "kernel/hung_task.c"),
    ("nfs", r"kernel: \[ *[\d.]+\] nfs: server \S+ not responding, still trying$", "fs/nfs"),
    ("pcie aer", r"kernel: \[ *[\d.]+\] pcieport [0-9a-f:.]+: PCIe Bus Error: severity=(Corrected|Uncorrected "
     r"\((Non-)?Fatal\)), type=(Physical|Data Link|Transaction) Layer, \(Receiver ID\)$",
     "drivers/pci/pcie/aer.c"),
    ("driver heartbeat", r"kernel: \[ *[\d.]+\] \[ascend\] \[ERROR\] \[drv_soft_fault\] \[heart_beat_judge 318\] "
     r"<[\w/:]+:\d+> Heartbeat lost! \(device=\d+; old_count=\d+; new_count=\d+; lost_count=\d+; "
     r"total_lost_count=\d+; total_10s_count=0; total_15s_count 0\)\.$",
     "ascend-fd fixture messages_0x40F84E00"),
    ("plog runtime", r"\] ?\d+rtStreamSynchronize:ErrCode=(?P<rt>\d+)$",
     "ascend-fd plog fixtures (rtStreamSynchronize ErrCode)"),
    ("plog notify wait", r"\[TaskExceptionHandler\]\[Callback\]Task run failed, base information is streamID:\[\d+\], "
     r"taskID\[\d+\], taskType\[Notify Wait\], remote\[[\d.]+\]$", "ascend-fd fixture rc_diag/rc_122 plogs"),
    ("plog cqe", r"\[Heartbeat\]cqe err status\[12\], time:\[[\d\- :.]+\], ip:\[[\d.]+\]$",
     "ascend-fd plog fixture st_cqe_testcase"),
    ("hccn link", r"^\[devid \d+\] +\w{3} \w{3} [ \d]\d [\d:]{8} \d{4} +LINK (UP|DOWN)$", "facts.md §7 hccn_tool"),
    ("npu error", r"\[rank\d+\]: RuntimeError: InnerRun: NPU error, error code is (?P<rt>\d+)$",
     "torch_npu NPUException.cpp (NPU error, error code is)"),
    ("npu error (error codes)", r"\[rank\d+\]: RuntimeError: operator\(\):build/CMakeFiles/torch_npu\.dir/"
     r"compiler_depend\.ts:\d+ NPU function error: c10_npu::acl::AclrtSynchronizeStreamWithTimeout\(copy_stream\), "
     r"error code is (?P<rt>\d+)\n\[ERROR\] \d{4}-\d\d-\d\d-[\d:]{8} \(PID:\d+, Device:\d+, RankID:-?\d+\) ERR00100 "
     r"PTA call acl api failed(\n\[Error\]: The task scheduler loses the heartbeat\.)?$",
     "torch_npu error-code messages: vllm-ascend / LLaMA-Factory issues in tests/data/real_logs (corpus_d, corpus_e); "
     "ERR00100 in Ascend/pytorch error_code_information.md"),
    ("device setup", r"\[rank\d+\]: RuntimeError: Initialize :torch_npu/csrc/core/npu/sys_ctrl/npu_sys_ctrl\.cpp:133 "
     r"NPU error, error code is (?P<rt>\d+)$", "ascend-fd rank-log fixture"),
    ("EI0002", r"\[rank\d+\]: RuntimeError: (?P<ei>EI0002): The wait execution of the Notify register times out\. "
     r"Reason: The Notify register has not received the Notify record from remote rank: \[\d+\]\. base information: "
     r"\[[^\]]*\]\. task information: \[[^\]]*\]\. group information: \[[^\]]*\]$",
     "CANN EI0002 template (hicann/runtime error_code.json)"),
    ("EI0006", r"\[rank\d+\]: RuntimeError: (?P<ei>EI0006): Getting socket times out\. Reason: This node \(server "
     r"[\d.]+, device ID \d+\) detects that srcRank \(\d+\) fails to connect to dstRank \(\d+\)$",
     "CANN EI0006 template"),
    ("nan grad", r"\[rank\d+\]: AssertionError: Rank \d+: found NaN in local grad norm in backward pass before "
     r"data-parallel communication collective\. Device: \d+, node: [\w-]+$",
     "Megatron-LM param_and_grad_buffer.py check_for_nan_in_grad"),
    ("nan grad (rerun state machine)", r"\[rank\d+\]: RuntimeError: Rank \d+, node [\w-]+, device \d+, iteration \d+: "
     r"Unexpected result nan \(message='found NaN in local grad norm for bucket #0 in backward pass before "
     r"data-parallel communication collective'\)$",
     "Megatron-LM param_and_grad_buffer.py check_grads -> rerun_state_machine.validate_result; public training logs"),
    ("io error", r"\[rank\d+\]: OSError: \[Errno 5\] Input/output error$", "Python OSError (EIO) from torch.save"),
]]
HEALTH_WORDS = re.compile(r"\b(isolated|resetting|cordoned|healthy|unhealthy)\b", re.I)
COMPONENT_ID = re.compile(r"\bpod\d+/(node\d+/|l2plane)")  # a part inside a node or the fabric (a node's name is
# what a scheduler knows a node by)
EVENT_STATES = re.compile(r"\b(" + "|".join(h.value for h in Health) + r")\b", re.I)
SCHEDULER_KEYS = {"step", "rank", "node", "device", "reason", "instance", "role", "nodes", "npus", "step_time_s",
                  "after", "stalled_s", "waited_s", "source", "requested", "from_step", "replace", "scope",
                  "write_s", "load_s", "action", "duration_s"}
PLAIN = (str, int, float, bool, type(None))


def _vendor() -> tuple[dict[str, str], set[str]]:
    """Device code -> level list, and every switch tuple, from the vendor's fault-level files."""
    fc = json.loads((VENDOR / "faultCode.json").read_text(encoding="utf-8"))
    levels = {str(c).upper().removeprefix("0X"): k for k, v in fc.items() if isinstance(v, list) for c in v}
    sw = json.loads((VENDOR / "SwitchFaultCode.json").read_text(encoding="utf-8"))
    tuples = {str(c).lower() for v in sw.values() if isinstance(v, list) for c in v}
    return levels, tuples


needs_vendor = pytest.mark.skipif(not VENDOR.is_dir(), reason="shared reference data (../shared) not present")


@pytest.fixture(scope="module")
def emissions() -> dict[str, te.Emission]:
    """Each kind once on the training job's nodes and once on the serving nodes, and on the training job's nodes with
    the newer torch_npu and Megatron-core messages (lines and events together)."""
    out = {}
    newer = case_lib.SOFTWARE["newer"]  # the newer torch_npu and Megatron-core messages as well
    for kind in sorted(CATALOG):
        a, b = te.emit(kind), te.emit(kind, where="inference")
        c = te.emit(kind, sim_params=newer)
        out[kind] = te.Emission(kind, a.target, a.lines + b.lines + c.lines, a.events + b.events + c.events)
    return out


def _plain(value: Any) -> bool:
    if isinstance(value, Health):
        return False
    if isinstance(value, PLAIN):
        return True
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    return False


def _names_a_kind(text: str) -> str | None:
    low = text.lower()
    for kind in CATALOG:
        spaced = kind.replace("_", " ")
        if kind in low or (spaced in low and kind != "link_down"):  # hccn_tool itself prints "LINK DOWN"
            return kind
    return None


@needs_vendor
def test_every_line_a_fault_emits_has_a_documented_layout_and_code(emissions: dict[str, te.Emission]) -> None:
    levels, tuples = _vendor()
    bad: list[str] = []
    for kind, e in emissions.items():
        for ln in e.lines:
            hits = [m for _n, rx, _s in LAYOUTS if (m := rx.search(ln.text))]
            if not hits:
                bad.append(f"{kind}: no documented layout: {ln.text}")
                continue
            g = hits[0].groupdict()
            if g.get("dev") and g["dev"].upper() not in levels:
                bad.append(f"{kind}: device code not in faultCode.json: {ln.text}")
            if g.get("dev") and g["dev"].upper() not in fmt.DEVICE_CODES:
                bad.append(f"{kind}: device code without a row in formats.DEVICE_CODES: {ln.text}")
            if g.get("evid") and int(g["evid"]) != int(g["dev"], 16):
                bad.append(f"{kind}: the plugin's EventID is not its hex code: {ln.text}")
            # an absent fault id: kg-config.json spells it empty ([0x08520003,,L2,na]), SwitchFaultCode.json "na"
            if g.get("sw") and g["sw"].lower().replace(",,", ",na,", 1) not in tuples:
                bad.append(f"{kind}: switch tuple not in SwitchFaultCode.json: {ln.text}")
            if g.get("rt") and int(g["rt"]) not in RT_CODES:
                bad.append(f"{kind}: runtime code not in codes.yaml: {ln.text}")
            if g.get("ei") and g["ei"] not in E_CODES:
                bad.append(f"{kind}: error code not in codes.yaml: {ln.text}")
    assert not bad, "\n".join(bad[:20])


def test_no_line_or_event_names_its_fault_a_health_state_or_a_component_id(
        emissions: dict[str, te.Emission]) -> None:
    bad: list[str] = []
    for kind, e in emissions.items():
        texts = [ln.text for ln in e.lines] + [json.dumps(ev.detail, default=str) for ev in e.events]
        for text in texts:
            named = _names_a_kind(text)
            if named or HEALTH_WORDS.search(text) or COMPONENT_ID.search(text):
                bad.append(f"{kind}: {text}")
        for ev in e.events:
            extra = set(ev.detail) - SCHEDULER_KEYS
            if extra or not _plain(ev.detail):
                bad.append(f"{kind}: event {ev.kind} carries {sorted(extra) or ev.detail}")
    assert not bad, "\n".join(bad[:20])


def test_the_generic_collective_codes_are_shared_by_several_kinds(emissions: dict[str, te.Emission]) -> None:
    """Real stacks print the notify-wait timeout for any stall: several kinds must show it, not one."""
    waits = {k for k, e in emissions.items() if any("taskType[Notify Wait]" in ln.text for ln in e.lines)}
    assert {"collective_timeout_sw", "aicore_hang", "node_hang", "node_crash"} <= waits, waits
    link_texts = {ln.text.split(" ", 3)[-1] for k in ("link_flap", "link_down", "dirty_connector")
                  for ln in emissions[k].lines if "l1sw" in ln.text and "linkDown_active" in ln.text}
    # one text for every cause (the host and time stamp differ, the rest must not)
    assert len({re.sub(r"UB0/0/\d+", "", t.split(" ", 4)[-1]) for t in link_texts}) == 1, link_texts


def test_background_flaps_print_what_link_faults_print() -> None:
    noise = [ln.text for ln in te.noise_lines(days=0.25) if "0x08520003" in ln.text or "linkDown" in ln.text]
    assert noise, "no background flap in a quarter pod-day"
    fault = [ln.text for ln in te.emit("dirty_connector").lines]

    def shape(t: str) -> str:
        return re.sub(r"\d", "N", t.split(" ", 3)[-1])
    assert {shape(t) for t in fault} <= {shape(t) for t in noise}


# ---- isolation: what the controller hands detection and diagnosis ---------------------------------------------
class _Spy:
    """A diagnoser that keeps what it was given (the incident's signals and the metric readings it asked for)."""

    def __init__(self) -> None:
        self.signals: list[Signal] = []
        self.readings: list[object] = []

    def diagnose(self, incident: Any, now: float, history: Any, metric: Callable[[str, str], float | None]
                 ) -> Diagnosis:
        self.signals.extend(incident.signals)
        for s in incident.signals:
            if s.component:
                for name in ("rank_step_time_s", "hbm_isolated_rows", "hbm_uce_total", "npu_temp_c"):
                    self.readings.append(metric(name, s.component))
                self.readings.append(metric("node_npus_allocated", node_of(s.component) or s.component))
        return Diagnosis("recorded", None, 0.0, at_s=now)


@pytest.mark.parametrize("where", ["training", "inference"])
@pytest.mark.parametrize("kind", sorted(CATALOG))
def test_no_plant_object_health_state_or_spec_reaches_detection_or_diagnosis(kind: str, where: str) -> None:
    sim = te._world(seed=3, noise=False)
    spy = _Spy()
    ctl = Controller(sim, spy)
    fed: list[Signal] = []
    records: list[LogLine | JobEvent] = []
    feed = ctl.detector.feed
    ctl.detector.feed = lambda s: (fed.append(s), feed(s))[1]  # type: ignore[method-assign]
    sim.telemetry.subscribe(records.append)
    truth = sim.inject(te.FaultSpec(at_s=te.ONSET_S, kind=kind, target=te.target_for(kind, 3, where)))
    sim.run(te.ONSET_S + 2400.0)
    assert fed or kind in ("optical_degradation", "silent_data_corruption"), f"{kind}: the detector saw nothing"
    banned = re.compile(rf"\b({re.escape(truth.id)}|{re.escape(kind)})\b|{HEALTH_WORDS.pattern}", re.I)
    for s in fed + spy.signals:
        assert type(s) is Signal
        for f in fields(Signal):
            v = getattr(s, f.name)
            assert isinstance(v, PLAIN), (f.name, type(v))
            if isinstance(v, str):
                assert not banned.search(v), (kind, f.name, v)
    for rec in records:  # what the hub pushes to the controller: plain records
        assert type(rec) in (LogLine, JobEvent)
        if isinstance(rec, JobEvent):
            text = json.dumps(rec.detail)
            assert _plain(rec.detail) and not banned.search(text) and not COMPONENT_ID.search(text), (kind, rec)
            assert not EVENT_STATES.search(text), (kind, rec)  # no health state in what a scheduler reports
        else:
            assert isinstance(rec.text, str) and not banned.search(rec.text), (kind, rec.text)
    assert all(r is None or type(r) is float for r in spy.readings)


@pytest.mark.parametrize("kind", ["hbm_uce", "aicore_hang"])
def test_a_plog_error_comes_only_from_an_npu_a_process_runs_on(kind: str) -> None:
    """A plog is a CANN process's file: a device fault on an NPU no job or service uses prints no plog error."""
    busy, idle = ids.npu(0, 32, 2), ids.npu(0, 47, 2)  # a training node; node 47 holds no workload in the test world
    seen = {}
    for target in (busy, idle):
        sim = te._world(0, noise=False)
        assert not any(ids.node_of(idle) in w.nodes for w in sim.workloads.values())
        sim.inject(te.FaultSpec(at_s=te.ONSET_S, kind=kind, target=target))
        sim.run(te.ONSET_S + 120.0)
        seen[target] = [ln for ln in sim.telemetry.logs if ln.source == "plog" and ln.t >= te.ONSET_S]
    assert seen[busy] and not seen[idle]
