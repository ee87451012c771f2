"""The live stream's line memo keeps apart lines whose plog head names their device (review 37): the head's numbers
are process and thread ids and a source line, but a bracketed ``[dev3]`` after them is the device the line is about
(an A3 NPU's log holds both of its dies' lines, logical ids 2 and 3)."""

from __future__ import annotations

import pytest

from opsbrain.ingest.linememo import LineMemo, shape
from opsbrain.ingest.parsers import parse_line

DRV = ("[ERROR] DRV(1187,dmp_daemon):2025-03-01-00:10:00.000.000 [dms_fault.c:688][dev2]Event id=0x80e01801, "
       "assertion=occur")


@pytest.mark.parametrize("origin", ["pod0/node3/npu1", None])
def test_a_head_that_names_another_device_is_another_key(origin: str | None) -> None:
    memo = LineMemo()
    memo.parse(DRV, 1.0, origin, "slog", "ERROR")
    other = DRV.replace("[dev2]", "[dev3]").replace("00:10:00", "00:11:00")
    assert memo.parse(other, 2.0, origin, "slog", "ERROR") == parse_line(other, 2.0, origin, "slog", "ERROR")


def test_process_ids_and_stamps_still_share_a_key() -> None:
    other = DRV.replace("1187", "2290").replace("00:10:00", "01:00:00")
    assert shape(other) == shape(DRV)
    plain = "[ERROR] HCCL(40101,python):2025-03-01-10:33:21.000.000 [hcom.cc:187][40102]EI0002: times out"
    assert shape(plain.replace("40101", "5").replace("40102", "6")) == shape(plain)


@pytest.mark.parametrize("field", ["[dev3]", "[devid 3]", "[device 3]", "[dev_id: 3]", "[devId=3]", "[die 1]",
                                   "[chip_id=1]"])
def test_each_way_a_head_names_a_device_is_kept(field: str) -> None:
    line = DRV.replace("[dev2]", field)
    assert shape(line) != shape(line.replace("3", "5").replace("1]", "0]"))
    assert shape(line) == shape(line.replace("1187", "42"))
