"""Readings written from session 56's blind looks (tester56b, f, h), each on its real lines.

- torch_npu's relay ``RuntimeError: The Inner error is reported as above. ... the current working operator name is
  aclnnMul.`` names the operator that was running, not a failed aclnn call: it no longer reads ``op:aclnn``
  (b56h-07 / b56h-09, an NPU out-of-memory read framework_error 0.45 beside it).
- torch_npu's ``Warning: Driver Version: 9 is invalid or not supported yet.`` is a start-up notice (b56h-05, a verl run
  that trained to the end, read config_error 0.71).
- torch_npu's allocator check ``... cannot be enabled with `expandable_segments`, please set `expandable_segments` to
  `False`.`` is the job's setting (b56h-08 abstained at 0.14).
- huggingface_hub's ``Error while downloading from <url>: <error>`` / ``Trying to resume download...`` is a retry
  (b56b-03, a fine-tune that then finished, read framework_error 0.60).
- A line of counts alone whose failure counts are zero (PTOAS's ``OK=212  FAIL=0  SKIP=30``) is no failing line
  (b56f-07 read framework_error 0.60).
"""

from __future__ import annotations

import io
from typing import Any

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.diagnosis.realtext import has_error_word
from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.readouts import quiet_counts, quiet_field
from tests.textviews import line_kinds as kinds
from tests.textviews import view_of

RELAY = ("[rank2]: RuntimeError: The Inner error is reported as above. The process exits for this inner error, and the "
         "current working operator name is aclnnMul.")
OOM = ("[rank2]:[E615 22:50:43.789041094 compiler_depend.ts:444] NPU out of memory. NPUWorkspaceAllocator tried to "
       "allocate 1.89 GiB(NPU 2; 60.96 GiB total capacity; 1.79 GiB free). If you want to reduce memory usage, take a "
       "try to set the environment variable TASK_QUEUE_ENABLE=1.")
DRIVER_WARN = ("\x1b[36m(WorkerDict pid=40432)\x1b[0m [rank0]:[W105 17:14:39.522764354 compiler_depend.ts:117] "
               "Warning: Driver Version: 9 is invalid or not supported yet. (function operator())")
ALLOC = ("RuntimeError: `max_split_size_mb` or `garbage_collection_threshold`, cannot be enabled with "
         "`expandable_segments`, please set `expandable_segments` to `False`.")
HF_RETRY = ("test-00002-of-00006.parquet:   0%|          | 0.00/429M [00:00<?, ?B/s]Error while downloading from "
            "https://cdn-lfs-us-1.hf-mirror.com/repos/b0/d3/b0d3d68b/x?download=true: HTTPSConnectionPool(host="
            "'cdn-lfs-us-1.hf-mirror.com', port=443): Read timed out.")


def _diagnose(engine: Any, lines: list[str]) -> dict[str, Any]:
    return diagnose_logs("-", engine, stdin=io.BytesIO("\n".join(lines).encode()))["diagnosis"]


def test_torch_npus_relay_names_no_failed_aclnn_call(engine: Any) -> None:
    assert "op:aclnn" not in kinds(RELAY)
    assert "op:aclnn" in kinds("RuntimeError: call aclnnMatmul failed, error code is 507018")
    assert "op:aclnn" in kinds("aclnnQuantMatmulWeightNz failed, error code is 161002")
    d = _diagnose(engine, [OOM, "[rank2]: Traceback (most recent call last):", RELAY])
    assert d["fault_class"] == "npu_oom"


def test_torch_npus_unparsed_version_warning_is_a_notice() -> None:
    assert BENIGN.search(DRIVER_WARN) and kinds(DRIVER_WARN) == []
    assert BENIGN.search("Warning: CANN Version: 9.2.0-beta.1 is invalid or not supported yet.")
    assert not BENIGN.search("RuntimeError: Unsupported soc version: Ascend950PR 9579")
    assert not BENIGN.search("Warning: Driver Version: 9 is invalid or not supported yet. RuntimeError: x")


def test_torch_npus_allocator_setting_conflict_is_the_jobs_setting() -> None:
    assert "cfg:env" in kinds(ALLOC)
    assert "cfg:env" in kinds("- `" + ALLOC + "`")


def test_huggingface_hubs_download_retry_is_a_notice() -> None:
    assert BENIGN.search(HF_RETRY) and BENIGN.search("Trying to resume download...")
    assert not BENIGN.search("Max retries exceeded.")
    assert not BENIGN.search("requests.exceptions.ReadTimeout: HTTPSConnectionPool(host='x', port=443): Read timed "
                             "out.")


def test_a_line_of_counts_without_failures_is_no_failing_line() -> None:
    for line in ("OK=212  FAIL=0  SKIP=30", "passed=3, failed=0", "PASS=10 ERROR=0 SKIP=1"):
        assert quiet_counts(line) and quiet_field(line, has_error_word), line
    for line in ("OK=212  FAIL=3  SKIP=30", "FAIL=0", "OK=1 FAIL=0 reason=timeout"):
        assert not quiet_counts(line), line
    end = "===== END STAGE sample-build-and-test rc=0 ====="
    assert view_of(["OK=212  FAIL=0  SKIP=30", end]).failing_lines() == set()
    assert view_of(["OK=212  FAIL=2  SKIP=30"]).failing_lines()


def test_a_two_cell_table_row_is_read_as_its_field() -> None:
    """A run report's state table (Kimsale/qwen3.5_35B_mindspeed reports/perf_runs, b56h-06)."""
    assert quiet_field("| error category | `none` |", has_error_word)
    assert quiet_field("| relative_error | 1.3408% |", has_error_word)  # the table metric's reading kept
    for row in ("| error category | OOM on NPU 2 |", "| errors | 3 |", "| error | RuntimeError: x |"):
        assert not quiet_field(row, has_error_word), row
    assert view_of(["| error category | `none` |"]).failing_lines() == set()


VMM_HEAD = "[WARNING] DEVICE(3513,ffffa2651020,python):2025-06-03-16:41:44.906.{} [mindspore/ccsrc/plugin/device/"
VMM_OPEN = (VMM_HEAD.format("806") + "ascend/hal/device/ascend_vmm_adapter.h:147] CheckVmmDriverVersion] Open file "
            "/etc/ascend_install.info failed.")
VMM_OLD = (VMM_HEAD.format("895") + "ascend/hal/device/ascend_vmm_adapter.h:186] CheckVmmDriverVersion] Driver version "
           "is less than 24.0.0, vmm is disabled by default, drvier_version: 23.0.6")


def test_mindspores_vmm_driver_check_is_a_notice() -> None:
    """b56j-01 (mindspore-courses/step_into_llm, a fine-tune that finished): MindSpore's VMM allocator check."""
    for line in (VMM_OPEN, VMM_OLD):
        assert BENIGN.search(line) and kinds(line) == [], line
    assert not BENIGN.search("CheckVmmDriverVersion] Open file /etc/ascend_install.info failed. RuntimeError: x")


def test_llvms_default_fatal_error_is_a_kernel_the_compiler_could_not_build(engine: Any) -> None:
    """triton-ascend#2353 (b56m-02): an MLIR pass's fatal error under LLVM's default handler, a compiler bug."""
    lines = ["triton.compiler.errors.MLIRCompilationError:", "[ConvertLinalgRToBinary] encounters error:",
             "LLVM ERROR: The buffer memory has been released and cannot be used again!"]
    assert "op:compile" in kinds(lines[2])
    assert "op:compile" not in kinds("LLVM ERROR: out of memory")  # the host's memory
    assert "op:compile" not in kinds("LLVM ERROR: IO failure on output stream: No space left on device")
    assert _diagnose(engine, lines)["fault_class"] == "framework_error"
