"""An AI Core / AI Vector core event whose state the driver names "bus error, probably caused by software" is the
AI Core exception's category, not an AI Core hardware fault (session 50, tester50h;
:data:`opsbrain.ingest.parsers.device.SOFTWARE_BUS_ERROR`).

The lines are the device fault manager's event log of an asys bundle in hicann/oam-tools@ea0ce91e
(test/st/msaicerr/res/ori_data/no_cce/asys_aicerror/asys_output_20250508095626087/dfx/log/device/dev-os-0/system/run/
event/event_20250507195454617.log): a 910B host running operator test programs. Before, the AIV events read
aicore_hang 0.80 (the event id's category, aicore_hardware). The id's layout and the state's text are the driver's
(hicann/driver@ef377e95 dms_event_converge.h:29-31, dms_sensor_type.c:395)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.parsers.device import SOFTWARE_BUS_ERROR, software_bus_error
from opsbrain.ingest.text import ingest_text

HEAD = "[EVENT] DRV(3423,dms_poll_task):"
OCCUR = (HEAD + "2025-05-08-04:23:58.786.543 [dms_event.c:1399][fault_manager][30561.377842] event_id=0x80cb8009; "
         "device_id=0; node_type=0x65[AIV]; node_id=18; sub_node_id=0; event_type=0x9[bus error, probably caused by "
         "software]; severity=1[Warning]; assertion=1[Event occur]; description=[AIV 0x1706]; os_id=0; "
         "event_serial_num=66763; notify_serial_num=0; event_raised_time=1746678237786 ms.")
RESUME = (HEAD + "2025-05-08-04:23:58.877.740 [dms_event.c:1399][fault_manager][30561.469039] event_id=0x80cb8009; "
          "device_id=0; node_type=0x65[AIV]; node_id=18; sub_node_id=0; event_type=0x9[bus error, probably caused by "
          "software]; severity=1[Warning]; assertion=0[Event resume]; description=[AIV 0x1706]; os_id=0; "
          "event_serial_num=66763; notify_serial_num=0; event_raised_time=1746678237786 ms.")
OTHERS = [(HEAD + f"2025-05-08-04:42:5{i}.116.605 [dms_event.c:1399][fault_manager][3169{i}.707904] "
           f"event_id=0x80cb8009; device_id=0; node_type=0x65[AIV]; node_id={32 + i}; sub_node_id=0; "
           "event_type=0x9[bus error, probably caused by software]; severity=1[Warning]; assertion=1[Event occur]; "
           "description=[AIV 0x1706]; os_id=0; event_serial_num=81270; notify_serial_num=0; "
           "event_raised_time=1746679370116 ms.") for i in range(3)]
"""Three more AIV events of the same log (its node ids 32-34 at 04:42:50; stamps spread here)."""
ICACHE = (HEAD + "2025-05-08-04:23:58.786.543 [dms_event.c:1399][fault_manager][30561.377842] event_id=0x80c98000; "
          "device_id=0; node_type=0x64[AIC]; node_id=18; sub_node_id=0; event_type=0x0[module error]; "
          "severity=2[Alarm]; assertion=1[Event occur]; description=[AIC]; os_id=0; event_serial_num=1; "
          "notify_serial_num=0; event_raised_time=1746678237786 ms.")
"""The control: an AI Core event at another state (0x80C98000, the iCache verification fault) stays hardware."""


def _kinds(text: str) -> list[str]:
    return [s.kind for s in ingest_text(text + "\n")[0]]


@pytest.mark.parametrize(("code", "want"), [("80CB8009", True), ("80C98009", True), ("80C98000", False),
                                            ("80CB800A", False), ("80E01801", False), ("80F38009", False)])
def test_the_id_layout_names_the_software_bus_error(code: str, want: bool) -> None:
    assert software_bus_error(code) is want


def test_the_event_line_gives_the_aicore_exception_category() -> None:
    assert _kinds(OCCUR) == [SOFTWARE_BUS_ERROR]
    assert _kinds(RESUME) == []
    assert _kinds(ICACHE) == ["dev:80C98000"]


def test_the_events_read_no_aicore_hardware_fault(tmp_path: Path, engine: Any) -> None:
    log = tmp_path / "event.log"
    log.write_text("\n".join([OCCUR, RESUME, *OTHERS]) + "\n")
    got = diagnose_logs(str(log), engine)["diagnosis"]
    assert got["fault_class"] == "framework_error"
    assert got["confidence"] < 0.8
