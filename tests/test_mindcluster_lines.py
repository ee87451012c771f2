"""MindCluster's own device-fault lines, filled in as its Go format strings print them (Ascend/mind-cluster at commit
22bb3d98, paths under component/), read into ``plugin:<CODE>`` on the device the line names; and the twin's device
plugin line is that same format string."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from faultlib.telemetry import formats as fmt
from opsbrain.ingest.parsers import parse_line

HEAD = "[INFO]     2025/12/05 02:45:10.200000 52      "
UCE = 0x80E01801  # 2162169857

# ascend-device-plugin/pkg/common/fault_code.go:1844, Infof("receive devFaultInfo: %#v, hex code: %v", ...), with
# ascend-common/devmanager/common/types.go:212's DevFaultInfo (EventID int64: decimal under %#v)
PLUGIN_RECEIVE = (HEAD + "common/fault_code.go:1844    receive devFaultInfo: common.DevFaultInfo{{EventID:{eid}, "
                  "LogicID:{logic}, ModuleType:0, ModuleID:0, SubModuleType:0, SubModuleID:0, Severity:{sev}, "
                  "Assertion:{a}, AlarmRaisedTime:1764902710100}}, hex code: {hex:x}")
# the same line before commit 1f6e5d1f (fault_code.go:1118 at d894bbca): %v, the npu-exporter struct's fields in
# order (EventID, LogicID, Severity, Assertion, AlarmRaisedTime)
PLUGIN_RECEIVE_V = (HEAD + "common/fault_code.go:1118    receive devFaultInfo: {{{eid} {logic} 2 {a} 1764902710100}}, "
                    "hex code: {hex:x}")
# fault_code.go:1248 and :1252
FREQUENCY = (HEAD + "common/fault_code.go:1248    FaultFrequency detected, event id: 80e01801, logic id: 3, fault "
             "occurred times: 2, fault level: ManuallySeparateNPU, faultTimes: [1764902710 1764902800]")
MANUAL = HEAD + "common/fault_code.go:1252    detect ManuallySeparateNPU, logic id: 3"
# fault_code.go:1685, parameter plane fault code occur
PARAM_PLANE = (HEAD + "common/fault_code.go:1685    parameter plane fault code {what}, logicID: 5, hex code: 81078603, "
               "assertion: 1, alarmRaisedTime: 1764902710100")
# fault_code.go:1836, the rate limiter
DISCARDED = ("[WARN]     2025/12/05 02:45:10.200000 52      common/fault_code.go:1836    fault callback rate limit "
             "overflowed, current fault: common.DevFaultInfo{EventID:2162169857, LogicID:6, ModuleType:0, ModuleID:0, "
             "SubModuleType:0, SubModuleID:0, Severity:2, Assertion:1, AlarmRaisedTime:1764902710100} will be discard")
# device/ascendcommon.go:1615: the event written to Kubernetes, restating the received one
EVENT_WRITTEN = (HEAD + "device/ascendcommon.go:1615    successfully create event for fault: common.DevFaultInfo{"
                 "EventID:2162169857, LogicID:3, ModuleType:0, ModuleID:0, SubModuleType:0, SubModuleID:0, Severity:2, "
                 "Assertion:1, AlarmRaisedTime:1764902710100}")
# container-manager/pkg/fault/app/faultmgr.go:145, Infof("receive devFaultInfo: %+v, hex fault code: %s, fault
# level: %s", ...)
CM_RECEIVE = ("[INFO]     2025/12/05 02:45:10.200000 61      app/faultmgr.go:145    receive devFaultInfo: {{EventID:"
              "2162169857 LogicID:3 ModuleType:0 ModuleID:0 SubModuleType:0 SubModuleID:0 Severity:2 Assertion:1 "
              "AlarmRaisedTime:1764902710100}}, hex fault code: 80e01801, fault level: {level}")
# container-manager/pkg/devmgr/hwdevmgr.go:392 (a physical id)
CM_BEFORE = ("[INFO]     2025/12/05 02:39:00.000000 61      devmgr/hwdevmgr.go:392    before fault subscribe, "
             "device(2) had error code: 80e18402")


def _sig(line: str, origin: str | None = "node-3") -> list[tuple[str, str | None, int, int | None]]:
    return [(s.kind, s.component, s.severity, s.device) for s in parse_line(line, 0.0, origin)]


def test_the_plugins_fault_callback_is_the_devices_code_on_its_logical_device() -> None:
    occur = PLUGIN_RECEIVE.format(eid=UCE, logic=3, sev=2, a=1, hex=UCE)
    assert _sig(occur) == [("plugin:80E01801", "node-3/npu3", 2, 3)]  # documented RestartBusiness: an error
    assert _sig(PLUGIN_RECEIVE.format(eid=UCE, logic=3, sev=2, a=0, hex=UCE)) == [
        ("plugin:80E01801:recover", "node-3/npu3", 0, 3)]
    assert _sig(PLUGIN_RECEIVE.format(eid=UCE, logic=3, sev=2, a=2, hex=UCE))[0][0] == "plugin:80E01801"  # once
    ce = 0x80E01805  # documented NotHandle: a warning, whatever the DCMI severity
    assert _sig(PLUGIN_RECEIVE.format(eid=ce, logic=0, sev=2, a=1, hex=ce)) == [
        ("plugin:80E01805", "node-3/npu0", 1, 0)]
    other = 0x8C0E4E00  # no documented level: the event's own severity (above Minor an error)
    assert _sig(PLUGIN_RECEIVE.format(eid=other, logic=1, sev=3, a=1, hex=other))[0][2] == 2
    assert _sig(PLUGIN_RECEIVE.format(eid=other, logic=1, sev=1, a=1, hex=other))[0][2] == 1
    assert _sig(PLUGIN_RECEIVE.format(eid=0, logic=1, sev=0, a=1, hex=0)) == []  # EventID 0: the plugin ignores it
    assert _sig(PLUGIN_RECEIVE_V.format(eid=UCE, logic=4, a=1, hex=UCE)) == [
        ("plugin:80E01801", "node-3/npu4", 2, 4)]
    assert _sig(PLUGIN_RECEIVE_V.format(eid=UCE, logic=4, a=0, hex=UCE))[0][0] == "plugin:80E01801:recover"
    assert _sig(DISCARDED) == [("plugin:80E01801", "node-3/npu6", 2, 6)]  # dropped by the plugin, still raised
    assert _sig(EVENT_WRITTEN) == []  # the same event once more: read once, at its receipt


def test_escalations_and_parameter_plane_lines() -> None:
    assert _sig(FREQUENCY) == [("plugin:80E01801", "node-3/npu3", 2, 3),
                               ("level:ManuallySeparateNPU", "node-3/npu3", 0, 3)]
    assert _sig(MANUAL) == []
    assert _sig(FREQUENCY.replace("ManuallySeparateNPU", "NotHandleFault"))[0][2] == 1
    assert _sig(PARAM_PLANE.format(what="occur")) == [("plugin:81078603", "node-3/npu5", 1, 5)]  # NotHandle
    assert _sig(PARAM_PLANE.format(what="recover"))[0][0] == "plugin:81078603:recover"


def test_container_manager_lines_name_the_device_and_the_level() -> None:
    assert _sig(CM_RECEIVE.format(level="RestartBusiness"), None) == [
        ("plugin:80E01801", "npu3", 2, 3), ("level:RestartBusiness", "npu3", 0, 3)]  # before: dev:80E01801, no device
    assert _sig(CM_RECEIVE.format(level="NotHandleFault"), None)[0][2] == 1  # the level the line states
    assert _sig(CM_RECEIVE.format(level="Unknown"), None) == [("plugin:80E01801", "npu3", 2, 3)]
    assert _sig(CM_BEFORE) == [("plugin:80E18402", "node-3/npu2", 2, 2)]


def test_an_atlas_950_kubernetes_event_names_the_npu_by_its_logical_id() -> None:
    """ascend-device-plugin pkg/device/ascendcommon.go:1589 (``logicID:%d`` on Ascend910A5) and :1596."""
    ev = ("device fault, nodeName:node-a, assertion:{a}, logicID:5, faultCodes:80E01801, "
          "faultLevelName:RestartBusiness, alarmRaisedTime:2025-12-05 02:45:10")
    assert _sig(ev.format(a="Occur"), None) == [("plugin:80E01801", "node-a/npu5", 2, 5),
                                                ("level:RestartBusiness", "node-a/npu5", 0, 5)]
    assert _sig(ev.format(a="Notice"), None)[0][0] == "plugin:80E01801"  # assertion 2, a fault that occurs once


def test_the_twins_plugin_line_is_the_real_format_and_reads_the_same() -> None:
    line = fmt.device_plugin_fault(datetime(2025, 12, 5, 2, 45, 10, 200000), 3, "80E01801", "RestartBusiness",
                                   raised=datetime(2025, 12, 5, 2, 45, 10, 100000))
    assert line == PLUGIN_RECEIVE.format(eid=UCE, logic=3, sev=2, a=1, hex=UCE)
    assert _sig(line) == [("plugin:80E01801", "node-3/npu3", 2, 3)]  # a real host's id as written
    # on the twin's Atlas A3 nodes the LogicID is a die's (session 37): 3 = NPU 1, die 1
    assert _sig(line, "pod0/node3") == [("plugin:80E01801", "pod0/node3/npu1/die1", 2, 3)]


@pytest.mark.parametrize("name", ["devicePlugin.log", "container-manager.log"])
def test_a_log_of_them_alone_is_diagnosed_on_the_device(tmp_path: Path, name: str) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb.training import load_engine

    text = (PLUGIN_RECEIVE.format(eid=UCE, logic=3, sev=2, a=1, hex=UCE) + "\n" + FREQUENCY + "\n" + MANUAL
            if name == "devicePlugin.log" else CM_RECEIVE.format(level="RestartBusiness"))
    (tmp_path / name).write_text(text + "\n")
    d = diagnose_logs(str(tmp_path / name), load_engine())["diagnosis"]
    assert (d["fault_class"], d["root"]["device"]) == ("hbm_uce", 3)


SWITCH_DT = datetime(2025, 3, 1, 10, 3, 20)
SWITCH_FIXTURE = ('[WARN]     2024/01/10 03:30:38.643330 17      deviceswitch/ascend_switch.go:190    switch subscribe '
                  'got fault:deviceswitch.SwitchFaultEvent{EventType:0x4, FaultID:0xf1ff09, AssembledFaultCode:'
                  '"[0x00f1ff09,155912,npu,na]", PeerPortDevice:0x1, PeerPortId:0x2, SwitchChipId:0x0, '
                  'SwitchPortId:0x0, '
                  'Severity:0x0, Assertion:{a}, EventSerialNum:0, NotifySerialNum:0, AlarmRaisedTime:0, '
                  'AdditionalParam:"", AdditionalInfo:""}, faultCode:[0x00f1ff09,155912,npu,na]')
"""The older plugin's ``%#v`` switch line, as ascend-fd's dl_log/devicePlugin fixture shows it (Assertion 0x1/0x0)."""


@pytest.mark.parametrize("line, kind", [
    (fmt.device_plugin_switch_fault(SWITCH_DT, "0x08520003", "L2", 7, "NotHandle"), "swfault:08520003"),
    (fmt.device_plugin_switch_fault(SWITCH_DT, "0x08520003", "L2", 7, "NotHandle", recovered=True),
     "swfault:08520003:recover"),
    (fmt.device_plugin_switch_fault(SWITCH_DT, "0x00f103b0", "na", 0, "SeparateNPU", fault_id="155907"),
     "swfault:00F103B0"),
    (SWITCH_FIXTURE.replace("{a}", "0x1"), "swfault:00F1FF09"),
    (SWITCH_FIXTURE.replace("{a}", "0x0"), "swfault:00F1FF09:recover"),
])
def test_the_plugins_switch_callback_line_gives_the_alarm_and_its_recovery(line: str, kind: str) -> None:
    """ascend_switch.go:174 (and the older %#v form) log a switch fault's occurrence and its recovery alike at
    WARN; ``Assertion: 0`` is the recovery (FaultRecover)."""
    sigs = parse_line(line, 0.0, origin="pod0/node1")
    assert [s.kind for s in sigs] == [kind], line
    chip_level = ",na,na]" in line  # the chip's own fault: on the chip the line names (SwitchChipId 0)
    assert sigs[0].component == ("pod0/node1/l1sw0" if chip_level else "pod0/node1")
    assert sigs[0].severity == (0 if kind.endswith(":recover") else 1)


def test_no_rule_reads_the_switch_line_no_plugin_prints() -> None:
    """``switch fault occurred, fault code [0x...`` is in no MindCluster source (Ascend/mind-cluster history):
    no ``plugin_sw:`` signal comes from it any more."""
    line = "switch fault occurred, fault code [0x08520003,na,L2,na], port UB0/0/7"
    sigs = parse_line(line, 0.0, origin="n")
    assert not [s for s in sigs if s.kind.startswith("plugin_sw:")]


def _device_fault(npu: str, mode: str, level: str, codes: dict[str, str]) -> dict[str, object]:
    """One ``DeviceFault`` (ascend-device-plugin pkg/common/proto.go:229) as getDeviceFaultsWithMode
    (pkg/device/ascendcommon.go:806) fills it: the codes upper-case hex joined by commas, each code's own level in
    the map (FaultTimeAndLevel, proto.go:222), fields in the struct's order (encoding/json)."""
    return {"fault_type": mode, "npu_name": npu, "large_model_fault_level": level, "fault_level": level,
            "fault_handling": level, "fault_code": ",".join(codes),
            "fault_time_and_level_map": {c: {"fault_time": 1764902710100, "fault_level": lv}
                                         for c, lv in codes.items()}}


FAULT_LIST = [_device_fault("Ascend910-0", "CardNetworkUnhealthy", "PreSeparateNPU", {"81078603": "PreSeparateNPU"}),
              _device_fault("Ascend910-4", "CardUnhealthy", "SeparateNPU",
                            {"80E18402": "SeparateNPU", "80E18401": "NotHandleFault"})]


def _configmap_line() -> str:
    """The device-info ConfigMap's data as ``kubectl describe cm mindx-dl-deviceinfo-<node>`` prints it (MindCluster
    "Fault Information", mxdlug_com_007): the fault list (key ``huawei.com/Ascend910-Fault``, api/consts.go:253) is a
    JSON string inside the ConfigMap's JSON, its quotes escaped."""
    import json

    info = {"DeviceInfo": {"DeviceList": {"huawei.com/Ascend910": "Ascend910-1,Ascend910-2",
                                          "huawei.com/Ascend910-Fault": json.dumps(FAULT_LIST, separators=(",", ":")),
                                          "huawei.com/Ascend910-Unhealthy": "Ascend910-4"},
                           "UpdateTime": 1764902720}, "SuperPodID": -2, "ServerIndex": -2, "CheckCode": "ab12"}
    return json.dumps(info, separators=(",", ":"))


def test_the_deviceinfo_configmaps_fault_list_gives_each_npus_codes_at_their_own_levels() -> None:
    import json

    want = [("plugin:81078603", "npu0", 2, 0), ("plugin:80E18402", "npu4", 2, 4), ("plugin:80E18401", "npu4", 1, 4)]
    for line in (_configmap_line(), json.dumps(FAULT_LIST, separators=(",", ":"))):  # escaped and as the key holds it
        got = [(s.kind, s.component, s.severity, s.device) for s in parse_line(line) if s.kind.startswith("plugin:")]
        assert got == want, line
    assert [s.kind for s in parse_line('"fault_code":"80E18402"')] == []  # a code without its NPU is no fault


def test_the_deviceinfo_configmap_alone_is_diagnosed_on_the_npu_the_list_names(tmp_path: Path) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb.training import load_engine

    (tmp_path / "cm.txt").write_text(_configmap_line() + "\n")
    d = diagnose_logs(str(tmp_path / "cm.txt"), load_engine())["diagnosis"]
    assert d["root"]["device"] == 4 and d["fault_class"].startswith("hbm_")  # was: no fault found, device 0
