"""The real-log corpus (tests/data/real_logs): well-formed, split once by id hash, and scored by kb eval --real."""

from __future__ import annotations

from pathlib import Path

from opsbrain.kb.realeval import evaluate_real, load_corpus, split_of

CORPUS = Path(__file__).parent / "data" / "real_logs"


def test_corpus_is_well_formed_and_split_up_front() -> None:
    rows = load_corpus(CORPUS)
    assert len(rows) >= 80
    assert all(str(r["source"]).strip() and r["confidence"] in ("firm", "likely", "symptom") for r in rows)
    assert {r["split"] for r in rows} == {"dev", "test"}
    assert split_of("a001-x") == split_of("a001-x")  # a pure function of the id
    assert sum(r["trap"] for r in rows) >= 10


def test_dev_split_is_scored_and_every_answer_cites_evidence() -> None:
    from opsbrain.kb import SignatureMatcher, load_kb
    from opsbrain.kb.training import load_engine

    res = evaluate_real(load_engine(), SignatureMatcher(load_kb()), CORPUS, split="dev")
    block = res["all"]
    assert block["n"] == sum(1 for r in load_corpus(CORPUS) if r["split"] == "dev")
    assert block["evidence_cited"] in (None, 1.0)
    assert block["confident_wrong"] <= 0.05


VENDOR = Path(__file__).resolve().parents[2] / "shared" / "reference" / "vendor"


def test_an_excerpt_known_only_to_an_imported_vendor_entry_gets_the_mapped_class(tmp_path: Path) -> None:
    """Lines built from a knowledge-graph entry's own keywords, which no parser of ours reads, are diagnosed to the
    class the reviewed vendor map gives that entry, where the map lets the entry decide (skips without the vendor
    file; entries that may only raise a class are tests/test_vendor_map.py's)."""
    import io
    import json

    import pytest

    if not (VENDOR / "kg-config.json").exists():
        pytest.skip("vendor reference files not present")
    from opsbrain.diagnosis.knowledge import default_table, load_vendor_rules, vendor_mapping
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.ingest import ingest_text
    from opsbrain.kb import SignatureMatcher, import_kg, load_imported, load_kb
    from opsbrain.kb.training import load_engine

    import_kg(VENDOR / "kg-config.json", tmp_path)
    matcher = SignatureMatcher(load_kb(), load_imported(tmp_path))
    rules, table, engine = load_vendor_rules(), default_table(), load_engine()
    repo = json.loads((VENDOR / "kg-config.json").read_text(encoding="utf-8"))["knowledge-repository"]
    tried: list[tuple[str, str, str]] = []
    for entry_id, body in repo.items():
        words = (body.get("regex") or {}).get("in") or []
        if not words or not all(isinstance(w, str) and w.isascii() and w.strip() for w in words):
            continue
        line = "[ERROR] " + " ".join(words)
        entry = matcher.imported_entry(entry_id)
        cls, decides = vendor_mapping(entry, rules) if entry is not None else (None, False)
        sigs, _ = ingest_text(line)
        if cls is None or not decides or any(table.of(s.kind) for s in sigs):
            continue  # unmapped, raise-only, or our own parsers know the line: not a vendor-only excerpt
        res = diagnose_logs("-", engine, matcher, stdin=io.BytesIO(line.encode()))
        if {v["class"] for v in res["vendor_entries"] if v["class"]} != {cls}:
            continue  # other entries match the same words and map elsewhere: not one vendor answer
        tried.append((entry_id, cls, res["diagnosis"]["fault_class"]))
        assert any(v["entry"] == entry_id for v in res["vendor_entries"]), entry_id
        if len(tried) >= 12:
            break
    assert len(tried) >= 5
    right = sum(got == cls for _, cls, got in tried)
    assert right == len(tried), [t for t in tried if t[1] != t[2]]


def test_brain_parameters_in_the_architecture_doc_match_the_code() -> None:
    from opsbrain.diagnosis.engine import DiagnosisParams

    doc = (Path(__file__).resolve().parents[1] / "docs" / "architecture.md").read_text(encoding="utf-8")
    p = DiagnosisParams()
    assert f"| `diagnosis.min_confidence` | {p.min_confidence} |" in doc
    v = p.vote
    assert f"| {v.primary} / {v.secondary} / {v.ambiguous} |" in doc
    assert f"| `diagnosis.vote.min_score` | {v.min_score} |" in doc and f"| `diagnosis.vote.lead` | {v.lead} |" in doc
    assert f"| `diagnosis.vote.max_confidence` | {v.max_confidence} |" in doc
    t = p.triage
    assert f"| `diagnosis.triage.confidence` | {t.confidence} |" in doc
    assert f"| `diagnosis.triage.generic` | {t.generic} |" in doc
    assert f"| `diagnosis.triage.enabled` | {t.enabled} |" in doc
