"""Every device code the twin prints, and every device code a class names, has a public meaning in
knowledge_base/codes.yaml; the rows decoded by the Ascend driver's event-id layout agree with their own code."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from faultlib.telemetry import formats as fmt

ROOT = Path(__file__).resolve().parents[1]
KB = ROOT / "knowledge_base"
LAYOUT_SRC = "dms_event_converge.h"


def _rows() -> dict[str, dict[str, str]]:
    rows = yaml.safe_load((KB / "codes.yaml").read_text(encoding="utf-8"))["device_event_codes"]
    return {str(r["code"]).upper(): r for r in rows}


def _class_device_codes() -> set[str]:
    out = set()
    for p in sorted((KB / "classes").glob("*.yaml")):
        doc = yaml.safe_load(p.read_text(encoding="utf-8"))
        out |= {fmt.norm_code(str(c["code"])) for c in (doc.get("signatures") or {}).get("device_codes") or []}
    return out


def test_every_code_the_twin_prints_has_a_meaning_and_a_public_row() -> None:
    rows = _rows()
    bad = [c for c, (_level, meaning) in fmt.DEVICE_CODES.items()
           if not meaning or c not in rows or not str(rows[c].get("source", "")).startswith("https://")]
    assert not bad, bad


def test_every_device_code_a_class_names_has_a_public_row() -> None:
    missing = sorted(_class_device_codes() - set(_rows()))
    assert not missing, missing


def test_driver_decoded_rows_agree_with_their_code() -> None:
    """The event id splits into node type (bits 17-27), sensor type (9-16) and event state (0-8); a row whose source
    is that layout names the three values it was decoded from, and they must be the code's own."""
    decoded = {c: r for c, r in _rows().items() if LAYOUT_SRC in str(r.get("source", ""))}
    assert len(decoded) >= 8, sorted(decoded)
    for code, row in decoded.items():
        src = str(row["source"])
        node = re.search(r"node type (0x[0-9A-F]+)", src, re.I)
        sensor = re.search(r"sensor type (0x[0-9A-F]+)", src, re.I)
        state = re.search(r"event state (0x[0-9A-F]+|\d+)", src, re.I)
        assert node and sensor and state, code
        v = int(code, 16)
        assert ((v >> 17) & 0x7FF, (v >> 9) & 0xFF, v & 0x1FF) == (
            int(node.group(1), 16), int(sensor.group(1), 16), int(state.group(1), 0)), code


NO_SOURCE = re.compile(r"no public (document|meaning)[^.;)]*(gives|found)|not a published code|meaning assumed", re.I)


def test_no_printed_code_is_left_without_a_meaning() -> None:
    """The plant, the knowledge base and the fault docs no longer carry a code marked as having no public meaning."""
    files = [*sorted((KB / "classes").glob("*.yaml")), *sorted((ROOT / "faultlib").rglob("*.py")),
             ROOT / "opsbrain/ingest/parsers/twin.py", ROOT / "docs/faults.md"]
    bad = [f"{p.relative_to(ROOT)}: {m.group(0)}" for p in files
           for m in NO_SOURCE.finditer(p.read_text(encoding="utf-8"))]
    assert not bad, bad
