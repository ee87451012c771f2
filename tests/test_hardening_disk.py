"""A full disk (issue 18): every write that fails says so in one line (exit 2, no traceback), leaves no partial
file, and loses nothing that was stored before. The disk is a small tmpfs filled up; the tests skip where
mounting one is not allowed (not root, or no mount namespace rights).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
DISK_BYTES = 4 * 1024 * 1024  # reason: room for a run store with a few journals, small enough to fill at once


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    mnt = tmp_path / f"disk-{uuid.uuid4().hex[:8]}"
    mnt.mkdir()
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={DISK_BYTES}", "tmpfs", str(mnt)],
                         capture_output=True, text=True)
    if res.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {res.stderr.strip()[:100]}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def fill(disk: Path) -> Path:
    """Fill ``disk`` to the last block; return the filler (delete it to free the space)."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    try:
        for size in (65536, 4096, 1):  # big writes, then the last partial blocks
            with contextlib.suppress(OSError):
                while os.write(fd, b"\0" * size):
                    pass
    finally:
        os.close(fd)
    return filler


def cli(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"OPSBRAIN_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "opsbrain", *args], env=env, capture_output=True, text=True,
                          timeout=600)


def check_one_line_refusal(res: subprocess.CompletedProcess[str], *words: str) -> None:
    lines = res.stderr.strip().splitlines()
    assert res.returncode == 2, res.stderr[-2000:]
    assert len(lines) == 1 and lines[0].startswith("opsbrain: error:") and "Traceback" not in res.stderr, lines
    for w in words:
        assert w in lines[0], lines[0]


def _short_scenario(where: Path) -> Path:
    doc = yaml.safe_load((REPO / "scenarios" / "hbm-uce-training.yaml").read_text())
    doc["spec"]["duration"] = 900
    path = where / "short.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


def test_a_full_disk_refuses_a_run_and_keeps_the_stored_runs(small_disk: Path, tmp_path: Path) -> None:
    from opsbrain.store import RunStore

    scenario = _short_scenario(tmp_path)
    first = cli(["chaos", "run", str(scenario), "--json"], small_disk)
    assert first.returncode in (0, 1), first.stderr[-2000:]
    before = RunStore(small_disk).list_runs(10)
    assert len(before) == 1 and before[0]["status"] == "finished"
    filler = fill(small_disk)
    res = cli(["chaos", "run", str(scenario), "--json"], small_disk)
    check_one_line_refusal(res, "runs.sqlite", "disk")
    filler.unlink()
    after = RunStore(small_disk)
    assert after.integrity_check() == "ok"
    runs = {r["id"]: r for r in after.list_runs(10)}
    assert before[0]["id"] in runs and after.get_journal(before[0]["id"]) is not None
    assert all(r["status"] in ("finished", "interrupted") for r in runs.values())


def test_a_full_disk_refuses_a_report_and_leaves_no_partial_file(small_disk: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    run = cli(["chaos", "run", str(_short_scenario(tmp_path)), "--json"], home)
    assert run.returncode in (0, 1), run.stderr[-2000:]
    fill(small_disk)
    out = small_disk / "report.html"
    res = cli(["report", _latest(home), "--out", str(out)], home)
    check_one_line_refusal(res, str(out))
    assert not out.exists() and [p.name for p in small_disk.iterdir()] == ["filler"]


def _latest(home: Path) -> str:
    from opsbrain.store import RunStore

    return str(RunStore(home).list_runs(1)[0]["id"])


def test_a_full_disk_refuses_a_graphml_export(small_disk: Path) -> None:
    fill(small_disk)
    out = small_disk / "topology.graphml"
    res = cli(["topology", "--export-graphml", str(out)], small_disk / "..")
    check_one_line_refusal(res, str(out))
    assert not out.exists() and [p.name for p in small_disk.iterdir()] == ["filler"]


def test_a_model_save_on_a_full_disk_keeps_the_old_pair(small_disk: Path) -> None:
    import numpy as np

    from opsbrain.diagnosis.model import DiagnosisModel, load_pair

    path = small_disk / "m.npz"
    m = DiagnosisModel.__new__(DiagnosisModel)
    m.arrays, m.meta = {"x": np.arange(10)}, {"n": 10}
    m.save(path)
    fill(small_disk)
    m.arrays, m.meta = {"x": np.arange(200_000)}, {"n": 200_000}
    with pytest.raises(OSError):
        m.save(path)
    data, meta = load_pair(path)
    assert meta["n"] == 10
