"""Session 45 (swlog45): the twin's UB switch log lines in the switch OS's real layout.

A real LCNE switch log line (ascend-fd's fixture st_module_testcase/kg_parse/lcne_log, Ascend/mind-cluster
component/ascend-faultdiag/test): ``Jul 31 2025 18:36:19+08:00 Z3_22R_99_30 %%01DEVM/1/hwPortFail_active(l):CID=...``;
ascend-fd's LCNE parser (component/ascend-faultdiag/src/ascend_fd/pkg/parse/knowledge_graph/parser/lcne_parser.py,
TIME_FORMATS) reads only ``%b %d %Y %H:%M:%S[%z]`` stamps and gives any other line the time 9999-12-31. The twin's
lines must have the same head, and opsbrain must read them with the kinds it read before."""

from __future__ import annotations

import re
from datetime import datetime

from faultlib.telemetry import formats as fmt
from opsbrain.bundle.stamps import stamp
from opsbrain.ingest.parsers import parse_line

DT = datetime(2025, 3, 1, 0, 21, 32, 88000)
FIXTURE = ("Jul 31 2025 18:36:19+08:00 Z3_22R_99_30 %%01DEVM/1/hwPortFail_active(l):CID=0x80fc0101-alarmID=0x00f10509;"
           "The port failed partially. (EntPhysicalIndex=16863797, EntPhysicalName=400GHL1/1/2:1, "
           "EntityTrapFaultID=132338, Reason=Port real lanes are less than quarter of the configured lanes.)")
HEAD = re.compile(r"^[A-Z][a-z]{2} {1,2}\d{1,2} \d{4} \d\d:\d\d:\d\d(?:[+-]\d\d:\d\d)? \S+ %%01[A-Z]+/\d/\w+\(l\):"
                  r"CID=0x[0-9a-f]{8}-alarmID=0x[0-9a-f]{8}[;-]")
AFD_TIME = re.compile(r"\b[A-Z][a-z]{2}\s{0,3}\d{1,2}\s{0,3}\d{4}\s{0,3}\d{2}:\d{2}:\d{2}\b")  # lcne_parser format 2
L1, L2 = "pod0-node12-l1sw4", "pod0-l2plane4-sw07"
LINK = "pod0/node12/l1sw4~pod0/l2plane4/sw07"


def _lines() -> dict[str, str]:
    return {"l1 down": fmt.switch_alarm(DT, L1, "0x08520003", "L2", 7),
            "l1 up": fmt.switch_alarm(DT, L1, "0x08520003", "L2", 7, active=False),
            "l2 down": fmt.switch_port_state(DT, L2, 12, up=False),
            "lanes": fmt.switch_alarm(DT, L1, "0x00f10509", "L2", 7, fault_id="132333")}


def test_twin_switch_lines_have_the_real_head_and_ascend_fd_reads_their_time() -> None:
    assert HEAD.match(FIXTURE)
    for name, line in _lines().items():
        assert HEAD.match(line), (name, line)
        m = AFD_TIME.search(line)
        assert m and datetime.strptime(m.group(), "%b %d %Y %H:%M:%S") == DT.replace(microsecond=0), (name, line)
        assert stamp(line, "iso") == DT.replace(microsecond=0)  # to the second, as the format keeps it
    assert "[0x08520003" not in "".join(_lines().values())  # the fault tuple is the device plugin's, not the switch's
    assert _lines()["lanes"].endswith("Reason=Port real lanes are less than quarter of the configured lanes.)")


def test_opsbrain_reads_the_same_signals_as_from_the_former_layout() -> None:
    got = {name: [(s.kind, s.component, s.severity) for s in parse_line(line, twin=True)]
           for name, line in _lines().items()}
    assert got == {"l1 down": [("sw:down", LINK, 2)], "l1 up": [("sw:up", LINK, 0)],
                   "l2 down": [("port:down", "pod0/node12/l1sw4~pod0/l2plane4/sw07", 2)],
                   "lanes": [("sw:lanes", LINK, 1)]}
    real = fmt.switch_port_state(DT, "gz-l2p2-sw05", 36, up=False)
    assert [(s.kind, s.component) for s in parse_line(real)] == [("port:down", "gz-l2p2-sw05/UB0/0/36~peer")]
    lanes = FIXTURE.replace("400GHL1/1/2:1", "UB0/0/3")
    assert [(s.kind, s.component) for s in parse_line(lanes)] == [("sw:lanes", "Z3_22R_99_30/UB0/0/3~peer")]
