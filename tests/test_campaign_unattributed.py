"""A campaign report prints, beside the per-fault impact (the versus-manual table), the loss no fault covers: each
workload's ``unattributed`` rest (scoring's split: the faults' shares plus it add up to the workload's loss)."""

from __future__ import annotations

from typing import Any

from opsbrain.report import text
from opsbrain.report.campaign import build_campaign_report
from opsbrain.report.html import render_campaign as render_html
from opsbrain.report.markdown import render_campaign as render_md


def _journal(policy: str, lost: float, share: float, tokens: float, token_share: float) -> dict[str, Any]:
    inj = {"kind": "link_down", "component": "pod0/l1-0/link3", "at_s": 600.0}
    return {"scenario": "c", "seed": 1, "policy": policy, "verdict": "passed", "summary": {},
            "incidents": [{"id": "i1", "injected": inj, "correct": True, "class_correct": True, "localized": True,
                           "diagnosis": {"fault_class": "link_down"}, "ttr_s": 60.0, "human_steps": 0,
                           "impact": {"train": {"lost_npu_s": share}, "serve": {"lost_tokens": token_share}}}],
            "workloads": [{"name": "train", "kind": "training", "elapsed_s": 3600.0, "useful_s": 3000.0,
                           "lost_npu_s": lost, "unattributed": {"lost_npu_s": lost - share}},
                          {"name": "serve", "kind": "inference", "tokens_served": 1e6, "lost_tokens": tokens,
                           "unattributed": {"lost_tokens": tokens - token_share}}]}


def test_the_model_sums_the_unattributed_loss_per_policy() -> None:
    m = build_campaign_report([_journal("auto", 1000.0, 700.0, 50.0, 20.0), _journal("auto", 500.0, 500.0, 0, 0),
                               _journal("manual", 4000.0, 3900.0, 80.0, 80.0)])
    u = m["unattributed"]
    assert u["auto"] == {"runs": 2, "lost_npu_s": 1500.0, "unattributed_npu_s": 300.0, "lost_tokens": 50.0,
                         "unattributed_tokens": 30.0}
    assert u["manual"]["unattributed_npu_s"] == 100.0 and u["manual"]["unattributed_tokens"] == 0.0


def test_markdown_and_html_print_it_where_per_fault_impact_is() -> None:
    m = build_campaign_report([_journal("auto", 1000.0, 700.0, 50.0, 20.0), _journal("manual", 4000.0, 3900.0,
                                                                                      80.0, 80.0)])
    md = render_md(m)
    section = md.split("## Versus manual operations")[1].split("## Runs")[0]
    assert "NPU-s lost / fault" in section and "no fault's" in section
    assert f"| auto | 1 | 1,000 | {text.num(300.0)} | {text.num(50.0)} | {text.num(30.0)} |" in section, section
    html = render_html(m)
    vs = html.split('id="vs-manual"')[1].split("</section>")[0]
    assert 'data-unattributed="auto"' in vs and f">{text.num(300.0)}<" in vs


def test_journals_from_before_the_split_say_unknown_not_zero() -> None:
    j = _journal("auto", 1000.0, 700.0, 50.0, 20.0)
    for w in j["workloads"]:
        del w["unattributed"]
    u = build_campaign_report([j])["unattributed"]["auto"]
    assert u["unattributed_npu_s"] is None and u["unattributed_tokens"] is None
    d = text.DASH
    assert f"| auto | 1 | 1,000 | {d} | {text.num(50.0)} | {d} |" in render_md(build_campaign_report([j]))
