"""``--logs`` reads the time stamp of a switch's LCNE log line, as the bundle reader does (session 45, the lead, from
bundle45b's finding): ``Jul 31 2025 18:36:19+08:00 Z3_22R_99_30 %%01DEVM/1/hwPortFail_active(l):...`` (the real line of
ascend-fd's fixture, Ascend/mind-cluster component/ascend-faultdiag/test/st_module_testcase/kg_parse/lcne_log; the
offset is dropped, naive as logged). Before, ``parse_stamp`` knew no such head and a switch's line took the time of the
line read before it."""

from __future__ import annotations

from datetime import datetime

from opsbrain.ingest import LineReader
from opsbrain.ingest.timestamps import parse_stamp

LINE = ("Jul 31 2025 18:36:19+08:00 Z3_22R_99_30 %%01DEVM/1/hwPortFail_active(l):CID=0x80fc0101-alarmID=0x00f10509;"
        "The port failed partially. (EntPhysicalIndex=16846851, EntPhysicalName=400GHL1/1/2:1, "
        "EntityTrapFaultID=132338, Reason=Port real lanes are less than quarter of the configured lanes.)")


def test_the_switch_log_stamp_is_read() -> None:
    assert parse_stamp(LINE) == (datetime(2025, 7, 31, 18, 36, 19).timestamp(), True)


def test_a_switch_line_keeps_its_own_time_after_an_earlier_line() -> None:
    r = LineReader()
    r.feed(["[ERROR] HCCL(1234,python):2025-07-31-18:30:00.000.000 [transport.cc:1] [1]socket timeout", LINE],
           "lcne_log/Z3_22R_99_30/log.log")
    times = sorted({s.t for s in r.signals})
    assert times and abs(times[-1] - 379.0) < 1e-6, [(s.kind, s.t) for s in r.signals]
