"""Session 51 (tester51r): a blind look at native crashes of NPU jobs (C++ aborts, faulthandler dumps, glibc heap
checks, gdb backtraces, torchrun summaries). A process ended by SIGABRT was read only where a line said "core dumped":
gdb's, abseil's, faulthandler's and torchrun's reports of the signal, a gdb frame in libc's ``abort`` and glibc's
heap-check messages gave no signal, so Mooncake#1008's backtrace read "no known fault signal". They now read as the
generic crash ``os:segfault`` (parsers/kernel.ABORTED); every line below is a real one, its source beside it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.ingest.parsers import parse_line

CRASH_LINES = [
    # gdb on a core file, alibaba/BladeDISC#952; gdb running the program, microsoft/onnxruntime#2804
    "Program terminated with signal SIGABRT, Aborted.",
    "Program received signal SIGABRT, Aborted.",
    # abseil's failure-signal handler in a Ray worker, verl-project/verl#316
    "(WorkerDict pid=53890) *** SIGABRT received at time=1739956853 on cpu 100 ***",
    # CPython faulthandler, vllm-project/vllm#5458
    "Fatal Python error: Aborted",
    # torchrun's ChildFailedError table: open-mmlab/mmsegmentation#3106, NVIDIA/Megatron-LM#1880
    "  traceback : Signal 6 (SIGABRT) received by PID 2385923",
    "  traceback : Signal 11 (SIGSEGV) received by PID 3304209",
    # a gdb backtrace frame in libc's abort, kvcache-ai/Mooncake#1008
    "#2  0x0000ffffb8cc6d70 in abort () from /usr/lib64/libc.so.6",
    # glibc's heap checks (malloc_printerr, then abort): microsoft/nni#5286, Alpine-DAV/ascent#1618,
    # NVIDIA/nvidia-container-runtime#100, kvcache-ai/Mooncake#1338
    "free(): invalid pointer",
    "double free or corruption (!prev)",
    "*** Error in `nvidia-container-cli': double free or corruption (out): 0x00007fffbec893e0 ***",
    "corrupted size vs. prev_size",
]

NOT_A_CRASH = [
    # torchrun's own stop of the other ranks (SIGTERM), pytorch elastic api.py: no rank crashed by it
    "W0205 18:19:08.782000 4021 torch/distributed/elastic/multiprocessing/api.py:900] Sending process 4086 closing "
    "signal SIGTERM",
    # a gdb frame of a waiting thread (py-spy/gdb dumps of a hang), not an abort
    "#0  0x0000ffffb5ec7c88 in ?? () from /lib/aarch64-linux-gnu/libc.so.6",
    # the core-dump setting itself (hicann/oam-tools docs): configuration, no death
    "export ASCEND_COREDUMP_SIGNAL=none",
]

# https://github.com/kvcache-ai/Mooncake/issues/1008 (root cause fixed by Mooncake#1114: importing the Ascend Direct
# transport before torch.npu.set_device; vllm-project/vllm-omni#3813)
MOONCAKE_ABORT = (
    "#0  0x0000ffffb8d1fce0 in ?? () from /usr/lib64/libc.so.6\n"
    "#1  0x0000ffffb8cd8efc in raise () from /usr/lib64/libc.so.6\n"
    "#2  0x0000ffffb8cc6d70 in abort () from /usr/lib64/libc.so.6\n"
    "#3  0x0000ffffb8d13d1c in ?? () from /usr/lib64/libc.so.6\n"
    "#8  0x0000ffffb8d2e630 in calloc () from /usr/lib64/libc.so.6\n"
    "#9  0x0000ffffb8d126dc in open_memstream () from /usr/lib64/libc.so.6\n"
    "#11 0x0000ffffb8d80f50 in vsyslog () from /usr/lib64/libc.so.6\n"
)


@pytest.mark.parametrize("line", CRASH_LINES)
def test_a_process_ended_by_sigabrt_reads_as_a_crash(line: str) -> None:
    assert [s.kind for s in parse_line(line)] == ["os:segfault"]


@pytest.mark.parametrize("line", NOT_A_CRASH)
def test_lines_that_report_no_crash_stay_unread(line: str) -> None:
    assert "os:segfault" not in [s.kind for s in parse_line(line)]


def test_a_gdb_backtrace_of_an_abort_is_read_and_cited_without_hardware(tmp_path: Path, engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "core.txt"
    f.write_text(MOONCAKE_ABORT)
    got = diagnose_logs(str(f), engine)
    assert got["input"]["signals"] == 1
    d = got["diagnosis"]
    assert any("(os:segfault)" in e for e in d["evidence"])
    assert 3 in [e["line"] for e in d["evidence_lines"]]  # the abort frame is cited
    hardware = {"hbm_uce", "hbm_ce_storm", "npu_off_bus", "node_crash", "driver_firmware_error", "aicore_hang"}
    assert d["fault_class"] not in hardware
