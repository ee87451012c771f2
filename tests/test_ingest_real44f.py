"""Readings revised after session 44's tester44f (hardware faults, unseen public text): the SMBIOS inventory's
error-correction field, which names the memory's ECC capability and no error. Every line is copied from the
source its comment names."""

from __future__ import annotations

from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


def test_the_smbios_error_correction_type_is_a_capability_not_an_ecc_error() -> None:
    # dmidecode -t 7 / -t 16 of a Dell rack server (github.com/wangyong86/private tool/membw.rst @2ce58b53) and
    # of a server in a blog post (dmidecode -t 16): SMBIOS (DMTF DSP0134) type 7 "Error Correction Type" and type
    # 16 "Memory Error Correction" fields, printed by dmidecode as "Error Correction Type: <kind>"
    for line in ("\tError Correction Type: Single-bit ECC", "\tError Correction Type: Multi-bit ECC",
                 "        Error Correction Type: Parity"):
        assert BENIGN.search(line)
        assert not any(k.startswith("ecc:") for k in kinds(line)), line
    # a kernel line that reports an ECC error still reads as one
    assert "ecc:ce" in kinds("EDAC MC0: 1 CE memory read error on CPU_SrcID#0_Ha#0_Chan#0_DIMM#0")
    assert "ecc:uce" in kinds("[ 2454.830701] {6}[Hardware Error]  error_type: 3, multi-bit ECC")
