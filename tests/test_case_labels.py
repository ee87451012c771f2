"""Training labels are what a moment can show: a row-exhaustion fault's moments before any of its primary evidence
(0x80E18401/0x80E18402, the isolated-row metric rule) are HBM UCE moments (opsbrain.kb.cases.shown_label)."""

from __future__ import annotations

from opsbrain.diagnosis.features import incident_features
from opsbrain.ingest import Signal
from opsbrain.kb.cases import run_case, shown_label

NPU = "p0/n0/npu0"


def feats(*kinds: str, rows: float | None = None) -> dict[str, float]:
    sigs = [Signal(float(i), k, NPU, "p0/n0", 2, k) for i, k in enumerate(kinds)]
    return incident_features(sigs, 10.0, metric=(lambda m, c: rows if m == "hbm_isolated_rows" else None))


def test_a_lone_uce_of_a_row_exhaustion_fault_is_labelled_hbm_uce() -> None:
    assert shown_label("hbm_row_exhaustion", feats("dev:80E01801", "dev:80E01801")) == "hbm_uce"
    assert shown_label("hbm_row_exhaustion", feats("dev:80E01801", rows=3.0)) == "hbm_uce"


def test_its_primary_evidence_keeps_the_injected_kind() -> None:
    assert shown_label("hbm_row_exhaustion", feats("dev:80E01801", "dev:80E18401")) == "hbm_row_exhaustion"
    assert shown_label("hbm_row_exhaustion", feats("dev:80E01801", "dev:80E18402")) == "hbm_row_exhaustion"
    assert shown_label("hbm_row_exhaustion", feats("dev:80E01801", rows=16.0)) == "hbm_row_exhaustion"


def test_other_kinds_keep_their_label() -> None:
    assert shown_label("hbm_uce", feats("dev:80E01801")) == "hbm_uce"
    assert shown_label("optical_degradation", feats("dev:80E01801")) == "optical_degradation"


def test_a_row_exhaustion_run_labels_each_view_by_its_evidence() -> None:
    # the live view reads the isolated-row count (>= 16 from onset here); the text view of the same moment does not:
    # before, every moment's text view was labelled hbm_row_exhaustion, lone 0x80E01801 lines included
    cases = [c for c in run_case(3, "hbm_row_exhaustion", text_views=True) if c.injected]
    assert {(c.view, c.label) for c in cases} >= {("live", "hbm_row_exhaustion"), ("text", "hbm_row_exhaustion"),
                                                   ("text", "hbm_uce")}
    for c in cases:
        shows = c.features.get("kb:hbm_row_exhaustion:primary", 0.0) > 0 or c.features.get("isolated_rows", 0) >= 16
        assert c.label == ("hbm_row_exhaustion" if shows else "hbm_uce"), c
