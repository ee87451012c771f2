"""Whole logs of runs that went well (session 43, tester43d): the start-up warnings of a healthy vllm-ascend serve
give no fault signal. Every line is copied from the source its comment names."""

from __future__ import annotations

from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


# https://github.com/shen-shanshan/cs-self-learning/blob/bc35965/Open_Source/Projects/vLLM/Features/V1_Engine/Dev/log.md
# (a vllm serve on ascend-01 that reaches "Application startup complete" and answers 200 OK)
V1_WORKER = ("WARNING 03-11 06:18:06 [utils.py:2304] Methods add_lora,cache_config,determine_available_memory,"
             "determine_num_available_blocks,device_config,get_cache_block_size_bytes,list_loras,load_config,"
             "pin_lora,remove_lora,scheduler_config,speculative_config not implemented in "
             "<vllm_ascend.v1.npu_worker.NPUWorker object at 0xfffe673357e0>")
# https://github.com/vllm-project/vllm-ascend/issues/955 (the V0 engine's workers print the same at start)
V0_WORKER = ("(VllmWorkerProcess pid=298) WARNING 05-26 03:28:40 [utils.py:2522] Methods add_prompt_adapter,"
             "cache_config,compilation_config,current_platform,list_prompt_adapters,load_config,pin_prompt_adapter,"
             "remove_prompt_adapter not implemented in <vllm_ascend.worker.worker.NPUWorker object at "
             "0x7f6b36b6a740>")


def test_vllms_unimplemented_methods_warning_is_no_unsupported_operator() -> None:
    for line in (V1_WORKER, V0_WORKER):
        assert BENIGN.search(line)
        assert kinds(line) == []


def test_the_reading_needs_the_objects_address() -> None:
    # the real line cut before its object address (constructed): no longer vLLM's start-up warning, so the
    # "not implemented" of a job's own error keeps its reading
    line = V1_WORKER.split(" <vllm_ascend")[0]
    assert not BENIGN.search(line)
    assert "op:unsupported" in kinds(line)
