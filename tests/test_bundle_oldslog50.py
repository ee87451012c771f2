"""Session 50 (tester50o): CANN 20.x's host slog tree, ``/var/log/npu/slog/device-os-<N>/device-os-<N>_<stamp>.log``.

Older drivers and CANN (20.x, 2020) kept the device side's logs on the host below ``/var/log/npu/slog/`` in three
folders: ``host-0/`` (read since session 35, ``layout.HOST_SLOG``), ``device-<id>/device-<id>_<stamp>.log`` (the
non-Ctrl CPUs, read as a device OS log) and ``device-os-<id>/device-os-<id>_<stamp>.log``, the Ctrl CPU's own log
(user and kernel mode) of device OS <id> (Huawei support, "Log Processing Mechanism", EDOC1100164819: "Log files
prefixed with device-os-id record logs of the Ctrl CPU on the device side, including user-mode logs and kernel-mode
logs"; the log path ``/var/log/npu/slog/device-os-0/device-os-0_xxx.log`` in Ascend's custom-operator guide of
2020). The last was skipped as an unknown file under ``--bundle`` and read as the node's under ``--logs DIR``.

The tree and lines are msaicerr's system-test input of a training run, hicann/oam-tools@ea0ce91e
``test/st/msaicerr/res/ori_data/2020-12-24-01-13-03/slog/{device-0,device-os-0,host-0}/``: its device-os file holds
the driver's heartbeat report of the TS exception (0xb4060006).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from opsbrain.bundle import layout as L
from opsbrain.bundle.reader import read_bundle
from opsbrain.ingest.workers import device_dir

OS_LOG = "slog/device-os-0/device-os-0_20200909152231193.log"
OS_LINES = (
    "[INFO] DRV(8380,dmp_daemon):2020-09-09-15:22:31.687.400 [hardware/build/../dev_core/devdrv/devdrv_manager.c:1314]"
    "[devdrv] [drvGetCpuInfo 1314] Dev[1] cpu info:1 14 1 4 0 \n"
    "[EVENT] KERNEL(8234,sklogd):2020-09-09-15:22:39.176.173 [toolchain/log/slog/sklog/device/../src/klogd.c:248]"
    "[17966.593959] [ERROR] [devdrv] [devdrv_heart_beat_callback 1485] <swapper/0:0> before shift receive ts "
    "exception msg, call mntn_system_error: 0xb4060006,            time: 1599664959.16800\n"
)


@pytest.mark.parametrize("rel, device", [
    (OS_LOG, 0),
    ("2020-12-24-01-13-03/slog/device-os-4/device-os-4_20200909152231193.log", 4),
    ("var/log/npu/slog/device-os-0/device-os-0_20200909152231193.log", 0),
])
def test_cann20_device_os_log_is_the_device_os_log_of_its_id(rel: str, device: int) -> None:
    got = L.classify(rel)
    assert got is not None and got.kind == L.DEVICE_OS and got.device == device
    assert device_dir(rel) == device  # --logs DIR places its lines on the same device


@pytest.mark.parametrize("rel", [
    "slog/device-os-0/device-os-1_20200909152231193.log",  # another OS's name in the folder: not this layout
    "slog/device-os-0/notes.log",
])
def test_other_names_in_the_folder_are_not_taken(rel: str) -> None:
    got = L.classify(rel)
    assert got is None or got.kind != L.DEVICE_OS or got.device is None


def test_the_bundle_reads_the_device_os_file(tmp_path: Path) -> None:
    p = tmp_path / "host-a" / OS_LOG
    p.parent.mkdir(parents=True)
    p.write_text(OS_LINES)
    lines, rep = read_bundle(tmp_path)
    assert rep["skipped"] == [], rep["skipped"]
    assert [w["dir"] for w in rep["workers"]] == ["host-a"]
    hit = [ln for ln in lines if "mntn_system_error" in ln.text]
    assert hit and all(ln.source == "device_os" and (ln.origin or "").endswith("npu0") for ln in hit), \
        [(ln.source, ln.origin) for ln in hit]


# ---- a plog named without its pid: ``$HOME/ascend/log/plog/plog_<stamp>.log`` ------------------------------------
# The host log path as Ascend's ModelZoo training scripts give it ("Host侧日志路径：$HOME/ascend/log/plog/plog_*.log",
# Ascend/ModelZoo-TensorFlow@a2c3332a6 TensorFlow/contrib/cv/SPADE_ID0944_for_TensorFlow/test/train_performance_1p.sh);
# msaicerr's test input of 2020 holds one (hicann/oam-tools@ea0ce91e test/st/msaicerr/res/ori_data/
# 2020-12-24-01-13-01/slog/plog/plog_20201224011051563.log, process 8953's lines). Before: an unknown file.
PLOG_NOPID = "slog/plog/plog_20201224011051563.log"
PLOG_LINES = (
    "[ERROR] RUNTIME(8953,None):2020-12-24-01:10:54.176.179 [../../../../../../runtime/feature/src/"
    "device_error_proc.cc:371]8958 ProcessCoreErrorInfo:The error from device(0), serial number is 1, there is a "
    "aicore error, core id is 0, error code = 0x10, error string = Illegal instruction, which is usually caused by "
    "unaligned UUB addresses. dump info: pc start: 0x108080056000, current: 0x1080800560a4, v\n"
)


@pytest.mark.parametrize("rel", [PLOG_NOPID, "node-1/ascend/log/plog/plog_20201224011051563.log"])
def test_a_plog_without_its_pid_is_read_as_cann_lines(rel: str) -> None:
    got = L.classify(rel)
    assert got is not None and got.kind == L.HOST_SLOG and got.pid is None
    assert L.SOURCE_OF_KIND[got.kind] == "plog"


def test_the_bundle_reads_the_plog_without_pid_beside_one_with(tmp_path: Path) -> None:
    (tmp_path / "slog" / "plog").mkdir(parents=True)
    (tmp_path / PLOG_NOPID).write_text(PLOG_LINES)
    (tmp_path / "slog/plog/plog-10043_20210331185941176.log").write_text(
        "[ERROR] RUNTIME(10043,main):2021-03-31-18:59:42.311.887 [task.cc:2210]10057 DoCompleteSuccess:model execute "
        "error, retCode=0x91, [the model stream execute failed].\n")
    lines, rep = read_bundle(tmp_path)
    assert rep["skipped"] == [], rep["skipped"]
    assert len(rep["workers"]) == 1
    assert any("there is a aicore error" in ln.text and ln.source == "plog" for ln in lines)
