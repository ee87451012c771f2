"""The walk of a directory given to ``--logs``: documentation and source files are named as not read, the kernel's
pseudo-file systems are not entered (session 26)."""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

from opsbrain.ingest import dirwalk
from opsbrain.ingest.streams import not_a_log
from opsbrain.ingest.text import TextStats
from opsbrain.ingest.textpaths import ingest_path


@pytest.mark.parametrize("name", ["README.md", "README", "LICENSE", "run.sh", "train.py", "topo.png", "x/notes.rst",
                                  "readme.txt"])
def test_documentation_and_source_are_no_logs(name: str) -> None:
    assert not_a_log(name)


@pytest.mark.parametrize("name", ["messages", "plog-1_2.log", "train.log.1", "npu_info_0.txt", "dmesg.txt.gz",
                                  "kg-config.json", "out.ipynb", "rank-3.log", "notice.log", "license.log", "x.a"])
def test_logs_are_read(name: str) -> None:
    assert not not_a_log(name)


HBM = "[ERROR] DRV(1,x):2025-03-01-10:03:20.400.000 [dms.c:1][dev3]fault event: event_id=0x80e01801, assertion=occur\n"


def test_a_readme_beside_the_logs_is_not_read(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("This job failed with an HBM multi-bit ECC error, 0x80e01801.\n")
    (tmp_path / "run.sh").write_text("export HCCL_EXEC_TIMEOUT=1800\n")
    (tmp_path / "device.log").write_text(HBM)
    signals, stats = ingest_path(str(tmp_path))
    assert {s.file for s in signals} == {"device.log"}
    assert stats.not_read == ["README.md and 1 other file: documentation, source code or pictures by their names, "
                              "not logs"]


def test_a_readme_inside_an_archive_is_not_read(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("0x80e01801 explained\n")
    (tmp_path / "device.log").write_text(HBM)
    with tarfile.open(tmp_path / "job.tgz", "w:gz") as tar:
        tar.add(tmp_path / "README.md", arcname="job/README.md")
        tar.add(tmp_path / "device.log", arcname="job/device.log")
    signals, stats = ingest_path(str(tmp_path / "job.tgz"))
    assert {s.file for s in signals} == {"job.tgz:job/device.log"}
    assert stats.not_read == ["job.tgz:job/README.md: documentation, source code or pictures by their names, not logs"]


def test_a_file_given_by_name_is_read_whatever_its_name(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text(HBM)
    assert ingest_path(str(tmp_path / "notes.md"))[0]


def test_pseudo_file_systems_are_not_entered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Standing in for ``--logs /``: the walk would read /proc/kmsg, which blocks for ever."""
    (tmp_path / "proc").mkdir()
    (tmp_path / "proc" / "kmsg").write_text(HBM)
    (tmp_path / "var").mkdir()
    (tmp_path / "var" / "messages").write_text(HBM)
    monkeypatch.setattr(dirwalk, "pseudo_mounts", lambda: frozenset({str(tmp_path / "proc")}))
    stats = TextStats()
    assert [rel for _p, rel in dirwalk.log_files(tmp_path, stats)] == ["var/messages"]
    assert stats.not_read == ["proc: a kernel pseudo-file system, not read"]


def test_a_name_holding_a_line_end_cannot_split_a_line_of_the_answer(tmp_path: Path) -> None:
    (tmp_path / "a\nb.log").write_text(HBM)
    signals, _stats = ingest_path(str(tmp_path))
    assert {s.file for s in signals} == {"a?b.log"}


def test_pseudo_file_systems_are_found_where_they_are_mounted() -> None:
    """A host's root bind-mounted at /host (a DaemonSet) has its /host/proc: found by type in /proc/self/mounts."""
    assert {"/proc", "/sys", "/dev"} <= dirwalk.pseudo_mounts()
    mounts = Path("/proc/self/mounts")
    procs = {row.split()[1] for row in mounts.read_text().splitlines() if row.split()[2:3] == ["proc"]} \
        if mounts.exists() else set()
    assert procs <= dirwalk.pseudo_mounts()


def test_the_twins_ground_truth_beside_its_bundles_is_not_read(tmp_path: Path) -> None:
    """``opsbrain runs bundle --out DIR`` writes DIR/f0001/ and, beside it, f0001.sim.json: the fault injected and
    the simulation's diagnosis (docs/bundles.md). ``diagnose --logs DIR`` read the sidecar as log text, so the
    ground truth's panic text became evidence (session 33, helper CC); a directory walk and an archive skip it."""
    (tmp_path / "f0001").mkdir()
    (tmp_path / "f0001" / "device.log").write_text(HBM)
    (tmp_path / "f0001.sim.json").write_text('{"injected": {"kind": "node_crash", "params": {"cause": '
                                             '"Kernel panic - not syncing: Fatal machine check"}}}\n')
    signals, stats = ingest_path(str(tmp_path))
    assert {s.file for s in signals} == {"f0001/device.log"}
    assert stats.not_read == ["f0001.sim.json: the twin's ground truth beside a bundle it wrote (docs/bundles.md), "
                              "not logs"]
    with tarfile.open(tmp_path / "b.tgz", "w:gz") as tar:
        tar.add(tmp_path / "f0001", arcname="f0001")
        tar.add(tmp_path / "f0001.sim.json", arcname="f0001.sim.json")
    signals, stats = ingest_path(str(tmp_path / "b.tgz"))
    assert {s.file for s in signals} == {"b.tgz:f0001/device.log"}
    assert stats.not_read == ["b.tgz:f0001.sim.json: the twin's ground truth beside a bundle it wrote "
                              "(docs/bundles.md), not logs"]
