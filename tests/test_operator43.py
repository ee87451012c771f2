"""Session 43's operator run-through (operator43): what a reliability engineer hit on the operations side.

- A stop (Ctrl-C, SIGTERM) that comes after a chaos run's simulation ended, while the run is scored and stored, used
  to drop the complete journal: the run was stored ``interrupted`` with no journal. It is now held until the
  journal is stored, then honoured.
- ``chaos campaign --first-seed`` near the top of the seed range ran into SQLite's INTEGER and crashed (exit 70).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from opsbrain import chaos
from opsbrain.runner import run as runner_run
from opsbrain.store import RunStore

REPO = Path(__file__).resolve().parents[1]
SCENARIO = "hbm-uce-training"  # one hour, one fault: a few seconds


def _signal_after(monkeypatch: pytest.MonkeyPatch, target: Any, name: str, sig: int, times: int = 1) -> None:
    """Make ``target.name`` send ``sig`` to this process right after its first call returns (``times`` times; one
    stop: a second one while a stop is held abandons the run at once, polish43)."""
    original = getattr(target, name)
    calls = {"n": 0}

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        out = original(*args, **kwargs)
        calls["n"] += 1
        for _ in range(times if calls["n"] == 1 else 0):
            os.kill(os.getpid(), sig)
        return out

    monkeypatch.setattr(target, name, wrapped)


def _only_run(store: RunStore) -> dict[str, Any]:
    runs = store.list_runs()
    assert len(runs) == 1, runs
    return runs[0]


def test_ctrl_c_while_scoring_keeps_the_complete_journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C once the simulation has ended, during scoring: the run is stored finished with its journal (and
    written to --out), and only then is the stop honoured (KeyboardInterrupt)."""
    _signal_after(monkeypatch, runner_run, "score", signal.SIGINT)
    store = RunStore(tmp_path / "home")
    with pytest.raises(KeyboardInterrupt):
        chaos.run(chaos.plan(SCENARIO), store=store, out_dir=tmp_path / "out", home=tmp_path / "home")
    row = _only_run(store)
    assert row["status"] == "finished", row
    journal = store.get_journal(row["id"])
    assert journal is not None and journal["status"] == "finished"
    assert any(i.get("injected") for i in journal["incidents"])
    assert (tmp_path / "out" / f"{row['id']}.json").is_file()


def test_ctrl_c_while_storing_keeps_the_complete_journal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C while the journal goes into the run store (between its incidents and its status)."""
    import opsbrain.store as store_mod

    store = RunStore(tmp_path / "home")
    _signal_after(monkeypatch, store_mod, "is_noise", signal.SIGINT)  # called inside RunStore.finish's transaction
    with pytest.raises(KeyboardInterrupt):
        chaos.run(chaos.plan(SCENARIO), store=store, home=tmp_path / "home")
    row = _only_run(store)
    assert row["status"] == "finished", row
    assert store.get_journal(row["id"]) is not None


def test_second_ctrl_c_while_scoring_a_stopped_run_keeps_its_journal(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The impatient operator: Ctrl-C mid-simulation (the run journals itself as interrupted), then Ctrl-C again
    while that journal is being scored: the interrupted run's journal is still stored."""
    calls = {"n": 0}

    def progress(now: float, total: float) -> None:
        calls["n"] += 1
        if calls["n"] == 3:
            os.kill(os.getpid(), signal.SIGINT)

    _signal_after(monkeypatch, runner_run, "score", signal.SIGINT)
    store = RunStore(tmp_path / "home")
    with pytest.raises(KeyboardInterrupt):
        chaos.run(chaos.plan(SCENARIO), store=store, progress=progress, home=tmp_path / "home")
    row = _only_run(store)
    assert row["status"] == "interrupted", row
    journal = store.get_journal(row["id"])
    assert journal is not None and journal["status"] == "interrupted"


def test_signal_handlers_restored_after_a_run(tmp_path: Path) -> None:
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    chaos.run(chaos.plan(SCENARIO), store=RunStore(tmp_path / "home"), home=tmp_path / "home")
    assert {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)} == before


def _cli(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"OPSBRAIN_HOME": str(home), "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "opsbrain", *args], capture_output=True, text=True, env=env,
                          timeout=120, cwd=REPO)


@pytest.mark.parametrize("first", ["9223372036854775807", "9223372036854775808"])
def test_campaign_first_seed_past_the_seed_range_is_one_line(tmp_path: Path, first: str) -> None:
    res = _cli("chaos", "campaign", "--days", "0.01", "--seeds", "2", "--first-seed", first, "--workers", "1",
               home=tmp_path)
    assert res.returncode == 2, res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "--first-seed" in lines[0] and "internal error" not in lines[0], res.stderr
    assert not (tmp_path / "crashes").exists()


def test_campaign_stop_while_a_run_is_stored_keeps_its_resume_marker(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A stop between a campaign run's journal and its resume marker (two writes): both are kept, so a resume
    reuses the run instead of running and storing it a second time."""
    from opsbrain.campaign.runner import Options, run_campaign
    from opsbrain.campaign.spec import CampaignSpec

    _signal_after(monkeypatch, RunStore, "finish", signal.SIGINT)  # the journal is in; the marker comes next
    store = RunStore(tmp_path / "home")
    spec = CampaignSpec(days=0.02, seeds=1)
    out = run_campaign(spec, store, Options(workers=1), home=tmp_path / "home")
    assert out["complete"] is False  # the stop was honoured
    assert out["runs"]["finished"] == 1, out["runs"]
    assert len(store.campaign_records(spec.campaign_id)) == 1
    monkeypatch.undo()
    again = run_campaign(spec, store, Options(workers=1), home=tmp_path / "home")
    assert again["runs"]["reused"] == 1 and again["complete"] is True
    assert len(store.list_runs(campaign=spec.campaign_id)) == 1


def test_campaign_rerun_with_journals_stores_the_journals_a_no_journals_run_left_out(tmp_path: Path) -> None:
    """``chaos campaign --no-journals`` then the same campaign without it (to get reports): the runs kept without
    a journal run again and their journals are stored; before, all were reused and ``report CAMPAIGN_ID`` said the
    campaign kept no journals."""
    from opsbrain.campaign.runner import Options, run_campaign
    from opsbrain.campaign.spec import CampaignSpec

    store = RunStore(tmp_path / "home")
    spec = CampaignSpec(days=0.02, seeds=1)
    first = run_campaign(spec, store, Options(workers=1, keep_journals=False), home=tmp_path / "home")
    assert first["complete"] and not store.list_runs(campaign=spec.campaign_id)
    again = run_campaign(spec, store, Options(workers=1), home=tmp_path / "home")
    assert again["runs"]["reused"] == 0 and again["runs"]["ran_now"] == 1, again["runs"]
    (row,) = store.list_runs(campaign=spec.campaign_id)
    assert store.get_journal(row["id"]) is not None
    assert store.get_campaign(spec.campaign_id)["run_ids"] == [row["id"]]
    # the figures are the same seed's: the record stored again equals the first one but for its run id and timing
    assert ({k: v for k, v in first["by_policy"]["auto"].items() if k != "cost"}
            == {k: v for k, v in again["by_policy"]["auto"].items() if k != "cost"})  # cost: wall times
    # and a third time, with journals wanted, everything is reused
    third = run_campaign(spec, store, Options(workers=1), home=tmp_path / "home")
    assert third["runs"]["reused"] == 1


def test_report_response_column_says_which_steps_did_not_run(tmp_path: Path) -> None:
    """The one-line response of an incident not shown in detail named a skipped step as if it had run: the noise
    incident of hbm-uce-training (seed 7) read "drain link; restart the failed processes in place; ..." though the
    restart was skipped (no training job was down)."""
    from opsbrain.report import build_run_report, render

    journal = chaos.run(chaos.plan(SCENARIO), home=tmp_path / "home")
    model = build_run_report(journal)
    rest = [i for i in model["incidents"] if not i["detailed"]]
    not_run = [(i["id"], a) for i in rest for a in i["actions"] if a["status"] not in (None, "succeeded")]
    assert not_run, "the run has no skipped step in an incident outside the detail sections"
    md, html = render(model, "md"), render(model, "html")
    for inc_id, a in not_run:
        row = next(line for line in md.splitlines() if line.startswith(f"| {inc_id} |"))
        assert f"{a['words']} ({a['status']})" in row, row
        assert f"{a['words']} ({a['status']})" in html


def test_markdown_baseline_shows_the_impact_beside_the_manual_run(tmp_path: Path) -> None:
    """docs/reports.md: the per-fault manual baseline shows "ttd/ttdiag/ttr, human steps, actions and impact". The
    HTML did; the Markdown stopped at actions, so the NPU-seconds the manual policy lost were not in it."""
    from opsbrain.report import render_run_report
    from opsbrain.report.text import num

    ours = chaos.run(chaos.plan(SCENARIO), home=tmp_path / "home")
    manual = chaos.run(chaos.plan(SCENARIO, policy="manual"), home=tmp_path / "home")
    md = render_run_report(ours, "md", baseline=manual)
    fault = next(i for i in ours["incidents"] if i.get("injected"))
    theirs = next(i for i in manual["incidents"] if i.get("injected"))
    mine, base = fault["impact"]["train"]["lost_npu_s"], theirs["impact"]["train"]["lost_npu_s"]
    assert mine != base
    assert f"| train: NPU-seconds lost | {num(mine)} | {num(base)} |" in md, md


def test_a_run_still_going_is_said_to_be_running_not_unfinished(tmp_path: Path) -> None:
    """``runs show`` / ``report`` / ``runs bundle`` of a run another process is running said "the run did not
    finish" (read: it failed); they now say it is still running."""
    store = RunStore(tmp_path)
    run_id = store.begin_run(SCENARIO, 7, "auto")  # this (live) process holds it: status running
    show = _cli("runs", "show", run_id, home=tmp_path)
    assert show.returncode == 0 and "still running" in show.stdout, show
    rep = _cli("report", run_id, "--out", str(tmp_path / "r.md"), home=tmp_path)
    assert rep.returncode == 2 and "still running" in rep.stderr and len(rep.stderr.strip().splitlines()) == 1, rep
    bundle = _cli("runs", "bundle", run_id, "--out", str(tmp_path / "b"), home=tmp_path)
    assert bundle.returncode == 2 and "still running" in bundle.stderr, bundle
    assert "did not finish" not in show.stdout + rep.stderr + bundle.stderr
