"""Session 52, tester52c (BMC SEL and host kernel logs of Atlas / Kunpeng servers).

A BMC's System Event Log records the operating system's own crash: the IPMI "OS Stop / Shutdown" sensor (type 20h),
event offset 01h "Run-time Critical Stop (a.k.a. 'core dump', 'blue screen')" (IPMI v2.0 Table 42-3). Linux writes it
from its panic path when the IPMI panic event is enabled (drivers/char/ipmi/ipmi_msghandler.c ``send_panic_events``:
sensor type 0x20, offset 0x01) and other firmware write it on a crash stop. ipmitool prints the offset as
``Run-time critical stop`` (include/ipmitool/ipmi_sel.h, ``sensor_specific_event_types``:
``{ 0x20, 0x01, 0xff, "Run-time critical stop" }``) in the event column of ``sel list`` / ``sel elist``, the sensor's
name before it (``OS Critical Stop #0x46`` in newer ipmitool, ``OS Stop/Shutdown`` in older), the direction after it.
An asserted run-time critical stop is the host's OS having stopped: read as ``os:panic``, as the kernel's own panic
line is. The other offsets of the sensor (graceful stop, graceful shutdown, PEF soft shutdown, agent not responding)
and a deasserted record are not read.
"""

from __future__ import annotations

import io
import time
from typing import Any

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.parsers import parse_line

# philip-bee-h/vault_backup@85063815 vault_backup/000_workbench/02-dead-nodes.md (argon-itf-bx41-06, ipmitool sel elist)
SEL_STOP = "  55 | 03/11/2025 | 16:34:51 | OS Critical Stop #0x46 | Run-time critical stop | Asserted"
SEL_STOP_2 = "  5c | 03/18/2025 | 02:25:13 | OS Critical Stop #0x4f | Run-time critical stop | Asserted"
# LKML (Wang Yugui, 2021-04-08, a Dell iDRAC's SEL of a host that froze), as quoted in the mail
SEL_STOP_DELL = ("> > >    2 | 04/03/2021 | 11:35:01 | OS Critical Stop #0x46 | Run-time critical stop () | "
                 "Asserted")
SEL_EXCERPT = "\n".join([
    "Running on: argon-itf-bx41-06",
    "  53 | 12/19/2024 | 07:06:21 | OS Boot #0x22 | boot completed - device not specified | Asserted",
    "  54 | 03/11/2025 | 16:34:51 | Memory #0x08 | Uncorrectable ECC | Asserted",
    SEL_STOP,
    "  56 | 03/11/2025 | 16:35:27 | System Event | OEM System boot event | Asserted",
    "  57 | 03/11/2025 | 16:37:07 | System Event | Timestamp Clock Sync | Asserted",
    "  5b | 03/11/2025 | 16:38:47 | OS Boot #0x22 | boot completed - device not specified | Asserted",
    SEL_STOP_2,
]) + "\n"


def _kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


def test_an_asserted_run_time_critical_stop_is_the_os_crash() -> None:
    for line in (SEL_STOP, SEL_STOP_2, SEL_STOP_DELL):
        assert "os:panic" in _kinds(line), (line, _kinds(line))


def test_other_os_stop_and_boot_records_are_not_a_crash() -> None:
    # the same SEL's boot records (real), and near-miss forms of the stop record: its deassertion and the sensor's
    # orderly offsets (ipmitool's own strings, 0x20 offsets 02h and 03h)
    for line in ("  53 | 12/19/2024 | 07:06:21 | OS Boot #0x22 | boot completed - device not specified | Asserted",
                 "  56 | 03/11/2025 | 16:35:27 | System Event | OEM System boot event | Asserted",
                 "  55 | 03/11/2025 | 16:34:51 | OS Critical Stop #0x46 | Run-time critical stop | Deasserted",
                 "  60 | 03/11/2025 | 17:00:00 | OS Critical Stop #0x46 | OS graceful shutdown | Asserted",
                 "  61 | 03/11/2025 | 17:00:01 | OS Critical Stop #0x46 | OS graceful stop | Asserted",
                 "the SEL shows a Run-time critical stop | see the BMC"):
        assert "os:panic" not in _kinds(line), (line, _kinds(line))


def test_the_stop_regex_is_linear_on_a_hostile_line() -> None:
    hostile = "| Run-time critical stop " + "(" * 65536
    t0 = time.perf_counter()
    assert "os:panic" not in _kinds(hostile)
    assert time.perf_counter() - t0 < 2.0


def test_the_sel_of_a_crashed_host_reads_node_crash(engine: Any) -> None:
    d = diagnose_logs("-", engine, stdin=io.BytesIO(SEL_EXCERPT.encode()))["diagnosis"]
    assert d["fault_class"] == "node_crash", (d["fault_class"], d["confidence"], d.get("evidence_lines"))
