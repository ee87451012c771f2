"""Session 36 (an operator's first day/night plan): cron names, expressions that never fire, rules that fire while
their group is mid-switch, a plan that runs no switch, and ``superpod run``'s exit code on a failed verdict."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.ops.cron import Cron, CronError
from opsbrain.ops.schedule_run import ScheduleSetup, run_schedule

SAT = datetime(2025, 3, 1)  # the twin's epoch, a Saturday


def _scenario(tmp_path: Path, schedule: dict, seeds: int = 1) -> str:
    doc = {"apiVersion": "opsbrain/v1", "kind": "ChaosScenario",
           "metadata": {"name": "ops36", "description": "session 36 schedule"},
           "spec": {"duration": 3600, "seed": 0, "superpod": {"seeds": seeds, "schedule": schedule}}}
    f = tmp_path / "s.yaml"
    f.write_text(yaml.safe_dump(doc))
    return str(f)


def _run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return r.exit_code, r.stdout, r.stderr


def test_day_and_month_names_as_crontab_takes_them() -> None:
    assert Cron.parse("0 22 * * mon-fri").weekdays == Cron.parse("0 22 * * 1-5").weekdays
    assert Cron.parse("0 22 * * SUN,sat").weekdays == frozenset({0, 6})
    assert Cron.parse("0 6 * jan,Dec *").months == frozenset({1, 12})
    assert Cron.parse("0 22 * * Mon").next_after(SAT) == datetime(2025, 3, 3, 22, 0)
    with pytest.raises(CronError, match="day of week"):
        Cron.parse("0 22 * * moonday")
    with pytest.raises(CronError, match="minute"):
        Cron.parse("mon 22 * * *")  # names only in the month and day-of-week fields


@pytest.mark.parametrize("expr", ["0 22 31 2 *", "0 22 30 2 *", "0 0 31 4,6,9,11 *"])
def test_an_expression_that_can_never_fire_is_refused_with_its_path(tmp_path: Path, expr: str) -> None:
    code, _out, err = _run("superpod", "run", _scenario(tmp_path, {"dusk": expr}), "--no-store")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    assert "s.yaml" in err and "spec.superpod.schedule.dusk" in err and "never fires" in err


def test_dusk_and_dawn_the_same_expression_is_refused(tmp_path: Path) -> None:
    code, _out, err = _run("superpod", "run", _scenario(tmp_path, {"dusk": "0 22 * * *", "dawn": "0 22 * * *"}),
                           "--no-store")
    assert code == 2 and "spec.superpod.schedule" in err and "same" in err and len(err.strip().splitlines()) == 1


def test_a_rule_firing_mid_switch_waits_for_it() -> None:
    """Dawn fires 2 min after dusk, while the group is still switching to training: the hand-back waits for the
    training switch to end (before: both ran at once, the instances started on nodes the job was starting on)."""
    out = run_schedule(ScheduleSetup(dusk="0 22 * * *", dawn="2 22 * * *", duration_s=86400.0), 0)
    assert out["switches"] == 2 and not out["failed"]
    assert out["waited"] == 1 and out["waited_s"][0] > 0
    ends = out["switch_spans"]
    assert ends[1][0] >= ends[0][1] - 1e-6  # the second switch began after the first ended
    clean = run_schedule(ScheduleSetup(duration_s=86400.0), 0)  # the same dusk, no dawn that day
    assert max(out["node_switch_s"]["training"]) == pytest.approx(max(clean["node_switch_s"]["training"]))


def test_a_plan_that_runs_no_switch_is_not_judged_on_the_switch_bound(tmp_path: Path) -> None:
    """Weekdays only, and the one-hour run falls on a Saturday: no switch. Before: 'p90 None s >= 300 s', FAILED."""
    code, out, _err = _run("superpod", "run", _scenario(tmp_path, {"dusk": "0,30 21,22 * * 1-5",
                                                                   "duration": 86400}), "--no-store")
    assert "None" not in out
    assert "no switch ran" in out and "INCONCLUSIVE" in out and code == 0


def test_a_failed_verdict_exits_1(tmp_path: Path) -> None:
    """The sequential switch misses the < 5 min bound on seed 0 (p90 356 s): verdict failed, exit 1 (before: 0)."""
    code, out, _err = _run("superpod", "run", _scenario(tmp_path, {"duration": 111600}), "--no-store")
    assert "verdict FAILED" in out and code == 1


def test_the_report_says_a_bound_was_not_judged(tmp_path: Path) -> None:
    """The stored run of a plan with no switch: its Bounds table says 'not judged' and why (before: 'NO')."""
    home = str(tmp_path / "home")
    code, out, _err = _run("superpod", "run", _scenario(tmp_path, {"dusk": "0 22 * * 1-5", "duration": 86400}),
                           "--data-dir", home, "--json")
    import json

    run_id = json.loads(out)["run_id"]
    md = tmp_path / "r.md"
    assert _run("report", run_id, "--out", str(md), "--data-dir", home)[0] == 0
    row = next(ln for ln in md.read_text().splitlines() if ln.startswith("| superpod.switch_p90"))
    assert "not judged" in row and "no switch ran" in row and "NO" not in row.split("|")[4]


def test_runs_show_reads_a_superpod_run(tmp_path: Path) -> None:
    """``runs show`` of any stored ``superpod run`` crashed (exit 70: its journal's steady state has no tolerance);
    it shows the run and the bound it could not judge."""
    import json

    home = str(tmp_path / "home")
    _code, out, _err = _run("superpod", "run", _scenario(tmp_path, {"dusk": "0 22 * * 1-5", "duration": 86400}),
                            "--data-dir", home, "--json")
    run_id = json.loads(out)["run_id"]
    r = CliRunner().invoke(cli, ["runs", "show", run_id, "--data-dir", home])
    assert r.exit_code == 0, (r.exit_code, r.stderr, r.exception)
    assert "not judged" in r.stdout and "no switch ran" in r.stdout
