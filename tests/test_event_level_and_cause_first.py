"""A device's event log writes every fault at its own ``EVENT`` level: the severity comes from the code's documented
handling level; and a bundle whose ranks all timed out waiting answers with the fault they waited on.

Found by a session-27 helper building bundles as real collections leave them (msnpureport's ``slog/dev-os-N/run/
event/`` files; a device fault on one rank followed by every other rank's HCCL timeout)."""

from __future__ import annotations

from typing import Any

from opsbrain.bundle.diagnose import _cause_first
from opsbrain.ingest.parsers import parse_line

EVENT = "[EVENT] DRV(1021,dmp_daemon):2025-03-01-10:05:01.100.000 [dms_event.c:512][dev4] Event id=0x{}, assertion={}"


def _sev(code: str, state: str = "occur") -> dict[str, int]:
    return {s.kind: s.severity for s in parse_line(EVENT.format(code, state), 0.0, "worker-0", "device_os")}


def test_a_fault_code_at_event_level_is_an_error_when_its_level_asks_for_action() -> None:
    assert _sev("80e01801") == {"dev:80E01801": 2}  # RestartBusiness (HBM UCE)
    assert _sev("80e18402") == {"dev:80E18402": 2}  # SeparateNPU


def test_a_no_action_code_is_a_warning_and_an_undocumented_one_keeps_the_lines_level() -> None:
    assert _sev("80e01805") == {"dev:80E01805": 1}  # NotHandle: a correctable-error report
    assert _sev("8c17a005") == {"dev:8C17A005": 0}  # not documented (the ascend-fd fixture's): the line's own level
    assert all(v == 0 for v in _sev("80e01801", "recover").values())


def _inc(i: str, cls: str, at: float, errors: int) -> dict[str, Any]:
    return {"id": i, "opened_at_s": at, "errors": errors, "diagnosis": {"fault_class": cls}}


def test_the_fault_the_ranks_waited_on_is_the_answer() -> None:
    uce, wait = _inc("i1", "hbm_uce", 100.0, 2), _inc("i2", "collective_timeout_sw", 1900.0, 8)
    chosen = _cause_first(wait, [uce, wait])  # a copy with why (session 42): the incident row itself unchanged
    assert chosen is not None and chosen["id"] == "i1" and "waited on" in chosen["diagnosis"]["evidence"][-1]
    late = _inc("i3", "hbm_uce", 2000.0, 2)  # after the timeouts: not what they waited on
    assert _cause_first(wait, [wait, late]) is wait
    old = _inc("i4", "hbm_uce", -2000.0, 2)  # more than an hour before
    assert _cause_first(wait, [old, wait]) is wait
    assert _cause_first(uce, [uce, wait]) is uce
    assert _cause_first(wait, [_inc("i5", "unknown", 50.0, 3), wait]) is wait


def test_a_stated_warning_or_error_level_is_kept() -> None:
    """The twin's row-isolating UCE events are warnings (each isolates one row): only the event log's own level is
    replaced by the code's."""
    line = EVENT.format("80e01801", "occur").replace("[EVENT]", "[WARNING]")
    assert {s.kind: s.severity for s in parse_line(line, 0.0, "worker-0", "device_os")} == {"dev:80E01801": 1}
