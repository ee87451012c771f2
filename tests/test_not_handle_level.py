"""A device event the vendor rates at a no-action level (NotHandle, SubHealth) supports the class its category speaks
for, but does not name it.

Found by a session tester: the NotHandle event 0x80E01809 (multi-bit ECC errors found while the HBM is scrubbed) alone
answered hbm_uce at 0.65 under ``diagnose --logs``. Event lines as the device's event log writes them (dms_event.c
``dms event report``)."""

from __future__ import annotations

from pathlib import Path

from opsbrain.diagnosis.knowledge import default_table, documented_kinds

EVENT = ("[EVENT] DRV(1021,dmp_daemon):2025-03-01-10:05:01.100.000 [dms_event.c:512][tid:1021] dms event report: "
         "device_id=4, event_id=0x{}, assertion=occur")


def test_a_no_action_code_supports_its_category_class_but_does_not_name_it() -> None:
    assert documented_kinds()["dev:80E01809"] == {"hbm_uce": "secondary"}  # NotHandle (codes.yaml level)
    assert documented_kinds()["dev:80E01801"] == {"hbm_uce": "primary"}  # RestartBusiness: names it
    # a class that lists a no-action code in its own signature keeps the role it gives (hbm_ce_storm's 80E01805)
    assert ("hbm_ce_storm", "primary") in default_table().of("dev:80E01805")


def test_a_lone_not_handle_event_is_no_confident_hardware_class(tmp_path: Path) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb.training import load_engine

    f = tmp_path / "event_20250301100501123.log"
    f.write_text(EVENT.format("80E01809") + "\n")
    d = diagnose_logs(str(f), load_engine())["diagnosis"]
    assert d["fault_class"] == "unknown" or d["confidence"] < 0.5, d
