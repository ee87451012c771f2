"""Session 52, tester52n (speech on NPUs: ASR / TTS / audio LLMs).

Guards only (no code change): speech-serving runs on Ascend that went well must stay without a fault. Each text is a
real excerpt, cut from the public source named beside it. They pass before and after; they keep later readings of
"Failed requests", "Free memory on device" or a vLLM-Omni per-stage metrics dump from turning them into false alarms.
"""

from __future__ import annotations

import io
from typing import Any

from opsbrain.diagnosis.oneclick import diagnose_logs

# vllm-project/vllm-omni#2695 (comment by scalerinfo): Qwen3-TTS benchmark on NPU, 20 ok, 0 failed, RTF 1.15
TTS_BENCH = (
    "============ Serving Benchmark Result ============\n"
    "Successful requests:                     20        \n"
    "Failed requests:                         0         \n"
    "Maximum request concurrency:             1         \n"
    "Benchmark duration (s):                  105.31    \n"
    "Request throughput (req/s):              0.19      \n"
    "Peak concurrent requests:                2.00\n"
    "================== Audio Result ==================\n"
    "Total audio duration generated(s):       91.68     \n"
    "Total audio frames generated:            2200320   \n"
    "Audio throughput(audio duration/s):      0.87      \n"
    "-----------------Real Time Factor-----------------\n"
    "Mean AUDIO_RTF:                          1.15      \n"
    "Median AUDIO_RTF:                        1.14      \n"
    "P99 AUDIO_RTF:                           1.23      \n"
)

# vllm-project/vllm-omni#4130 (test log): Qwen3-TTS talker stage start on NPU, the free-memory startup notice
TTS_STAGE_START = (
    "(StageEngineCoreProc pid=88278) INFO 06-04 11:12:35 [model_runner_v1.py:3432] Loading model weights "
    "took 3.8655 GB\n"
    "(StageEngineCoreProc pid=88278) INFO 06-04 11:12:37 [worker.py:397] Available KV cache memory: 14.46"
    " GiB\n"
    "(StageEngineCoreProc pid=88278) INFO 06-04 11:12:37 [kv_cache_utils.py:1733] GPU KV cache size: 135,"
    "296 tokens\n"
    "(StageEngineCoreProc pid=88278) INFO 06-04 11:12:37 [kv_cache_utils.py:1734] Maximum concurrency for"
    " 4,096 tokens per request: 33.03x\n"
    "(StageEngineCoreProc pid=88278) INFO 06-04 11:12:37 [worker.py:561] Free memory on device (60.88/61."
    "27 GiB) on startup. Desired GPU memory utilization is (0.3, 18.38 GiB). Actual usage: 3.87 GiB for w"
    "eights, 0.04 GiB for peak activation, 0.02 GiB for non-torch memory, 0.0 GiB for NPU graph memory. R"
    "eplace gpu_memory_utilization with `--kv-cache-memory=15365583872` (14.31 GiB) to fit into requested"
    " memory, or `--kv-cache-memory=60993729536` (56.8 GiB) to fully utilize NPU free memory. Current KV "
    "cache memory: 14.46 GiB.\n"
)

# vllm-project/vllm-omni#484 (Test Result): Qwen3-Omni on NPU, per-stage metrics of a completed request
OMNI_METRICS = (
    "INFO 12-26 06:40:55 [log_utils.py:529]  'stages': {0: {'stage_gen_time_ms': 2264.1279697418213, 'num"
    "_tokens_out': 27},\n"
    "INFO 12-26 06:40:55 [log_utils.py:529]             1: {'stage_gen_time_ms': 13507.445573806763, 'num"
    "_tokens_out': 110},\n"
    "INFO 12-26 06:40:55 [log_utils.py:529]             2: {'stage_gen_time_ms': 21961.585521697998, 'num"
    "_tokens_out': 0}}}\n"
    "INFO 12-26 06:40:55 [omni_llm.py:476] [Summary] {'e2e_requests': 1,\n"
    "INFO 12-26 06:40:55 [omni_llm.py:476]  'e2e_total_time_ms': 38718.159437179565,\n"
)


def _cls(text: str, engine: Any) -> str:
    d = diagnose_logs("-", engine, stdin=io.BytesIO(text.encode()))["diagnosis"]
    return d.get("fault_class") or "unknown"


def test_a_finished_tts_benchmark_is_no_fault(engine: Any) -> None:
    assert _cls(TTS_BENCH, engine) in ("unknown", "healthy")


def test_the_startup_free_memory_notice_is_no_oom(engine: Any) -> None:
    assert _cls(TTS_STAGE_START, engine) in ("unknown", "healthy")


def test_omni_stage_metrics_are_no_fault(engine: Any) -> None:
    assert _cls(OMNI_METRICS, engine) in ("unknown", "healthy")
