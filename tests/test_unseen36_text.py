"""Session 36, tester 36a: kinds of line that unseen public pastes showed read wrongly. Each line is written here from
the documented format it follows (the source cited), not copied from the pastes."""

from __future__ import annotations

import pytest

from opsbrain.ingest.parsers import parse_line

RT = "[ERROR] RUNTIME(4242,python3):2026-01-02-03:04:05.678.901"


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


@pytest.mark.parametrize("func", ["CheckSmmuFault", "ReportKernelError", "HandleTaskException"])
def test_the_function_a_runtime_line_names_is_no_python_exception(func: str) -> None:
    # hicann/runtime src/runtime/core/src/common/rt_log.cc: "[%s:%d]%d %s:%s" (file, line, thread id, __func__, text)
    line = f"{RT} [device_error_core_proc.cc:399]4702 {func}:Get isSmmuFault is 1."
    assert not [k for k in kinds(line) if k.startswith("py:")]


def test_an_exception_a_line_names_after_the_runtime_function_is_still_read() -> None:
    line = f"{RT} [python_bridge.cc:10] 4702 CallPython:ValueError: shape mismatch"
    assert "py:ValueError" in kinds(line)


def test_an_exception_outside_a_plog_head_is_still_read() -> None:
    assert "py:CheckSmmuFault" in kinds("CheckSmmuFault: raised by a user module")


def cqe(err_type: str, name: str, sqe: str = "7(notify wait)") -> str:
    # hicann/runtime src/runtime/core/src/engine/stars/stars_engine.cc ProcLogicCqReport, StarsCqeErrorDesc_
    return (f"{RT} [stars_engine.cc:1548]273 ProcLogicCqReport:Task run failed, device_id=3, stream_id=5, "
            f"task_id=17, sqe_type={sqe}, errType={err_type}({name}), sqSwStatus=0x1")


@pytest.mark.parametrize(("err_type", "name"), [("0x20", "sq sw status error"), ("0x1", "task exception"),
                                                ("0x8", "sqe error"), ("0x10", "resource conflict error")])
def test_a_notify_wait_task_that_failed_for_another_reason_is_no_notify_timeout(err_type: str, name: str) -> None:
    assert "hccl:notify_timeout" not in kinds(cqe(err_type, name))


def test_a_notify_wait_task_that_timed_out_is_a_notify_timeout() -> None:
    assert "hccl:notify_timeout" in kinds(cqe("0x4", "task timeout"))


def test_hccl_own_notify_wait_record_is_still_a_notify_timeout() -> None:
    # hicann/hccl docs/zh/user_guide/fault_diagnosis/task_exception_mechanism_troubleshooting.md (the record's form)
    line = ("[ERROR] HCCL(4242,all_reduce_test):2026-01-02-03:04:05.678.901 [task_exception_handler.cc:908] [4242]"
            "Task run failed, base information is streamID:[2], taskID[21], taskType[Notify Wait], tag[AllReduce_x]")
    assert "hccl:notify_timeout" in kinds(line)
