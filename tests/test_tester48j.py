"""Session 48 (tester48j): a blind look at Ascend profiling and debugging tools (torch_npu profiler, msprobe, msaicerr,
ascend-dmi). One reading fix: tvm-ffi's SIGSEGV handler banner ``!!!!!!! Segfault encountered !!!!!!!`` (apache/tvm-ffi
src/ffi/backtrace.cc, TVMFFISegFaultHandler, which prints it and re-raises the signal; vLLM loads it through xgrammar)
is the process crashing on SIGSEGV, read as ``os:segfault``. Before, the profiler's stop path segfaulting on vLLM-Ascend
workers (vllm-ascend#14860, #16642) read no signal at all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opsbrain.ingest.parsers import parse_line

BANNER = "!!!!!!! Segfault encountered !!!!!!!"

# https://github.com/vllm-project/vllm-ascend/issues/14860 (stop_profile segfault; the same crash in #15983 is
# answered as a torch_npu profiler backend regression)
STOP_PROFILER_SEGFAULT = (
    "(APIServer pid=37982) INFO 08-24 12:34:05 [api_router.py:31] Stopping profiler...\n"
    "(Worker_TP2_EP2 pid=38547) [2026-08-24 12:34:05] [WARNING] [38547] profiler.py: Incorrect schedule: Stop "
    "profiler while current state is RECORD which may result in incomplete parsed data.\n"
    '(APIServer pid=37982) INFO:     172.30.8.232:57524 - "GET /metrics HTTP/1.1" 200 OK\n'
    "!!!!!!! Segfault encountered !!!!!!!\n"
    '  File "./Include/internal/pycore_pystate.h", line 133, in _PyInterpreterState_GET\n'
    '  File "Objects/obmalloc.c", line 866, in get_state\n'
    '  File "Objects/obmalloc.c", line 1850, in _PyObject_Free\n'
)


def test_the_tvm_ffi_segfault_banner_reads_as_a_segfault() -> None:
    assert "os:segfault" in [s.kind for s in parse_line(BANNER)]
    assert "os:segfault" in [s.kind for s in parse_line("!!!!!!! Segfault encountered !!!!!!!!!")]  # #16642's
    assert "os:segfault" not in [s.kind for s in parse_line("Segfault handler installed")]


def test_a_profiler_stop_that_segfaults_is_a_software_crash(tmp_path: Path, engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "serve.log"
    f.write_text(STOP_PROFILER_SEGFAULT)
    got = diagnose_logs(str(f), engine)["diagnosis"]
    assert got["fault_class"] == "framework_error"
    assert any("(os:segfault)" in e for e in got["evidence"])
