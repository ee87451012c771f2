"""CANN's own log directory in the shapes CANN releases write it (session 41, bundle41).

- ``$HOME/ascend/log/{debug,run,security}/{plog,device-<id>}/``: the three levels of CANN's application logs, each
  with a ``plog`` and a ``device-<id>`` folder (CANN log reference, "查看日志（Ascend EP）", the directory tree:
  https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/910beta3/maintenref/logreference/logreference_0002.html).
- older CANN (5.0.x) without the level folders: ``$HOME/ascend/log/plog/plog-<pid>_*.log`` (CANN 5.0.4 log reference,
  https://www.hiascend.com/document/detail/zh/canncommercial/5046/troublemanagement/logreference/atlaslog_24_0005.html)
  and ``~/ascend/log/device-<id>/device-<pid>_<time>.log`` (MindSpore FAQ, mindspore-ai/docs
  docs/mindspore/source_zh_cn/faq/implement_problem.md, its ``grep -rn "enqueue data"`` example).
- the device side's own app logs, written there when they cannot be sent to the host:
  ``slog/{debug,run,security}/device-app-<pid>/device-app-<pid>_*.log`` (CANN log reference, Ascend RC:
  https://www.hiascend.com/document/detail/zh/canncommercial/80RC22/developmentguide/maintenref/logreference/logreference_0003.html),
  as msnpureport exports a device's slog (``<stamp>/slog/dev-os-<N>/...``).

Before session 41 each of these (but the levelled debug/run folders) was read as a job's console of a worker of its
own, named by its folder (``node-1/ascend/log/device-0``, ``.../ascend/log/security``), or skipped as unknown.

The lines: HCCL's socket-timeout line of ascend-fd's system-test plog (Ascend/mind-cluster
component/ascend-faultdiag/test/st_testcase/.../plog-10972_20230131024824126.log @22bb3d98) and a device-side AI CPU
line of the same test's device log (.../process_log/debug/device-0/device-10972_20230131024824126.log).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from opsbrain.bundle import layout as L
from opsbrain.bundle.reader import read_bundle
from opsbrain.ingest.workers import device_dir, host_root

PLOG = ("[ERROR] HCCL(10972,python3):2023-01-31-03:00:11.356.298 [exchanger_network.cc:237][10972][21499][Wait]"
        "[AllClientSocketEstab]errNo[0x000000000500000b] client : device[2] rank[2] get socket timeout, total[3] "
        "remain[3]\n")
DEVICE = ("[ERROR] AICPU(2312,aicpu_scheduler):2023-01-31-03:00:11.350.001 [aicpu_sharder.cc:120][tid:2400] "
          "ParallelFor failed\n")


def _write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


@pytest.mark.parametrize("rel, kind, pid", [
    ("node-1/ascend/log/security/plog/plog-10972_20230131024824126.log", L.PLOG, 10972),
    ("node-1/ascend/log/security/device-0/device-10972_20230131024824126.log", L.CANN_DEVICE, 10972),
    ("node-1/ascend/log/device-0/device-10972_20230131024824126.log", L.CANN_DEVICE, 10972),
    ("node-1/root/ascend/log/device-3/device-10972_20230131024824126.log", L.CANN_DEVICE, 10972),
    ("node-1/ascend/log/plog/plog-10972_20230131024824126.log", L.PLOG, 10972),
])
def test_cann_levels_and_the_flat_layout_are_the_workers_process_logs(rel: str, kind: str, pid: int) -> None:
    got = L.classify(rel)
    assert got is not None and got.kind == kind and got.pid == pid
    assert got.worker == "node-1"
    assert host_root(rel)[0] == "node-1"


def test_a_cann_device_folder_names_its_device() -> None:
    assert device_dir("node-1/ascend/log/device-3/device-10972_20230131024824126.log") == 3
    assert device_dir("node-1/ascend/log/security/device-5/device-10972_20230131024824126.log") == 5


@pytest.mark.parametrize("rel, device", [
    ("n/20250619092715/slog/dev-os-3/debug/device-app-10972/device-app-10972_20230131024824126.log", 3),
    ("n/20250619092715/slog/dev-os-3/security/device-os/device-os_20230131024824126.log", 3),
    ("n/var/log/npu/slog/run/device-app-10972/device-app-10972_20230131024824126.log", None),
])
def test_device_side_app_and_security_logs_are_device_logs(rel: str, device: int | None) -> None:
    got = L.classify(rel)
    assert got is not None and got.kind == L.DEVICE_OS and got.device == device
    assert got.worker == "n"


def test_a_bundle_of_cann_5_and_security_folders_is_one_host(tmp_path: Path) -> None:
    root = tmp_path / "b"
    _write(root, "node-1/ascend/log/plog/plog-10972_20230131024824126.log", PLOG)
    _write(root, "node-1/ascend/log/device-0/device-10972_20230131024824126.log", DEVICE)
    _write(root, "node-1/ascend/log/security/plog/plog-10972_20230131024824127.log", "")
    lines, rep = read_bundle(root)
    assert [w["dir"] for w in rep["workers"]] == ["node-1"]
    assert rep["read_as_console"] == []
    assert sum(1 for ln in lines if "get socket timeout" in ln.text) == 1
    assert sum(1 for ln in lines if "ParallelFor failed" in ln.text) == 1


def test_empty_files_are_named_not_passed_as_read(tmp_path: Path) -> None:
    """A collection that copied a host's syslog or a plog as a 0-byte file (rsyslog writing elsewhere, a copy that
    failed) left nothing to read there: the answer names it, as it names skipped files, so that "files read" is not
    taken for "syslog checked" (session 41; before, such files were counted as read and named nowhere)."""
    from click.testing import CliRunner

    from opsbrain.cli import cli

    root = tmp_path / "b"
    _write(root, "worker-0/process_log/debug/plog/plog-10972_20230131024824126.log", PLOG)
    _write(root, "worker-0/messages", "")
    _write(root, "worker-0/process_log/run/plog/plog-10973_20230131024824126.log", "\n\n")
    _, rep = read_bundle(root)
    assert rep["empty_files"] == ["worker-0/messages", "worker-0/process_log/run/plog/plog-10973_20230131024824126.log"]
    out = CliRunner().invoke(cli, ["diagnose", "--bundle", str(root)]).output
    assert "  empty worker-0/messages: no text in it" in out


def test_a_readme_above_the_workers_is_no_worker(tmp_path: Path) -> None:
    """A job folder above the collected workers holding the operator's README.txt (or the job's run.sh): a note, not
    a host's console. ``--logs DIR`` already skipped such files by name (``streams.not_a_log``); the bundle read
    README.txt as a job's console and made the job folder a worker of its own (session 41)."""
    root = tmp_path / "b"
    _write(root, "job-7f3a/collect/worker-0/process_log/debug/plog/plog-10972_20230131024824126.log", PLOG)
    _write(root, "job-7f3a/collect/worker-1/process_log/debug/plog/plog-10973_20230131024824126.log", PLOG)
    _write(root, "job-7f3a/README.txt", "collected for ticket 1234\n")
    _write(root, "job-7f3a/run.sh", "python train.py > train.log 2>&1\n")
    _, rep = read_bundle(root)
    assert sorted(w["dir"] for w in rep["workers"]) == ["job-7f3a/collect/worker-0", "job-7f3a/collect/worker-1"]
    assert rep["read_as_console"] == []
    assert {x["path"] for x in rep["skipped"]} >= {"job-7f3a/README.txt", "job-7f3a/run.sh"}


def test_a_worker_named_by_its_own_path_is_not_said_named_so_again(tmp_path: Path) -> None:
    """Workers whose paths share no head are named by their whole folder (``mid/node-z`` beside ``node-y``, as an
    archive inside an archive leaves them); the read summary said ``worker mid/node-z (named mid/node-z; ...)``."""
    from click.testing import CliRunner

    from opsbrain.cli import cli

    root = tmp_path / "b"
    _write(root, "mid/node-z/process_log/debug/plog/plog-10972_20230131024824126.log", PLOG)
    _write(root, "node-y/process_log/debug/plog/plog-10973_20230131024824126.log", PLOG)
    out = CliRunner().invoke(cli, ["diagnose", "--bundle", str(root)]).output
    assert "  worker mid/node-z" in out and "named mid/node-z" not in out


@pytest.mark.parametrize("rel", ["node-7/root/mindie/log/debug/mindie-ms_11_202411061400.log",
                                 "node-7/home/infer/mindie/log/security/mindie-llm_12_202411061400.log",
                                 "node-7/mindie/log/debug/mindie-ms_11_202411061400.log"])
def test_mindie_logs_copied_with_their_home_are_the_hosts(rel: str) -> None:
    """MindIE writes to ``~/mindie/log/{debug,security}/`` by default (MindIE log reference, "查看日志":
    https://www.hiascend.com/document/detail/zh/mindie/22RC1/ref/logreference/mindie_log_0206.html); copied with its
    home (``tar czf - /root/mindie/log``) the home is not the worker's name, as for CANN's ``ascend/log``."""
    got = L.classify(rel)
    assert got is not None and got.tag == "mindie" and got.worker == "node-7"
    assert host_root(rel)[0] == "node-7"
