"""Renderers of log lines in the layouts real Ascend tooling writes (facts.md §3 and §7).

Every renderer is a pure function of the simulated wall-clock time (``sim.wallclock(t)``) and fields, and
returns the line text; callers publish it with ``sim.telemetry.log(origin, source, level, text)``. Per source,
the origin a caller should give (the component whose log bundle holds the line) and the layout:

- ``device_os`` (origin: the NPU): the device's fault-manager slog line, ``[EVENT] DRV(pid,dms_poll_task):
  YYYY-MM-DD-HH:MM:SS.mmm.uuu [dms_event.c:1410][fault_manager][uptime] event_id=0x<code>; device_id=N; ...``
  (:func:`device_os_event`, hicann/driver);
- ``device_plugin`` (the node): MindCluster hwlog, ``[WARN]     YYYY/MM/DD HH:MM:SS.uuuuuu 17  file.go:line  text``:
  switch faults as its switch DCMI callback logs them, ``switch subscribe got fault:AlarmId: 0x<alarm>,
  FaultID: ..., faultCode:[0x<alarm>,<fault id>,<peer>,na]`` (deviceswitch/ascend_switch.go:174 at 22bb3d98);
  NPU faults as the plugin's DCMI callback logs them, ``receive devFaultInfo: common.DevFaultInfo{EventID:<decimal>,
  LogicID:<n>, ...}, hex code: <hex>`` (Ascend/mind-cluster ascend-device-plugin pkg/common/fault_code.go:1844 at
  22bb3d98);
- ``syslog`` (the node): ``Mon DD HH:MM:SS host kernel: text`` (no year); ``dmesg -T``: ``[Sat Mar  1 ...] text``;
- ``plog`` (the node): CANN ``[LEVEL] MODULE(pid,python):YYYY-MM-DD-HH:MM:SS.mmm.uuu [file.cc:line][tid]text``;
- ``train`` (the node): training console lines (rank prefix, iteration lines, RuntimeError lines);
- ``switch`` (the switch chip): UB switch alarms ``[0x08520003,na,L2,na]`` with the port, port state, DOM;
- ``hccn`` (the node): ``hccn_tool -link_stat -g`` / ``-optical -g`` output lines.

Device fault codes are 8 hex digits. Device logs print them in lower case (``event_id=0x80e01801``) as the
device OS does; the device plugin prints the event id in decimal and its hex in lower case without ``0x``
(``FormatFaultCodeHex``). An operator tool should match codes case-insensitively. Nothing here says whether a line
was caused by an injected fault or by background noise: operators cannot know that either.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from datetime import datetime

from faultlib import ids
from faultlib.telemetry.devicelines import (  # noqa: F401 - re-exported: the device-side lines live there
    BBOX_EXCEPTIONS,
    CHIP_LEVEL_PORT,
    DMS_EVENT_LOG_CALL,
    DMS_POLL_PID,
    DRIVER_SOURCE,
    EVENT_ASSERTION_NAMES,
    EVENT_SEVERITY_NAMES,
    HANDLING_LEVELS,
    NODE_TYPE_NAMES,
    PEER_PORT_DEVICE,
    PLUGIN_FAULT_CALLBACK,
    PLUGIN_SWITCH_CALLBACK,
    SENSOR_EVENTS,
    bbox_stamp,
    device_event_fields,
    device_os_event,
    device_plugin,
    device_plugin_fault,
    device_plugin_switch_fault,
    history_record,
    norm_code,
)
from faultlib.telemetry.devicelines import slog_stamp as _slog_ts

# ---- code tables (every row from a documented source) ----------------------------------------------------
DEVICE_CODES: dict[str, tuple[str, str]] = {
    "80E01805": ("NotHandle", "HBM correctable ECC errors reached their logging limit"),
    "80E01801": ("RestartBusiness", "uncorrectable multi-bit ECC error on an HBM access"),
    "80E18401": ("NotHandle", "HBM addresses with uncorrectable errors reached the normal threshold"),
    "80E18402": ("SeparateNPU", "multi-bit ECC faults filled the HBM isolated-row budget (64 rows)"),
    "80E00209": ("NotHandle", "HBM temperature above its upper critical threshold"),
    "80E0020B": ("SeparateNPU", "HBM temperature above its upper non-recoverable threshold"),
    "80E20207": ("SubHealth", "SoC temperature (power-management unit) above its upper non-critical threshold"),
    "80FA4E00": ("RestartNPU", "heartbeat of the task-scheduler CPU lost"),
    "81078603": ("NotHandle", "NPU network port link went from up to down"),
    "81B18603": ("NotHandle", "UB port link went down"),
}
"""Device fault code -> (MindCluster handling level, meaning in our words). Meanings: knowledge_base/codes.yaml
device_event_codes (each row's public source; the 80E0..., 80FA... rows are decoded by the Ascend driver's own
event-id layout and sensor tables, hicann/driver). Levels: MindCluster's default fault-code configuration as its
documentation prints it (docs/en/scheduling/usage/appliance/01_npu_hardware_fault_detection_and_rectification.md),
except 80E20207 (that list has NotHandle; SubHealth is the device plugin's fault-level file) and 81B18603 (not in that
list; NotHandle in the fault-level file). Only the codes the twin emits are listed; every one is a code real devices
report."""

HBM_CE_CODE = "80E01805"
"""Benign HBM correctable-error report: node type 0x70 (HBM), memory sensor 0x0C, event state 5, which the driver's
sensor table gives as the correctable-ECC logging limit being reached (knowledge_base/codes.yaml row 80E01805)."""

RUNTIME_CODES: dict[int, str] = {
    507010: "ACL_ERROR_RT_LOST_HEARTBEAT",
    507053: "ACL_ERROR_RT_DEVICE_MEM_ERROR",
    507054: "ACL_ERROR_RT_HBM_MULTI_BIT_ECC_ERROR",
}
"""CANN runtime return codes the twin prints -> their AscendCL names (CANN aclError reference; knowledge_base/
codes.yaml acl_runtime rows). The runtime prints the number (``ErrCode=507053``); torch_npu prints
``NPU error, error code is 507053`` (Ascend/pytorch torch_npu/csrc/core/npu/NPUException.cpp)."""

HCCL_CODES: dict[str, str] = {
    "EI0002": "The wait execution of the Notify register times out. Reason: The Notify register has not received "
              "the Notify record from remote rank: [{remote}]. base information: [{base}]. task information: "
              "[{task}]. group information: [{group}]",
    "EI0006": "Getting socket times out. Reason: {reason}",
    "EI0013": "An error CQE occurred during operator execution. Local information: server {server}, device ID "
              "{device}, device IP {ip}. Peer information: server {peer_server}, device ID {peer_device}, device "
              "IP {peer_ip}.",
}
"""HCCL error-message templates (CANN error-code reference: EI0002 Communication_Error_Timeout, EI0006
Communication_Error_Get_Socket, EI0013 Execution_Error_ROCE_CQE; hiascend.com maintenref troubleshooting pages and
the hcomm error_codes list; hicann/runtime src/dfx/error_manager/error_code.json)."""



# ---- names and numbers an operator sees ------------------------------------------------------------------
def hostname(cid: str) -> str:
    """The host (or switch) name holding ``cid``'s logs: ``pod0-node12``, ``pod0-node12-l1sw4``, ``pod0-l2plane4-sw07``.

    NPUs, dies, HBM, CPUs, RoCE ports and the Qingtian card log on their node's host. A module logs on its
    switch chip; a link id names its first end.
    """
    cid = cid.split("~", 1)[0]
    parts = cid.split("/")
    if len(parts) >= 3 and parts[1].startswith("l2plane"):
        return "-".join(parts[:3])
    if len(parts) >= 3 and parts[2].startswith("l1sw"):
        return "-".join(parts[:3])
    node = ids.node_of(cid)
    return node.replace("/", "-") if node else parts[0]


def host_ip(node: str) -> str:
    """The management address of a node (``10.<pod>.<n // 250>.<n % 250 + 1>``)."""
    p, n = ids.index(node, "pod"), ids.index(node, "node")
    return f"10.{p}.{n // 250}.{n % 250 + 1}"


def npu_index(cid: str) -> int:
    """The NPU (package) id on its node: ``npu-smi``'s NPU ID (``npu-smi info -t temp -i <n> -c <chip>``)."""
    return ids.index(cid, "npu")


def device_index(cid: str, dies_per_npu: int = ids.A3_DIES_PER_NPU) -> int:
    """The A3 logical device id (:func:`faultlib.ids.logical_device`) a device or program prints for ``cid``:
    CANN's plog ``Device:``/``device_id``, the device OS's ``device_id=``, ``dev-os-<n>``, ``hisi_logs/device-<n>``,
    the device plugin's ``LogicID``, ``hccn_tool -i <n>``. A die (``die<d>``) or its RoCE port (``roce<d>``) is its
    own device; a part of the whole NPU (the NPU, its HBM) is given its die 0's id: the twin runs an NPU's one rank
    on die 0 and keeps HBM per NPU (docs/formats.md, "A3 logical device ids")."""
    last = cid.split("~", 1)[0].rsplit("/", 1)[-1]
    d = 0
    for seg in ("die", "roce"):
        if last.startswith(seg) and last[len(seg):].isdigit():
            d = int(last[len(seg):])
    return ids.logical_device(npu_index(cid), d, dies_per_npu)


def npu_of_device(node: str, device: int, dies_per_npu: int = ids.A3_DIES_PER_NPU) -> str:
    """The NPU id on ``node`` whose die is logical device ``device`` (inverse of :func:`device_index` up to the
    die)."""
    return f"{node}/npu{ids.npu_die(device, dies_per_npu)[0]}"


def roce_devid(cid: str, dies_per_npu: int = ids.A3_DIES_PER_NPU) -> int:
    """``hccn_tool -i <n>`` number of a die's RoCE port (``roce<d>`` or ``die<d>`` of NPU k): its die's logical id."""
    return device_index(cid, dies_per_npu)


def switch_port(module_id: str) -> int:
    """Port number of an optical module on its switch chip (L1: the L2 chip index; L2: the node index)."""
    return ids.index(module_id, "osfp")


def port_name(port: int) -> str:
    """A UB switch port as the switch names it."""
    return f"UB0/0/{port}"


def pid_of(cid: str, base: int = 10000) -> int:
    """A stable process id for the process bound to ``cid`` (same component => same pid, every run)."""
    return base + zlib.crc32(cid.encode()) % 50000




# ---- time stamps -------------------------------------------------------------------------------------------


def _syslog_ts(dt: datetime) -> str:
    return f"{dt:%b} {dt.day:2d} {dt:%H:%M:%S}"


def _ctime(dt: datetime) -> str:
    return f"{dt:%a %b} {dt.day:2d} {dt:%H:%M:%S %Y}"


def _ms(dt: datetime) -> str:
    return f"{dt:%Y-%m-%d %H:%M:%S}.{dt.microsecond // 1000:03d}"


# ---- host OS ---------------------------------------------------------------------------------------------
def syslog(dt: datetime, host: str, text: str, proc: str = "kernel", pid: int | None = None,
           uptime_s: float | None = None) -> str:
    """A ``/var/log/messages`` line: ``Mar  1 10:03:20 pod0-node12 kernel: [  123.456789] text`` (no year)."""
    tag = f"{proc}[{pid}]" if pid is not None else proc
    up = f"[{uptime_s:12.6f}] " if uptime_s is not None else ""
    return f"{_syslog_ts(dt)} {host} {tag}: {up}{text}"


def dmesg_t(dt: datetime, text: str) -> str:
    """A ``dmesg -T`` line: ``[Sat Mar  1 10:03:20 2025] text``."""
    return f"[{_ctime(dt)}] {text}"


AER_SEVERITY = ("Corrected", "Uncorrected (Non-Fatal)", "Uncorrected (Fatal)")
AER_LAYER = ("Physical Layer", "Data Link Layer", "Transaction Layer")


def pcie_aer(bdf: str, severity: int, layer: int) -> str:
    """A PCIe AER report as the kernel prints it (drivers/pci/pcie/aer.c: ``%s: PCIe Bus Error: severity=%s,
    type=%s, (%s)``)."""
    return (f"pcieport {bdf}: PCIe Bus Error: severity={AER_SEVERITY[severity]}, type={AER_LAYER[layer]}, "
            f"(Receiver ID)")


def driver_heartbeat_lost(device: int, count: int, lost: int, worker: str = "kworker/5:1H", pid: int = 39365) -> str:
    """The Ascend driver reporting a device's lost heartbeat (0x40F84E00, RestartNPU): the layout of ascend-fd's
    fixture st_module_testcase/kg_parse/messages_0x40F84E00."""
    return (f"[ascend] [ERROR] [drv_soft_fault] [heart_beat_judge 318] <{worker}:{pid}> Heartbeat lost! "
            f"(device={device}; old_count={count}; new_count={count}; lost_count={lost}; total_lost_count={lost}; "
            f"total_10s_count=0; total_15s_count 0).")


def soft_lockup(cpu: int, seconds: int, comm: str, pid: int) -> str:
    """kernel/watchdog.c: ``watchdog: BUG: soft lockup - CPU#%d stuck for %us! [%s:%d]``."""
    return f"watchdog: BUG: soft lockup - CPU#{cpu} stuck for {seconds}s! [{comm}:{pid}]"


def hung_task(comm: str, pid: int, seconds: int = 120) -> str:
    """kernel/hung_task.c: ``INFO: task %s:%d blocked for more than %ld seconds.``."""
    return f"INFO: task {comm}:{pid} blocked for more than {seconds} seconds."


def nfs_not_responding(server: str) -> str:
    """fs/nfs: ``nfs: server %s not responding, still trying``."""
    return f"nfs: server {server} not responding, still trying"


# ---- CANN process log (plog) -----------------------------------------------------------------------------
def plog(dt: datetime, level: str, module: str, pid: int, tid: int, where: str, text: str,
         process: str = "python") -> str:
    """``[ERROR] HCCL(pid,python):YYYY-MM-DD-HH:MM:SS.mmm.uuu [file.cc:line][tid]text``."""
    return f"[{level}] {module}({pid},{process}):{_slog_ts(dt)} [{where}][{tid}]{text}"


def plog_hcom_init(dt: datetime, pid: int, tid: int, rank_num: int, rank: int, server_ip: str, device: int) -> str:
    """The HCCL init line that ties a process (and its plog) to its rank, server and device."""
    return plog(dt, "INFO", "HCCL", pid, tid, "hcom.cc:187",
                f"hcom init by file success, rankTablePath[/user/config/rank_table.json], rankNum[{rank_num}], "
                f"rank[{rank}], server[{server_ip}], device[{device}]")


def plog_runtime_error(dt: datetime, pid: int, tid: int, code: int, device: int) -> str:
    """A runtime error in the layout of the ascend-fd plog fixtures:
    ``[api_c.cc:NNNN]TID rtStreamSynchronize:ErrCode=<code>, desc=[...], InnerCode=0x...``, without the ``desc`` and
    ``InnerCode`` fields (the reference set shows their text for other codes only); the device id is the process's."""
    del device  # the plog file is per process; the device shows in its hcom init line, not here
    return plog(dt, "ERROR", "RUNTIME", pid, tid, "api_c.cc:3783", f"{tid}rtStreamSynchronize:ErrCode={code}")


def plog_notify_wait(dt: datetime, pid: int, tid: int, remote_ip: str, stream: int = 3, task: int = 50) -> str:
    """HCCL's task exception callback on a notify-wait timeout (``[TaskExceptionHandler]
    [Callback]Task run failed, base information is streamID ... taskID ... taskType[Notify Wait]``, as in the
    ascend-fd fixture st_module_testcase/rc_diag/rc_122 plogs), naming the
    remote whose record never came."""
    return plog(dt, "ERROR", "HCCL", pid, tid, "task_exception_handler.cc:812",
                f"[TaskExceptionHandler][Callback]Task run failed, base information is streamID:[{stream}], "
                f"taskID[{task}], taskType[Notify Wait], remote[{remote_ip}]")


def plog_cqe_error(dt: datetime, pid: int, tid: int, peer_ip: str) -> str:
    """HCCL's heartbeat reporting an RDMA completion error (retransmissions exceeded), as in the ascend-fd plog
    fixture st_cqe_testcase: ``[Heartbeat]cqe err status[12], time:[...], ip:[peer]``."""
    return plog(dt, "ERROR", "HCCL", pid, tid, "heartbeat.cc:551",
                f"[Heartbeat]cqe err status[12], time:[{dt:%Y-%m-%d %H:%M:%S}.{dt.microsecond:06d}], ip:[{peer_ip}]")


# ---- training console -------------------------------------------------------------------------------------
def train_line(dt: datetime, level: str, text: str, rank: int | None = None) -> str:
    """A training console line: ``[2025-03-01 10:03:20,123] [INFO] [rank12] text``."""
    who = f" [rank{rank}]" if rank is not None else ""
    return f"[{dt:%Y-%m-%d %H:%M:%S},{dt.microsecond // 1000:03d}] [{level}]{who} {text}"


def train_step(dt: datetime, step: int, total_steps: int, step_time_s: float, loss: float,
               tokens_per_s: float) -> str:
    """A Megatron-style iteration line (step time in ms, loss, throughput)."""
    return train_line(dt, "INFO", f"iteration {step:8d}/{total_steps:8d} | elapsed time per iteration (ms): "
                                  f"{step_time_s * 1e3:.1f} | lm loss: {loss:.6E} | throughput (tokens/s): "
                                  f"{tokens_per_s:.1f}")


def hccl_message(code: str, **fields: object) -> str:
    """``<code>: <documented template>`` with the fields filled (``[]`` for the ones not given)."""
    class _Blank(dict[str, object]):
        def __missing__(self, key: str) -> str:
            return ""
    return f"{code}: " + HCCL_CODES[code].format_map(_Blank(fields))


def train_hccl_error(dt: datetime, rank: int, code: str, **fields: object) -> str:
    """A collective failing in the framework: ``[rankR]: RuntimeError: EI0002: The wait execution ...``."""
    return train_line(dt, "ERROR", f"RuntimeError: {hccl_message(code, **fields)}", rank)


def train_runtime_error(dt: datetime, rank: int, code: int) -> str:
    """A device error surfacing in torch_npu: ``InnerRun ... NPU error, error code is 507053`` (torch_npu's
    check macro, Ascend/pytorch torch_npu/csrc/core/npu/NPUException.cpp, inside its InnerRun op launch)."""
    return train_line(dt, "ERROR", f"RuntimeError: InnerRun: NPU error, error code is {code}", rank)


ACL_ERROR_TEXT = {507010: "The task scheduler loses the heartbeat."}
"""The ACL error text torch_npu prints under an error code (``[Error]: ...``), for the codes whose text a public log
shows (507010: vllm-ascend issues in tests/data/real_logs corpus_b/d); other codes print none here."""
TORCH_NPU_MESSAGES = ("innerrun", "error_codes")


def npu_error_reason(dt: datetime, code: int, device: int, pid: int, variant: str = "innerrun",
                     rank: int = -1) -> str:
    """The exception text a rank dies with when the device returns ``code``, as the torch_npu release prints it
    (``telemetry.torch_npu_messages``): the InnerRun form, or the error-code form of the releases with error codes,
    whose message carries the PTA error line and the ACL error text on their own lines."""
    if variant == "innerrun":
        return f"RuntimeError: InnerRun: NPU error, error code is {code}"
    if variant != "error_codes":
        raise ValueError(f"unknown torch_npu message variant {variant!r}")
    lines = [f"RuntimeError: operator():build/CMakeFiles/torch_npu.dir/compiler_depend.ts:25 NPU function error: "
             f"c10_npu::acl::AclrtSynchronizeStreamWithTimeout(copy_stream), error code is {code}",
             f"[ERROR] {dt:%Y-%m-%d-%H:%M:%S} (PID:{pid}, Device:{device}, RankID:{rank}) ERR00100 PTA call acl api "
             "failed"]
    if code in ACL_ERROR_TEXT:
        lines.append(f"[Error]: {ACL_ERROR_TEXT[code]}")
    return "\n".join(lines)


MEGATRON_NAN_MESSAGES = ("assertion", "rerun_state_machine")


def nan_grad_error(rank: int, device: int, host: str, iteration: int, variant: str = "assertion") -> str:
    """Megatron-core's gradient check stopping a rank whose local grad norm is NaN, as the release prints it
    (``telemetry.megatron_nan_messages``): the assertion of ``check_for_nan_in_grad``, or the rerun state machine's
    fatal ``validate_result`` (``Rank R, node h, device d, iteration i: Unexpected result nan (message='...')``)."""
    if variant == "assertion":
        return (f"AssertionError: Rank {rank}: found NaN in local grad norm in backward pass before data-parallel "
                f"communication collective. Device: {device}, node: {host}")
    if variant != "rerun_state_machine":
        raise ValueError(f"unknown Megatron NaN message variant {variant!r}")
    return (f"RuntimeError: Rank {rank}, node {host}, device {device}, iteration {iteration}: Unexpected result nan "
            "(message='found NaN in local grad norm for bucket #0 in backward pass before data-parallel communication "
            "collective')")


# ---- UB switches --------------------------------------------------------------------------------------------
def _vrp_ts(dt: datetime) -> str:
    """A Huawei switch OS log stamp, ``Jul 31 2025 18:36:19`` (VRP ``info-center timestamp log date``: the default,
    to the second; the ascend-fd LCNE fixture prints the same with ``+08:00``, which the twin's naive clock omits)."""
    return f"{dt:%b} {dt.day} {dt:%Y %H:%M:%S}"


LINK_DOWN_ALARM = "0x08520003"
"""IF-MIB linkDown as a Huawei switch numbers it (alarm ID 0x08520003, trap IFNET_1.3.6.1.6.3.1.1.5.3 linkDown)."""


def switch_alarm(dt: datetime, host: str, alarm_id: str, peer_type: str, port: int, active: bool = True,
                 fault_id: str = "na") -> str:
    """A UB switch chip's alarm in its LCNE log, in the switch OS's layout (``%%01<MODULE>/<level>/<NAME>(l):CID=...-
    alarmID=...;<text>``). ``0x08520003`` is the interface's linkDown alarm (:func:`switch_port_state`);
    ``0x00f10509`` with fault id 132332/132333 the port's lanes reduced, ``%%01DEVM/1/hwPortFail_active(l):
    CID=0x80fc0101-alarmID=0x00f10509;The port failed partially. (EntPhysicalIndex=..., EntPhysicalName=...,
    EntityTrapFaultID=..., Reason=Port real lanes are less than quarter of the configured lanes.)`` (the ascend-fd
    fixture st_module_testcase/kg_parse/lcne_log). The fault tuple ``[0x08520003,na,L2,na]`` is the device plugin's
    (:func:`device_plugin_switch_fault`), not the switch's: ``peer_type`` is not printed here. No cause text: a real
    alarm looks the same whatever the cause."""
    a = alarm_id.lower()
    if a == LINK_DOWN_ALARM:
        return switch_port_state(dt, host, port, up=not active)
    if not active:
        raise ValueError(f"no sourced clear line for switch alarm {a}")
    part = "half" if fault_id == "132332" else "quarter"  # "half": by analogy with the fixture's quarter (unsourced)
    return (f"{_vrp_ts(dt)} {host} %%01DEVM/1/hwPortFail_active(l):CID=0x80fc0101-alarmID={a};The port failed "
            f"partially. (EntPhysicalIndex={16863232 + port}, EntPhysicalName={port_name(port)}, "
            f"EntityTrapFaultID={fault_id}, Reason=Port real lanes are less than {part} of the configured lanes.)")


def switch_port_state(dt: datetime, host: str, port: int, up: bool) -> str:
    """An interface's linkDown alarm raised or cleared, as a Huawei switch OS logs it:
    ``Nov 26 2024 14:05:54 SPINE1 %%01IFNET/2/linkDown_active(l):CID=0x807a0404-alarmID=0x08520003;The interface status
    changes. (ifName=GE1/0/1, AdminStatus=UP, OperStatus=DOWN, Reason=Interface physical link is down,
    mainIfname=GE1/0/1)``; the clear adds ``-clearType=service_resume`` and reads ``OperStatus=UP, Reason=Interface
    physical link is up`` (message: https://support.huawei.com/enterprise/en/doc/EDOC1100039602/c94f4042/
    ifnet-2-linkdown_active; alarm ID 0x08520003: the NE8000 alarm reference, IFNET_1.3.6.1.6.3.1.1.5.3 linkDown).
    The same text for every cause (a physical link down is one reason, whatever broke it)."""
    oper, event, clear = ("UP", "clear", "-clearType=service_resume") if up else ("DOWN", "active", "")
    name = port_name(port)
    return (f"{_vrp_ts(dt)} {host} %%01IFNET/2/linkDown_{event}(l):CID=0x807a0404-alarmID={LINK_DOWN_ALARM}{clear};"
            f"The interface status changes. (ifName={name}, AdminStatus=UP, OperStatus={oper}, "
            f"Reason=Interface physical link is {oper.lower()}, mainIfname={name})")


def switch_transceiver(dt: datetime, host: str, port: int, lane: int, rx_dbm: float, tx_dbm: float,
                       bias_ma: float, snr_db: float) -> str:
    """One lane of a port's transceiver diagnostics, as a switch reports it."""
    return (f"{_ms(dt)} {host} transceiver {port_name(port)} lane{lane}: rx_power={rx_dbm:.2f}dBm "
            f"tx_power={tx_dbm:.2f}dBm tx_bias={bias_ma:.2f}mA snr={snr_db:.2f}dB")


# ---- hccn_tool -----------------------------------------------------------------------------------------------
def hccn_link_record(dt: datetime, devid: int, up: bool) -> str:
    """One link change record of ``hccn_tool -i <devid> -link_stat -g``."""
    return f"[devid {devid}]    {_ctime(dt)}    LINK {'UP' if up else 'DOWN'}"


def hccn_link_stat(now: datetime, devid: int, changes: Sequence[tuple[datetime, bool]]) -> list[str]:
    """The whole ``-link_stat -g`` output: current time, up count, and the change records, newest first."""
    ups = sum(1 for _t, up in changes if up)
    out = [f"[devid {devid}]current time        : {_ctime(now)}",
           f"[devid {devid}]link up count       : {ups}",
           f"[devid {devid}]link change records :"]
    out += [hccn_link_record(t, devid, up) for t, up in sorted(changes, key=lambda c: c[0], reverse=True)]
    return out


def hccn_optical(devid: int, rx_dbm: Sequence[float], tx_dbm: Sequence[float], bias_ma: Sequence[float],
                 snr_db: Sequence[float] | None = None, temp_c: float | None = None) -> list[str]:
    """``-optical -g`` style lines; powers printed in mW as the tool does (``dBm = 10 log10(mW)``)."""
    out = [f"[devid {devid}]present             : present"]
    if temp_c is not None:
        out.append(f"[devid {devid}]Temperature         : {temp_c:.0f} C")
    for i, v in enumerate(tx_dbm):
        out.append(f"[devid {devid}]Tx Power{i}           : {10 ** (v / 10):.4f} mW")
    for i, v in enumerate(rx_dbm):
        out.append(f"[devid {devid}]Rx Power{i}           : {10 ** (v / 10):.4f} mW")
    for i, v in enumerate(bias_ma):
        out.append(f"[devid {devid}]Tx Bias{i}            : {v:.3f} mA")
    for i, v in enumerate(snr_db or []):
        out.append(f"[devid {devid}]SNR{i}                : {v:.2f} dB")
    return out
