"""Session 42 (operator42): the campaign report gives the same p50 / p90 / p99 as ``chaos campaign`` (before: median
/ p90 / max, JSON ``median``, and a ``*`` note naming a p99 it did not show), marks the quantiles too few values
support as ``chaos campaign`` does, keeps ``median`` for one release; and ``chaos run``'s table marks a ttr back
before detection in words, not with the ``*`` the campaign tables use for such a quantile."""

from __future__ import annotations

import re
from typing import Any

import pytest

from opsbrain import stats
from opsbrain.campaign.spec import CampaignSpec
from opsbrain.campaign.summary import seed_record, summarize
from opsbrain.cli.journal_view import journal_tables
from opsbrain.report import build_campaign_report, render_campaign_report

TTRS = [225.1, 12.0, 480.5, 208.1, 90.0, 301.7, 33.3, 14.2, 70.0, 410.9, 95.5, 160.4]  # 12: p90 holds, p99 not


def _journal(seed: int) -> dict[str, Any]:
    inc = {"id": "f1", "injected": {"kind": "hbm_uce", "component": f"pod0/node{seed}", "at_s": 100.0},
           "diagnosis": {"fault_class": "hbm_uce", "component": f"pod0/node{seed}"}, "ttd_s": 1.0, "ttdiag_s": 2.0,
           "ttr_s": TTRS[seed], "correct": True, "class_correct": True, "localized": True, "runbook": None,
           "human_steps": 0, "actions": [], "impact": {}}
    return {"run_id": f"run-{seed}", "scenario": "campaign", "seed": seed, "policy": "auto", "verdict": "passed",
            "status": "finished", "duration_s": 1000.0, "incidents": [inc], "recovery": {}, "summary": {"events": 1},
            "workloads": [{"name": "train", "kind": "training", "ettr": 0.9, "npus": 8, "elapsed_s": 1000.0,
                           "useful_s": 900.0, "useful_steps": 90.0, "nominal_step_time_s": 10.0}]}


@pytest.fixture(scope="module")
def journals() -> list[dict[str, Any]]:
    return [_journal(s) for s in range(len(TTRS))]


def test_the_report_keeps_the_campaigns_p50_p90_p99_and_median_for_one_release(journals: list[dict[str, Any]]) -> None:
    cli = summarize(CampaignSpec(pods=1, days=1, seeds=len(TTRS)), [seed_record(j) for j in journals])
    want = cli["by_policy"]["auto"]["ttr_by_class"]["hbm_uce"]["ttr_s"]
    got = build_campaign_report(journals)["per_class"]["hbm_uce"]["ttr"]["auto"]
    for k in ("n", "p50", "p90", "p99", "max", "unsupported"):
        assert got[k] == want[k], k
    assert got["unsupported"] == ["p99"] and got["p99"] == pytest.approx(stats.quantile(TTRS, 0.99))
    assert got["median"] == got["p50"]  # the old key, kept for one release (docs/reports.md)


def test_markdown_and_html_show_p50_p90_p99_with_the_campaigns_mark(journals: list[dict[str, Any]]) -> None:
    p50, p90, p99 = (f"{stats.quantile(TTRS, q):.1f} s" for q in (0.5, 0.9, 0.99))
    md = render_campaign_report(journals, "md")
    head = next(ln for ln in md.splitlines() if ln.startswith("| fault class | faults | top-1"))
    assert "| p50 ttr | p90 ttr | p99 ttr | max ttr |" in head and "median ttr |" not in head
    row = next(ln for ln in md.splitlines() if ln.startswith("| hbm_uce | 12 "))
    assert f"| {p50} | {p90} | {p99}* |" in row  # 12 values support a p90, not a p99
    assert "* fewer values than the quantile needs (p90: n &gt;= 10, p99: n &gt;= 100)" in md
    html = render_campaign_report(journals, "html")
    assert '<th class="num">p99 ttr</th>' in html and ">median ttr<" not in html
    assert re.search(rf">{re.escape(p50)}</td><td class=\"num\">{re.escape(p90)}</td><td class=\"num\">"
                     rf"{re.escape(p99)}\*</td>", html)


def test_a_report_of_few_values_marks_p90_and_p99_and_none_marks_nothing(journals: list[dict[str, Any]]) -> None:
    md = render_campaign_report(journals[:3], "md")
    row = next(ln for ln in md.splitlines() if ln.startswith("| hbm_uce | 3 "))
    assert re.search(r"\| [\d.]+ s \| [\d.]+ s\* \| [\d.]+ s\* \| [\d.]+ s \|", row), row
    m = build_campaign_report(journals[:3])
    assert m["per_class"]["hbm_uce"]["ttr"]["auto"]["unsupported"] == ["p90", "p99"]


def test_chaos_runs_table_says_back_before_detection_in_words_not_the_quantile_star() -> None:
    inc = {"id": "f1", "injected": {"kind": "dirty_connector", "component": "pod0/node1"}, "recovery":
           "before_detection", "diagnosis": {"fault_class": "dirty_connector", "confidence": 0.9,
                                             "component": "pod0/node1"},
           "ttd_s": 3.0, "ttdiag_s": 3.5, "ttr_s": 1.0, "correct": True, "class_correct": True}
    inc_table = journal_tables({"incidents": [inc], "steady_state": {}})[0]
    text = inc_table.render("plain")
    assert "\t1.0 (before det.)\t" in text and "1.0*" not in text
    notes = " ".join(inc_table.render("table", width=200, colour=False).split())
    assert "(before det.): back before it was detected" in notes and "* back before" not in notes
