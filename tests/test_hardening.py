"""Regression tests of issue 18 (hardening): each defect the hostile-user pass found, one test or more.

Commands run through the CLI in-process (``run``) or, where a signal or a second process matters, as a
subprocess. Every refusal must be exit 2 with exactly one stderr line, never a traceback.
"""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from click.testing import CliRunner

from opsbrain.cli import cli

REPO = Path(__file__).resolve().parents[1]
BOMB = "".join(["a: &a [x, x, x, x, x, x, x, x, x]\n"] + [
    f"{c}: &{c} [{', '.join([f'*{p}'] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi", strict=True)])


def run(args: list[str], home: Path, timeout: float = 60.0) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of the CLI in-process; a traceback fails the test."""
    t0 = time.monotonic()
    res = CliRunner().invoke(cli, args, env={"OPSBRAIN_HOME": str(home)}, catch_exceptions=True)
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert time.monotonic() - t0 < timeout
    assert "Traceback" not in res.stderr
    return res.exit_code, res.stdout, res.stderr


def check_refused(args: list[str], home: Path, *needles: str) -> str:
    """Assert exit 2 with one stderr line containing every needle; return the line."""
    code, _out, err = run(args, home)
    lines = [x for x in err.splitlines() if x.strip()]
    assert code == 2 and len(lines) == 1, (code, err)
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


@pytest.fixture(scope="module")
def journal_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real run's journal (a short built-in scenario) and a run store holding it."""
    from opsbrain import chaos
    from opsbrain.store import RunStore

    home = tmp_path_factory.mktemp("home")
    j = chaos.run(chaos.plan("hbm-uce-training"), store=RunStore(home), home=home)
    path = home / "journal.json"
    path.write_text(json.dumps(j))
    return path


# ---- output policy: report --out / topology --export-graphml ----------------------------------------------------
@pytest.mark.parametrize("cmd", ["report", "topology"])
def test_outputs_never_replace_the_run_store_links_devices_or_package_data(cmd: str, journal_file: Path,
                                                                         tmp_path: Path) -> None:
    home = journal_file.parent
    store = home / "runs.sqlite"
    before = store.read_bytes()

    def args(target: str) -> list[str]:
        if cmd == "report":
            return ["report", json.loads(journal_file.read_text())["run_id"], "--out", target, "--format", "md"]
        return ["topology", "--export-graphml", target]

    opt = "--out" if cmd == "report" else "--export-graphml"
    check_refused(args(str(store)), home, opt, "SQLite database")
    link = tmp_path / "link.md"
    link.symlink_to(tmp_path / "elsewhere.md")
    check_refused(args(str(link)), home, "symlink")
    check_refused(args("/dev/null"), home, "not a regular file")
    check_refused(args(str(tmp_path / ".." / "x.md")), home, "'..'")
    check_refused(args(str(REPO / "knowledge_base" / "classes" / "x.md")), home, "inside the installed package")
    check_refused(args(str(REPO / "opsbrain" / "cli" / "base.py")), home, "inside the installed package")
    assert store.read_bytes() == before and link.is_symlink() and not (tmp_path / "elsewhere.md").exists()
    code, out, _ = run(["runs", "list", "--json"], home)
    assert code == 0 and json.loads(out)["runs"]
    # --force replaces a database (a copy here), never a link
    copy = tmp_path / "copy.sqlite"
    copy.write_bytes(before)
    assert run([*args(str(copy)), "--force"], home)[0] == 0 and not copy.read_bytes().startswith(b"SQLite")
    check_refused([*args(str(link)), "--force"], home, "symlink")


def test_fsio_refuses_non_regular_targets_before_writing(tmp_path: Path) -> None:
    from opsbrain.errors import InputError
    from opsbrain.fsio import write_atomic

    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        write_atomic(fifo, b"x")
    with pytest.raises(InputError, match="directory"):
        write_atomic(tmp_path, b"x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo"]  # no temporary left behind


# ---- model + sidecar as one unit ----------------------------------------------------------------------------------
def _tiny_model(n: int) -> Any:
    from opsbrain.diagnosis.model import DiagnosisModel

    model = DiagnosisModel.__new__(DiagnosisModel)
    model.arrays = {"x": np.arange(n)}
    model.meta = {"n": n}
    return model


def test_model_and_sidecar_stay_a_pair_whatever_step_is_interrupted(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A crash after each step of the save leaves a loadable, matching pair (the old one or the new one)."""
    from opsbrain.diagnosis import model as mod

    path = tmp_path / "m.npz"
    _tiny_model(3).save(path)
    real_replace = os.replace
    for crash_after in range(4):  # 0..3 os.replace calls (2 staged writes + 2 moves) succeed, then a "kill"
        calls = {"n": 0}

        def flaky(a: Any, b: Any, _calls: dict[str, int] = calls, _limit: int = crash_after) -> None:
            if _calls["n"] >= _limit:
                raise KeyboardInterrupt  # stands for the kill: nothing after this step runs
            _calls["n"] += 1
            real_replace(a, b)

        monkeypatch.setattr(os, "replace", flaky)
        with pytest.raises(KeyboardInterrupt):
            _tiny_model(10 + crash_after).save(path)
        monkeypatch.setattr(os, "replace", real_replace)
        data, meta = mod.load_pair(path)
        with np.load(__import__("io").BytesIO(data)) as z:
            assert len(z["x"]) == meta["n"]  # arrays and sidecar belong together
        _tiny_model(3).save(path)  # a clean save afterwards


def test_kb_train_refuses_an_out_that_would_be_its_own_sidecar(tmp_path: Path) -> None:
    check_refused(["kb", "train", "--out", str(tmp_path / "model.json")], tmp_path, "--out", ".npz")
    check_refused(["kb", "train", "--out", str(REPO / "knowledge_base" / "model" / "other.npz")], tmp_path,
            "inside the installed package")


# ---- run store ----------------------------------------------------------------------------------------------------
def test_run_ids_are_allocated_atomically_under_concurrent_writers(tmp_path: Path) -> None:
    """Two processes start 20 runs each of the same scenario and seed in the same seconds: 40 stored."""
    code = ("import sys; from opsbrain.store import RunStore; s = RunStore(sys.argv[1])\n"
            "for _ in range(20):\n"
            "    rid = s.begin_run('same', 7, 'auto'); s.finish(rid, {'verdict': 'passed', 'incidents': []})\n")
    procs = [subprocess.Popen([sys.executable, "-c", code, str(tmp_path)]) for _ in range(2)]
    assert [p.wait(60) for p in procs] == [0, 0]
    from opsbrain.store import RunStore

    store = RunStore(tmp_path)
    runs = store.list_runs(100)
    assert len(runs) == 40 and len({r["id"] for r in runs}) == 40 and {r["status"] for r in runs} == {"finished"}
    assert store.integrity_check() == "ok"


def test_two_concurrent_chaos_runs_of_the_same_seed_are_both_stored(tmp_path: Path) -> None:
    env = os.environ | {"OPSBRAIN_HOME": str(tmp_path)}
    f = tmp_path / "short.yaml"  # the built-in run cut to 15 simulated minutes (its fault is at 10 min)
    f.write_text(yaml.safe_dump(_scenario(duration=900)))
    cmd = [sys.executable, "-m", "opsbrain", "chaos", "run", str(f), "--seed", "3", "--json"]
    procs = [subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for _ in range(2)]
    errs = [p.communicate(timeout=240)[1].decode() for p in procs]
    assert all("Traceback" not in e for e in errs) and {p.returncode for p in procs} <= {0, 1}, errs
    from opsbrain.store import RunStore

    runs = RunStore(tmp_path).list_runs()
    assert len(runs) == 2 and {r["status"] for r in runs} == {"finished"}


def test_a_corrupt_store_gives_one_line_and_a_recovery_hint(tmp_path: Path) -> None:
    (tmp_path / "runs.sqlite").write_bytes(b"this is not a database" * 100)
    line = check_refused(["runs", "list"], tmp_path, "runs.sqlite", "move it aside")
    assert len(line) < 500


def test_a_store_that_is_a_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "runs.sqlite").mkdir()
    check_refused(["runs", "list"], tmp_path, "not a regular file")


def test_run_store_errors_from_sqlite_are_one_line(tmp_path: Path) -> None:
    from opsbrain.store import RunStore, StoreError

    store = RunStore(tmp_path)
    with sqlite3.connect(store.path) as db:  # damage the schema: a later query fails inside SQLite
        db.execute("DROP TABLE runs")
    with pytest.raises(StoreError, match="run store error"):
        store.list_runs()


# ---- imported regexes ---------------------------------------------------------------------------------------------
def _kg(entries: dict[str, str]) -> dict[str, Any]:
    return {"knowledge-repository": {eid: {"attribute": {"cause_en": f"cause of {eid}"}, "regex": {"regex": rx}}
                                     for eid, rx in entries.items()}}


def test_kb_import_refuses_regexes_that_backtrack_and_names_them(tmp_path: Path) -> None:
    kg = tmp_path / "kg.json"
    bad = {"NESTED": r"(\w+\s?)+$", "ALT": r"(a|aa)+$", "POLY": r".*a.*b", "BACKREF": r"(x)\1"}
    kg.write_text(json.dumps(_kg({**bad, "GOOD": r"qingtian: .{0,20}heartbeat lost"})))
    code, out, _ = run(["kb", "import", "mindcluster-kg", str(kg), "--data-dir", str(tmp_path), "--json"], tmp_path)
    rep = json.loads(out)
    assert code == 0 and rep["imported"] == 1 and rep["refused"] == 4
    refused_ids = {i for ids in rep["refused_reasons"].values() for i in ids}
    assert refused_ids == set(bad)
    # diagnosis with the import stays fast on a line that would make the refused patterns backtrack
    logs = tmp_path / "x.log"
    logs.write_text(("a" * 3000 + "!\n") * 5 + "qingtian: x heartbeat lost\n")
    t0 = time.monotonic()
    code, out, _ = run(["diagnose", "--logs", str(logs), "--data-dir", str(tmp_path), "--json"], tmp_path)
    assert code == 0 and time.monotonic() - t0 < 20


def test_saferegex_accepts_the_vendor_patterns() -> None:
    from opsbrain.kb.saferegex import regex_problem

    for rx in ["enqueFailCnt=0, dequeFailCnt=[1-9]", r"[EWI][A-Z0-9][0-9]{4}[):]",
               r"^\[ERROR].{0,40}PID.{0,15}Device.{0,10}RankID.{0,15}ERR", r"MIE[0-9A-Za-z]{2}E[0-9A-Za-z]{6}"]:
        assert regex_problem(rx) is None, rx
    assert "nested" in str(regex_problem(r"(a+)+b")) and "look-around" in str(regex_problem(r"(?=a)b"))


def test_saferegex_times_polynomial_backtracking_in_cpu_time() -> None:
    """``.*a.*b`` passes the structural checks; the probe (CPU time, so machine load cannot refuse safe ones)
    catches it in bounded time."""
    from opsbrain.kb.saferegex import regex_problem

    t0 = time.thread_time()
    assert "too slow" in str(regex_problem(r".*a.*b"))
    assert time.thread_time() - t0 < 2.0


# ---- the one input reader: YAML bombs, depth, non-regular files ---------------------------------------------------
def _scenario(**spec: Any) -> dict[str, Any]:
    doc = yaml.safe_load((REPO / "scenarios" / "hbm-uce-training.yaml").read_text())
    doc["spec"].update(spec)
    return doc


@pytest.mark.parametrize("cmd", [["chaos", "validate"], ["chaos", "run", "--dry-run"]])
def test_scenario_bounds_refuse_values_that_hang(cmd: list[str], tmp_path: Path) -> None:
    f = tmp_path / "s.yaml"
    for spec, needle in [({"topology": {"pods": 1, "spares": 9e18}}, "spares"),
                         ({"topology": {"pods": 1, "spares": 9_000_000_000_000_000_000}}, "spares"),
                         ({"sweeps": {"enabled": True, "interval": 1e-6}}, "sweeps"),
                         ({"seed": 2**63}, "seed"), ({"duration": float("inf")}, "duration")]:
        f.write_text(yaml.safe_dump(_scenario(**spec)))
        check_refused([cmd[0], cmd[1], str(f), *cmd[2:]], tmp_path, str(f), needle)


def test_alias_bombs_are_refused_everywhere(tmp_path: Path) -> None:
    doc = yaml.safe_dump(_scenario())
    bombed = doc.replace("spec:\n", "bomb: &x0 [1]\n" + BOMB.replace("a: &a", "zz: &a") + "spec:\n", 1)
    f = tmp_path / "s.yaml"
    f.write_text(bombed)
    check_refused(["chaos", "validate", str(f)], tmp_path, str(f), "alias")
    kb = tmp_path / "kb"
    kb.mkdir()
    for c in (REPO / "knowledge_base" / "classes").glob("*.yaml"):
        (kb / c.name).write_text(c.read_text())
    (kb / "hbm_uce.yaml").write_text(BOMB + (REPO / "knowledge_base/classes/hbm_uce.yaml").read_text())
    code, _, err = run(["kb", "validate", str(kb)], tmp_path)  # validate lists every error, one line each
    assert code == 2 and "hbm_uce.yaml" in err.splitlines()[0] and "alias" in err.splitlines()[0]


def test_bomb_inside_fault_params_is_refused(tmp_path: Path) -> None:
    text = yaml.safe_dump(_scenario())
    lines = ["l0: &l0 [x, x, x, x, x, x, x, x, x, x]"] + [
        f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]" for i in range(1, 9)]
    f = tmp_path / "s.yaml"
    f.write_text("\n".join(lines) + "\n" + text.replace("  faults:\n  - ", "  faults:\n  - params: *l8\n    ", 1))
    check_refused(["chaos", "run", str(f), "--dry-run"], tmp_path, str(f))


def test_deep_nesting_is_refused_not_a_crash(tmp_path: Path) -> None:
    for name, text in [("deep.yaml", "[" * 200_000 + "]" * 200_000), ("deep2.yaml", "a:\n" + "".join(
            " " * (2 * i + 2) + f"k{i}:\n" for i in range(200)))]:
        f = tmp_path / name
        f.write_text(text)
        check_refused(["chaos", "validate", str(f)], tmp_path, name, "nest")
    j = tmp_path / "deep.json"
    j.write_text('{"lines": ' + "[" * 100_000 + "]" * 100_000 + "}")
    check_refused(["diagnose", str(j)], tmp_path, "deep.json", "nested too deeply")
    check_refused(["report", str(j), "--out", "-"], tmp_path, "deep.json", "nested too deeply")


def test_fifos_and_devices_are_refused_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    check_refused(["chaos", "validate", str(fifo)], tmp_path, "not a regular file")
    check_refused(["chaos", "validate", "/dev/zero"], tmp_path, "/dev/zero", "not a regular file")
    check_refused(["diagnose", "/dev/zero"], tmp_path, "/dev/zero", "not a regular file")
    check_refused(["report", "/dev/zero", "--out", "-"], tmp_path, "not a regular file")
    check_refused(["kb", "import", "mindcluster-kg", str(fifo)], tmp_path, "not a regular file")


# ---- replay and the sweep service ---------------------------------------------------------------------------------
def test_replay_run_refuses_a_fault_beyond_the_longest_run(tmp_path: Path) -> None:
    trace = tmp_path / "t.json"
    trace.write_text(json.dumps([{"node_id": "n1", "event_time": 1e30, "event_type": "fault_start",
                                  "fault_type": {"Level": "Hardware Failure", "Class": "GPU",
                                                 "Desc": "GPU DBE(Double Bit ECC) > Threshold"}}]))
    check_refused(["chaos", "replay", str(trace), "--run"], tmp_path, "t.json", "beyond the replay bound")


def test_sweep_service_stops_within_5_s_of_sigterm_at_a_huge_speed(tmp_path: Path) -> None:
    env = os.environ | {"OPSBRAIN_HOME": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "opsbrain", "sweep", "run", "--scenario", "noise-only-day",
                             "--interval", "1s", "--speed", "1000000", "--json"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and proc.poll() is None:  # wait until it sweeps (its schedule is stored)
        try:
            with sqlite3.connect(tmp_path / "runs.sqlite") as db:
                if db.execute("SELECT COUNT(*) FROM sweeps").fetchone()[0]:
                    break
        except sqlite3.Error:
            pass
        time.sleep(0.3)
    time.sleep(1.0)  # a sweep catching up on simulated days is in flight now
    t0 = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert time.monotonic() - t0 < 5.0 and proc.returncode == 0, err.decode()[-500:]
    assert json.loads(out)["stopped_by"] == "SIGTERM"


def test_sweep_service_honours_max_runtime_at_a_huge_speed(tmp_path: Path) -> None:
    t0 = time.monotonic()
    code, out, _ = run(["sweep", "run", "--scenario", "noise-only-day", "--interval", "1s", "--speed", "1000000",
                        "--max-runtime", "3", "--json"], tmp_path)
    assert code == 0 and json.loads(out)["stopped_by"] == "max-runtime"
    assert time.monotonic() - t0 < 3 + 5 + 30  # start-up (world building) + the 5 s stop bound


# ---- option bounds ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("args,needle", [
    (["chaos", "run", "hbm-uce-training", "--dry-run", "--seed", str(2**63)], "--seed"),
    (["chaos", "replay", "x.json", "--seed", "-1"], "--seed"),
    (["runs", "list", "--limit", str(2**64)], "--limit"),
    (["sweep", "run", "--scenario", "noise-only-day", "--interval", "999999999999d"], "--interval"),
    (["sweep", "run", "--scenario", "noise-only-day", "--interval", "0.000001s"], "--interval"),
    (["sweep", "run", "--scenario", "noise-only-day", "--max-runtime", "inf"], "--max-runtime"),
    (["sweep", "run", "--scenario", "noise-only-day", "--max-runtime", "nan"], "--max-runtime"),
    (["sweep", "run", "--scenario", "noise-only-day", "--speed", "1e300"], "--speed"),
    (["kb", "eval", "--noise-days", "nan"], "--noise-days"),
    (["kb", "eval", "--noise-days", "inf"], "--noise-days"),
    (["sweep", "once", "--at", "nan"], "--at"),
    (["chaos", "campaign", "--days", "nan"], "--days"),
    (["chaos", "run", "../../no-such-scenario"], "built-in scenario name"),
    (["chaos", "run", "../scenarios/hbm-uce-training"], "built-in scenario name"),
])
def test_option_values_out_of_bounds_are_one_line(args: list[str], needle: str, tmp_path: Path) -> None:
    check_refused(args, tmp_path, needle)


def test_error_lines_cap_the_echoed_value(tmp_path: Path) -> None:
    line = check_refused(["chaos", "run", "x" * 46_000], tmp_path)
    assert len(line) < 1200
    f = tmp_path / "s.yaml"
    f.write_text(yaml.safe_dump(_scenario(faults=[{"at": 1, "kind": "y" * 46_000, "target": "node0"}])))
    assert len(check_refused(["chaos", "validate", str(f)], tmp_path, str(f))) < 1200


# ---- reports ------------------------------------------------------------------------------------------------------
def _journal(journal_file: Path) -> dict[str, Any]:
    return dict(json.loads(journal_file.read_text()))


@pytest.mark.parametrize("damage,where", [
    (lambda j: j.update(incidents=[1.5]), "incidents[0]"),
    (lambda j: j["incidents"][0].update(injected=[1]), "incidents[0].injected"),
    (lambda j: j["incidents"][0].update(diagnosis="x"), "incidents[0].diagnosis"),
    (lambda j: j["incidents"][0].update(actions=[None]), "incidents[0].actions[0]"),
    (lambda j: j["incidents"][0].update(ttr_s="soon"), "incidents[0].ttr_s"),
    (lambda j: j["steady_state"].update(baseline=[1]), "steady_state.baseline"),
    (lambda j: j.update(steady_state=[]), "steady_state"),
    (lambda j: j.update(summary="x"), "summary"),
    (lambda j: j.update(workloads=[3]), "workloads[0]"),
])
def test_malformed_journals_are_one_line_naming_the_path(damage: Any, where: str, journal_file: Path,
                                                         tmp_path: Path) -> None:
    j = _journal(journal_file)
    damage(j)
    f = tmp_path / "j.json"
    f.write_text(json.dumps(j))
    for out in ("-", str(tmp_path / "r.html")):
        check_refused(["report", str(f), "--out", out] + (["--format", "md"] if out == "-" else []), tmp_path,
                "j.json", where)


def test_reports_escape_what_came_from_the_journal(journal_file: Path, tmp_path: Path) -> None:
    j = _journal(journal_file)
    evil = "<script>alert(1)</script>[click](javascript:alert(1))"
    j["description"] = evil
    j["incidents"][0]["diagnosis"]["evidence"] = [evil]
    f = tmp_path / "j.json"
    f.write_text(json.dumps(j))
    code, md, _ = run(["report", str(f), "--out", "-", "--format", "md"], tmp_path)
    outside_code = md.split("`")[::2]  # code spans show text literally: raw HTML there is harmless
    assert code == 0 and "&lt;script&gt;" in md
    assert not any("<script>" in p or re.search(r"(?<!\\)\]\(javascript", p) for p in outside_code)
    assert run(["report", str(f), "--out", str(tmp_path / "r.html")], tmp_path)[0] == 0
    assert "<script>alert" not in (tmp_path / "r.html").read_text()


def test_json_output_is_strict() -> None:
    from opsbrain.fsio import strict_json

    text = strict_json({"a": float("nan"), "b": [float("inf"), 1.5], "c": (float("-inf"),)})
    assert json.loads(text) == {"a": None, "b": [None, 1.5], "c": [None]}
    assert "NaN" not in text and "Infinity" not in text


def test_journal_with_nan_is_refused(journal_file: Path, tmp_path: Path) -> None:
    f = tmp_path / "j.json"
    f.write_text(journal_file.read_text().replace('"seed": ', '"seed": NaN, "x": ', 1))
    check_refused(["report", str(f), "--out", "-"], tmp_path, "j.json", "NaN")


def test_incident_files_with_non_string_fields_are_refused(tmp_path: Path) -> None:
    for key in ("level", "origin", "source"):
        f = tmp_path / f"{key}.json"
        f.write_text(json.dumps({"lines": [{"text": "hbm uce", key: {"x": [1]}}]}))
        check_refused(["diagnose", str(f)], tmp_path, f.name, f"lines[0].{key}")


def test_numbers_beyond_a_float_or_64_bits_are_refused_by_the_reader(tmp_path: Path) -> None:
    """Found by the fuzz run (seed 2): a 400-digit integer overflowed float() in diagnose and in replay."""
    inc = tmp_path / "inc.json"
    inc.write_text('{"lines": [{"t": ' + "9" * 400 + ', "text": "hbm uce"}]}')
    check_refused(["diagnose", str(inc)], tmp_path, "inc.json", "out of range")
    trace = tmp_path / "t.json"
    trace.write_text('[{"node_id": "n", "event_time": ' + "9" * 400 + ', "event_type": "fault_start", '
                     '"fault_type": {"Level": "x", "Class": "GPU", "Desc": "d"}}]')
    check_refused(["chaos", "replay", str(trace)], tmp_path, "t.json", "out of range")
    big = tmp_path / "f.json"
    big.write_text("[1e400]")
    check_refused(["report", str(big), "--out", "-"], tmp_path, "f.json", "out of range")


def test_a_key_given_twice_is_refused_not_silently_replaced(tmp_path: Path) -> None:
    """A scenario whose ``spec:`` (or any key) is repeated ran with the last one, a whole spec of defaults, exit 0;
    an incident file whose ``lines`` is repeated diagnosed the empty one (session 25). Now both are refused."""
    doc = yaml.safe_dump(_scenario())
    f = tmp_path / "dup.yaml"
    f.write_text(doc + "spec: {}\n")
    for cmd in (["chaos", "validate", str(f)], ["chaos", "run", str(f), "--dry-run"]):
        check_refused(cmd, tmp_path, str(f), "'spec' given twice", "line ")
    inc = tmp_path / "inc.json"
    inc.write_text('{"lines": ["HBM MULTI BIT ECC, Uncorrectable ECC, device_id=3"], "lines": []}')
    check_refused(["diagnose", str(inc)], tmp_path, str(inc), "'lines' given twice")
    merged = tmp_path / "merge.yaml"  # a YAML merge key overriding a key is no repetition
    merged.write_text("base: &b {x: 1, y: 2}\nother:\n  <<: *b\n  x: 3\n")
    from opsbrain.yamlio import read_yaml

    assert read_yaml(merged)["other"] == {"x": 3, "y": 2}


def test_a_directory_deeper_than_the_limit_is_cut_not_a_crash(tmp_path: Path) -> None:
    """``os.walk`` recurses: 1,000 nested directories overflowed Python's stack under ``--logs`` and ``watch``
    (exit 70, session 25). The walk stops at MAX_DIR_DEPTH and says so."""
    from opsbrain.ingest.dirwalk import MAX_DIR_DEPTH

    d = tmp_path / "deep"
    (d / "top.log").parent.mkdir()
    (d / "top.log").write_text("[ERROR] HCCL(1,python):2025-06-19-09:37:24.000.000 [x.cc:1] [1]Transport init error\n")
    p = os.fspath(d)
    for _ in range(MAX_DIR_DEPTH + 36):  # deeper than the cut (1,000 crashed; pytest's own clean-up recurses too)
        p = os.path.join(p, "d")
        os.mkdir(p)
    code, out, err = run(["diagnose", "--logs", str(d)], tmp_path)
    assert code == 0 and "Traceback" not in err and f"deeper than {MAX_DIR_DEPTH} directory levels" in out


def test_a_report_of_a_journal_with_an_incomplete_ticket(journal_file: Path, tmp_path: Path) -> None:
    """An open ticket without its keys made the HTML report's template fail (exit 70, session 25); the report
    prints what the ticket has."""
    d = json.loads(journal_file.read_text())
    d.setdefault("recovery", {})["open_tickets"] = [{}, {"component": "pod0/node1"}]
    j = tmp_path / "tk.json"
    j.write_text(json.dumps(d))
    code, _out, err = run(["report", str(j), "--format", "html", "--out", str(tmp_path / "r.html")], tmp_path)
    assert code == 0 and "Traceback" not in err and "pod0/node1" in (tmp_path / "r.html").read_text()


@pytest.mark.parametrize("rows", ["n1,1,fault_start,GPU Lost,extra\n",
                                  "n1,1,fault_start,GPU Lost\nn1,2,fault_start,GPU Lost,x,y\n"])
def test_a_trace_row_with_more_fields_than_its_header(rows: str, tmp_path: Path) -> None:
    """pandas took the first column for an index when every row had one field more (exit 70, session 25); such a
    row is refused by its number, with one line."""
    f = tmp_path / "t.csv"
    f.write_text("node_id,event_time,event_type,desc\n" + rows)
    check_refused(["chaos", "replay", str(f)], tmp_path, str(f), "row ")


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="no /proc here")
def test_a_kernel_pseudo_file_is_refused_not_a_hang(tmp_path: Path) -> None:
    """``/proc/kmsg`` is a regular file whose read blocks (as root ``diagnose --logs /proc/kmsg`` hung, session 25)."""
    for path in ("/proc/kmsg", "/proc", "/sys/kernel"):
        check_refused(["diagnose", "--logs", path], tmp_path, path, "pseudo-file")


def test_selectors_that_expand_past_the_fault_limit_are_refused(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """``mode: all`` items expand to every matching component: 10,000 of them on a 64-pod fleet passed the schema
    and grew past memory (session 25). The expansion is bounded (here the bound set to 500: one pod's 384 HBMs
    twice is over it)."""
    from faultlib.injection import selectors

    monkeypatch.setattr(selectors, "MAX_SCRIPTED_FAULTS", 500)
    doc = _scenario(expectations=[])
    doc["spec"]["faults"] = [{"at": 600 + i, "kind": "hbm_uce", "selector": {"kind": "hbm"}, "mode": "all"}
                             for i in range(3)]
    f = tmp_path / "sel.yaml"
    f.write_text(yaml.safe_dump(doc))
    check_refused(["chaos", "validate", str(f)], tmp_path, str(f), "spec.faults[1]", "more than 500 scripted faults")


@pytest.mark.parametrize(("scenario", "old", "new", "needle"), [
    ("tenant-slices", "diagnosed: pod0/node27/npu3/hbm", "diagnosed: garbage", "diagnosed 'garbage'"),
    ("tenant-slices", "target: pod0/node12", "target: pod0/node5/npu3/hbm", "fault kind node_crash targets node"),
    ("elastic-decode-autoscale", "      budget_npus: 736\n", "      budget_npus: 736\n      policies: []\n",
     "policies"),
])
def test_superpod_blocks_that_failed_mid_run_are_refused_by_validate(scenario: str, old: str, new: str, needle: str,
                                                                     tmp_path: Path) -> None:
    """Each passed ``chaos validate`` and then failed in ``superpod run`` with exit 70 (session 25)."""
    text = (REPO / "scenarios" / f"{scenario}.yaml").read_text()
    assert old in text
    f = tmp_path / "s.yaml"
    f.write_text(text.replace(old, new, 1))
    check_refused(["chaos", "validate", str(f)], tmp_path, str(f), needle)


def test_sweeps_more_often_than_the_trend_history_allows_are_refused(tmp_path: Path) -> None:
    """A sweep costs in proportion to the sweeps in its trend window: a 0.12 s interval passed and would have run
    for hours (session 25)."""
    f = tmp_path / "s.yaml"
    f.write_text(yaml.safe_dump(_scenario(sweeps={"enabled": True, "interval": 6})))
    check_refused(["chaos", "validate", str(f)], tmp_path, str(f), "spec.sweeps.interval", "30")


def test_a_superpod_block_refused_only_when_it_runs_names_its_file(tmp_path: Path) -> None:
    """A dusk every minute passes the schema; the schedule then cannot place its nodes. The one line names the file
    and the block (before: ``error: serve/decode3: node pod0/node26 is in use``, no file)."""
    text = (REPO / "scenarios" / "day-night-switch.yaml").read_text()
    f = tmp_path / "dn.yaml"
    f.write_text(text.replace("dusk: '0 22 * * *'", "dusk: '* * * * *'", 1))
    check_refused(["superpod", "run", str(f), "--seeds", "1", "--no-store"], tmp_path, str(f), "spec.superpod")


def test_an_inference_layout_past_the_fleet_is_refused_before_its_node_list(tmp_path: Path) -> None:
    """Each layout field is bounded, but their product was not: 3,072 x 3,072 prefill nodes built a 9-million-name
    list (786 MB, 2.5 s) before the first missing node was found (session 25's review). Refused from the count."""
    doc = yaml.safe_load((REPO / "scenarios" / "aicore-hang-training.yaml").read_text())
    for w in doc["spec"]["workloads"]:
        if w["kind"] == "inference":
            w["params"] = {"prefill_instances": 3072, "prefill_nodes_per_instance": 3072}
    f = tmp_path / "prod.yaml"
    f.write_text(yaml.safe_dump(doc))
    check_refused(["chaos", "validate", str(f)], tmp_path, str(f), "spec.workloads[0]", "needs 9437204 nodes")


def test_yaml_scalars_follow_the_core_schema_and_booleans_are_no_numbers(tmp_path: Path) -> None:
    """``duration: true`` ran a 1-second scenario and ``at: 10:00`` (YAML 1.1's base 60) was 600 s, exit 0
    (session 25's leftovers). Both are refused with their path; ``no`` and a key ``on`` are words; a bare fault
    code stays a string."""
    doc = yaml.safe_dump(_scenario())
    for old, new, where, why in [("duration: ", "duration: true #", "spec.duration", "got 'true'"),
                                 ("- at: ", "- at: '10:00' #", "spec.faults[0].at", "got '10:00'")]:
        assert old in doc
        f = tmp_path / "s.yaml"
        f.write_text(doc.replace(old, new, 1).replace("'10:00'", "10:00"))
        check_refused(["chaos", "validate", str(f)], tmp_path, f"{where}: ", why)
    from opsbrain.yamlio import read_yaml

    f = tmp_path / "core.yaml"
    f.write_text("a: 1.0e+3\nb: 10:00\non: no\nd: 0x10\ne: 80E01801\nf: True\ng: 1e3\n")
    assert read_yaml(f) == {"a": 1000.0, "b": "10:00", "on": "no", "d": 16, "e": "80E01801", "f": True, "g": "1e3"}
