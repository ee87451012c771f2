"""Session 40 (tester40e): a blind look for false alarms in public logs of Ascend runs that went well. One reading
fix: torchrun's notice that it sets ``OMP_NUM_THREADS`` to 1 for its workers (pytorch/pytorch
torch/distributed/run.py, ``config_from_args``: printed at each start with more than one process per node when the
variable is unset, then exported to the workers) is a default taken, no environment variable the job lacks."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.ingest.parsers import parse_line

# https://github.com/lm-sys/FastChat/pull/2422 (the PR adding Ascend NPU support: its healthy torchrun start)
FASTCHAT = (
    "[2023-09-13 10:20:36,763] torch.distributed.run: [WARNING] \n"
    "[2023-09-13 10:20:36,763] torch.distributed.run: [WARNING] *****************************************\n"
    "[2023-09-13 10:20:36,763] torch.distributed.run: [WARNING] Setting OMP_NUM_THREADS environment variable for "
    "each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for "
    "optimal performance in your application as needed. \n"
    "[2023-09-13 10:20:36,763] torch.distributed.run: [WARNING] *****************************************\n"
    "Loading checkpoint shards: 100%|████████████████████| 2/2 [00:12<00:00,  6.04s/it]\n"
)


@pytest.mark.parametrize("line", [
    FASTCHAT.splitlines()[2],
    # the glog form of newer torchrun (pytorch/pytorch torch/distributed/run.py logger.warning)
    "W0813 20:04:44.287418 139760121915136 torch/distributed/run.py:779] Setting OMP_NUM_THREADS environment variable "
    "for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable "
    "for optimal performance in your application as needed.",
    # mmdetection's mmdet/utils/setup_env.py, the same notice as a UserWarning
    "/content/mmdetection/mmdet/utils/setup_env.py:49: UserWarning: Setting MKL_NUM_THREADS environment variable for "
    "each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for "
    "optimal performance in your application as needed.",
])
def test_a_launcher_default_is_no_missing_environment(line: str) -> None:
    assert "cfg:env" not in [s.kind for s in parse_line(line)]


@pytest.mark.parametrize("line", [
    "RuntimeError: environment variable RANK_TABLE_FILE not set",
    "ERROR: Setting HCCL_IF_IP environment variable failed: No such file or directory",
])
def test_a_missing_variable_still_reads_as_environment(line: str) -> None:
    assert "cfg:env" in [s.kind for s in parse_line(line)]


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


def test_the_fastchat_start_is_no_fault(tmp_path: Path, engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "fastchat.log"
    f.write_text(FASTCHAT)
    d = diagnose_logs(str(f), engine)["diagnosis"]
    assert d["fault_class"] == "unknown"
