"""An FFTS+ task named without a failure is no FFTS+ exception (session 54, tester54c).

vllm-ascend logs at WARNING, in a serve or benchmark run that goes on to finish, that its communication uses the
FFTS+ method and advises ``HCCL_OP_EXPANSION_MODE=AIV``; the runtime's own FFTS+ failures name the failure on the
line (hicann/runtime's TS error texts ``fftsplus task exception`` / ``timeout``, the core error proc's ``there is a
fftsplus sdma error``, ``TaskFailCallBackForFftsPlusTask``).
"""

from __future__ import annotations

from opsbrain.ingest.parsers import parse_line

# a vllm-ascend v0.18.0 benchmark run on a 910B3 that finished (blind54 b54c-06)
ADVICE = ("(EngineCore pid=18225) WARNING 06-10 03:11:26 [utils.py:550] Currently, communication is performed using "
          "FFTS+ method, which reduces the number of available streams and, as a result, limits the range of runtime "
          "shapes that can be handled. To both improve communication performance and increase the number of supported "
          "shapes, set HCCL_OP_EXPANSION_MODE=AIV.")


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


def test_the_ffts_method_named_in_advice_is_no_exception() -> None:
    assert "rt:ffts_exception" not in kinds(ADVICE)


def test_ffts_failures_keep_their_reading() -> None:
    # a vllm-ascend issue's plog line; the CANN troubleshooting guide's D2D copy case (the real-log corpus' dev part)
    for line in (
        "[ERROR] RUNTIME(57288,python3.10):2025-05-12-20:55:44.705.031 [task_info.cc:1270]57288 "
        "TaskFailCallBackForFftsPlusTask:fftsplus streamId=50, taskId=21, context_id=18, expandtype=1, rtCode=0x7150",
        "[ERROR] RUNTIME(33549,python3):2024-01-16-06:49:00.516.893 [device_error_proc.cc:1226]122568 "
        "ProcessStarsSdmaErrorInfo:[FINAL][FINAL]The error from device(chipId:7, dieId:0), serial number is 1. there "
        "is a fftsplus sdma error, sdma channel is 6, sdmaState=0x6",
    ):
        assert "rt:ffts_exception" in kinds(line), line


def test_a_long_line_of_failure_words_is_read_in_linear_time() -> None:
    # the second read's find: a failure word before the task, ``(?:error|...).*ffts``, was tried at every error word
    # of a line under ``re`` (2 s on 60 KB of "error "); a generous bound, as tests/test_wenton53.py's
    import time

    for bad in ("error " * 10000 + "ffts+", "FFTS+ " + "x" * 64000, "fail " * 12000):
        t0 = time.perf_counter()
        kinds(bad)
        assert time.perf_counter() - t0 < 1.0
