"""``environment_check/npu_info_*.txt``: hccn_tool link records and npu-smi output of a node, as a real collection
prints them (the bundle writer's environment check)."""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import datetime
from typing import TYPE_CHECKING

from faultlib import ids
from faultlib.telemetry import formats as fmt
from faultlib.telemetry import npusmi as smi
from faultlib.telemetry.records import LogLine

if TYPE_CHECKING:
    from faultlib.engine import Simulation


def _num(v: float | None, digits: int = 1) -> str:
    return "NA" if v is None else f"{v:.{digits}f}"


HCCN_TOOL = "/usr/local/Ascend/driver/tools/hccn_tool"
NPU_SMI = smi.NPU_SMI
NPU_SMI_VERSION_ROW = smi.VERSION_ROW
"""The commands as a real collection prints them in npu_info_*.txt: full path, output, a blank line; the file opens
with ``Datetime: <local time with microseconds>`` and the *before* file's first command is ``npu-smi info -m``, which
ascend-fd reads its (NPU ID, Chip ID) -> logic id map from (ascend-fd's fixtures, st_testcase/.../environment_check/
worker-0/npu_info_after.txt and st_module_testcase/kg_parse/npu_info_before.txt; npu_info_parser.NpuInfoParser)."""


def npu_info(sim: Simulation, node: str, t: float, records: list[tuple[float, int, bool]],
             device_lines: list[LogLine], mapping: bool = False) -> str:
    """``environment_check/npu_info_*.txt`` of ``node`` at time ``t``: ``npu-smi info -m`` first where ``mapping``
    (the *before* file), for every RoCE port ``hccn_tool -link -g`` and ``-link_stat -g`` (change records up to
    ``t``), then ``npu-smi info`` (a row pair per die, :mod:`faultlib.telemetry.npusmi`) and per NPU the temperatures
    and the HBM ECC counters (values the twin does not track print as NA)."""
    now = sim.wallclock(t)
    npus = sim.topology.npus_of(node)
    dies = sim.topology.params.dies_per_npu
    by_dev: dict[int, list[tuple[datetime, bool]]] = defaultdict(list)
    for rt, devid, up in records:
        by_dev[devid].append((sim.wallclock(rt), up))
    out = [f"Datetime: {now:%Y-%m-%d %H:%M:%S.%f}", ""]
    if mapping:
        out += [NPU_SMI + " info -m", *smi.mapping_table([fmt.npu_index(n) for n in npus], dies), ""]
    for devid in range(len(npus) * dies):
        changes = by_dev.get(devid, [])
        state = "UP" if not changes or max(changes, key=lambda c: c[0])[1] else "DOWN"
        out += [f"{HCCN_TOOL} -i {devid} -link -g", f"link status: {state}", "",
                f"{HCCN_TOOL} -i {devid} -link_stat -g"]
        out += fmt.hccn_link_stat(now, devid, changes) + [""]
    health = _health(device_lines)
    read = sim.telemetry.metrics.read
    rows = []
    for npu in npus:
        k = fmt.npu_index(npu)  # npu-smi's NPU ID (its Chip rows and -c name the dies)
        temp = _num(read("npu_temp_c", npu, t), 0)  # one temperature an NPU in the twin: both dies' rows show it
        rows += [smi.DieRow(k, d, health.get((k, d), "OK"), temp=temp, bus=smi.bus_id(ids.logical_device(k, d, dies)))
                 for d in range(dies)]
    out += [NPU_SMI + " info", *smi.status_table(rows, dies)]
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


def _health(device_lines: list[LogLine]) -> dict[tuple[int, int], str]:
    """npu-smi health per (NPU ID, die) while a device event of the die is active: Critical for a code whose
    MindCluster level acts on the business or the chip, Alarm for a NotHandle / SubHealth code (the benign CE report
    excepted). The event's ``device_id`` is the die's logical id; the status table lists a row per die (session 38;
    before, one row an NPU showed either die's)."""
    active: dict[tuple[tuple[int, int], str], str] = {}
    # the device fault manager's line (faultlib.telemetry.formats.device_os_event): id, device, assertion 1 or 2 (a
    # one-time event: the chip shows it until a resume or its reset) / 0
    rx = re.compile(r"event_id=0x([0-9a-f]{8}); device_id=(\d+);.*? assertion=(\d)\[", re.I)
    for ln in device_lines:
        if m := rx.search(ln.text):
            key = (ids.npu_die(int(m.group(2))), m.group(1))  # the logical device's (NPU, die): npu-smi's row
            code = m.group(1).upper()
            level = fmt.DEVICE_CODES.get(code, ("NotHandle", ""))[0]
            sev = "" if code == fmt.HBM_CE_CODE else "major" if level in ("NotHandle", "SubHealth") else "critical"
            if m.group(3) != "0":
                active[key] = sev
            else:
                active.pop(key, None)
    out: dict[tuple[int, int], str] = {}
    for (dev, _code), sev in active.items():
        word = {"critical": "Critical", "major": "Alarm"}.get(sev)
        if word and out.get(dev) != "Critical":
            out[dev] = word
    return out
