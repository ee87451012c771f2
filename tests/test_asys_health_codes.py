"""asys ``health_result.txt``'s error-code rows are the device's fault events, documented or not, and the AI Core
event 0x80C98001 is documented by the driver's event-id layout as an AI Core error.

Found by a session tester: ``| 0x80c98001 | AI Core timeout |`` under ``| Device ID: 2 | Overall Health: Critical |``
gave no signal (a bare code was read only when the knowledge base listed it). Rows as asys writes them
(cann/oam-tools src/asys/health/asys_health.py ``_save_file``)."""

from __future__ import annotations

from opsbrain.diagnosis.knowledge import default_table
from opsbrain.ingest.derive import section_placed
from opsbrain.ingest.parsers import parse_line

TABLE = """+---------------------------------------------+
| Device ID: 2 | Overall Health: Critical |
+---------------------------------------------+
| Error Code | Error Information |
| 0x80c98001 | AI Core timeout |
| 0x8c2fa009 | NA |
+---------------------------------------------+"""


def signals(text: str) -> list:
    out = []
    for i, line in enumerate(text.splitlines()):
        out += [s.at(line_no=i + 1, file="health_result.txt") for s in parse_line(line, 0.0, "w0")]
    return section_placed(out)


def test_every_code_row_is_an_event_of_the_sections_device() -> None:
    got = {(s.kind, s.device, s.severity) for s in signals(TABLE)}
    assert ("dev:80C98001", 2, 2) in got  # Critical: an error of device 2
    assert any(k == "dev:8C2FA009" and d == 2 for k, d, _ in got)
    assert not any(k.startswith("dev:") and d != 2 for k, d, _ in got)


def test_other_table_rows_and_unframed_codes_are_not_events() -> None:
    assert not [s for s in parse_line("| Error Code | Error Information |", 0.0) if s.kind.startswith("dev:")]
    # a bare undocumented value outside the frame is an address or a register, not an event
    assert not [s for s in parse_line("write 0x80c98003 to reg", 0.0) if s.kind.startswith("dev:")]


def test_the_ai_core_event_speaks_for_the_class_of_ai_core_hardware_faults() -> None:
    # the device's own fault event of its AI Core module is a hardware report (categories.yaml aicore_hardware, session
    # 30), not the runtime's AI Core exception a program's operator error prints too
    assert dict(default_table().of("dev:80C98001")) == {"aicore_hang": "primary"}
    assert "hbm_uce" not in dict(default_table().of("rt:507015"))


def test_a_health_row_more_severe_than_the_logged_event_it_restates_is_kept() -> None:
    from opsbrain.ingest.derive import restatements_dropped
    from opsbrain.ingest.signal import Signal

    logged = Signal(0.0, "dev:80C98001", "n0/npu2", "n0", 0, "[EVENT] ... event_id=0x80C98001")
    row = Signal(1.0, "dev:80C98001", "n0/npu2", "n0", 2, "| 0x80c98001 | AI Core timeout |")
    kept = restatements_dropped([logged, row], lambda s: s is row)
    assert row in kept and logged in kept  # Critical rates it; the event log's line did not
    same = Signal(0.5, "dev:80C98001", "n0/npu2", "n0", 2, "[ERROR] ... event_id=0x80C98001")
    assert restatements_dropped([same, row], lambda s: s is row) == [same]  # a restatement only
