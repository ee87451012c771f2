"""Readings added in the real-log corpus' eighth round (issue 14, part K): the Ascend driver's devmm refusals of a
device page fault name a program's out-of-range access, GE's single-operator build failure is an operator compile
failure, and the absl failure-signal handler's SIGSEGV banner is a segmentation fault. Every line is copied from the
source its comment names."""

from __future__ import annotations

import pytest

from opsbrain.ingest.parsers import parse_line


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


# the host kernel log posted in vllm-ascend#9873 (triaged: "HCCL vector core exception (AIV AllGather MTE
# out-of-range)" under DP=2 / TP=8)
DEVMM = [
    "[1716848.455227] [T3077116] [ascend] [devmm] [ERROR] [devmm_dev_page_fault_get_vaflgs 441] "
    "<kworker/162:1:3077116,3077116> Va error don't allow fault by device. (hostpid=2779956; va=0x12f234c00000; "
    "devid=12; bitmap=0x1800aa9)",
    "[1716848.455234] [T3077116] [ascend] [devmm] [ERROR] [devmm_print_pre_alloced_va 320] "
    "<kworker/162:1:3077116,3077116> Check alloced va. (hostpid=2779956; va=0x12f234c00000; start_va = "
    "0x12f234c00000; end_va = 0x12f234dfffff)",
    "[1716848.455238] [T3077116] [ascend] [devmm] [ERROR] [devmm_chan_query_vaflgs_d2h_process 130] "
    "<kworker/162:1:3077116,3077116> Device fault error. (hostpid=2779956; va=0x12f234c00000; ret=-22)",
]


@pytest.mark.parametrize("line", DEVMM)
def test_devmm_page_fault_refusals_are_a_program_error(line: str) -> None:
    got = kinds(line)
    assert "rt:aicore_sw" in got and "drv:error" not in got


def test_devmm_refusal_names_its_device() -> None:
    sigs = parse_line(DEVMM[0])
    assert any(s.kind == "rt:aicore_sw" and s.device == 12 for s in sigs)


def test_other_devmm_errors_stay_driver_errors() -> None:
    # the driver's own message-channel failure (corpus part B, b004's source) is not a page-fault refusal
    line = ("[ERROR] DRV(4176881,python3.7):2024-06-29-16:19:28.520.037 [ascend][curpid: 4176881, 4176881][drv][devmm]"
            "[share_log_read_in_single_module 634]Msg send failed. (ret=-12; devid=0; ")
    assert "rt:aicore_sw" not in kinds(line)


# vllm-omni#890 ("Compile op[trans_Cast_2,] failed、build op model failed, result = 500002")
@pytest.mark.parametrize("line", [
    "[Stage-0] ERROR 01-21 17:28:55 [gpu_worker.py:226]         [Build][SingleOpModel]call ge interface "
    "generator.BuildSingleOpModel failed. ge result = 4294967295[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:162]",
    "[Stage-0] ERROR 01-21 17:28:55 [gpu_worker.py:226]         [Build][Op]Fail to build op model"
    "[FUNC:ReportInnerError][FILE:log_inner.cpp][LINE:146]",
])
def test_single_op_model_build_failure_is_an_operator_compile_failure(line: str) -> None:
    assert "op:compile" in kinds(line)


def test_absl_sigsegv_banner_is_a_segfault() -> None:
    # Ray's logging.cc (absl failure-signal handler) in flash-linear-attention-npu#272
    line = ("(MegatronTrainRayActor pid=3848117) [2026-08-05 07:11:08,188 E 3848117 3848117] logging.cc:501: *** "
            "SIGSEGV received at time=1785913868 on cpu 169 *** [repeated 7x across cluster]")
    assert "os:segfault" in kinds(line)
