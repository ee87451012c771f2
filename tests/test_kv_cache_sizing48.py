"""vLLM's start-up check that the KV cache left after the weights holds one request of max_model_len (session 48,
tester48d). Both engines refuse to start with a memory text that names no allocator: V1's
``check_enough_kv_cache_memory`` (vllm/v1/core/kv_cache_utils.py @bbf906a8: "To serve at least one request with the
models's max seq len (N), (X GiB KV cache is needed, which is larger than the available KV cache memory (Y GiB) ...")
and V0's ``raise_if_cache_size_invalid`` (vllm/worker/worker.py @6ae52299: "The model's max seq len (N) is larger than
the maximum number of tokens that can be stored in KV cache (M)"), the same function that raises "No available memory
for the cache blocks" (already ``mem:oom``). The device memory left does not fit the request the engine is set up
for: the npu_oom remedy (lower max_model_len, raise gpu_memory_utilization). Lines copied from vllm#25350 and
vllm#10517; the same check runs under vllm-ascend."""

from __future__ import annotations

import pytest

from opsbrain.ingest import ingest_text

V1_LINE = ("ValueError: To serve at least one request with the models's max seq len (221000), (10.12 GiB KV cache is "
           "needed, which is larger than the available KV cache memory (5.59 GiB). Based on the available memory, the "
           "estimated maximum model length is 122080. Try increasing `gpu_memory_utilization` or decreasing "
           "`max_model_len` when initializing the engine.")
V0_LINE = ("The model's max seq len (29000) is larger than the maximum number of tokens that can be stored in KV cache "
           "(23648). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the "
           "engine.")


@pytest.mark.parametrize("line", [V1_LINE, V0_LINE])
def test_kv_cache_too_small_for_max_model_len_reads_oom(line: str) -> None:
    assert "mem:oom" in [s.kind for s in ingest_text(line)[0]]


def test_healthy_kv_cache_report_reads_no_oom() -> None:
    """The start-up report of a KV cache that fits (vllm#25350, the run at --max-model-len 100000) is no failure."""
    text = ("Available KV cache memory: 10.55 GiB\nGPU KV cache size: 230,528 tokens\n"
            "[kv_cache_utils.py:868] Maximum concurrency for 100,000 tokens per request: 2.31x\n")
    assert "mem:oom" not in [s.kind for s in ingest_text(text)[0]]
