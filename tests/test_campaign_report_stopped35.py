"""The report of a campaign stopped before its end says so (session 35): a campaign stopped by Ctrl-C after 1 of
its 8 runs was reported as "Campaign: 1 runs, 25 faults", read as a whole campaign; the summary's run counts were
dropped on the way to the report (the key ``runs`` was taken for a list of journals)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from opsbrain.cli import cli


def _run(args: list[str], home: Path) -> tuple[int, str, str]:
    res = CliRunner().invoke(cli, args, env={"OPSBRAIN_HOME": str(home)})
    return res.exit_code, res.stdout, res.stderr


@pytest.fixture(scope="module")
def campaign(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    home = tmp_path_factory.mktemp("camp")
    code, out, err = _run(["chaos", "campaign", "--days", "0.1", "--seeds", "2", "--workers", "1", "--json"], home)
    assert code == 0, err
    return home, json.loads(out)


@pytest.mark.parametrize("fmt", ["md", "html", "json"])
def test_a_stopped_campaign_says_how_many_of_its_runs_the_report_covers(campaign: tuple[Path, dict],
                                                                        fmt: str) -> None:
    home, summary = campaign
    stopped = summary | {"complete": False, "runs": summary["runs"] | {"total": 8}}
    src = home / "stopped.json"
    src.write_text(json.dumps(stopped))
    out = home / f"r.{fmt}"
    code, _, err = _run(["report", str(src), "--out", str(out)], home)
    assert code == 0, err
    text = " ".join(out.read_text().split())
    assert "2 of 8 runs" in text and "Stopped before its end: 2 of its 8 runs finished" in text


def test_a_whole_campaign_says_its_runs_alone(campaign: tuple[Path, dict]) -> None:
    home, summary = campaign
    out = home / "whole.md"
    code, _, err = _run(["report", summary["campaign"], "--out", str(out)], home)
    assert code == 0, err
    text = out.read_text()
    assert text.startswith("# Campaign: 2 runs,") and "Stopped before" not in text
