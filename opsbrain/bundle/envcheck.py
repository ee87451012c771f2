"""``environment_check/npu_info_*.txt``: hccn_tool link records and npu-smi output of a node, as a real collection
prints them (the bundle writer's environment check)."""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import datetime
from typing import TYPE_CHECKING

from faultlib import ids
from faultlib.telemetry import formats as fmt
from faultlib.telemetry.records import LogLine

if TYPE_CHECKING:
    from faultlib.engine import Simulation


def _num(v: float | None, digits: int = 1) -> str:
    return "NA" if v is None else f"{v:.{digits}f}"


HCCN_TOOL = "/usr/local/Ascend/driver/tools/hccn_tool"
NPU_SMI = "/usr/local/bin/npu-smi"
NPU_SMI_VERSION_ROW = "npu-smi 24.1.rc1                 Version: 24.1.rc1"
"""The first row of the ``npu-smi info`` table (as opsbrain.sources.commands renders the tool; MindCluster docs
faultdiag/user_guide/03_collecting_logs.md). ascend-fd takes an ``npu-smi info`` output without it for a failed
command and reports the NPU driver as missing (Comp_Network_Custom_06, npu_info_parser.NpuSmiInfoParser)."""
"""The commands as a real collection prints them in npu_info_*.txt: full path, output, a blank line; the file opens
with ``Datetime: <local time with microseconds>`` (ascend-fd's fixtures, st_testcase/.../environment_check/worker-0/
npu_info_after.txt and st_module_testcase/kg_parse/npu_info_before.txt)."""


def npu_info(sim: Simulation, node: str, t: float, records: list[tuple[float, int, bool]],
             device_lines: list[LogLine]) -> str:
    """``environment_check/npu_info_*.txt`` of ``node`` at time ``t``: for every RoCE port ``hccn_tool -link -g``
    and ``-link_stat -g`` (change records up to ``t``), then ``npu-smi info`` and per device the temperatures and
    the HBM ECC counters (values the twin does not track print as NA)."""
    now = sim.wallclock(t)
    npus = sim.topology.npus_of(node)
    dies = sim.topology.params.dies_per_npu
    by_dev: dict[int, list[tuple[datetime, bool]]] = defaultdict(list)
    for rt, devid, up in records:
        by_dev[devid].append((sim.wallclock(rt), up))
    out = [f"Datetime: {now:%Y-%m-%d %H:%M:%S.%f}", ""]
    for devid in range(len(npus) * dies):
        changes = by_dev.get(devid, [])
        state = "UP" if not changes or max(changes, key=lambda c: c[0])[1] else "DOWN"
        out += [f"{HCCN_TOOL} -i {devid} -link -g", f"link status: {state}", "",
                f"{HCCN_TOOL} -i {devid} -link_stat -g"]
        out += fmt.hccn_link_stat(now, devid, changes) + [""]
    health = _health(device_lines)
    read = sim.telemetry.metrics.read
    out += [NPU_SMI + " info", "+" + "-" * 96 + "+", f"| {NPU_SMI_VERSION_ROW:<94} |",
            "+" + "-" * 27 + "+" + "-" * 15 + "+" + "-" * 52 + "+",
            "| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page) |",
            "| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)         |",
            "+" + "=" * 27 + "+" + "=" * 15 + "+" + "=" * 52 + "+"]
    for npu in npus:
        k = fmt.npu_index(npu)  # npu-smi's NPU ID (its Chip rows and -c name the dies)
        temp = read("npu_temp_c", npu, t)
        out.append(f"| {k:<5} 910C                | {health.get(k, 'OK'):<13} | NA          "
                   f"{_num(temp, 0):<17} 0    / 0               |")
        out.append(f"| 0                         | 0000:{0x80 + k:02X}:00.0  | NA          NA                "
                   "NA                    |")
    for npu in npus:
        k = fmt.npu_index(npu)
        hbm = f"{npu}/hbm"
        out += ["", f"{NPU_SMI} info -t temp -i {k} -c 0", f"NPU ID                         : {k}",
                f"NPU Temperature (C)            : {_num(read('npu_temp_c', npu, t))}",
                f"HBM Temperature (C)            : {_num(read('hbm_temp_c', hbm, t))}",
                "", f"{NPU_SMI} info -t ecc -i {k} -c 0", f"NPU ID                         : {k}",
                f"HBM Single Bit Error Count     : {_num(read('hbm_ce_total', hbm, t), 0)}",
                f"HBM Double Bit Isolated Pages Count : {_num(read('hbm_isolated_rows', hbm, t), 0)}"]
    return "\n".join(out) + "\n"


def _health(device_lines: list[LogLine]) -> dict[int, str]:
    """npu-smi health per device while a device event is active: Critical for a code whose MindCluster level acts
    on the business or the chip, Alarm for a NotHandle / SubHealth code (the benign CE report excepted)."""
    active: dict[tuple[int, str], str] = {}
    # the device fault manager's line (faultlib.telemetry.formats.device_os_event): id, device, assertion 1 or 2 (a
    # one-time event: the chip shows it until a resume or its reset) / 0
    rx = re.compile(r"event_id=0x([0-9a-f]{8}); device_id=(\d+);.*? assertion=(\d)\[", re.I)
    for ln in device_lines:
        if m := rx.search(ln.text):
            key = (ids.npu_die(int(m.group(2)))[0], m.group(1))  # the logical device's NPU: npu-smi's row
            code = m.group(1).upper()
            level = fmt.DEVICE_CODES.get(code, ("NotHandle", ""))[0]
            sev = "" if code == fmt.HBM_CE_CODE else "major" if level in ("NotHandle", "SubHealth") else "critical"
            if m.group(3) != "0":
                active[key] = sev
            else:
                active.pop(key, None)
    out: dict[int, str] = {}
    for (dev, _code), sev in active.items():
        word = {"critical": "Critical", "major": "Alarm"}.get(sev)
        if word and out.get(dev) != "Critical":
            out[dev] = word
    return out
