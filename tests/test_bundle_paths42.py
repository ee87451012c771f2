"""Session 42 (bundle42): four ways a real collection's files were misread.

1. CANN 5.0 with ASCEND_PROCESS_LOG_PATH set writes ``<path>/plog/plog-<pid>_*.log`` and ``<path>/device-<id>/
   device-<pid>_*.log`` (the same two folders as below ``$HOME/ascend/log``; CANN 5.0.4 log reference, "日志文件获取":
   https://www.hiascend.com/document/detail/zh/canncommercial/5046/troublemanagement/logreference/atlaslog_24_0005.html;
   the variable: https://www.hiascend.com/document/detail/zh/canncommercial/5046/modeldev/tfmigr/tfmigr_000080.html).
   A job that sets it per rank leaves ``<host>/rank_<N>/device-<id>/``: the device log was a console and
   ``<host>/rank_0/device-0`` a worker of its own.
2. A note of no known name ending ``.log`` in a job folder above the workers (``job/collect.log`` beside
   ``job/worker-0/``, ``job/worker-1/``) made the job folder a worker.
3. Debian's rotated kernel ring buffer (``dmesg.0``, ``dmesg.1.gz``: ``savelog -q -p -c 5 /var/log/dmesg`` in
   sysvinit's debian/src/initscripts/etc/init.d/bootlogs, e.g. github.com/MX-Linux/sysvinit-init-diversity) was
   skipped as an unknown file.
4. ``npu-smi info``'s Health column ``UNKNOWN`` (the device does not exist or has not started: npu-smi reference,
   https://www.hiascend.com/document/detail/zh/Atlas%20200I%20A2/2520/re/npu/npusmi_028.html) was not read.

The plog and device lines are those of tests/test_bundle_cann_dirs41.py (ascend-fd's system test, Ascend/mind-cluster
component/ascend-faultdiag/test/st_testcase/ @22bb3d98).
"""
from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from opsbrain.bundle import layout as L
from opsbrain.bundle.reader import read_bundle
from opsbrain.ingest.rankrecords import RE_PLOG_FILE
from opsbrain.ingest.text import ingest_text
from opsbrain.ingest.workers import device_dir, host_root

PLOG = ("[ERROR] HCCL(10972,python3):2023-01-31-03:00:11.356.298 [exchanger_network.cc:237][10972][21499][Wait]"
        "[AllClientSocketEstab]errNo[0x000000000500000b] client : device[2] rank[2] get socket timeout, total[3] "
        "remain[3]\n")
DEVICE = ("[ERROR] AICPU(2312,aicpu_scheduler):2023-01-31-03:00:11.350.001 [aicpu_sharder.cc:120][tid:2400] "
          "ParallelFor failed\n")
STAMP = "20230131024824126"


def _write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)


@pytest.mark.parametrize("rel, worker, device", [
    (f"node-1/rank_0/device-0/device-10972_{STAMP}.log", "node-1", 0),
    (f"node-1/logs/rank_3/device-3/device-10972_{STAMP}.log", "node-1", 3),
    (f"node-1/device-2/device-10972_{STAMP}.log", "node-1", 2),
])
def test_a_device_folder_below_the_log_path_is_the_hosts_cann_device_log(rel: str, worker: str, device: int) -> None:
    got = L.classify(rel)
    assert got is not None and got.kind == L.CANN_DEVICE and got.pid == 10972 and got.worker == worker
    assert host_root(rel)[0] == worker
    assert device_dir(rel) == device
    m = RE_PLOG_FILE.search(rel)
    assert m is not None and m.group("pid") == "10972"


@pytest.mark.parametrize("rel", [f"n/slog/dev-os-3/device-3/device-3_{STAMP}.log",
                                 f"n/var/log/npu/slog/debug/device-3/device-3_{STAMP}.log",
                                 f"n/device-3/device-3_{STAMP}.log"])
def test_the_devices_own_log_is_still_a_device_log(rel: str) -> None:
    got = L.classify(rel)
    assert got is not None and got.kind == L.DEVICE_OS and got.device == 3
    assert RE_PLOG_FILE.search(rel) is None  # (slog/debug/device-3/device-3_*: process 3's before session 43)


def test_a_log_path_set_per_rank_is_one_host(tmp_path: Path) -> None:
    root = tmp_path / "b"
    for r in (0, 1):
        _write(root, f"node-1/rank_{r}/plog/plog-1097{r}_{STAMP}.log", PLOG)
        _write(root, f"node-1/rank_{r}/device-{r}/device-1097{r}_{STAMP}.log", DEVICE)
    lines, rep = read_bundle(root)
    assert [w["dir"] for w in rep["workers"]] == ["node-1"]
    assert rep["read_as_console"] == []
    assert sum(1 for ln in lines if "ParallelFor failed" in ln.text) == 2


def test_a_note_in_the_job_folder_above_the_workers_is_no_worker(tmp_path: Path) -> None:
    root = tmp_path / "b"
    _write(root, f"job-7f3a/worker-0/process_log/debug/plog/plog-10972_{STAMP}.log", PLOG)
    _write(root, f"job-7f3a/worker-1/process_log/debug/plog/plog-10973_{STAMP}.log", PLOG)
    _write(root, "job-7f3a/collect.log", "collected by ops for ticket 1234\n")
    _write(root, "job-7f3a/README.log", "see the ticket\n")
    _, rep = read_bundle(root)
    assert sorted(w["dir"] for w in rep["workers"]) == ["job-7f3a/worker-0", "job-7f3a/worker-1"]
    assert rep["read_as_console"] == []
    assert {x["path"] for x in rep["skipped"]} >= {"job-7f3a/collect.log", "job-7f3a/README.log"}


def test_a_hosts_own_console_beside_one_sub_folder_stays_the_hosts(tmp_path: Path) -> None:
    """A host's folder with its console and one sub-folder the layout names a worker of (``<host>/mylog/plog/``,
    ASCEND_PROCESS_LOG_PATH's tree): not a folder above several workers, so its console is still read."""
    root = tmp_path / "b"
    _write(root, f"node-1/mylog/plog/plog-10972_{STAMP}.log", PLOG)
    _write(root, "node-1/train_node1.log", "epoch 1 step 10 loss 2.3\n")
    _write(root, f"node-2/process_log/debug/plog/plog-10973_{STAMP}.log", PLOG)
    _, rep = read_bundle(root)
    assert rep["read_as_console"] == ["node-1/train_node1.log"]


def test_debians_rotated_dmesg_is_the_kernel_log(tmp_path: Path) -> None:
    root = tmp_path / "b"
    line = "[Tue Jan 31 03:00:05 2023] hns3 0000:7d:00.0 eth0: link down\n"
    _write(root, "node-1/var/log/messages", "Jan 31 03:00:04 node-1 kernel: [ 10.0] boot\n")
    _write(root, "node-1/var/log/dmesg.0", line)
    p = root / "node-1/var/log/dmesg.1.gz"
    p.write_bytes(gzip.compress(line.replace("03:00:05", "02:00:05").encode()))
    assert L.classify("node-1/var/log/dmesg.0") is not None
    assert L.classify("node-1/var/log/dmesg.0").kind == L.DMESG  # type: ignore[union-attr]
    _, rep = read_bundle(root)
    assert not {x["path"] for x in rep["skipped"]} & {"node-1/var/log/dmesg.0", "node-1/var/log/dmesg.1.gz"}
    assert [w["dir"] for w in rep["workers"]] == ["node-1"]


# The npu-smi info table as its reference lays it out (Atlas 200I A2 npu-smi reference, npusmi_007:
# https://www.hiascend.com/doc_center/source/zh/Atlas%20200I%20A2/23.0.RC3/re/npu/npusmi_007.html), NPU 1's Health
# column UNKNOWN, one of the five states the reference lists for it.
TABLE = "\n".join([
    "+===========================+===============+====================================================+",
    "| 0     910B4               | OK            | 88.2        30                0    / 0             |",
    "| 0                         | 0000:C1:00.0  | 0           0    / 0          26838/ 32768         |",
    "+===========================+===============+====================================================+",
    "| 1     910B4               | UNKNOWN       | NA          NA                0    / 0             |",
    "| 0                         | 0000:C2:00.0  | 0           0    / 0          0    / 32768         |",
]) + "\n"


def test_an_unknown_health_is_read_as_a_symptom_of_that_npu() -> None:
    sigs = ingest_text(TABLE)[0]
    assert [(s.kind, s.component, s.severity) for s in sigs] == [("smi:unknown", "npu1", 1)]
