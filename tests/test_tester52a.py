"""msSanitizer's exception reports on an Ascend C / Triton kernel are a program error in that kernel
(``rt:aicore_sw``), and msopgen refusing an input it does not own is the build's environment (``cfg:env``);
the tools' notices around them are no fault (session 52, tester52a).

Real lines: the msSanitizer quick start and best-practice cases (xiaobingling93-pixel/Ascend-mssanitizer @415f5796
docs/zh/quick_start/mssanitizer_quick_start.md, @42bef160 docs/zh/best_practices/basic_cases.md), the asc-devkit
msSanitizer sample README (gitcode.com/cann/asc-devkit 9.1.0-beta.3 examples/01_simd_cpp_api/01_utilities/
05_sanitizer/msSanitizer), the CANN 8.0.RC1 msSanitizer guide (atlasopdev_16_0075), aflyingto/TTFHW-auto-build
@6ca8d2f1 README.md, huawei-csl/pto-kernels#241."""

from __future__ import annotations

import time

import pytest

from opsbrain.ingest.text import ingest_text


def kinds(text: str) -> set[str]:
    sigs, _ = ingest_text(text)
    return {s.kind for s in sigs}


@pytest.mark.parametrize("text", [
    # memcheck, illegal read on GM in a Triton kernel (basic_cases.md 4.3)
    "====== ERROR: illegal read of size 368\n======    at 0x12c0c0053190 on GM in triton_add\n"
    "======    in block aiv(1) on device 0\n======    code in pc current 0x1b0 (serialNo:524)\n"
    "======    #0 sample.py:18:45\n",
    # memcheck, multi-core out of bounds (quick start 2.3.4)
    "====== WARNING: out of bounds of size 256\n"
    "======    at 0x12c0c0026000 on GM when writing data in AddCustom_ab1b6750d7f510985325b603cb06dc8b_0\n"
    "======    in block aiv(1) on device 0\n",
    # racecheck (quick start 2.3.5)
    "====== ERROR: Potential WAR hazard detected at UB in AddCustom_ab1b6750d7f510985325b603cb06dc8b_0 on device 0:\n"
    "======    PIPE_MTE3 Read at WAR()+0x400 in block 0 (aiv) on device 0 at pc current 0x1e28 (serialNo:31)\n",
    # initcheck (quick start 2.3.6)
    "====== ERROR: uninitialized read of size 256\n"
    "======    at 0x400 on UB in AddCustom_ab1b6750d7f510985325b603cb06dc8b_0\n"
    "======    in block aiv(0-7) on device 3\n",
    # memcheck, misaligned UB access (asc-devkit sample)
    "====== ERROR: misaligned access of size 32\n======    at 0x14 on UB in add_custom\n"
    "======    in block aiv(0-7) on device 0\n",
    # leak check (asc-devkit sample)
    "====== ERROR: LeakCheck: detected memory leaks\n\n======    Direct leak of 64 byte(s)\n"
    "======      at 0x12c0c0013000 on GM\n======      allocated in :0 (serialNo:0)\n",
    # CANN 8.0.RC1's report, the tool's own spelling (atlasopdev_16_0075)
    "[mssanitizer] logging to file: ./mssanitizer_20240124182331_37743.log\n====== ERROR: illegel read of size 256\n"
    "======    at 0x124080022f00 on GM\n======    code in add_custom.cpp:63\n",
])
def test_a_sanitizer_report_is_a_program_error_in_the_kernel(text: str) -> None:
    assert "rt:aicore_sw" in kinds(text)


def test_msopgen_refusing_an_input_it_does_not_own_is_the_environment() -> None:
    text = ("Error: -28 16:42:17 (58) - [ERROR] You are not the owner of path /workspace/mindie-sd/build/ir_demo.json\n"
            "/workspace/mindie-sd/build/build_ascendc_ops.sh: line 83: pop_var_context: head of shell_variables not a "
            "function context\nError: Process completed with exit code 101\n")
    assert "cfg:env" in kinds(text)


@pytest.mark.parametrize("text", [
    # the tool's own notices of a run (basic_cases.md 4.3; the asc-devkit synccheck sample)
    "[mssanitizer] logging to file: ./mindstudio_sanitizer_log/mssanitizer_20250522093805_922880.log\n",
    "[mssanitizer] Start synccheck sanitizer on kernel kernel\n",
    # memory allocated and not used: a warning of waste, the kernel ran (asc-devkit sample, --check-unused-memory)
    "====== WARNING: Unused memory of 4718624 byte(s)\n======    at 0x12c041200000 on GM\n"
    "======    code in :0 (serialNo:260)\n",
    # the sentences outside the tool's frame name no report
    "an illegal read of size 4 is what the sanitizer reports\n",
    # newer msopgen only warns about an input it does not own and goes on (Ascend/msopgen @16518047
    # msopgen/interface/utils.py check_path_is_valid: print_warn_log)
    "2026-01-10 10:00:00 (1234) - [WARNING] You are not the owner of path /home/user/add_custom.json.\n",
    # the ASC compiler's kernel-type warnings in a build that completes (huawei-csl/pto-kernels#241)
    "WARNING: kernel type of __global__ func: vabs_fp16 is not marked. auto type derivate may be failed.\n",
])
def test_the_tools_notices_are_no_fault(text: str) -> None:
    assert not kinds(text) & {"rt:aicore_sw", "cfg:env"}


def test_the_report_regex_is_linear_on_a_hostile_line() -> None:
    from opsbrain.ingest.parsers.mssanitizer import RE_MSSANITIZER_REPORT

    line = "====== ERROR: " + "illegel read of size " * 3000 + "x"
    t0 = time.perf_counter()
    RE_MSSANITIZER_REPORT.search(line)
    RE_MSSANITIZER_REPORT.search("====== " * 10000)
    assert time.perf_counter() - t0 < 0.5
