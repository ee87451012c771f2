"""Readings written from session 57's blind looks (tester57b, d, g), each on its real lines.

- MindSpore's default for DEPLOY_MODE is a notice and its advice on reserved device memory gives no out-of-memory
  (b57g-05, a MindFormers LoRA fine-tune that trained to the end, read framework_error 0.58).
- torchvision's "Failed to load image Python extension" UserWarning is a notice (b57d-07, MindCluster's quick-start
  training log, read config_error 0.72).
- needrestart's "Failed to check for processor microcode upgrades." after an install is a notice (b57d-10, MindIE
  LLM's docker install guide, read config_error 0.56).
- sglang's environment report line ``name: Module Not Found`` is a readout, no failing line (b57b-06, read
  config_error 0.60).
- A line that says memory *may* run out is advice, not an out-of-memory (b57j-02, MindData's "Memory consumption is
  more than 81.9409%, which may cause OOM" on a notebook that trained to the end, read npu_oom 0.61).
- A line of counts alone whose failure counts are zero, in any of the usual forms (``OK `220` / FAIL `0` / SKIP `2```,
  ``Tests run: 10, Failures: 0, Errors: 0, Skipped: 0``), is no failing line (b57m-11, PTOAS's board-test bot summary,
  read framework_error 0.45).
- A TLS certificate the host does not trust (``CERTIFICATE_VERIFY_FAILED``) reads ``cfg:env`` (b57f-07, where the
  engine leaned framework_error 0.50 and the text model decided).
"""

from __future__ import annotations

import io
import time
from pathlib import Path
from typing import Any

import yaml

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.diagnosis.realtext import has_error_word
from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.readouts import quiet_counts, quiet_field
from tests.textviews import line_kinds as kinds

BLIND = Path(__file__).resolve().parent / "data" / "blind"
B57 = {e["id"]: e["text"] for name in ("blind57.yaml", "blind57_healthy.yaml")
       for e in yaml.safe_load((BLIND / name).read_text())}
RESERVED, DEPLOY_MODE = B57["b57g-05"].splitlines()[:2]
"""lincenying/ai-fae@43bc9da1 logs/qwen/14b/mindformer.log lines 1-2 (b57g-05)."""
TORCHVISION = B57["b57d-07"].splitlines()[1]
"""Ascend/mind-cluster@22bb3d98 docs/zh/scheduling/02_quick_start/quick_start.md (b57d-07)."""
TLS = next(x for x in B57["b57f-07"].splitlines() if x.startswith("requests.exceptions.SSLError"))
"""Ascend/sglang@bf186cf8 docs_new/docs/hardware-platforms/ascend-npus/ascend_npu_accuracy_evaluation.mdx (b57f-07)."""
MAY_OOM = next(x for x in B57["b57j-02"].splitlines() if "which may cause OOM" in x)
"""MindSpore's quick-start notebook output (b57j-02; MindData's batch_op.cc)."""
MICROCODE = "Failed to check for processor microcode upgrades."
"""Ascend/MindIE-LLM@8b4871ad docs/zh/user_guide/install/source/docker_installation.md (b57d-10; needrestart)."""
CHECK_ENV = ["sglang-kernel: Module Not Found", "flashinfer_python: Module Not Found", "vllm: Module Not Found"]
"""sgl-project/sglang#36423, ``python3 -m sglang.check_env`` (b57b-06)."""

def _diagnose(engine: Any, lines: list[str]) -> dict[str, Any]:
    return diagnose_logs("-", engine, stdin=io.BytesIO("\n".join(lines).encode()))["diagnosis"]


def test_mindspores_start_up_advice_is_a_notice() -> None:
    assert BENIGN.search(DEPLOY_MODE) and kinds(DEPLOY_MODE) == []
    assert kinds(RESERVED) == []  # advice that memory may run out (memtexts.RE_OOM_ADVICE)
    # the same words on another line, or an out-of-memory of its own, keep their reading
    assert not BENIGN.search("RuntimeError: Out Of Memory in HCCL or other components")
    assert "mem:oom" in kinds("[ERROR] DEVICE(1,f,python):2024-07-22-10:41:20.735.538 [ascend_memory_adapter.cc:103] "
                              "Initialize] Malloc device memory failed, out of memory")


def test_torchvisions_image_extension_warning_is_a_notice() -> None:
    assert BENIGN.search(TORCHVISION) and kinds(TORCHVISION) == []
    assert "cfg:env" in kinds("ImportError: libc10_cuda.so: cannot open shared object file: No such file or directory")


def test_needrestarts_notices_are_no_failure() -> None:
    assert BENIGN.search(MICROCODE) and BENIGN.search("Failed to retrieve available kernel versions.")
    assert not BENIGN.search("E: Failed to fetch http://ports.ubuntu.com/pool/main/d/docker.io.deb  404  Not Found")


def test_sglang_check_envs_absent_package_is_a_readout() -> None:
    for line in CHECK_ENV:
        assert has_error_word(line) is not None and quiet_field(line, has_error_word)
    assert not quiet_field("ModuleNotFoundError: No module named 'sgl_kernel'", has_error_word)
    assert not quiet_field("sglang-kernel: Module Not Found, import failed", has_error_word)


def test_the_excerpts_read_no_fault(engine: Any) -> None:
    assert _diagnose(engine, [RESERVED, DEPLOY_MODE])["fault_class"] == "unknown"
    assert _diagnose(engine, [TORCHVISION, "  warn(", "=> creating model 'resnet50'"])["fault_class"] == "unknown"
    assert _diagnose(engine, ["Running kernel seems to be up-to-date.", "", MICROCODE, "",
                              "No services need to be restarted."])["fault_class"] == "unknown"
    assert _diagnose(engine, ["NPU available: True", *CHECK_ENV, "torch_npu: 2.10.0"])["fault_class"] == "unknown"


def test_an_untrusted_certificate_is_the_hosts_environment() -> None:
    assert "cfg:env" in kinds(TLS)
    assert "cfg:env" in kinds("ssl.SSLCertVerificationError: [SSL: CERTIFICATE_VERIFY_FAILED] certificate verify "
                              "failed: unable to get local issuer certificate (_ssl.c:1006)")
    assert "cfg:env" not in kinds("requests.exceptions.SSLError: [SSL: WRONG_VERSION_NUMBER] wrong version number")


def test_advice_that_memory_may_run_out_is_no_out_of_memory(engine: Any) -> None:
    assert "mem:oom" not in kinds(MAY_OOM)
    assert "mem:oom" not in kinds("WARNING 03-24 17:02:40 arg_utils.py:1197] The model has a long context length "
                                  "(128000). This may cause OOM errors during the initial memory profiling phase")
    assert "mem:oom" in kinds("RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.97 GiB total "
                              "capacity; 57.82 GiB already allocated)")
    assert _diagnose(engine, B57["b57j-02"].splitlines())["fault_class"] == "unknown"  # was npu_oom 0.61


def test_a_line_of_zero_failure_counts_is_no_failing_line(engine: Any) -> None:
    bot = "- 结果汇总：OK `220` / FAIL `0` / SKIP `2`"  # hw-native-sys/PTOAS#873's board-test bot (b57m-11)
    for line in (bot, "Tests run: 10, Failures: 0, Errors: 0, Skipped: 0", "OK=212  FAIL=0  SKIP=30",
                 "Tests run: 3, Failures: 0, Errors: 0, Skipped: 0, Time elapsed: 0.052 s - in com.example.AppTest"):
        assert quiet_counts(line) and quiet_field(line, has_error_word), line
    for line in ("OK `220` / FAIL `3` / SKIP `2`", "Tests run: 5, Failures: 1, Errors: 0, Skipped: 0", "HCCL error 0",
                 "rank 0 error 1"):
        assert not quiet_counts(line), line
    assert _diagnose(engine, ["## A3 板测完成（有跳过）", bot])["fault_class"] == "unknown"


def test_the_counts_reading_does_not_blow_up_on_long_lines() -> None:
    # a guard against catastrophic backtracking (a first draft took 39 s on the third line), not a speed goal
    lines = ["OK" + " " * 10000 + "1 FAIL 0 x", "a 1 " * 11 + " " * 300 + "x", ("ab 1" + " " * 3) * 11 + "!"]
    start = time.process_time()
    assert not any(quiet_counts(line) for line in lines)
    assert time.process_time() - start < 2.0
