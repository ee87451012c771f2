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
