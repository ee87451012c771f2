"""vLLM's warning for a ``VLLM_``-prefixed environment variable it does not know (session 52, tester52f): a healthy
serve goes on, so the warning gives no signal. Source: vllm/envs.py ``validate_environ(hard_fail)``, which logs
``logger.warning("Unknown vLLM environment variable detected: %s", env)`` and raises ``ValueError(f"Unknown vLLM
environment variable detected: {env}")`` only when ``fail_on_environ_validation`` asks it to; the raise keeps its
reading. The lines are b52f-01's (a vllm-ascend TP8 serve that went on to answer requests, 200 OK):
https://github.com/chiro2001/deepseek-v4.1-flash-ascend910B/blob/53c78079b542f633d3f06d4b3df3177772568a4a/
evidence/ced_dram_20261009/v10-p-serve.log"""

from __future__ import annotations

import io
import time
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line
from tests.textviews import view_of

UNKNOWN_ENV = [
    "(APIServer pid=651) WARNING 10-09 07:54:13 [envs.py:2128] Unknown vLLM environment variable detected: "
    "VLLM_V41_APC_ALIGN",
    "(APIServer pid=651) WARNING 10-09 07:54:13 [envs.py:2128] Unknown vLLM environment variable detected: "
    "VLLM_ADMISSION_GATE",
]

# b52f-01's first 20 lines as the serve printed them (v10-p-serve.log), the warnings among a start that went on
START = "\n".join(UNKNOWN_ENV + [
    "(APIServer pid=651) INFO 10-09 07:54:13 [model.py:645] Resolved architecture: DeepseekV41ForCausalLM",
    "(APIServer pid=651) INFO 10-09 07:54:14 [model.py:2214] Downcasting torch.float32 to torch.bfloat16.",
    "(APIServer pid=651) INFO 10-09 07:54:14 [model.py:1883] Using max model len 32768",
    "(APIServer pid=651) INFO 10-09 07:54:15 [scheduler.py:242] Chunked prefill is enabled with "
    "max_num_batched_tokens=8192.",
    "(APIServer pid=651) WARNING 10-09 07:54:16 [platform.py:651] GPU-specific parameter is not supported on Ascend. "
    "parameter=disable_cascade_attn, value=True, action: resetting to False.",
    "(APIServer pid=651) INFO 10-09 07:54:16 [platform.py:863] The timeout interval of the HCCL operator is 1836s. "
    "Timeout in seconds for execute_model RPC calls in multiprocessing must be greater than 1836s, Set "
    "VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS=3000",
    "(APIServer pid=651) INFO 10-09 07:54:16 [ascend_config.py:161] Dynamic EPLB is False",
    "(APIServer pid=651) INFO 10-09 07:54:16 [platform.py:1356] Set PYTORCH_NPU_ALLOC_CONF=expandable_segments:True",
]) + "\n"


@pytest.mark.parametrize("line", [*UNKNOWN_ENV, UNKNOWN_ENV[0].split("] ", 1)[1]])
def test_the_unknown_variable_warning_gives_no_signal(line: str) -> None:
    assert BENIGN.search(line)
    assert [s.kind for s in parse_line(line)] == []
    assert view_of(line).failing == 0


def test_the_start_with_the_warnings_reads_no_fault(engine: Any) -> None:
    d = diagnose_logs("-", engine, stdin=io.BytesIO(START.encode()))["diagnosis"]
    assert d["fault_class"] == "unknown", (d["fault_class"], d["confidence"], d.get("evidence_lines"))


@pytest.mark.parametrize("line", [
    # validate_environ(hard_fail=True): the raise, which stops the engine, keeps its reading
    "ValueError: Unknown vLLM environment variable detected: VLLM_UNRECOGNIZED_ENV_VAR",
    # the warning's words with more after them are not the warning
    "(APIServer pid=651) WARNING 10-09 07:54:13 [envs.py:2128] Unknown vLLM environment variable detected: "
    "VLLM_X, No module named vllm_ascend",
    # another program's missing variable keeps its reading
    "RuntimeError: environment variable ASCEND_HOME_PATH not set",
])
def test_the_near_misses_are_not_the_warning(line: str) -> None:
    assert not BENIGN.search(line)
    assert parse_line(line)


def test_a_long_hostile_line_is_read_in_linear_time() -> None:
    line = "[envs.py:1] Unknown vLLM environment variable detected: VLLM_" + "A" * 65536 + " x"
    started = time.monotonic()
    BENIGN.search(line)
    assert time.monotonic() - started < 1.0
