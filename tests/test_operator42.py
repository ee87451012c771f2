"""Session 42, an operator's run-through of the documented workflows (operator42): a regression test per defect."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from opsbrain.cli import cli


def _stopped_rerun(monkeypatch: pytest.MonkeyPatch, status: str = "interrupted") -> None:
    """``chaos.run`` as a re-run stopped by Ctrl-C leaves it: its bundle written up to the stop, the journal
    marked interrupted (opsbrain.runner.run catches the KeyboardInterrupt and journals what ran)."""
    from opsbrain import chaos

    def fake_run(plan: Any, bundle_dir: Path | None = None, **_: Any) -> dict[str, Any]:
        assert bundle_dir is not None
        (bundle_dir / "b0001").mkdir()
        (bundle_dir / "b0001" / "messages").write_text("cut here\n")
        (bundle_dir / "b0001.sim.json").write_text("{}")
        return {"status": status, "verdict": "aborted", "bundles": [
            {"incident": "f0001", "bundle": "b0001", "path": str(bundle_dir / "b0001"), "files": 1, "lines": 1}],
            "incidents": [{"id": "f0001", "injected": {"kind": "node_crash", "component": "pod0/node38"}}]}

    monkeypatch.setattr(chaos, "plan", lambda *a, **k: object())
    monkeypatch.setattr(chaos, "run", fake_run)


JOURNAL = {"run_id": "r1", "scenario": "node-crash-training", "seed": 7, "policy": "auto",
           "incidents": [{"id": "f0001", "injected": {"kind": "node_crash", "component": "pod0/node38"}}]}


def test_runs_bundle_stopped_rerun_writes_no_cut_bundle(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Ctrl-C during `runs bundle`'s re-run: before, the re-run's bundles (logs up to the stop) were moved into
    place and the command said "reproduced the stored journal", exit 0; now nothing is left and it is an
    interruption (KeyboardInterrupt: exit 130, or 143 after SIGTERM)."""
    from opsbrain.bundle.writer import regenerate

    _stopped_rerun(monkeypatch)
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        regenerate(JOURNAL, out)
    assert not out.exists()  # the directory the command made is gone again, with the cut bundle
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "other.txt").write_text("x")
    with pytest.raises(KeyboardInterrupt):
        regenerate(JOURNAL, kept)
    assert sorted(p.name for p in kept.iterdir()) == ["other.txt"]  # an operator's directory stays, as it was


def test_runs_bundle_finished_rerun_still_moves_bundles(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from opsbrain.bundle.writer import regenerate

    _stopped_rerun(monkeypatch, status="finished")
    rep = regenerate(JOURNAL, tmp_path / "out")
    assert rep["reproduced"] and sorted(p.name for p in (tmp_path / "out").iterdir()) == ["b0001", "b0001.sim.json"]


def test_cli_runs_bundle_stopped_exits_130(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from opsbrain.store import RunStore

    home = tmp_path / "home"
    store = RunStore(home)
    run_id = store.begin_run("node-crash-training", 7, "auto")
    store.finish(run_id, {**JOURNAL, "run_id": run_id, "verdict": "passed", "status": "finished"})
    _stopped_rerun(monkeypatch)
    res = CliRunner().invoke(cli, ["runs", "bundle", run_id, "--out", str(tmp_path / "out"), "--data-dir", str(home)])
    assert res.exit_code == 130, res.output
    assert "reproduced" not in res.output and not (tmp_path / "out").exists()


def _quiet(policy: str) -> dict[str, Any]:
    return {"policy": policy, "scenario": "campaign-llama3-1pod-0p2d", "seed": 0, "incidents": []}


def test_campaign_report_without_faults_does_not_deny_its_manual_runs() -> None:
    """A `chaos campaign --policy both` of a few quiet hours injects no fault; its report said "No manual-policy runs
    in this campaign" beside a table listing them. Now it says why there is nothing to compare."""
    from opsbrain.report import build_campaign_report, render

    m = build_campaign_report([_quiet("auto"), _quiet("manual")])
    md = render(m, "md")
    assert "No manual-policy runs" not in md
    assert "No fault was injected in the manual-policy runs" in md
    assert "No manual-policy runs" in render(build_campaign_report([_quiet("auto"), _quiet("auto")]), "md")
    assert "Every run in this campaign is manual" in render(build_campaign_report([_quiet("manual")]), "md")


@pytest.mark.parametrize("args, said", [
    (["diagnose", "--bundle", "{missing}"], "no such file or directory"),
    (["diagnose", "--bundle", "{missing}.tar.gz"], "no such file or directory"),
    (["watch", "--logs", "{missing}", "--max-runtime", "1"], "no such directory"),
    (["sweep", "once", "--source", "commands", "--dir", "{missing}"], "no such directory"),
])
def test_a_missing_path_is_said_missing(args: list[str], said: str, tmp_path: Path) -> None:
    """A typo in a path was "not a directory or an archive (...)" (`--bundle`) or "not a directory" (`watch --logs`,
    `sweep --dir`), while `diagnose --logs` of the same typo says "no such file": now each says the path is not
    there, one line, exit 2."""
    missing = str(tmp_path / "colected_logs")
    res = CliRunner().invoke(cli, [a.replace("{missing}", missing) for a in args]
                             + ["--data-dir", str(tmp_path / "home")])
    assert res.exit_code == 2, res.output
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0] and "colected_logs" in lines[0], lines


def test_commands_source_names_the_commands_a_check_missed(tmp_path: Path) -> None:
    """`sweep once --source commands` of a host with `npu-smi info` only said of its optical checks "no
    npu_chip_info_optical_rx_power_0..3 ... series with a value": npu-exporter's names, to an operator who collected
    command outputs. Now the command to collect is named. The table is written for this test in `npu-smi info`'s
    layout (the layout's sources: docs/real-cluster.md, "Collected command outputs -> checks")."""
    from opsbrain.sources.commands import COMMAND_COVERS, COMMAND_FEEDS, CommandDirSource
    from opsbrain.sweeps.params import SweepParams

    assert set(COMMAND_FEEDS) == set(COMMAND_COVERS)
    host = tmp_path / "coll" / "worker-3"
    host.mkdir(parents=True)
    (host / "npu.txt").write_text(
        "root@worker-3:~# npu-smi info\n"
        "+===========================+===============+====================================================+\n"
        "| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|\n"
        "| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |\n"
        "+===========================+===============+====================================================+\n"
        "| 0     910B3               | OK            | 93.5        45                0    / 0             |\n"
        "| 0                         | 0000:C1:00.0  | 0           0    / 0          3339 / 65536         |\n"
        "+===========================+===============+====================================================+\n")
    src = CommandDirSource(tmp_path / "coll")
    src.snapshot(SweepParams())
    not_fed = src.coverage()["not_fed"]
    assert "dom_rx" in not_fed and "hbm_uce" in not_fed, not_fed
    assert not any("series" in why or "npu_chip" in why for why in not_fed.values()), not_fed
    assert "hccn_tool -i N -optical -g" in not_fed["dom_rx"] and "npu-smi info -i N -t ecc" in not_fed["hbm_uce"]


def _leaf_commands() -> dict[str, set[str]]:
    import importlib

    import click

    from opsbrain.cli.base import COMMAND_MODULES

    for m in set(COMMAND_MODULES.values()):
        importlib.import_module(f"opsbrain.cli.{m}")
    out: dict[str, set[str]] = {}

    def walk(c: click.Command, path: list[str]) -> None:
        if isinstance(c, click.Group):
            for n, sub in c.commands.items():
                walk(sub, [*path, n])
        else:
            out[" ".join(path)] = {o for p in c.params for o in getattr(p, "opts", [])}
    walk(cli, [])
    return out


def test_readme_names_the_commands_that_take_output() -> None:
    """README said "Every reporting command takes --output table|plain|json"; `diagnose`, `report`, `watch` and others
    take `--json` only (`diagnose --output plain`: "No such option"). README now lists the ones that take it."""
    import re

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    m = re.search(r"The commands that print tables \((.*?)\) take `--output", readme, re.S)
    assert m, "README no longer names the commands that take --output"
    named: set[str] = set()
    for item in re.findall(r"`([^`]+)`", m.group(1)):
        head, _, alts = item.rpartition(" ")
        named |= {f"{head} {a}".strip() for a in alts.split("|")}
    cmds = _leaf_commands()
    assert named == {c for c, opts in cmds.items() if "--output" in opts}
    assert all("--json" in opts for c, opts in cmds.items() if c not in ("chaos schema",))


def test_runs_bundle_of_a_stopped_run_says_the_rerun_went_further(monkeypatch: pytest.MonkeyPatch,
                                                                   tmp_path: Path) -> None:
    """`runs bundle` of a run stopped by Ctrl-C at 9300 s of 10800 s re-ran it to the end and said only "reproduced
    the stored journal": its bundles may hold lines the stored run never reached. Now a note says so."""
    from opsbrain.bundle.writer import regenerate

    _stopped_rerun(monkeypatch, status="finished")
    stopped = {**JOURNAL, "status": "interrupted", "verdict": "aborted", "ended_at_s": 9300.0,
               "abort_reason": "interrupted by the operator"}
    import opsbrain.chaos as chaos
    real = chaos.run
    monkeypatch.setattr(chaos, "run", lambda plan, **k: {**real(plan, **k), "ended_at_s": 10800.0})
    rep = regenerate(stopped, tmp_path / "out")
    assert rep["reproduced"] and len(rep["notes"]) == 1 and "t=9300 s" in rep["notes"][0]
    assert not regenerate(JOURNAL, tmp_path / "out2")["notes"]  # a finished run: nothing to say


@pytest.mark.parametrize("twin_opt", [["--scenario", "noise-only-day"], ["--at", "3600"]])
def test_sweep_once_real_source_refuses_twin_options_at_their_default(twin_opt: list[str], tmp_path: Path) -> None:
    """`sweep once --scenario noise-only-day --source commands --dir D` swept D and ignored --scenario without a word
    (it equals the default), while `--scenario other` was refused: a given twin option is refused whatever its
    value."""
    (tmp_path / "coll").mkdir()
    res = CliRunner().invoke(cli, ["sweep", "once", *twin_opt, "--source", "commands", "--dir", str(tmp_path / "coll"),
                                   "--data-dir", str(tmp_path / "home")])
    assert res.exit_code == 2 and "belong to --source twin" in res.stderr, res.output


def test_watch_summary_counts_one_webhook_error_in_the_singular(tmp_path: Path) -> None:
    """The stop summary said "1 webhook errors". The two lines are written for this test in the style of the Ascend
    driver's kernel log (a heartbeat loss and a fault event with the HBM UCE code); any incident would do."""
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    (tmp_path / "logs" / "node-7").mkdir(parents=True)
    (tmp_path / "logs" / "node-7" / "kern.log").write_text(
        "[ 8812.441201] [ascend] [ERROR] [devdrv] [devdrv_heart_beat_check 512] <swapper/0:0> device 3 heartbeat "
        "lost, cnt=30\n[ 8812.441390] [ascend] [ERROR] [dms_module] [dms_event_report 301] device 3 report fault "
        "event, event_id=0x80E01801\n")
    res = CliRunner().invoke(cli, ["watch", "--logs", str(tmp_path / "logs"), "--from-start", "--max-runtime", "3",
                                   "--webhook", f"http://127.0.0.1:{port}/hook", "--data-dir", str(tmp_path / "home")])
    assert res.exit_code == 0, res.output
    assert "; 1 webhook error" in res.stderr and "1 webhook errors" not in res.stderr, res.stderr


def test_unwritable_cache_directory_is_said_once(tmp_path: Path) -> None:
    """`diagnose --data-dir D` with D read-only (a container's read-only home) printed five warnings, one per cache
    file, before its answer, at every run. Now one per directory; the rest go to debug."""
    import os
    import subprocess
    import sys

    home = tmp_path / "home"
    home.mkdir()
    (home / "cache").write_text("a file where the cache directory goes: every cache write fails")
    log = tmp_path / "x.log"
    log.write_text("[ 8812.441390] [ascend] [ERROR] [dms_module] [dms_event_report 301] device 3 report fault event, "
                   "event_id=0x80E01801\n")
    res = subprocess.run([sys.executable, "-m", "opsbrain", "diagnose", "--logs", str(log), "--data-dir", str(home)],
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    assert res.returncode == 0, res.stderr
    assert res.stderr.count("cache not written") == 1, res.stderr


def test_unmatched_glob_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """README's `diagnose --logs worker-*/process_log/run/plog/*.log` run where no file matches: the shell passes the
    pattern as it is, and the answer was "no such file", as of a typo. Now it says a pattern matched nothing."""
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(cli, ["diagnose", "--logs", "worker-*/process_log/run/plog/*.log",
                                   "--data-dir", str(tmp_path / "home")])
    assert res.exit_code == 2 and "a pattern no file matched" in res.stderr, res.output
    res = CliRunner().invoke(cli, ["diagnose", "--logs", "plog.log", "--data-dir", str(tmp_path / "home")])
    assert res.exit_code == 2 and "no such file" in res.stderr and "pattern" not in res.stderr, res.output


BAD_SCENARIO = """apiVersion: opsbrain/v1
kind: ChaosScenario
metadata: {name: three-mistakes, description: a link flaps}
spec:
  duration: "2h"
  topology: {pods: 1, spares: 2}
  workloads:
    - {name: train, kind: training, first_node: 32, nodes: 14}
  faults:
    - {at: 600, kind: link_flapp, target: pod0/node36/l1sw2~pod0/l2plane2/sw05}
  expectations:
    - {fault: 0, diagnosis: link_flap, ttr_max_s: -5}
"""


def test_chaos_run_dry_run_prints_every_error_of_a_file(tmp_path: Path) -> None:
    """README: `chaos run my-scenario.yaml --dry-run` validates and prints the plan. Of a file with three mistakes it
    printed the first only (fix, run again, next one), while `chaos validate` printed all three. Now both print all."""
    f = tmp_path / "s.yaml"
    f.write_text(BAD_SCENARIO)
    val = CliRunner().invoke(cli, ["chaos", "validate", str(f)])
    run = CliRunner().invoke(cli, ["chaos", "run", str(f), "--dry-run"])
    assert val.exit_code == run.exit_code == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 3 and all(ln.startswith("opsbrain: error: ") for ln in lines), run.stderr
    assert sorted(lines) == sorted(val.stderr.strip().splitlines())
