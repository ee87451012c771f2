"""The device side's log lines: the device OS's fault-manager event (hicann/driver), the black box's exception record
and the MindCluster device plugin's fault callbacks (split from :mod:`faultlib.telemetry.formats`, which re-exports
every name; its docstring describes each source's layout)."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache

HANDLING_LEVELS = ("NotHandle", "SubHealth", "RestartRequest", "RestartBusiness", "FreeRestartNPU",
                   "RestartNPU", "PreSeparateNPU", "SeparateNPU", "ManuallySeparateNPU")
"""The names of MindCluster's fault handling levels (its fault-code configuration)."""


def norm_code(code: str | int) -> str:
    """``"0x80e01801"``, ``"80E01801"`` or an int -> ``"80E01801"``."""
    if isinstance(code, int):
        return f"{code:08X}"
    c = code.strip()
    c = c[2:] if c[:2].lower() == "0x" else c
    int(c, 16)  # raises on a non-hex code
    return c.upper().rjust(8, "0")


def slog_stamp(dt: datetime) -> str:
    """The slog / plog time stamp: ``YYYY-MM-DD-HH:MM:SS.mmm.uuu``."""
    return _slog_stamp(dt, dt.tzinfo)


@lru_cache(maxsize=4096)
def _slog_stamp(dt: datetime, _tz: object) -> str:
    """:func:`slog_stamp`, memoised (a stall's ranks print thousands of plog lines at one moment, and formatting a date
    costs ~10 us); keyed by the time zone too, since equal instants of two zones print apart."""
    return f"{dt:%Y-%m-%d-%H:%M:%S}.{dt.microsecond // 1000:03d}.{dt.microsecond % 1000:03d}"


# ---- device OS (slog) -------------------------------------------------------------------------------------
DRIVER_SOURCE = "hicann/driver@ef377e95"
"""The Ascend driver source the device-event line is taken from (github.com/hicann/driver, commit ef377e95)."""

DMS_EVENT_LOG_CALL = "dms_event.c:1410"
"""The call that logs each fault event on the device: ``dms_record_fault_event_log`` (hicann/driver@ef377e95
src/sdk_driver/fms/smf/event/dms_event.c:1410, under CFG_FEATURE_LOG_STANDARD_FAULT_EVENT, from the event poll task
``dms_poll_task``, dms_event.c:1496). The slog prints ``__FILE__``'s base name and the call's ``__LINE__``; the
call spans lines 1410-1415, so a compiler that gives a multi-line call its last line would print 1415."""

DMS_POLL_PID = 1187
"""The pid of the device's ``dms_poll_task`` kernel thread (any pid: it is fixed at the device's boot)."""

NODE_TYPE_NAMES: dict[int, str] = {0x70: "HBM/3DRAM", 0x71: "LPM", 0x7D: "TSCPU(A55/R52)", 0x83: "PORT",
                                   0xD8: "UB_PORT"}
"""Node type -> the name the driver prints (hicann/driver@ef377e95 src/sdk_driver/fms/dtm/dms_node_type.c
``g_dms_node_type``; the numbers: pkg_inc/dms_device_node_type.h). Only the node types of the codes the twin emits."""

SENSOR_EVENTS: dict[tuple[int, int], tuple[int, str]] = {
    (0x01, 0x07): (1, "Crossed Upper non-critical going high. "),
    (0x01, 0x09): (2, "Crossed Upper critical going high. "),
    (0x01, 0x0B): (3, "Crossed Upper non-recoverable going high. "),
    (0x0C, 0x01): (3, "Uncorrectable ECC / other uncorrectable memory error. "),
    (0x0C, 0x05): (1, "Correctable ECC / other correctable memory error logging limit reached. "),
    (0x27, 0x00): (2, "Heartbeat Lost."),
    (0xC2, 0x01): (1, "Uncorrectable ECC address count reached normal threshold."),
    (0xC2, 0x02): (3, "Uncorrectable ECC address count reached the upper limits."),
    (0xC3, 0x03): (2, "port link status change(up to down)"),
    (0xC3, 0x05): (1, "port lane drop"),
}
"""(sensor type, event state) -> (default severity, event string), as the driver's sensor table holds them
(hicann/driver@ef377e95 src/sdk_driver/fms/smf/sensor/config/dms_sensor_type.c, trailing blanks included; the
severity is the table's default, dms_sensor.c:1414 ``dms_get_event_def_severity``, which the driver uses where its
``dms_events_conf.lst`` sets none). Only the events the twin emits and those of the device codes its knowledge
base's classes sign with (0xC3/5, a UB or NPU port's lane drop: 0x81B18605, 0x81078605): a code outside this table is
refused rather than printed with words no driver prints."""

EVENT_SEVERITY_NAMES = ("OK", "Warning", "Alarm", "Critical")
EVENT_ASSERTION_NAMES = ("Event resume", "Event occur", "One time event")
"""The names the driver prints beside a severity and an assertion (dms_event.c:1338-1348)."""
RESUMED_EVENTS: frozenset[str] = frozenset()
"""The device events the twin holds as active until it prints their resume (``assertion=0[Event resume]``): none.
The driver holds an event until it resumes only when its sensor has a deassert mask, and reports it as a one-time
event (``assertion=2[One time event]``, at each occurrence, never held) when the sensor has an assert mask and no
deassert mask (hicann/driver@ef377e95 src/sdk_driver/fms/smf/event/dms_event.c:176-185,
``dms_event_convert_assertion``). The masks are firmware settings with no public copy, so the twin takes the case
that claims nothing unsourced: every event one-time (session 35, the lead). A branch of this session (events35) held
the CE log report, a fail-slow chip's warning, a RoCE port's and an L1 chip's down events as active until a resume
the twin printed at its model of the clearing, and every other event as active until the chip's next boot; the first
claims a deassert mask no source shows, the second dropped a chip's second UCE. The resume machinery
(:meth:`faultlib.telemetry.hub.TelemetryHub.event_serials`, the callers that report a clearing) stays: an event code
added here would be held and resumed as the driver does."""


def device_event_fields(code: str | int) -> tuple[int, int, int, int, str]:
    """A device event id split as the driver splits it (dms_event_converge.h:29-31: node type bits 17-27, sensor
    type bits 9-16, event state bits 0-8) -> (node type, sensor type, event state, default severity, event
    string). Raises ValueError for an id whose node type or event string the twin does not have from the driver."""
    c = int(norm_code(code), 16)
    node, sensor, state = (c >> 17) & 0x7FF, (c >> 9) & 0xFF, c & 0x1FF
    if node not in NODE_TYPE_NAMES or (sensor, state) not in SENSOR_EVENTS:
        raise ValueError(f"no driver text for device event 0x{c:08x} (node type 0x{node:x}, sensor 0x{sensor:x}, "
                         f"state 0x{state:x})")
    sev, text = SENSOR_EVENTS[(sensor, state)]
    return node, sensor, state, sev, text


def device_os_event(dt: datetime, device: int, code: str | int, assertion: bool = True, uptime_s: float = 0.0,
                    serial: int = 1, raised: datetime | None = None, notify: int | None = None,
                    once: bool = False) -> str:
    """The device's fault-manager line for a fault event (hicann/driver@ef377e95): the slog frame
    ``[EVENT] DRV(%d,%s):%s [%s:%d][%s]%s`` (src/sdk_driver/fms/smf/logdrv/log_drv_write_ring_buffer.c:166, pid and
    comm of ``dms_poll_task``, the date ``%04ld-%02d-%02d-%02d:%02d:%02d.%03lu.%03ld`` of log_drv_get_date, module
    ``fault_manager``), the uptime ``[%5lu.%06lu] `` (src/sdk_driver/fms/fms_define.h:65) and the event
    (:data:`DMS_EVENT_LOG_CALL`): ``event_id=0x%x; device_id=%u; node_type=0x%x[%s]; node_id=%u; sub_node_id=%u;
    event_type=0x%x[%s]; severity=%u[%s]; assertion=%u[%s]; description=[%s]; os_id=%u; event_serial_num=%d;
    notify_serial_num=%d; event_raised_time=%llu ms.``. Always at EVENT: the line has no level of its own. The
    description (the sensor's parameter buffer) is empty and the node ids are 0: the twin models neither.
    ``serial``: the event's serial number (``event_serial_num``); ``notify``: the notification's
    (``notify_serial_num``; default ``serial``); ``raised``: when the device raised it (default ``dt``); ``once``:
    a one-time event (``assertion=2``, :data:`RESUMED_EVENTS`)."""
    node, _sensor, state, sev, text = device_event_fields(code)
    c = int(norm_code(code), 16)
    a = 2 if once else 1 if assertion else 0
    notify = serial if notify is None else notify
    up_us = max(0, round(uptime_s * 1e6))
    up = f"[{up_us // 1_000_000:5d}.{up_us % 1_000_000:06d}] "
    body = (f"event_id=0x{c:x}; device_id={device}; node_type=0x{node:x}[{NODE_TYPE_NAMES[node]}]; node_id=0; "
            f"sub_node_id=0; event_type=0x{state:x}[{text}]; severity={sev}[{EVENT_SEVERITY_NAMES[sev]}]; "
            f"assertion={a}[{EVENT_ASSERTION_NAMES[a]}]; description=[]; os_id=0; event_serial_num={serial}; "
            f"notify_serial_num={notify}; event_raised_time={_epoch_ms(raised or dt)} ms.")
    return f"[EVENT] DRV({DMS_POLL_PID},dms_poll_task):{slog_stamp(dt)} [{DMS_EVENT_LOG_CALL}][fault_manager]{up}{body}"


BBOX_EXCEPTIONS: dict[tuple[str, bool], tuple[int, str, str]] = {("80E01801", True): (0xA8028802, "DRIVER",
                                                                                       "DRIVER_EXCEPTION")}
"""(device event, occurs) -> (black-box exception code, module name, exception reason) for the events whose
black-box record has a public source: the driver hands an event to the black box by its table
(hicann/driver@ef377e95 src/sdk_driver/fms/smf/event/dms_event_distribute_proc.c:29-34: 0x80E01801 occurring is
0xA8028802), and ascend-fd's fixture history.log prints that code's module and reason (Ascend/mind-cluster@22bb3d98
component/ascend-faultdiag/test/st_testcase/modelarts-job-testdt/ascend/device_log/hisi_logs/device-0/history.log:2).
The table maps 0x80E18402, 0x80E18401, 0x80FA4E00 and a UCE's recovery to codes too, but no public source gives
their module and reason: the twin writes no history record for them."""


def history_record(dt: datetime, code: str | int, assertion: bool = True) -> str | None:
    """The black-box record of a device event in ``hisi_logs/device-<N>/history.log`` (hicann/driver@ef377e95
    src/ascend_hal/bbox/bbox_tools/dump_tool/dump_impl/bbox_dump_process.c:310: ``[%s] system exception code
    [0x%08X]: ModuleName [%s], ExceptionReason [%s], TimeStamp [%s].``; the time as ascend-fd's fixture prints it,
    ``2021-10-05-23:07:08.656411``, and the dump directory's stamp ``YYYYmmddHHMMSS-<nanoseconds>``), or None for an
    event without one (:data:`BBOX_EXCEPTIONS`). The record is stamped at the event: the black box's delay is not
    modelled."""
    got = BBOX_EXCEPTIONS.get((norm_code(code), assertion))
    if got is None:
        return None
    excep, module, reason = got
    return (f"[{dt:%Y-%m-%d-%H:%M:%S}.{dt.microsecond:06d}] system exception code [0x{excep:08X}]: ModuleName "
            f"[{module}], ExceptionReason [{reason}], TimeStamp [{bbox_stamp(dt)}].")


def bbox_stamp(dt: datetime) -> str:
    """A black-box dump's time stamp and directory name: ``20211005230708-651408009`` (seconds, then nanoseconds)."""
    return f"{dt:%Y%m%d%H%M%S}-{dt.microsecond * 1000:09d}"


# ---- device plugin / node agent (MindCluster hwlog) -------------------------------------------------------
def device_plugin(dt: datetime, level: str, text: str, where: str, goroutine: int = 1) -> str:
    """A device-plugin or node-agent log line (MindCluster hwlog layout: ``[WARN]     2024/01/10 03:30:38.643330 17
    deviceswitch/ascend_switch.go:190    text``, ascend-fd fixtures dl_log/devicePlugin); ``where``: the source file
    and line that prints ``text``."""
    tag = f"[{level.upper()}]"
    return f"{tag:<11}{dt:%Y/%m/%d %H:%M:%S}.{dt.microsecond:06d} {goroutine:<7d} {where}    {text}"


PLUGIN_FAULT_CALLBACK = "common/fault_code.go:1844"
"""Where the device plugin logs each fault event DCMI delivers (Ascend/mind-cluster, commit 22bb3d98,
component/ascend-device-plugin/pkg/common/fault_code.go:1844, DoSaveDevFaultInfo): ``hwlog.RunLog.Infof("receive
devFaultInfo: %#v, hex code: %v", devFaultInfo, FormatFaultCodeHex(devFaultInfo.EventID))``."""


def _epoch_ms(dt: datetime) -> int:
    """Milliseconds since 1970 of ``dt`` (a naive wall clock read as UTC: the twin's clock has no zone)."""
    return int((dt if dt.tzinfo else dt.replace(tzinfo=UTC)).timestamp() * 1000)


def device_plugin_fault(dt: datetime, device: int, code: str | int, handling: str, recovered: bool = False,
                        raised: datetime | None = None) -> str:
    """The device plugin's line for a fault event of logical device ``device`` (:data:`PLUGIN_FAULT_CALLBACK`): the
    ``%#v`` of ascend-common's DevFaultInfo (devmanager/common/types.go:212: EventID as a decimal int64, LogicID,
    the DCMI module ids, Severity, Assertion 1 occur / 0 recover, AlarmRaisedTime in ms) and the code in lower-case
    hex (FormatFaultCodeHex: ``%x``). ``raised``: when the device raised it (default ``dt``). The line carries no
    handling level; ``handling`` (checked against the levels) sets the DCMI severity the twin reports: Minor (1)
    for a no-action level, Major (2) otherwise, the split the plugin itself makes for a code its table lacks
    (fault_code.go getFaultTypeBySeverity). The module ids are 0: the twin does not model DCMI's node ids."""
    if handling not in HANDLING_LEVELS:
        raise ValueError(f"unknown handling level {handling!r}")
    c = norm_code(code)
    severity = 1 if handling in ("NotHandle", "SubHealth") else 2
    info = (f"common.DevFaultInfo{{EventID:{int(c, 16)}, LogicID:{device}, ModuleType:0, ModuleID:0, "
            f"SubModuleType:0, SubModuleID:0, Severity:{severity}, Assertion:{0 if recovered else 1}, "
            f"AlarmRaisedTime:{_epoch_ms(raised or dt)}}}")
    return device_plugin(dt, "INFO", f"receive devFaultInfo: {info}, hex code: {c.lower()}",
                         where=PLUGIN_FAULT_CALLBACK, goroutine=52)


PLUGIN_SWITCH_CALLBACK = "deviceswitch/ascend_switch.go:174"
"""Where the device plugin logs each UB switch fault event the switch DCMI library delivers (Ascend/mind-cluster,
commit 22bb3d98, component/ascend-device-plugin/pkg/device/deviceswitch/ascend_switch.go:174, goFaultEventHandler):
``hwlog.RunLog.Warnf("switch subscribe got fault:%s, faultCode:%v", fmt.Sprintf("AlarmId: 0x%08x, FaultID: %v,
AssembledFaultCode: %v, PeerPortDevice: %v, PeerPortId: %v, SwitchChipId: %v, SwitchPortId: %v, Assertion: %v,
AlarmRaisedTime: %v", ...), AssembledFaultCode)``, at WARN for an occurrence and a recovery alike."""

PEER_PORT_DEVICE = {"cpu": 0, "npu": 1, "L2": 2}
"""The switch DCMI peer device type of a port -> its number (ascend-device-plugin pkg/common/constants.go:697-708 at
22bb3d98: 0 a chip or CPU port, 1 an NPU, 2 an L2 chip); ``na`` is a chip-level fault (port 0xFFFFFFFF)."""
CHIP_LEVEL_PORT = 0xFFFFFFFF
"""SwitchPortId of a fault of the whole chip, not of one port (ascend_switch.go ``invalidNum``, isPortLevelFault)."""


def device_plugin_switch_fault(dt: datetime, alarm_id: str, peer_type: str, port: int, handling: str,
                               recovered: bool = False, fault_id: str = "", chip: int = 0,
                               raised: datetime | None = None) -> str:
    """The device plugin's line for a UB switch fault event (:data:`PLUGIN_SWITCH_CALLBACK`): the alarm id, the fault
    id (``na`` when the driver gives none, as for a link-down: setExtraFaultInfo, ascend_switch.go:310-330), the
    tuple ``[0x<alarm>,<fault id>,<peer>,na]`` it assembles for SwitchFaultCode.json, the peer device number, the
    chip and port (a chip-level fault, peer ``na``, has port 0xFFFFFFFF), Assertion 1 occur / 0 recover and the
    alarm's time in ms. ``handling`` is checked against the levels (the plugin looks it up in SwitchFaultCode.json;
    the line does not print it). PeerPortId is 0: the twin does not model the far port's number."""
    if handling not in HANDLING_LEVELS:
        raise ValueError(f"unknown handling level {handling!r}")
    if peer_type != "na" and peer_type not in PEER_PORT_DEVICE:
        raise ValueError(f"unknown switch peer type {peer_type!r} (one of cpu, npu, L2, na)")
    alarm = int(alarm_id, 16)
    fid = fault_id if fault_id not in ("", "na") else "na"
    if fid != "na":
        int(fid)  # the driver's fault id is a number
    code = f"[0x{alarm:08x},{fid},{peer_type},na]"
    peer_dev = PEER_PORT_DEVICE.get(peer_type, 0)
    sw_port = CHIP_LEVEL_PORT if peer_type == "na" else port
    event = (f"AlarmId: 0x{alarm:08x}, FaultID: {fid}, AssembledFaultCode: {code}, PeerPortDevice: {peer_dev}, "
             f"PeerPortId: 0, SwitchChipId: {chip}, SwitchPortId: {sw_port}, Assertion: {0 if recovered else 1}, "
             f"AlarmRaisedTime: {_epoch_ms(raised or dt)}")
    return device_plugin(dt, "WARN", f"switch subscribe got fault:{event}, faultCode:{code}",
                         where=PLUGIN_SWITCH_CALLBACK, goroutine=17)
