"""A ``Field Name: value`` line whose error word is only in the field's name is a readout field, not a failing line
(session 45, readcap45).

dmidecode prints each attribute of an SMBIOS structure as a tab, the attribute's name, ``: `` and its value
(mirror/dmidecode @b70f6ee0 dmioutput.c ``pr_attr``; man/dmidecode.8: "a list of records", each a handle line, the
type's name and its attributes), and several names hold an error word: ``Error Correction Type`` (the ECC kind of a
cache or memory array), ``Error Information Handle`` (``Not Provided`` for 0xFFFE, ``No Error`` for 0xFFFF, else the
handle of an error record: dmidecode.c ``dmi_memory_array_error_handle``); type 32's ``Status`` reads ``No errors
detected`` on a clean boot (``dmi_system_boot_status``). The text fallback counted each such line as a program failing,
and a blind healthy excerpt (a ``dmidecode`` listing) read a fault class at 0.42. The listing below is the start of a
real one, a Huawei TaiShan 200 (Model 2280) server, as linuxhw/DMI keeps it:
https://github.com/linuxhw/DMI/blob/6e9143d8e345d1b57cbc63d74a849fe5ee0b836e/Server/Huawei/TaiShan/TaiShan%20200/50ED10C1AEE2
(its chassis, boot status, memory array, first memory device and one cache record, verbatim); before this change it
read config_error 0.37 from the text model.

A field whose value states a failure still counts: npu-smi ``-t health``'s ``Error Code : 80E01801`` (docs/formats.md,
the device and port outputs row), dmidecode's boot status ``Firmware-detected hardware failure`` (same function),
smartctl's ``SMART overall-health self-assessment test result: FAILED!`` (smartmontools ataprint, its health
verdict), a Python exception (``RuntimeError: Tensors must be contiguous``, tests/test_ingest_framework_messages.py)
and a component's stated error (``CANN error: EE9999: Inner Error!``, tests/test_ingest.py)."""

from __future__ import annotations

import io
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from tests.textviews import view_of

TAISHAN = """Handle 0x0002, DMI type 3, 25 bytes
Chassis Information
\tManufacturer: Huawei
\tType: Main Server Chassis
\tLock: Not Present
\tVersion: To be filled by O.E.M.
\tSerial Number: --
\tAsset Tag: --
\tBoot-up State: Safe
\tPower Supply State: Safe
\tThermal State: Safe
\tSecurity Status: None
\tOEM Information: 0x00000000
\tHeight: 2 U
\tNumber Of Power Cords: 1
\tContained Elements: 0
\tSKU Number: Not Specified

Handle 0x0005, DMI type 32, 11 bytes
System Boot Information
\tStatus: No errors detected

Handle 0x0006, DMI type 16, 23 bytes
Physical Memory Array
\tLocation: System Board Or Motherboard
\tUse: System Memory
\tError Correction Type: Multi-bit ECC
\tMaximum Capacity: 8 TB
\tError Information Handle: Not Provided
\tNumber Of Devices: 32

Handle 0x0029, DMI type 7, 27 bytes
Cache Information
\tSocket Designation: L2 Cache
\tConfiguration: Enabled, Not Socketed, Level 2
\tOperational Mode: Varies With Memory Address
\tLocation: Internal
\tInstalled Size: 24576 kB
\tMaximum Size: 24576 kB
\tSupported SRAM Types:
\t\tSynchronous
\tInstalled SRAM Type: Synchronous
\tSpeed: Unknown
\tError Correction Type: Single-bit ECC
\tSystem Type: Unified
\tAssociativity: 8-way Set-associative
"""



def test_a_dmidecode_listing_is_no_failure(engine: Any) -> None:
    assert view_of(TAISHAN).failing == 0
    d = diagnose_logs("-", engine, stdin=io.BytesIO(TAISHAN.encode()))["diagnosis"]
    assert d["fault_class"] == "unknown", (d["fault_class"], d["confidence"], d.get("evidence_lines"))


@pytest.mark.parametrize("line", ["\tError Information Handle: Not Provided", "\tError Information Handle: No Error",
                                  "\tStatus: No errors detected"])
def test_a_field_named_for_errors_that_reads_none_is_no_failing_line(line: str) -> None:
    assert view_of(line).failing == 0


@pytest.mark.parametrize("line", [
    "        Error Code                     : 80E01801",
    "\tStatus: Firmware-detected hardware failure",
    "SMART overall-health self-assessment test result: FAILED!",
    "RuntimeError: Tensors must be contiguous",
    "CANN error: EE9999: Inner Error!",
])
def test_a_field_whose_value_states_a_failure_still_counts(line: str) -> None:
    assert view_of(line).failing == 1


def test_the_field_rule_reads_names_and_values() -> None:
    from opsbrain.diagnosis.realtext import ERROR_WORDS
    from opsbrain.ingest.readouts import quiet_field

    def quiet(line: str) -> bool:
        return quiet_field(line, ERROR_WORDS.search)

    assert quiet("\tError Correction Type: Single-bit ECC")
    assert quiet("rx_crc_errors: 0")  # a counter named for errors that counts none
    assert not quiet("rx_crc_errors: 12")  # ... and one that counts some
    assert not quiet("Error Status: Critical")  # the value is a failed state
    assert not quiet("Error Information Handle: 0x0045")  # an error record's handle: there is one to read
    assert not quiet("Socket error: connection reset by peer")  # "<what> error: <detail>" states an error
    assert not quiet("Failed to load model: /models/qwen")  # a sentence, not a field's name
    assert not quiet("ValueError: bad shape")  # an exception's name


@pytest.mark.parametrize("line", ["Error reason: out of disk space", "Failure cause: the peer closed the connection",
                                  "Error message: device busy", "  Error Detail : link training failed",
                                  "error_msg: Unable to allocate"])
def test_a_field_that_describes_an_error_still_counts(line: str) -> None:
    """A name whose error noun is followed by what describes it (reason, cause, message, detail ...) says an error
    happened and its value is that error (review45's suspicion, the lead: before, ``Error reason: out of disk space``
    was a quiet field, the error word only in the name); such a field is quiet only where its value reads none."""
    from opsbrain.diagnosis.realtext import ERROR_WORDS
    from opsbrain.ingest.readouts import quiet_field

    assert not quiet_field(line, ERROR_WORDS.search)
    name = line.split(":", 1)[0]
    assert quiet_field(f"{name}: None", ERROR_WORDS.search)
