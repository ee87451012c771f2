"""kill -9 at random moments of a run, a model save and a vendor import (issue 18): no finished run lost, model
and sidecar always a matching pair, imports always loadable, the store's integrity_check ok.

A few moments each by default; ``OPSBRAIN_KILL_MOMENTS=50`` runs 50 per kind. Models: a process that saves models in
a loop (the save is what a kill can break) and the real ``kb train`` at its smallest size, killed at moments
drawn over its whole measured length.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
MOMENTS = int(os.environ.get("OPSBRAIN_KILL_MOMENTS", "3"))


def _kill_at(cmd: list[str], delay: float, env: dict[str, str] | None = None) -> None:
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
    proc.wait(30)


def test_kill_9_of_chaos_run_loses_no_finished_run(tmp_path: Path) -> None:
    from opsbrain.store import RunStore

    store = RunStore(tmp_path)
    kept = [store.begin_run("kept", k, "auto") for k in range(3)]
    for rid in kept:
        store.finish(rid, {"verdict": "passed", "incidents": [], "run_id": rid})
    doc = yaml.safe_load((REPO / "scenarios" / "hbm-uce-training.yaml").read_text())
    doc["spec"]["duration"] = 900
    scenario = tmp_path / "short.yaml"
    scenario.write_text(yaml.safe_dump(doc))
    env = os.environ | {"OPSBRAIN_HOME": str(tmp_path)}
    rng = random.Random(18)
    for _ in range(MOMENTS):
        _kill_at([sys.executable, "-m", "opsbrain", "chaos", "run", str(scenario), "--json"], rng.uniform(0.3, 8.0),
                 env)
        after = RunStore(tmp_path)  # notices the dead run and marks it interrupted
        assert after.integrity_check() == "ok"
        runs = after.list_runs(1000)
        assert {r["id"] for r in runs} >= set(kept)
        for r in runs:
            assert r["status"] in ("finished", "interrupted"), r
            if r["status"] == "finished":
                assert after.get_journal(r["id"]) is not None


SAVER = """
import sys, numpy as np
from pathlib import Path
from opsbrain.diagnosis.model import DiagnosisModel
path = Path(sys.argv[1])
i = 0
while True:
    m = DiagnosisModel.__new__(DiagnosisModel)
    m.arrays = {"x": np.arange(1000 + i % 7)}
    m.meta = {"n": 1000 + i % 7}
    m.save(path)
    i += 1
"""


def test_kill_9_during_model_saves_leaves_a_matching_pair(tmp_path: Path) -> None:
    import io

    import numpy as np

    from opsbrain.diagnosis.model import load_pair

    path = tmp_path / "m.npz"
    rng = random.Random(19)
    for _ in range(MOMENTS * 2):
        _kill_at([sys.executable, "-c", SAVER, str(path)], rng.uniform(0.6, 2.0))
        if not path.exists() and not (tmp_path / ".m.npz.new").exists():
            continue  # killed before the first save finished
        data, meta = load_pair(path)
        with np.load(io.BytesIO(data)) as z:
            assert len(z["x"]) == meta["n"]


IMPORTER = """
import sys
from opsbrain.kb import kb_import
while True:
    kb_import("mindcluster-kg", sys.argv[1], data_dir=sys.argv[2])
    kb_import("mindcluster-faultcode", sys.argv[3], data_dir=sys.argv[2])
"""


def test_kill_9_during_imports_leaves_loadable_imports(tmp_path: Path) -> None:
    from opsbrain.kb import load_imported

    fixtures = REPO / "tests" / "fixtures" / "vendor_small"
    rng = random.Random(20)
    imports = tmp_path / "imports"
    for _ in range(MOMENTS * 2):
        _kill_at([sys.executable, "-c", IMPORTER, str(fixtures / "kg_good.json"), str(imports),
                  str(fixtures / "faultcode_good.json")], rng.uniform(0.5, 2.5))
        loaded = load_imported(imports, strict=True)  # raises on a damaged file
        for f in imports.glob("*.json"):
            json.loads(f.read_text())
        assert loaded.warnings == []


POOL = """
import os, sys, time
from concurrent.futures import ProcessPoolExecutor
from opsbrain.workers import init_worker
def work(x):
    time.sleep(0.5)
    return x
if __name__ == "__main__":
    with ProcessPoolExecutor(2, initializer=init_worker, initargs=(os.getpid(),)) as ex:
        futures = [ex.submit(work, i) for i in range(2)]
        print(" ".join(str(p) for p in ex._processes), flush=True)
        list(ex.map(work, range(1000)))
"""


def test_kill_9_of_a_training_pool_leaves_no_orphaned_workers(tmp_path: Path) -> None:
    """The case-run pool of kb train (opsbrain.kb.cases) dies with its parent."""
    script = tmp_path / "pool.py"
    script.write_text(POOL)
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    workers = [int(p) for p in proc.stdout.readline().split()]
    assert len(workers) == 2
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    deadline = time.monotonic() + 10
    alive = workers
    while alive and time.monotonic() < deadline:
        time.sleep(0.2)
        alive = [p for p in workers if _running(p)]
    assert alive == []


def _running(pid: int) -> bool:
    """Is ``pid`` a live (not zombie) process?"""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def test_kill_9_of_the_sweep_service_leaves_a_sound_store(tmp_path: Path) -> None:
    """The service is killed while it sweeps (a huge speed keeps a sweep in flight): the store checks ok, the
    stored sweeps read back, and the schedule is still there to resume."""
    import sqlite3

    from opsbrain.store import RunStore

    env = os.environ | {"OPSBRAIN_HOME": str(tmp_path)}
    proc = subprocess.Popen([sys.executable, "-m", "opsbrain", "sweep", "run", "--scenario", "noise-only-day",
                             "--interval", "1s", "--speed", "100000"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    swept = 0
    while time.monotonic() < deadline and proc.poll() is None and not swept:
        time.sleep(0.3)
        try:
            with sqlite3.connect(tmp_path / "runs.sqlite") as db:
                swept = db.execute("SELECT COUNT(*) FROM sweeps").fetchone()[0]
        except sqlite3.Error:
            pass
    time.sleep(random.Random(21).uniform(0.2, 2.0))
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    store = RunStore(tmp_path)
    assert swept and store.integrity_check() == "ok"
    assert store.list_sweeps() and store.get_schedule("sweep-noise-only-day") is not None


def test_kill_9_of_kb_train_keeps_a_matching_model_pair(tmp_path: Path) -> None:
    """The real ``kb train`` (smallest size), killed at random moments of its whole length: the model written by
    the first, complete training stays a matching pair after every kill (the old pair or a new one), and a
    training after the kills still succeeds (no damaged case cache)."""
    import io

    import numpy as np

    from opsbrain.diagnosis.model import DiagnosisModel, load_pair

    out = tmp_path / "m.npz"
    env = os.environ | {"OPSBRAIN_HOME": str(tmp_path / "home")}
    cmd = [sys.executable, "-m", "opsbrain", "kb", "train", "--runs-per-class", "2", "--workers", "2",
           "--out", str(out), "--force"]
    t0 = time.monotonic()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=1800)
    length = time.monotonic() - t0

    def check_pair() -> None:
        data, meta = load_pair(out)  # raises when the arrays do not match the sidecar's digest
        with np.load(io.BytesIO(data)) as z:
            assert meta["cases"] > 0 and len(z.files) > 0
        DiagnosisModel.load(out, meta["kb_hash"])  # and it loads as a model

    check_pair()
    rng = random.Random(21)
    for _ in range(MOMENTS):
        _kill_at(cmd, rng.uniform(0.2, 1.05) * length, env)
        check_pair()
    subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=1800)
    check_pair()
