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


def test_the_fastchat_start_is_no_fault(tmp_path: Path, engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "fastchat.log"
    f.write_text(FASTCHAT)
    d = diagnose_logs(str(f), engine)["diagnosis"]
    assert d["fault_class"] == "unknown"


# https://github.com/sgl-project/sglang/pull/29853 (sglang on the NPU: torch_npu's transfer_to_npu notice and c10d's
# hostname warning at start-up, warnings only)
SGLANG = (
    "  warnings.warn(msg, ImportWarning)\n"
    "/usr/local/python3.11.15/lib/python3.11/site-packages/torch_npu/contrib/transfer_to_npu.py:291: RuntimeWarning: "
    "torch.jit.script and torch.jit.script_method will be disabled by transfer_to_npu, which currently does not "
    "support them, if you need to enable them, please do not use transfer_to_npu.\n"
    "  warnings.warn(msg, RuntimeWarning)\n"
    "[2026-07-01 15:18:55 TP7] get env HCCL_BUFFSIZE = 200\n"
    "[W701 15:18:55.475521766 socket.cpp:207] [c10d] The hostname of the client socket cannot be retrieved. err=-3\n"
    "/usr/local/python3.11.15/lib/python3.11/site-packages/torch_npu/contrib/transfer_to_npu.py:362: ImportWarning: \n"
    "    " + "*" * 109 + "\n"
    "    The torch.Tensor.cuda and torch.nn.Module.cuda are replaced with torch.Tensor.npu and torch.nn.Module.npu "
    "now..\n"
    "    The torch.cuda.DoubleTensor is replaced with torch.npu.FloatTensor cause the double type is not supported "
    "now..\n"
    "    The backend in torch.distributed.init_process_group set to hccl now..\n"
)


def test_the_transfer_to_npu_notice_is_no_unsupported_operator() -> None:
    # Ascend/pytorch torch_npu/contrib/transfer_to_npu.py, init(): the fixed text of its ImportWarning
    line = SGLANG.splitlines()[8]
    assert "DoubleTensor" in line
    assert parse_line(line) == []


@pytest.mark.parametrize("line", [
    SGLANG.splitlines()[4],  # c10's head dated 701 (July 1st): month * 100 + day, no zero padding
    # https://github.com/safetensors/safetensors/issues/661 (four digits, October 20th)
    "[W1020 17:16:14.043165378 compiler_depend.ts:164] Warning: Warning: Device do not support double dtype now, "
    "dtype cast repalce with float. (function operator())",
])
def test_a_c10_warning_head_is_stated_at_warning(line: str) -> None:
    from opsbrain.diagnosis.realtext import WARNING_STATED

    assert WARNING_STATED.match(line)


@pytest.mark.parametrize("cut", [5, len(SGLANG.splitlines())])
def test_the_sglang_start_is_no_fault(tmp_path: Path, engine: Any, cut: int) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "sglang.log"
    f.write_text("\n".join(SGLANG.splitlines()[:cut]) + "\n")
    assert diagnose_logs(str(f), engine)["diagnosis"]["fault_class"] == "unknown"
