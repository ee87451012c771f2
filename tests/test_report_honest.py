"""Issue 19 leftovers: the impact wording names the stall beside the downtime (from the journal), the incident plot
uses the unit of the table under it, and a run that wrote bundles names its evidence lines as file:line."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from opsbrain.report import build_run_report, render
from opsbrain.report.build import _impact_words


def test_the_stall_is_said_beside_the_downtime() -> None:
    words = _impact_words({"job": {"lost_npu_s": 100.0, "redone_steps": 3.0, "downtime_s": 167.0,
                                   "stalled_s": 1200.0, "ckpt_stall_s": 0.0}})
    assert len(words) == 1
    assert "2 min 47 s down" in words[0] and "20 min stalled" in words[0]
    assert "checkpoint" not in words[0]  # none recorded, none said
    old = _impact_words({"job": {"lost_npu_s": 100.0, "redone_steps": 3.0, "downtime_s": 167.0}})
    assert "stall time not recorded" in old[0]  # an older journal: the gap is named, not hidden


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from opsbrain import chaos
    from opsbrain.kb.training import load_engine
    from opsbrain.runner.run import run_plan

    out = tmp_path_factory.mktemp("bundles")
    return run_plan(chaos.plan("node-crash-training"), load_engine(), bundle_dir=out)


def test_the_journal_impact_records_the_stall(run: dict[str, Any]) -> None:
    imp = [v for inc in run["incidents"] for v in (inc.get("impact") or {}).values() if "lost_npu_s" in v]
    assert imp and all({"downtime_s", "stalled_s", "ckpt_stall_s"} <= set(v) for v in imp)


def test_evidence_lines_name_their_bundle_file_and_line(run: dict[str, Any]) -> None:
    located = [s for inc in run["incidents"] for s in inc.get("signals") or [] if s.get("file")]
    assert located
    for s in located:
        line = Path(s["file"]).read_text().split("\n")[s["line"] - 1]
        assert s["text"] in line
    model = build_run_report(run)
    html = render(model, "html", run.get("series"))
    md = render(model, "md", run.get("series"))
    at = f"{located[0]['file']}:{located[0]['line']}"
    assert at in html and at in md


def test_the_plot_and_the_table_under_it_use_one_unit(run: dict[str, Any]) -> None:
    model = build_run_report(run)
    dips = [d for inc in model["incidents"] for d in inc.get("dips") or []]
    assert dips, "the scenario's fault dips the training job"
    html = render(model, "html", run.get("series"))
    assert "steps / hour" not in html and "k tokens/s" not in html
    for d in dips:
        assert re.search(rf"{re.escape(d['metric'])}, {re.escape(d['unit'])}", html), d["unit"]
