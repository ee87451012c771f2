"""Readings revised after session 45's tester45h (iBMC, SEL and host hardware alarms, unseen public text): the
kernel's CPER memory-error record of the host's DIMMs, and rasdaemon's ``ras-mc-ctl`` summaries. Every line is copied
from the source its comment names."""

from __future__ import annotations

from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line
from opsbrain.ingest.where import device_in

# kubernetes/node-problem-detector#846 (the corrected-error example of a CPER memory section, drivers/firmware/efi/
# cper.c cper_print_mem)
CPER_LOCATION = ("kernel: {37}[Hardware Error]:   node: 1 card: 4 module: 0 rank: 0 bank: 1 device: 14 row: 58165 "
                 "column: 816")
CPER_SINGLE = "kernel: {37}[Hardware Error]:   error_type: 2, single-bit ECC"
# NixOS/infra#523 (ras-mc-ctl --errors on a bare-metal host, util/ras-mc-ctl.in)
RAS_RECORD = ("1 2024-12-19 03:52:38 +0000 error: Corrected error, no action required., CPU 2, bank Unified Memory "
              "Controller (bank=17), mcg mcgstatus=0, mci CECC, memory_channel=0,csrow=1, mcgcap=0x0000011c, "
              "status=0x9c2040000000011b, addr=0x319deb440, misc=0xd01b0fff01000000, walltime=0x67639886, "
              "cpuid=0x00870f10, bank=0x00000011")


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


def test_a_cper_dram_location_names_no_npu() -> None:
    assert device_in(CPER_LOCATION) is None
    assert all(s.device is None for s in parse_line(CPER_LOCATION))
    # a device field elsewhere is still the NPU it names (CANN runtime's device_id, test_ingest.REAL)
    assert device_in("Failed to allocate memory, size:3221291008, device_id:0[FUNC:Alloc]") == 0


def test_a_cper_single_bit_record_is_the_hosts_memory_not_hbm() -> None:
    assert kinds(CPER_SINGLE) == ["os:hw_error"]
    # the multi-bit type and the device's single-bit texts keep their readings
    assert "ecc:uce" in kinds("[ 2454.830701] {6}[Hardware Error]  error_type: 3, multi-bit ECC")
    head = "[2572550.901383] [ascend] [ERROR] [devdrv] [devdrv_fault_report 438] <kworker/u16:186:9871,9871> "
    assert "ecc:ce" in kinds(head + "single bit ecc error, devid=5")


def test_rasdaemon_summaries_of_empty_tables_and_corrected_records_are_no_error() -> None:
    for line in ("No Memory errors.", "No PCIe AER errors.", "No Memory failure errors.", "No MCE errors.",
                 "No CXL AER uncorrectable errors.", RAS_RECORD):
        assert BENIGN.search(line), line
        assert kinds(line) == [], (line, kinds(line))
    # a record the hardware did not correct is no such line (rasdaemon mce-amd.c's other messages)
    assert not BENIGN.search(RAS_RECORD.replace("Corrected error, no action required.",
                                                "Uncorrected, software containable error."))
    assert "ecc:uce" in kinds("Memory failure: 0x1234: recovery action for dirty LRU page: Recovered")
