"""Session 52 (tester52o): a blind look at computer vision on NPUs (mindcv / mindocr / mindyolo, mmcv on NPU,
PaddleOCR / PaddleDetection on paddle-custom-npu, torchvision on torch_npu). Reading fix: MindSpore 2.0's dump-path
notice names what it saves in more than one word (mindspore-ai/mindspore r2.0,
mindspore/ccsrc/plugin/device/ascend/hal/device/ascend_kernel_runtime.cc, ``GetDumpPath``, MS_LOG(WARNING): ``The
environment variable 'MS_OM_PATH' is not set, the files of node dump will save to the process local path, as
./rank_id/node_dump/...``). Like the one-word form (session 40, tests/test_tester40d.py) it is a default taken, not
a variable the job lacks."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from opsbrain.ingest.parsers import parse_line

# https://github.com/mindspore-lab/mindcv/issues/504 (convit_tiny training on Ascend, MindSpore 2.0.0; the run then
# fails with retcode 507011)
NODE_DUMP = ("[WARNING] DEVICE(17532,fffe74f491e0,python):2023-03-09-20:18:50.318.329 "
             "[mindspore/ccsrc/plugin/device/ascend/hal/device/ascend_kernel_runtime.cc:727] GetDumpPath] The "
             "environment variable 'MS_OM_PATH' is not set, the files of node dump will save to the process local "
             "path, as ./rank_id/node_dump/...")
TASK_FAIL = ("[ERROR] DEVICE(17532,fffe74f491e0,python):2023-03-09-20:18:50.318.418 "
             "[mindspore/ccsrc/plugin/device/ascend/hal/device/ascend_kernel_runtime.cc:745] DumpTaskExceptionInfo] "
             "Task fail infos task_id: 2, stream_id: 1060, tid: 17532, device_id: 0, retcode: 507011 ( model execute "
             "failed)")
MINDCV_504 = (
    "[WARNING] MD(17532,fffd117fa1e0,python):2023-03-09-20:18:49.009.973 "
    "[mindspore/ccsrc/minddata/dataset/engine/datasetops/data_queue_op.cc:832] DetectPerBatchTime] Bad performance "
    "attention, it takes more than 25 seconds to fetch a batch of data from dataset pipeline, which might result "
    "`GetNext` timeout problem. You may test dataset processing performance(with creating dataset iterator) and "
    "optimize it.\n"
    + NODE_DUMP + "\n" + TASK_FAIL + "\n"
)


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


def test_the_node_dump_default_is_no_missing_environment() -> None:
    assert "cfg:env" not in kinds(NODE_DUMP)


@pytest.mark.parametrize("line", [
    # a variable the job needs and lacks: still the environment
    "RuntimeError: the environment variable RANK_TABLE_FILE is not set, the job of rank 0 can not start",
    "[ERROR] environment variable ASCEND_HOME_PATH is not set, the files of the toolkit are not found",
    # the notice, then a missing library on the same line: the library still reads
    "[WARNING] GetDumpPath] The environment variable 'MS_OM_PATH' is not set, the files of node dump will save to "
    "the process local path; libascend_hal.so: cannot open shared object file: No such file or directory",
])
def test_a_missing_variable_still_reads_as_the_environment(line: str) -> None:
    assert "cfg:env" in kinds(line)


def test_the_one_word_form_still_passes() -> None:
    line = ("[WARNING] DEVICE(28702,fffe6742d1e0,python):2023-11-01-14:25:31.969.610 "
            "[mindspore/ccsrc/plugin/device/ascend/hal/device/ascend_kernel_runtime.cc:801] GetDumpPath] The "
            "environment variable 'MS_OM_PATH' is not set, the files will save to the process local path, as "
            "./rank_id/exec_order/...")
    assert "cfg:env" not in kinds(line)


def test_the_task_failure_still_reads() -> None:
    assert kinds(TASK_FAIL)


def test_the_mindcv_paste_is_no_config_error(tmp_path: Path, engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "paste.log"
    f.write_text(MINDCV_504)
    d = diagnose_logs(str(f), engine)["diagnosis"]
    assert "cfg:env" not in [e["kind"] for e in d["evidence_lines"]]
    # the thread states no cause: whatever the text fallback says, it says it without confidence
    assert d["fault_class"] != "config_error" or float(d["confidence"]) < 0.8


def test_a_hostile_line_stays_fast() -> None:
    line = "environment variable X is not set, the " + "files of " * 7000 + "x"
    t = time.monotonic()
    parse_line(line)
    assert time.monotonic() - t < 2.0
