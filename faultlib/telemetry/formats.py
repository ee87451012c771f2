"""Renderers of log lines in the layouts real Ascend tooling writes (facts.md §3 and §7).

Every renderer is a pure function of the simulated wall-clock time (``sim.wallclock(t)``) and fields, and
returns the line text; callers publish it with ``sim.telemetry.log(origin, source, level, text)``. Per source,
the origin a caller should give (the component whose log bundle holds the line) and the layout:

- ``device_os`` (origin: the NPU): slog device-os,
  ``[ERROR] DRV(pid,proc):YYYY-MM-DD-HH:MM:SS.mmm.uuu [file.c:line][devN]text`` with ``event_id=0x<code>``;
- ``device_plugin`` (the node): MindCluster hwlog, ``[WARN ] YYYY/MM/DD HH:MM:SS.uuuuuu 1  file.go:line  text``
  naming ``Ascend910-<n>``, the fault code and the handling level;
- ``syslog`` (the node): ``Mon DD HH:MM:SS host kernel: text`` (no year); ``dmesg -T``: ``[Sat Mar  1 ...] text``;
- ``plog`` (the node): CANN ``[LEVEL] MODULE(pid,python):YYYY-MM-DD-HH:MM:SS.mmm.uuu [file.cc:line][tid]text``;
- ``train`` (the node): training console lines (rank prefix, iteration lines, RuntimeError lines);
- ``switch`` (the switch chip): UB switch alarms ``[0x08520003,na,L2,na]`` with the port, port state, DOM;
- ``hccn`` (the node): ``hccn_tool -link_stat -g`` / ``-optical -g`` output lines.

Device fault codes are 8 hex digits. Device logs print them in lower case (``event_id=0x80e01801``) as the
device OS does; the device plugin prints them in upper case without ``0x`` as its fault-code files do. An
operator tool should match codes case-insensitively. Nothing here says whether a line was caused by an
injected fault or by background noise: operators cannot know that either.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from datetime import datetime

from faultlib import ids

# ---- code tables (descriptions written for this project) ------------------------------------------------
DEVICE_CODES: dict[str, tuple[str, str]] = {
    "80E01805": ("minor", "hbm correctable ecc errors corrected, logging threshold reached"),
    "80E01801": ("critical", "hbm multi-bit ecc error, address isolation failed"),
    "80E18401": ("major", "hbm isolated rows reached warning level"),
    "80E18402": ("critical", "hbm isolated rows reached replacement level"),
    "80E00209": ("major", "hbm temperature over alarm level"),
    "80E0020B": ("critical", "hbm temperature fatal, device protection triggered"),
    "81078603": ("major", "network port link status changed up->down"),
    "81078605": ("minor", "network port partial lane failure"),
    "81B18603": ("major", "ub port link status changed up->down"),
    "81B18605": ("minor", "ub port partial lane failure"),
    "8C1F8608": ("major", "rdma completion queue error (cqe)"),
}
"""Device fault code -> (severity, short description) for the codes the simulator emits."""

HBM_CE_CODE = "80E01805"
"""Benign HBM correctable-error report. Assumed meaning: HBM node type (0x70) memory sensor, event state 5,
i.e. the IPMI memory-sensor offset "correctable ECC logging limit reached"; MindCluster's faultCode.json lists
it as NotHandle."""

RUNTIME_CODES: dict[int, str] = {
    507010: "device lost heartbeat",
    507015: "aicore exception",
    507018: "aicpu exception",
    507034: "vector core execution timeout",
    507048: "ffts+ task timeout",
    507053: "device memory uncorrectable ecc error (hbm uce)",
    507054: "device memory uncorrectable ecc error (hbm uce), multiple addresses",
}
"""CANN runtime return codes (facts.md §3) -> what the runtime says about them."""

HCCL_CODES: dict[str, str] = {
    "EI0002": "notify wait timeout: the notify register got no record from the remote rank",
    "EI0006": "get socket timeout: the socket to the remote rank was not set up in time",
    "EI0013": "roce error cqe: retransmissions exceeded, the peer is unreachable",
    "EI9999": "inner error",
    "EZ9999": "inner error",
    "EE9999": "inner error",
    "EL0004": "memory allocation failed",
}
"""HCCL / CANN error-message codes (facts.md §3) -> their message."""

HANDLING_LEVELS = ("NotHandle", "SubHealth", "RestartRequest", "RestartBusiness", "FreeRestartNPU",
                   "RestartNPU", "PreSeparateNPU", "SeparateNPU", "ManuallySeparateNPU")


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


def device_index(cid: str) -> int:
    """The device (logical NPU) id on its node: ``npu-smi``, ``dev-os-<n>``, ``Ascend910-<n>`` all use it."""
    return ids.index(cid, "npu")


def npu_of_device(node: str, device: int) -> str:
    """Inverse of :func:`device_index`: the NPU id of device ``device`` on ``node``."""
    return f"{node}/npu{device}"


def roce_devid(cid: str, dies_per_npu: int = 2) -> int:
    """``hccn_tool -i <n>`` number of a die's RoCE port (``roce<d>`` or ``die<d>`` of NPU k: ``k * dies + d``)."""
    last = cid.rsplit("/", 1)[-1]
    d = ids.index(cid, "roce") if last.startswith("roce") else ids.index(cid, "die")
    return device_index(cid) * dies_per_npu + d


def switch_port(module_id: str) -> int:
    """Port number of an optical module on its switch chip (L1: the L2 chip index; L2: the node index)."""
    return ids.index(module_id, "osfp")


def port_name(port: int) -> str:
    """A UB switch port as the switch names it."""
    return f"UB0/0/{port}"


def pid_of(cid: str, base: int = 10000) -> int:
    """A stable process id for the process bound to ``cid`` (same component => same pid, every run)."""
    return base + zlib.crc32(cid.encode()) % 50000


def norm_code(code: str | int) -> str:
    """``"0x80e01801"``, ``"80E01801"`` or an int -> ``"80E01801"``."""
    if isinstance(code, int):
        return f"{code:08X}"
    c = code.strip()
    c = c[2:] if c[:2].lower() == "0x" else c
    int(c, 16)  # raises on a non-hex code
    return c.upper().rjust(8, "0")


# ---- time stamps -------------------------------------------------------------------------------------------
def _slog_ts(dt: datetime) -> str:
    return f"{dt:%Y-%m-%d-%H:%M:%S}.{dt.microsecond // 1000:03d}.{dt.microsecond % 1000:03d}"


def _syslog_ts(dt: datetime) -> str:
    return f"{dt:%b} {dt.day:2d} {dt:%H:%M:%S}"


def _ctime(dt: datetime) -> str:
    return f"{dt:%a %b} {dt.day:2d} {dt:%H:%M:%S %Y}"


def _ms(dt: datetime) -> str:
    return f"{dt:%Y-%m-%d %H:%M:%S}.{dt.microsecond // 1000:03d}"


# ---- device OS (slog) -------------------------------------------------------------------------------------
def device_os(dt: datetime, device: int, level: str, text: str, pid: int = 1187, proc: str = "dmp_daemon",
              where: str = "dms_fault.c:688") -> str:
    """A device-os log line of device ``device``."""
    return f"[{level}] DRV({pid},{proc}):{_slog_ts(dt)} [{where}][dev{device}]{text}"


def device_os_event(dt: datetime, device: int, code: str | int, text: str | None = None, assertion: bool = True,
                    level: str | None = None) -> str:
    """A device fault event: ``event_id=0x<code>``, assertion (occur/recover), severity, description."""
    c = norm_code(code)
    sev, desc = DEVICE_CODES.get(c, ("major", "device fault event"))
    if level is None:
        level = "INFO" if not assertion else ("WARNING" if sev == "minor" else "ERROR")
    state = "occur" if assertion else "recover"
    return device_os(dt, device, level, f"fault event: event_id=0x{c.lower()}, assertion={state}, "
                                        f"severity={sev}, dev_id={device}, {text or desc}")


# ---- device plugin / node agent (MindCluster hwlog) -------------------------------------------------------
def device_plugin(dt: datetime, level: str, text: str, where: str = "device/devicefault.go:312",
                  goroutine: int = 1) -> str:
    """A device-plugin or node-agent log line (hwlog layout)."""
    return f"[{level.upper():<5}] {dt:%Y/%m/%d %H:%M:%S}.{dt.microsecond:06d} {goroutine:<7d} {where}    {text}"


def device_plugin_fault(dt: datetime, device: int, code: str | int, handling: str, recovered: bool = False) -> str:
    """The device plugin reporting a device fault code and its handling level for ``Ascend910-<device>``."""
    if handling not in HANDLING_LEVELS:
        raise ValueError(f"unknown handling level {handling!r}")
    what = "recovered" if recovered else "occurred"
    return device_plugin(dt, "INFO" if recovered else "WARN",
                         f"device Ascend910-{device} fault {what}, fault code [{norm_code(code)}], "
                         f"fault level {handling}")


def device_plugin_switch_fault(dt: datetime, alarm_id: str, peer_type: str, port: int, handling: str,
                               recovered: bool = False, fault_id: str = "") -> str:
    """The device plugin reporting a UB switch fault code ``[alarmId,faultId,peerType,na]`` on a port; an alarm
    without a fault id leaves the field empty, as the vendor's own patterns spell it (kg-config.json
    Comp_Switch_L1_18..20: ``[0x08520003,,L2,na]``)."""
    if handling not in HANDLING_LEVELS:
        raise ValueError(f"unknown handling level {handling!r}")
    what = "recovered" if recovered else "occurred"
    return device_plugin(dt, "INFO" if recovered else "WARN",
                         f"switch fault {what}, fault code [{alarm_id.lower()},{fault_id},{peer_type},na], "
                         f"port {port_name(port)}, fault level {handling}", where="device/switchfault.go:187")


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


def plog_runtime_error(dt: datetime, pid: int, tid: int, code: int, device: int, detail: str = "") -> str:
    """A runtime (RUNTIME module) error carrying a return code such as 507053."""
    desc = RUNTIME_CODES.get(code, "runtime error")
    tail = f", {detail}" if detail else ""
    return plog(dt, "ERROR", "RUNTIME", pid, tid, "stream.cc:1044",
                f"Stream synchronize failed, device_id={device}, retCode={code:#x}, ErrCode={code}, "
                f"desc=[{desc}]{tail}")


def plog_hccl_error(dt: datetime, pid: int, tid: int, code: str, detail: str = "", device: int | None = None,
                    remote: str | None = None) -> str:
    """An HCCL error (EI0002 notify wait timeout, EI0006 socket timeout, EI0013 RoCE CQE, EI9999 ...)."""
    msg = HCCL_CODES.get(code, "error")
    parts = [f"ErrorCode[{code}] {msg}"]
    if remote:
        parts.append(f"remote[{remote}]")
    if device is not None:
        parts.append(f"device[{device}]")
    if detail:
        parts.append(detail)
    return plog(dt, "ERROR", "HCCL", pid, tid, "task_exception_handler.cc:812", ", ".join(parts))


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


def train_hccl_error(dt: datetime, rank: int, op: str, code: str, detail: str = "") -> str:
    """A collective failing in the framework: ``RuntimeError: <op> ... [ERROR] HCCL error in ... EI0002: ...``."""
    tail = f" {detail}" if detail else ""
    return train_line(dt, "ERROR", f"RuntimeError: {op}: torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:1834 "
                                   f"[ERROR] HCCL error in: {op}, {code}: {HCCL_CODES.get(code, 'error')}.{tail}",
                      rank)


def train_runtime_error(dt: datetime, rank: int, code: int, detail: str = "") -> str:
    """A device error surfacing in the framework: ``NPU error, error code is 507053``."""
    tail = f" {detail}" if detail else ""
    return train_line(dt, "ERROR", f"RuntimeError: InnerRun: NPU error, error code is {code} "
                                   f"[{RUNTIME_CODES.get(code, 'runtime error')}].{tail}", rank)


# ---- UB switches --------------------------------------------------------------------------------------------
def switch_alarm(dt: datetime, host: str, alarm_id: str, peer_type: str, port: int, active: bool = True,
                 text: str = "", fault_id: str = "na") -> str:
    """A UB switch alarm: ``WARN [0x08520003,na,L2,na] Assertion alarmID=0x08520003 port=UB0/0/7 ...``.

    ``peer_type`` is the far side of the port (``L2`` for an L1 uplink, ``L1`` for an L2 downlink, ``npu``,
    ``cpu``); ``active=False`` renders the recovery of the same alarm.
    """
    a = alarm_id.lower()
    level, state = ("WARN", "Assertion") if active else ("INFO", "Recovery")
    tail = f" {text}" if text else ""
    return (f"{_ms(dt)} {host} UBSW/{'4' if active else '6'}/ALARM: {level} [{a},{fault_id},{peer_type},na] {state} "
            f"alarmID={a} port={port_name(port)}{tail}")


def switch_port_state(dt: datetime, host: str, port: int, up: bool, reason: str = "") -> str:
    """An interface state change in switch-OS style (``linkDown_active`` / ``linkDown_clear``)."""
    event = "linkDown_clear" if up else "linkDown_active"
    oper = "UP" if up else "DOWN"
    why = f", Reason={reason}" if reason else ""
    return (f"{_ms(dt)} {host} %%01IFNET/{'4' if up else '2'}/{event}(l): The interface status changes. "
            f"(ifName={port_name(port)}, AdminStatus=UP, OperStatus={oper}{why})")


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
