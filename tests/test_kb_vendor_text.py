"""The shipped knowledge base carries no text of the vendor's data files (MindCluster's kg-config.json, faultCode.json,
faultCustomization.json, SwitchFaultCode.json): every meaning is in our words and cites a public document; the
vendor files are read only at run time (``opsbrain kb import``)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
KB = ROOT / "knowledge_base"
VENDOR = ROOT.parent / "shared" / "reference" / "vendor"
TEXT_FIELDS = ("meaning", "cause", "description", "suggestion", "source")


def _fields(node: Any, where: str) -> Iterator[tuple[str, str, str]]:
    """(where, field, text) for every text field of a YAML tree."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k in TEXT_FIELDS and isinstance(v, str):
                yield where, k, v
            else:
                yield from _fields(v, f"{where}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _fields(v, f"{where}[{i}]")


def _kb_fields() -> list[tuple[str, str, str]]:
    out: list[tuple[str, str, str]] = []
    for p in sorted(KB.rglob("*.yaml")):
        out += _fields(yaml.safe_load(p.read_text(encoding="utf-8")), str(p.relative_to(KB)))
    return out


def _norm(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", s.lower()).strip()


def test_no_meaning_or_source_cites_the_vendor_knowledge_graph() -> None:
    bad = [f"{w}.{k}: {v[:80]}" for w, k, v in _kb_fields() if "kg-config" in v]
    assert not bad, "\n".join(bad[:20])


def test_every_device_event_row_cites_a_public_document() -> None:
    rows = yaml.safe_load((KB / "codes.yaml").read_text(encoding="utf-8"))["device_event_codes"]
    assert rows
    bad = [r["code"] for r in rows if not re.match(r"https://", str(r.get("source", "")))
           or re.search(r"faultCode\.json|faultCustomization\.json|SwitchFaultCode\.json", str(r.get("source")))]
    assert not bad, bad


@pytest.mark.skipif(not (VENDOR / "kg-config.json").is_file(), reason="shared reference data not present")
def test_no_text_field_copies_a_vendor_cause_or_description() -> None:
    graph = json.loads((VENDOR / "kg-config.json").read_text(encoding="utf-8"))["knowledge-repository"]
    vendor = {_norm(str(e.get("attribute", {}).get(f, ""))) for e in graph.values()
              for f in ("cause_en", "description_en")}
    vendor = {v for v in vendor if len(v) >= 20}  # short ones ("link down") are ordinary words, not text
    by_head: dict[str, list[str]] = {}  # a long vendor text by its first 40 characters: one look-up per position
    for x in vendor:
        if len(x) >= 40:
            by_head.setdefault(x[:40], []).append(x)

    def holds_one(t: str) -> bool:
        return any(t.startswith(x, i) for i in range(len(t) - 39) for x in by_head.get(t[i:i + 40], ()))

    bad = [f"{w}.{k}: {v[:80]}" for w, k, v in _kb_fields() if _norm(v) in vendor or holds_one(_norm(v))]
    assert not bad, "\n".join(bad[:20])



SHIPPED = ("knowledge_base/**/*.yaml", "faultlib/**/*.py", "opsbrain/**/*.py", "runbooks/*.yaml", "scenarios/*.yaml",
           "docs/*.md")
URLISH = {"https", "http", "www", "com", "github", "smi"}  # addresses and commands both sides print


def _shingles(text: str, n: int = 6) -> set[str]:
    """Runs of ``n`` words with at least three words of five letters or more and no address or command word: a run
    of short common words ("a path that is not a") is no one's text."""
    w = _norm(text).split()
    return {" ".join(run) for i in range(len(w) - n + 1) if not URLISH & set(run := w[i:i + n])
            and sum(len(x) >= 5 for x in run) >= 3}


@pytest.mark.skipif(not (VENDOR / "kg-config.json").is_file(), reason="shared reference data not present")
def test_no_shipped_file_carries_a_vendor_phrase_anywhere() -> None:
    """Any field, comment or docstring (class symptoms, parameter sources, docstrings, docs), not only the meaning
    fields: no run of six words of a vendor cause, description or suggestion appears in a shipped file (the
    copy found at review: a class symptom "non-fatal SoC high-temperature alarm" for 0x80E20207)."""
    graph = json.loads((VENDOR / "kg-config.json").read_text(encoding="utf-8"))["knowledge-repository"]
    vendor: set[str] = set()
    for e in graph.values():
        for f in ("cause_en", "description_en", "suggestion_en"):
            v = e.get("attribute", {}).get(f, "")
            for part in v if isinstance(v, list) else [v]:
                vendor |= _shingles(str(part))
    assert len(vendor) > 1000  # the graph was read
    bad = [f"{p.relative_to(ROOT)}: {s}" for pattern in SHIPPED for p in sorted(ROOT.glob(pattern))
           for s in sorted(_shingles(p.read_text(encoding="utf-8")) & vendor)]
    assert not bad, "\n".join(bad[:20])
