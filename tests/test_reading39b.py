"""Session 39 (reading39b): the task scheduler's error number a failed task's lines print, ``retCode=%#x, [%s]``, read
by the number and its description (opsbrain/ingest/parsers/ts_errors.py), not by the words before it."""

from __future__ import annotations

import pytest

from opsbrain.ingest.parsers import parse_line
from opsbrain.ingest.parsers.rt_internal import acl_maps
from opsbrain.ingest.parsers.ts_errors import TS_ERRORS


def kinds(line: str) -> set[str]:
    return {s.kind for s in parse_line(line)}


# https://github.com/hw-native-sys/PTOAS/pull/726 (A3 board test: "aclrtSynchronizeStream(stream) failed: 507014")
PTOAS_TIMEOUT = ("       Kernel task happen error, retCode=0x25, [aicore timeout].[FUNC:PreCheckTaskErr]"
                 "[FILE:davinci_kernel_task.cc][LINE:1729]")
PTOAS_TIMEOUT_CORE = "       AICORE Kernel task happen error, retCode=0x25.[FUNC:GetError][FILE:stream.cc][LINE:1475]"
# https://github.com/hw-native-sys/PTOAS/pull/765 (the same run's "aclrtSynchronizeStream(stream) failed: 507015")
PTOAS_EXCEPTION = ("       Kernel task happen error, retCode=0x26, [aicore exception].[FUNC:PreCheckTaskErr]"
                   "[FILE:davinci_kernel_task.cc][LINE:1729]")
# https://github.com/hicann/runtime/blob/681ef7610df13c8128982901142a2c869ddbb53e/docs/zh/FAQ/如何通过plog日志定位Device侧异常.md
VECTOR = ("[ERROR] RUNTIME(2082291,python3):2024-07-04-14:14:25.050.365 [davinic_kernel_task.cc:1219]2082291 "
          "PreCheckTaskErr:[INIT][DEFAULT]Kernel task happen error, retCode=0x31, [vector core exception].")
# https://www.hiascend.com/document/detail/en/canncommercial/800/maintenref/troubleshooting/troubleshooting_0182.html
AICPU_TIMEOUT = ("[ERROR] RUNTIME(pid,pName):DateTimeMS [task.cc:878]1827 PreCheckTaskErr:[DVPP][DEFAULT]Kernel task "
                 "happen error, retCode=0x28, [aicpu timeout].")
# https://github.com/Ascend/pytorch/issues/34 (then "synchronize stream failed, runtime result = 507018")
AICPU_EXCEPTION = ("Kernel task happen error, retCode=0x2a, [aicpu exception].[FUNC:PreCheckTaskErr][FILE:task_info.cc]"
                   "[LINE:1776]")
# https://discuss.mindspore.cn/t/topic/1156 (then "rtStreamSynchronizeWithTimeout execute failed, reason=[the model
# stream execute failed]" and "runtime result = 507011")
MODEL_EXEC = "ReportErrorInfoForModelExecuteTask:model execute error, retCode=0x91, [the model stream execute failed]."


@pytest.mark.parametrize(("line", "code"), [
    (PTOAS_TIMEOUT, "rt:507014"), (PTOAS_TIMEOUT_CORE, "rt:507014"), (PTOAS_EXCEPTION, "rt:507015"),
    (VECTOR, "rt:507035"), (AICPU_TIMEOUT, "rt:507017"), (AICPU_EXCEPTION, "rt:507018"), (MODEL_EXEC, "rt:507011")])
def test_a_ts_number_reads_as_the_acl_code_the_application_gets(line: str, code: str) -> None:
    assert code in kinds(line)


@pytest.mark.parametrize("line", [PTOAS_TIMEOUT, PTOAS_TIMEOUT_CORE, VECTOR, AICPU_TIMEOUT, AICPU_EXCEPTION])
def test_kernel_task_happen_error_alone_is_no_aicore_exception(line: str) -> None:
    """Before session 39 the words ``Kernel task happen error`` made every such line an AI Core exception: a
    timeout, an AI CPU's exception, a notify wait's failure alike."""
    assert "rt:aicore_exception" not in kinds(line)


def test_an_aicore_exception_still_says_so() -> None:
    assert {"rt:aicore_exception", "rt:507015"} <= kinds(PTOAS_EXCEPTION)


def test_a_notify_waits_timeout_is_a_task_timeout() -> None:
    """The notify wait's printer (hicann/runtime @681ef761 src/runtime/core/src/task/task_info/event/notify_task.cc,
    ReportNotifyErrorForNotifyWaitTask: ``Kernel task happen error, retCode=%#x, [%s].``) with TS_ERROR_TASK_TIMEOUT
    0x105: built from the format string, no public real line found."""
    line = ("[ERROR] RUNTIME(2817,python):2026-08-04-06:53:21.438.500 [notify_task.cc:406]3154 "
            "ReportNotifyErrorForNotifyWaitTask:Kernel task happen error, retCode=0x105, [task timeout].")
    got = kinds(line)
    assert "rt:107020" in got and "rt:aicore_exception" not in got


def test_a_text_that_is_not_the_numbers_own_gives_no_code() -> None:
    """Only the table's pair is read (a made-up pair: 0x26's description is ``aicore exception``)."""
    assert not any(k.startswith("rt:5") or k.startswith("rt:1") for k in kinds(
        "Kernel task happen error, retCode=0x26, [aicore timeout]."))


def test_the_table_matches_its_source_and_the_inner_codes() -> None:
    """Rows of hicann/runtime error_code.cc g_tsErrCodeMap with task_scheduler_error.h and internal_error_define.hpp
    (681ef7610); every inner number is one codes.yaml's runtime_inner_codes maps."""
    assert TS_ERRORS[0x25] == ("aicore timeout", 0x7150025)
    assert TS_ERRORS[0x31] == ("vector core exception", 0x715005E)
    assert TS_ERRORS[0x105] == ("task timeout", 0x7150059)
    inner = acl_maps()[0]
    assert all(row[1] in inner for row in TS_ERRORS.values())
    assert inner[TS_ERRORS[0x224][1]] == 507904  # hccl op retry failed -> ACL_ERROR_RT_COMM_OP_RETRY_FAIL
