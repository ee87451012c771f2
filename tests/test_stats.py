"""One statistics module (issue 19): the CLI campaign summary and the HTML/Markdown campaign report of the same
runs print the same quantiles, and they are numpy's linear ones."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from opsbrain import stats
from opsbrain.campaign.spec import CampaignSpec
from opsbrain.campaign.summary import seed_record, summarize
from opsbrain.cli.chaos_cmds import campaign_tables
from opsbrain.report import build_campaign_report, render_campaign_report

TTRS = {"hbm_uce": [225.1, 12.0, 480.5, 208.1, 90.0, 301.7], "link_down": [3.2, 4.9, 2.0, 7.5, 3.3, 5.0]}


def _journal(seed: int) -> dict[str, Any]:
    incs = [{"id": f"f{k}", "injected": {"kind": kind, "component": f"pod0/node{seed}", "at_s": 100.0 * k},
             "diagnosis": {"fault_class": kind, "component": f"pod0/node{seed}"}, "ttd_s": 1.0 + seed,
             "ttdiag_s": 2.0 + seed, "ttr_s": TTRS[kind][seed], "correct": True, "class_correct": True,
             "localized": True, "runbook": None, "human_steps": 0, "actions": [], "impact": {}}
            for k, kind in enumerate(TTRS)]
    return {"run_id": f"run-{seed}", "scenario": "campaign", "seed": seed, "policy": "auto", "verdict": "passed",
            "status": "finished", "duration_s": 1000.0, "incidents": incs, "recovery": {}, "summary": {"events": 1},
            "workloads": [{"name": "train", "kind": "training", "ettr": 0.9, "npus": 8, "elapsed_s": 1000.0,
                           "useful_s": 900.0, "useful_steps": 90.0, "nominal_step_time_s": 10.0}]}


def test_cli_and_html_campaign_summaries_print_the_same_quantiles() -> None:
    journals = [_journal(s) for s in range(6)]
    cli_out = summarize(CampaignSpec(pods=1, days=1, seeds=6), [seed_record(j) for j in journals])
    report = build_campaign_report(journals)
    html = render_campaign_report(journals, "html")
    md = render_campaign_report(journals, "md")
    cli_text = "\n".join(t.render("plain") for t in campaign_tables(cli_out))
    for kind, values in TTRS.items():
        want50, want90 = np.quantile(values, 0.5), np.quantile(values, 0.9)  # numpy's default: linear
        cli = cli_out["by_policy"]["auto"]["ttr_by_class"][kind]["ttr_s"]
        rep = report["per_class"][kind]["ttr"]["auto"]
        assert cli["p50"] == pytest.approx(want50) and rep["median"] == pytest.approx(want50)
        assert cli["p90"] == pytest.approx(want90) and rep["p90"] == pytest.approx(want90)
        row = next(ln for ln in cli_text.splitlines() if ln.startswith(kind + "\t")).split("\t")
        for q, mark in ((want50, ""), (want90, "*")):  # six values cannot support a p90: marked, n beside it
            shown = f"{q:.1f}"
            assert shown + mark in row, (kind, shown, row)
            assert re.search(rf">{re.escape(shown)} s{re.escape(mark)}<", html), (kind, shown)
            assert f"{shown} s{mark}" in md, (kind, shown)
        assert row[4] == "6"  # ttr n
    table = " ".join(" ".join(t.render("table") for t in campaign_tables(cli_out)).split())  # notes: table format
    assert " ".join(stats.UNSUPPORTED_NOTE.split()) in table and "* fewer values than the quantile needs" in md


def test_a_quantile_needs_enough_values_to_be_printed_unmarked() -> None:
    assert (stats.min_n(0.5), stats.min_n(0.9), stats.min_n(0.99)) == (1, 10, 100)
    assert stats.mark("812.3", 0.9, 4) == "812.3*" and stats.mark("812.3", 0.9, 10) == "812.3"
    assert stats.mark("3.0", 0.99, 20) == "3.0*" and stats.mark("-", 0.99, 0) == "-"
    assert stats.unsupported(stats.summary([1.0] * 12, (0.5, 0.9, 0.99)), (0.5, 0.9, 0.99)) == ["p99"]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0, 1e6, allow_nan=False), min_size=1, max_size=40), st.floats(0, 1))
def test_quantile_is_numpys_linear(xs: list[float], q: float) -> None:
    assert stats.quantile(xs, q) == pytest.approx(float(np.quantile(xs, q, method="linear")))
    assert stats.quantile([], q) is None and stats.summary([])["p50"] is None
    s = stats.summary(xs + [None])  # None values are left out
    assert s["n"] == len(xs) and s["min"] <= s["p50"] <= s["p90"] <= s["max"]


def test_wilson_interval_matches_the_published_worked_value_and_holds_the_share() -> None:
    # Newcombe (1998), Statistics in Medicine 17:857, table I: 15 of 148 at 95% -> 0.0624 to 0.1605
    lo, hi = stats.wilson(15, 148, z=1.959964)
    assert (round(lo, 4), round(hi, 4)) == (0.0624, 0.1605)
    assert stats.wilson(0, 0) is None
    lo, hi = stats.wilson(0, 3)
    assert lo == 0.0 and 0.3 < hi < 0.6  # no right answer in 3: the share may still be near a half


def test_reliability_bins_answers_by_stated_confidence() -> None:
    conf = [0.45, 0.45, 0.65, 0.65, 0.65, 0.65, 0.95, 1.0]
    right = [True, False, True, True, True, False, True, True]
    rel = stats.reliability(conf, right)
    assert [(b["from"], b["n"], b["right"]) for b in rel["bins"]] == [(0.4, 2, 0.5), (0.6, 4, 0.75), (0.9, 2, 1.0)]
    # ECE: (2 * |0.5 - 0.45| + 4 * |0.75 - 0.65| + 2 * |1.0 - 0.975|) / 8
    assert rel["ece"] == pytest.approx((2 * 0.05 + 4 * 0.1 + 2 * 0.025) / 8, abs=1e-4)
    assert stats.reliability([], []) == {"n": 0, "ece": None, "bins": []}
    with pytest.raises(ValueError):
        stats.reliability([0.5], [True, False])


@given(st.lists(st.tuples(st.floats(0, 1), st.booleans()), min_size=1, max_size=60))
def test_reliability_counts_every_answer_once_and_its_error_is_a_share(pairs: list[tuple[float, bool]]) -> None:
    rel = stats.reliability([c for c, _ in pairs], [r for _, r in pairs])
    assert sum(b["n"] for b in rel["bins"]) == len(pairs)
    assert 0.0 <= rel["ece"] <= 1.0
    for b in rel["bins"]:
        lo, hi = b["right_90"]
        assert lo <= b["right"] <= hi
