"""Serving engines' start-up and fallback notices on Ascend are no fault: an optional kernel import that failed, a
model module the registry skips, a grammar or operator fallback, KV-cache sizing advice, a CPU binding skipped
(session 52, tester52l).

Real lines: committed logs of runs that went on, rwkv-rs/rwkv7-ascend-npu @7fc54902
benchmarks/results/serving_soak_20260724/vllm.log and @3b5dd82b .../sglang.log (both end ``"status": "PASS"``),
intellistream/vllm-ascend-hust-legacy-20260831 @71a7762a
benchmarks/evidence/pr153/pressure-20260802/retained-01-native/server.log (a retained pressure run)."""

from __future__ import annotations

import time

import pytest

from opsbrain.ingest.text import ingest_text


def kinds(text: str) -> set[str]:
    sigs, _ = ingest_text(text)
    return {s.kind for s in sigs}


BENIGN_LINES = [
    # vLLM's optional triton_kernels import (fused_moe/config.py, gpt_oss_triton_kernels_moe.py): logged, run goes on
    "ERROR 07-24 10:50:12 [config.py:29] Failed to import Triton kernels. Please make sure your triton version is "
    "compatible. Error: No module named 'triton.tools.ragged_tma'",
    "ERROR 07-24 10:50:12 [gpt_oss_triton_kernels_moe.py:61] Failed to import Triton kernels. Please make sure your "
    "triton version is compatible. Error: No module named 'triton.tools.ragged_tma'",
    # SGLang's model registry skipping a module it cannot import (srt/models/registry.py)
    "[2026-07-24 11:24:15] Ignore import error when loading sglang.srt.models.yivl: No module named 'sgl_kernel_npu'",
    # SGLang's grammar backend falling back to none (srt/constrained/base_grammar_backend.py)
    "[2026-07-24 11:24:40] Grammar backend disabled because tokenizer is not supported by XGrammar: Failed to create "
    "XGrammar TokenizerInfo from tokenizer: Unsupported tokenizer type: <class 'transformers_modules._dot_soak_hyphen"
    "_model_hyphen_view.c455842f103d7556.hf_rwkv_tokenizer.RwkvTokenizer'>. Falling back to grammar_backend='none'. "
    "Structured outputs (JSON schema, regex, EBNF) will not be available.",
    # vLLM worker's KV-cache sizing notice with kv_cache_memory_bytes (v1/worker/gpu_worker.py), as vllm-ascend words it
    "(EngineCore pid=2491) INFO 08-02 19:37:30 [worker.py:730] Initial free memory 60.60 GiB, reserved 8.00 GiB for "
    "KV Cache as specified by kv_cache_memory_bytes, skipping memory profiling. This does not respect the "
    "gpu_memory_utilization config. Only use kv_cache_memory_bytes when you want manual control of KV cache memory "
    "size. If OOM'ed, check the difference of initial free memory between the current run and the previous run where "
    "kv_cache_memory_bytes is suggested and update it correspondingly.",
    # vllm-ascend's worker skipping CPU binding (vllm_ascend/worker/worker_v1.py)
    "(EngineCore pid=2491) WARNING 08-02 19:37:33 [worker.py:1041] Bind cpus failed in rank0: [Errno 2] No such file "
    "or directory: 'npu-smi' Skip binding cpu.",
    # a sampler custom op absent, the PyTorch path used instead
    "(EngineCore pid=2491) WARNING 08-02 19:38:01 [sampler.py:317] Custom op npu_apply_top_k_top_p is unavailable (op "
    "is not registered); falling back to the pytorch implementation.",
]


@pytest.mark.parametrize("line", BENIGN_LINES)
def test_a_serving_notice_of_a_run_that_went_on_gives_no_signal(line: str) -> None:
    assert kinds(line + "\n") == set()


@pytest.mark.parametrize("line, kind", [
    # a module that is really missing keeps its reading (not the registry's "Ignore import error" notice)
    ("ModuleNotFoundError: No module named 'sgl_kernel_npu'", "cfg:env"),
    # a custom op that is not registered, raised (no fallback)
    ("RuntimeError: npu_apply_top_k_top_p is unavailable (op is not registered)", "op:unsupported"),
    # an NPU out of memory keeps its reading, with the same words as the advice
    ("RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.96 GiB total capacity; 58.10 GiB already "
     "allocated; 1.20 GiB free)", "mem:oom"),
])
def test_near_misses_keep_their_reading(line: str, kind: str) -> None:
    assert kind in kinds(line + "\n")


def test_the_notices_stay_linear_on_a_hostile_line() -> None:
    hostile = "Ignore import error when loading " + "a" * 65536 + "\n"
    hostile += "Bind cpus failed in rank0: " + "x " * 32768 + "\n"
    hostile += "Custom op " + "y" * 65536 + " is unavailable (\n"
    start = time.perf_counter()
    kinds(hostile)
    assert time.perf_counter() - start < 2.0
