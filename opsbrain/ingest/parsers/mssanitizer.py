"""msSanitizer's exception reports on an Ascend C (or Triton-Ascend) kernel (session 52, tester52a); read by
:mod:`.framework`'s ``TEXTS`` table, kept here to keep that module under ~500 lines."""

from __future__ import annotations

from opsbrain.ingest.screen import screened

RE_MSSANITIZER_REPORT = screened(
    r"^\s*={6} (?:ERROR: (?:illeg[ae]l (?:read|write) of size \d|misaligned access of size \d|"
    r"uninitialized read of size \d|illegal free\(\)|LeakCheck: detected memory leaks|"
    r"Potential (?:RAW|WAR|WAW) hazard detected at )|WARNING: out of bounds of size \d)")
"""The head line of an exception msSanitizer (MindStudio Sanitizer, CANN's single-operator checker: ``mssanitizer
--tool=memcheck|racecheck|initcheck ./app``) found in the kernel it ran: each report opens with ``====== ERROR:`` /
``====== WARNING:`` and the kind, then ``======    at <addr> on GM|UB ... in <kernel>``, the block and device, the pc
and the call stack (Ascend/mssanitizer, mirror xiaobingling93-pixel/Ascend-mssanitizer @4a419f05:
csrc/address_sanitizer/mem_error_def.h ``PrintIllegalAddrRead`` / ``...Write`` / misaligned access / ``illegal free()``
/ ``PrintUninitializedRead`` and the multi-core ``WARNING: out of bounds of size`` (one core's GM writes into memory
another core owns), address_sanitizer.cpp ``LeakCheck: detected memory leaks``, race_sanitizer/race_info_display.h
``Potential <RAW|WAR|WAW> hazard detected at <mem>``; CANN 8.0.RC1 printed ``illegel read of size``,
atlasopdev_16_0075).
The checker reports the kernel's (or its host program's) own access, so a report is a program error in that kernel,
as an AI Core error text that names an address out of range or a misaligned access is (``rt:aicore_sw``): every
documented case is a code fix (a DataCopy length doubled, a UB address off the 32-byte alignment, an aclrtFree
dropped, a SetFlag/WaitFlag pair removed). Not the tool's notices (``[mssanitizer] logging to file:``, ``Start
memcheck sanitizer on kernel``, ``Sanitizer finished on kernel ... No error detected.``), not its ``WARNING: Unused
memory of N byte(s)`` (memory allocated and never touched: waste, the kernel ran) nor its own ``internal errors``;
only inside the tool's ``======`` frame."""
