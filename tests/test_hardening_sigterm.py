"""SIGTERM stops the long-running commands within 5 s, whatever is in flight (issue 18): a chaos run, a campaign
with its worker processes, and ``chaos replay --run``. Nothing finished is lost, the run in flight is recorded as
interrupted, no worker outlives the command, and the store's integrity_check is ok.

(The sweep service and ``watch`` have their own stop logic and tests: tests/test_service.py, tests/test_watch.py.)
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
STOP_BOUND_S = 5.0  # the contract: stopped within 5 s of SIGTERM (on an otherwise idle machine)
START_TIMEOUT_S = 120.0  # reason: a loaded 2-core machine may take this long to reach the work in flight


def _children(pid: int) -> set[int]:
    """Every descendant pid of ``pid`` (from /proc; empty where /proc has no children files)."""
    out: set[int] = set()
    todo = [pid]
    while todo:
        p = todo.pop()
        for task in Path(f"/proc/{p}/task").glob("*"):
            try:
                kids = {int(x) for x in (task / "children").read_text().split()}
            except OSError:
                continue
            todo.extend(kids - out)
            out |= kids
    return out


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _store_has_running(home: Path) -> bool:
    db = home / "runs.sqlite"
    if not db.exists():
        return False
    try:
        with sqlite3.connect(db, timeout=1) as con:
            return con.execute("SELECT COUNT(*) FROM runs WHERE status='running'").fetchone()[0] > 0
    except sqlite3.Error:
        return False


def check_stops_on_sigterm(cmd: list[str], home: Path, started: object) -> tuple[float, int, set[int]]:
    """Start ``cmd``, wait until ``started()`` is true, send SIGTERM; return (seconds to exit, exit code, the
    descendants it had)."""
    env = os.environ | {"OPSBRAIN_HOME": str(home)}
    proc = subprocess.Popen([sys.executable, "-m", "opsbrain", *cmd], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    deadline = time.monotonic() + START_TIMEOUT_S
    while not started() and time.monotonic() < deadline:  # type: ignore[operator]
        assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
        time.sleep(0.1)
    assert started(), "the command never reached its work"  # type: ignore[operator]
    kids = _children(proc.pid)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGTERM)
    _out, err = proc.communicate(timeout=60)
    elapsed = time.monotonic() - t0
    assert "Traceback" not in err.decode(), err.decode()
    return elapsed, proc.returncode, kids


def within_bound(elapsed: float) -> bool:
    """``elapsed`` is within the 5 s bound, stretched by how oversubscribed the cores were meanwhile (a process
    gets 1/load of a core on a loaded machine; on an idle one, as in CI, the bound is 5 s)."""
    load = os.getloadavg()[0] / (os.cpu_count() or 1)
    return elapsed < STOP_BOUND_S * max(1.0, load)


def _long_scenario(tmp_path: Path) -> Path:
    doc = yaml.safe_load((REPO / "scenarios" / "hbm-uce-training.yaml").read_text())
    doc["spec"]["duration"] = 30 * 86400  # far longer than the test waits
    path = tmp_path / "long.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def _running_for(home: Path, seconds: float) -> object:
    """A ``started`` test: the store has had a running run for ``seconds``."""
    first: dict[str, float] = {}

    def started() -> bool:
        if "t" not in first and _store_has_running(home):
            first["t"] = time.monotonic()
        return "t" in first and time.monotonic() - first["t"] >= seconds

    return started


@pytest.mark.parametrize("after_s", [0.0, 12.0])
def test_sigterm_stops_a_chaos_run_and_records_it_interrupted(tmp_path: Path, after_s: float) -> None:
    """At once (setting up: the row says interrupted) and in flight (the journal of the partial run is kept)."""
    from opsbrain.store import RunStore

    elapsed, code, _ = check_stops_on_sigterm(["chaos", "run", str(_long_scenario(tmp_path)), "--json"], tmp_path,
                                              _running_for(tmp_path, after_s))
    assert within_bound(elapsed) and code == 143, elapsed
    store = RunStore(tmp_path)
    runs = store.list_runs(10)
    assert [r["status"] for r in runs] == ["interrupted"] and store.integrity_check() == "ok"
    journal = store.get_journal(runs[0]["id"])
    if after_s:
        assert journal is not None and journal["status"] == "interrupted" and journal["ended_at_s"] > 0


def test_sigterm_stops_a_campaign_and_its_workers(tmp_path: Path) -> None:
    workers: dict[str, set[int]] = {"seen": set()}

    def started() -> bool:
        # the campaign's pool is up once the command has child processes (ProcessPoolExecutor workers)
        procs = [p for p in Path("/proc").glob("[0-9]*") if _cmd_has(p, str(tmp_path))]
        workers["seen"] = {int(p.name) for p in procs}
        return len(workers["seen"]) >= 2

    cmd = ["chaos", "campaign", "--pods", "1", "--days", "60", "--seeds", "4", "--workers", "2", "--no-journals",
           "--data-dir", str(tmp_path), "--json"]
    elapsed, code, kids = check_stops_on_sigterm(cmd, tmp_path, started)
    assert within_bound(elapsed) and code == 130, elapsed
    assert kids, "the campaign ran no worker processes"
    deadline = time.monotonic() + 3 * STOP_BOUND_S
    while any(_alive(k) for k in kids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [k for k in kids if _alive(k)], "a campaign worker outlived the command"
    from opsbrain.store import RunStore

    assert RunStore(tmp_path).integrity_check() == "ok"


def _cmd_has(proc_dir: Path, needle: str) -> bool:
    """Whether a process is this test's command (its parent's command line names the test's home)."""
    try:
        if needle in (proc_dir / "cmdline").read_bytes().decode(errors="replace"):
            return True
        ppid = int((proc_dir / "stat").read_text().rsplit(")", 1)[1].split()[1])
        return needle in Path(f"/proc/{ppid}/cmdline").read_bytes().decode(errors="replace")
    except (OSError, ValueError, IndexError):
        return False


def test_sigterm_stops_a_replay_run(tmp_path: Path) -> None:
    from opsbrain.store import RunStore

    trace = REPO / "tests" / "data" / "traces" / "infinitehbd_like.json"
    elapsed, code, _ = check_stops_on_sigterm(["chaos", "replay", str(trace), "--run", "--json"], tmp_path,
                                              _running_for(tmp_path, 8.0))
    assert within_bound(elapsed) and code == 143, elapsed
    store = RunStore(tmp_path)
    assert [r["status"] for r in store.list_runs(10)] == ["interrupted"] and store.integrity_check() == "ok"
