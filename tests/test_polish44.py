"""Session 44 (polish44): operator-facing figures and files that said more than they meant.

- The run report's ``actions`` figure counted every journal step: a skipped step, "no action (watch)" and "wait"
  included (8 for hbm-uce-training, of which 4 did something). It now counts the actions taken and shows the split.
- ``report --format md --out r.json`` wrote Markdown into a file named .json without a word: refused, exit 2.
- ``chaos campaign --days 1`` printed "1 days"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from opsbrain.cli import cli


@pytest.fixture(scope="module")
def hbm_journal() -> dict[str, Any]:
    """hbm-uce-training: a fault incident (isolate rows, restart in place, ticket skipped) and a noise incident
    (drain, restart skipped, watch, wait, undrain)."""
    from opsbrain import chaos

    return dict(chaos.run(chaos.plan("hbm-uce-training")))


def _split(journal: dict[str, Any]) -> tuple[int, int, int]:
    """(taken, skipped, watch/wait) counted by hand from the journal's steps."""
    watch = {"none", "notify", "wait", "page", "escalate", "guardrail", "approval", "detect", "diagnose"}
    steps = [a for i in journal["incidents"] for a in i["actions"]]
    skipped = sum(a["status"] == "skipped" for a in steps)
    quiet = sum(a["status"] != "skipped" and (a["action"] in watch or a.get("kind") == "guardrail") for a in steps)
    return len(steps) - skipped - quiet, skipped, quiet


def test_the_actions_figure_counts_the_actions_taken(hbm_journal: dict[str, Any]) -> None:
    from opsbrain.report import render_run_report
    from opsbrain.report.build import build_run_report

    taken, skipped, quiet = _split(hbm_journal)
    assert skipped and quiet  # the run has both kinds of steps that are no action taken
    counts = build_run_report(hbm_journal)["counts"]
    assert (counts["actions"], counts["actions_skipped"], counts["actions_watch"]) == (taken, skipped, quiet)
    assert counts["steps"] == taken + skipped + quiet == sum(len(i["actions"]) for i in hbm_journal["incidents"])
    md = render_run_report(hbm_journal, "md")
    assert f"| {taken} taken, {skipped} skipped, {quiet} watch/wait |" in md
    html = render_run_report(hbm_journal, "html")
    assert f'data-key="actions" data-value="{taken}"' in html and "Actions taken" in html


def test_a_manual_run_counts_a_person_noticing_as_no_action() -> None:
    from opsbrain.report.response import step_kind

    assert step_kind({"action": "detect", "status": "succeeded", "kind": "manual"}) == "watch"
    assert step_kind({"action": "restart_job", "status": "succeeded", "kind": "step"}) == "taken"
    assert step_kind({"action": "restart_job", "status": "failed", "kind": "step"}) == "taken"  # tried: taken
    assert step_kind({"action": "guardrail", "status": "skipped", "kind": "guardrail"}) == "skipped"
    assert step_kind({"action": "sibling_link", "status": "succeeded", "kind": "guardrail"}) == "watch"


@pytest.mark.parametrize(("fmt", "name"), [("md", "r.json"), ("json", "r.md"), ("html", "r.json"), ("md", "r.HTML")])
def test_a_format_the_out_suffix_contradicts_is_refused(hbm_journal: dict[str, Any], tmp_path: Path, fmt: str,
                                                         name: str) -> None:
    src = tmp_path / "j.json"
    src.write_text(json.dumps(hbm_journal))
    res = CliRunner().invoke(cli, ["report", str(src), "--format", fmt, "--out", str(tmp_path / name)])
    assert res.exit_code == 2, res.output
    assert f"--format {fmt}" in res.stderr and name in res.stderr and len(res.stderr.strip().splitlines()) == 1
    assert not (tmp_path / name).exists()


@pytest.mark.parametrize(("fmt", "name"), [("md", "r.md"), ("md", "r.txt"), ("json", "report"), ("html", "r.htm"),
                                           ("md", "-")])
def test_a_format_the_out_name_agrees_with_or_does_not_name_is_written(hbm_journal: dict[str, Any], tmp_path: Path,
                                                                        fmt: str, name: str) -> None:
    src = tmp_path / "j.json"
    src.write_text(json.dumps(hbm_journal))
    out = name if name == "-" else str(tmp_path / name)
    res = CliRunner().invoke(cli, ["report", str(src), "--format", fmt, "--out", out])
    assert res.exit_code == 0, res.output


def test_days_take_their_number() -> None:
    from opsbrain.report.text import count

    assert count(1.0, "day", spec="g") == "1 day"
    assert count(1, "day", spec="g") == "1 day"
    assert count(0.5, "day", spec="g") == "0.5 days"
    assert count(30.0, "day", spec="g") == "30 days"
    assert count("?", "day", spec="g") == "? days"


def test_a_one_day_campaign_says_1_day(tmp_path: Path) -> None:
    res = CliRunner().invoke(cli, ["chaos", "campaign", "--days", "1", "--seeds", "1", "--pods", "1",
                                   "--data-dir", str(tmp_path), "--no-journals"])
    assert res.exit_code in (0, 1), res.output
    assert " 1 day, " in res.stdout and "1 days" not in res.stdout
