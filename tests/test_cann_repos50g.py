"""Lines of CANN's open-sourced repositories (hicann/*, gitcode.com/cann/*) whose meaning their source states (session
50, tester50g): a kernel the BiSheng compiler crashed on, asys's notice before a live stack export, pytest's expected
failure.

A compiler crash. BiSheng is clang/LLVM: a fatal error inside LLVM is reported as clang's fatal diagnostic ``error in
backend: %0`` (llvm/llvm-project clang/include/clang/Basic/DiagnosticFrontendKinds.td, ``err_fe_error_backend``) and
the frontend exits with status 70 (clang/tools/driver/cc1_main.cpp, ``LLVMErrorHandler``), which the driver reports as
``clang frontend command failed with exit code 70``. hicann/shmem!412 (commit 0bd9f7dc) quotes the build that failed
that way; the kernel failed to compile (``op:compile``), where before the lines gave no signal and the text fallback
read config_error 0.56.

asys's notice. ``asys collect -r=stacktrace --remote=<pid>`` warns that it sends signal 35 and what happens if the
process disabled it through ``ASCEND_COREDUMP_SIGNAL=none`` (hicann/oam-tools @ea0ce91e
src/asys/collect/stacktrace/stacktrace_collect.py), then exports the stack (docs/zh/asys/stack_export.md shows the run
to ``collect task execute finish.``). The words "environment variable" read ``cfg:env`` and config_error 0.71.

pytest's XFAIL: a test expected to fail that failed (docs.pytest.org how-to/skipping.html); hicann/catlass!684's run of
"19 passed, 1 xfailed" read framework_error 0.57 from the reason's words."""

from __future__ import annotations

import pytest

from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line
from tests.textviews import view_of

# hicann/shmem 0bd9f7dc522850eccd5940554d85a4b0eb105d8a (cann/shmem!412), the build's failure stack
BACKEND_CRASH = [
    "fatal error: error in backend: Cannot select: i64 = fp_to_uint",
    "  src/device/gm2gm/engine/shmem_device_udma.hpp:195:73 @[ ... ]",
    "In function: udma_perf_test_float_put_signal",
    "bisheng: error: clang frontend command failed with exit code 70",
]
# hicann/oam-tools @ea0ce91e docs/zh/asys/stack_export.md, the example run (line 45)
ASYS_SIGNAL_NOTICE = (
    "2026-06-26 03:12:35,615 [ASYS] [WARNING]: This command sends signal 35 to the process:892839. If the process is "
    "executed to disable signal receiving through the environment variable ASCEND_COREDUMP_SIGNAL=none, the "
    "process:892839 will be killed.")
# hicann/catlass 471a8adfcdd5e5bcb8e30adeaff7f4005351a0c8 (cann/catlass!684), pytest -v output
XFAIL_LINE = ("XFAIL (native example 49 fails head_dim=64 (Compare failed); kernel template targets embed=128)")
XFAIL_AFTER_ID = ("tests/test_49_ascend950_flash_attention_infer.py::test_ascend950_flash_attention_infer"
                  "[paged_masked_head64_fp16] XFAIL (native example 49 fails head_dim=64)")


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


@pytest.mark.parametrize("line", [BACKEND_CRASH[0], BACKEND_CRASH[3]])
def test_a_compiler_crash_is_a_kernel_that_failed_to_compile(line: str) -> None:
    assert "op:compile" in kinds(line)


@pytest.mark.parametrize("line", [
    "clang: error: clang frontend command failed with exit code 1 (use -v to see invocation)",
    "error: use of undeclared identifier 'backend'",
    "the backend reported an error in backend selection",
])
def test_other_compiler_lines_are_not_this_crash(line: str) -> None:
    assert "op:compile" not in kinds(line)


def test_asys_signal_notice_is_benign() -> None:
    assert BENIGN.search(ASYS_SIGNAL_NOTICE)
    assert kinds(ASYS_SIGNAL_NOTICE) == []


def test_a_missing_variable_beside_it_still_reads() -> None:
    line = "[ERROR] environment variable ASCEND_HOME_PATH is not set, please source set_env.sh"
    assert not BENIGN.search(line)
    assert "cfg:env" in kinds(line)


@pytest.mark.parametrize("line", [XFAIL_LINE, XFAIL_AFTER_ID])
def test_pytest_xfail_is_no_failing_line(line: str) -> None:
    assert BENIGN.search(line)
    assert view_of(line).failing == 0


@pytest.mark.parametrize("line", [
    "tests/test_x.py::test_y FAILED (Compare failed)",
    "[XPASS(strict)] XFAIL marker did not fail: Compare failed",
])
def test_a_failed_test_still_counts(line: str) -> None:
    assert not BENIGN.search(line)
    assert view_of(line).failing == 1


# hicann/catlass 471a8adf (cann/catlass!684), the session's closing line
PYTEST_SUMMARY = ("================================================================================================"
                  "================== 19 passed, 1 xfailed in 9.63s ==============================================="
                  "===================================")


@pytest.mark.parametrize("line", [
    PYTEST_SUMMARY,
    "======================== 851 passed, 3 skipped, 2 warnings in 120.31s (0:02:00) ========================",
])
def test_a_pytest_summary_without_failures_is_no_failing_line(line: str) -> None:
    assert BENIGN.search(line)
    assert view_of(line).failing == 0


@pytest.mark.parametrize("line", [
    "==================== 1 failed, 186 passed, 4 skipped in 12.03s ====================",
    "==================== 2 passed, 1 error in 3.10s ====================",
])
def test_a_pytest_summary_with_failures_still_counts(line: str) -> None:
    assert not BENIGN.search(line)
    assert view_of(line).failing == 1


# hicann/catlass 471a8adf (cann/catlass!684): torch_npu's warning printed after a test's id, the test passed
FORMAT_WARNING_AFTER_ID = (
    "tests/test_49_ascend950_flash_attention_infer.py::test_ascend950_flash_attention_infer[paged_masked_b2_fp16] "
    "[W609 12:41:41.579147854 TensorFactories.cpp:340] Warning: Cannot create tensor with interal format while "
    "allow_internel_format=False, tensor will be created with base format. (function operator())")


def test_torch_npu_base_format_warning_is_no_failing_line() -> None:
    assert BENIGN.search(FORMAT_WARNING_AFTER_ID)
    assert view_of(FORMAT_WARNING_AFTER_ID).failing == 0
