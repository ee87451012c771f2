"""An imported vendor fault-level file's level takes part in the answer: the severity of an undocumented event, the
level and the vendor's action in the evidence, and the abstention's words.

Found by a session tester: an event code only the imported faultCode.json knows (0x80E3A201, one of 717 such)
abstained with no word of its level. Event lines as the device's event log writes them (dms_event.c ``dms event
report``)."""

from __future__ import annotations

from pathlib import Path

from opsbrain.diagnosis.vendorlevel import LEVEL_ACTIONS, code_of, level_notes, levelled
from opsbrain.ingest.parsers import parse_line
from opsbrain.kb.codenorm import LEVELS

EVENT = ("[EVENT] DRV(1021,dmp_daemon):2025-03-01-10:05:01.100.000 [dms_event.c:512][tid:1021] dms event report: "
         "device_id=4, event_id=0x{}, assertion=occur")


def test_every_level_has_its_action_and_an_imported_level_sets_the_severity() -> None:
    assert set(LEVEL_ACTIONS) == set(LEVELS)
    sig = parse_line(EVENT.format("80E3A201"), 0.0, "worker-0")[0]
    assert (sig.kind, sig.severity) == ("dev:80E3A201", 0)  # undocumented: the event log's own level
    assert code_of(sig.kind) == "80E3A201" and code_of("dev:80E3A201:recover") is None
    (err,) = levelled([sig], {"80E3A201": "SeparateNPU"}, {})
    (warn,) = levelled([sig], {"80E3A201": "NotHandle"}, {})
    (kept,) = levelled([sig], {"80E3A201": "SeparateNPU"}, {"80E3A201": "NotHandleFaultCodes"})
    assert (err.severity, warn.severity, kept.severity) == (2, 1, 0)  # a documented level was the parser's to apply


def test_the_abstention_names_the_vendor_level_and_its_missing_class_mapping() -> None:
    sig = parse_line(EVENT.format("80E3A201"), 0.0, "worker-0")[0]
    (note,) = level_notes([sig], {"80E3A201": "SeparateNPU"}, {}, abstained=True)
    assert "SeparateNPU" in note and LEVEL_ACTIONS["SeparateNPU"] in note and "no class" in note
    (note,) = level_notes([sig], {"80E3A201": "SeparateNPU"}, {"dev:80E3A201": [("x", "primary")]}, abstained=True)
    assert "no class" not in note and "SeparateNPU" in note
    assert level_notes([sig], {}, {}, abstained=True) == []


def test_diagnose_logs_with_an_imported_fault_level_file(tmp_path: Path) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb.compiled import compiled_kb
    from opsbrain.kb.importers import ImportedKnowledge
    from opsbrain.kb.matcher import SignatureMatcher
    from opsbrain.kb.training import load_engine

    f = tmp_path / "event.log"
    f.write_text(EVENT.format("80E3A201") + "\n")
    matcher = SignatureMatcher(compiled_kb(), ImportedKnowledge(levels={"80E3A201": "SeparateNPU"}))
    res = diagnose_logs(str(f), load_engine(), matcher)
    d = res["diagnosis"]
    assert d["fault_class"] == "unknown"
    assert any("level SeparateNPU" in e and "no class" in e for e in d["evidence"]), d["evidence"]
    assert d["root"]["device"] == 4
    plain = diagnose_logs(str(f), load_engine())["diagnosis"]  # no import: no word of a level
    assert not any("SeparateNPU" in e for e in plain["evidence"])


VENDOR = Path(__file__).resolve().parents[1].parent / "shared" / "reference" / "vendor" / "faultCode.json"


def test_the_vendors_own_fault_level_file_rates_an_unmapped_code(tmp_path: Path) -> None:
    """With MindCluster's faultCode.json imported (the reference copy; skipped without it), 0x80E3A201 -- a code
    the knowledge base maps to no class -- is stated with the level the file gives it."""
    import pytest

    if not VENDOR.is_file():
        pytest.skip("the vendor reference files are not present")
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb.compiled import compiled_kb
    from opsbrain.kb.importers import import_faultcode, load_imported
    from opsbrain.kb.matcher import SignatureMatcher
    from opsbrain.kb.training import load_engine

    import_faultcode(VENDOR, tmp_path / "imports")
    imported = load_imported(tmp_path / "imports")
    level = imported.levels["80E3A201"]
    f = tmp_path / "event.log"
    f.write_text(EVENT.format("80E3A201") + "\n")
    d = diagnose_logs(str(f), load_engine(), SignatureMatcher(compiled_kb(), imported))["diagnosis"]
    assert any(f"level {level}" in e and LEVEL_ACTIONS[level] in e for e in d["evidence"]), d["evidence"]


def test_diagnose_bundle_with_an_imported_fault_level_file(tmp_path: Path) -> None:
    """The bundle reads the imported level as --logs does: the event opens an incident (SeparateNPU asks for an
    action), and the verdict's abstention names the level (before, the bundle opened no incident at all)."""
    from opsbrain.bundle import diagnose_bundle
    from opsbrain.kb.compiled import compiled_kb
    from opsbrain.kb.importers import ImportedKnowledge
    from opsbrain.kb.matcher import SignatureMatcher
    from opsbrain.kb.training import load_engine

    ev = tmp_path / "b" / "worker-0" / "device_log" / "slog" / "dev-os-4" / "run" / "event" / "event_1.log"
    ev.parent.mkdir(parents=True)
    ev.write_text(EVENT.format("80E3A201") + "\n")
    matcher = SignatureMatcher(compiled_kb(), ImportedKnowledge(levels={"80E3A201": "SeparateNPU"}))
    rep = diagnose_bundle(tmp_path / "b", load_engine(), matcher)
    assert len(rep["incidents"]) == 1 and rep["diagnosis"]["fault_class"] == "unknown"
    assert any("level SeparateNPU" in e and "no class" in e for e in rep["diagnosis"]["evidence"])
    assert diagnose_bundle(tmp_path / "b", load_engine())["incidents"] == []  # no import: the event log's own level
