"""vllm-ascend's start-up notices about graph mode and GPU-only options are no fault (session 45, tester45f).

- ``_fix_incompatible_config`` (vllm_ascend/platform.py @a5b099c7, vllm-ascend#6005) resets every vLLM attention flag
  that has no Ascend kernel and logs ``Ignored parameter '<flag>'. This is a GPU-specific feature not supported on
  Ascend. Resetting to False.``; vllm-ascend's installation guide shows it in a working install's output
  (docs/source/installation.md @d320733c). Its later wording (@182b75ea): ``GPU-specific parameter is not supported on
  Ascend. parameter=disable_cascade_attn, value=True, action: resetting to False.``
- the FULL_DECODE_ONLY banner (vllm_ascend/platform.py @41ddb065, earlier vllm_ascend/utils.py) warns on every such
  start that capturing many batch sizes "can lead to OOM (Out of Memory) errors or inference hangs".
Before: the MiniMax start of vllm-ascend#8213 read framework_error 0.62 (``op:unsupported``), the later wording
framework_error 0.76 (the profiler template EK0005 ``Parameter %s is not supported.``), and the banner of
vllm-ascend#6076 npu_oom 0.73 (two ``mem:oom``).
"""

from __future__ import annotations

from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line

# https://github.com/vllm-project/vllm-ascend/issues/8213 (a MiniMax-M2.7 start, 2026-04-13)
IGNORED = ("(ApiServer_0 pid=44574) WARNING 04-13 20:59:02 [platform.py:770] Ignored parameter "
           "'use_trtllm_ragged_deepseek_prefill'. This is a GPU-specific feature not supported on Ascend. Resetting to "
           "False.")
# vllm-ascend docs/source/installation.md @d320733c (the expected output of the install check)
IGNORED_DOC = ("WARNING 05-12 11:29:29 [platform.py:854] Ignored parameter 'disable_flashinfer_prefill'. This is a "
               "GPU-specific feature not supported on Ascend. Resetting to False.")
# vllm_ascend/platform.py @182b75ea (_fix_incompatible_config), as vllm-ascend#11514 prints it
RESET = ("(EngineCore pid=36087) WARNING 07-07 12:55:00 [platform.py:1036] GPU-specific parameter is not supported on "
         "Ascend. parameter=disable_cascade_attn, value=True, action: resetting to False.")
# https://github.com/vllm-project/vllm-ascend/issues/6076 (the full-graph banner)
BANNER_OOM = ("(EngineCore_DP0 pid=25890) WARNING 01-21 04:03:28 [platform.py:326]             * A known problem is "
              "that capturing too many batch sizes can lead to OOM")
BANNER_HANG = ("(EngineCore_DP0 pid=25890) WARNING 01-21 04:03:28 [platform.py:326]             * (Out of Memory) "
               "errors or inference hangs. If you encounter such issues,")


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


def test_gpu_only_option_reset_gives_no_signal() -> None:
    for line in (IGNORED, IGNORED_DOC, RESET):
        assert BENIGN.search(line)
        assert kinds(line) == []


def test_full_graph_banner_gives_no_signal() -> None:
    for line in (BANNER_OOM, BANNER_HANG):
        assert BENIGN.search(line)
        assert kinds(line) == []


def test_a_real_out_of_memory_and_an_unsupported_option_keep_their_reading() -> None:
    # vllm-ascend#5020: a FULL_DECODE_ONLY start that did run out of device memory
    oom = ("Error:RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB (NPU 0; 60.96 GiB total capacity; 55.91 "
           "GiB already allocated; 55.91 GiB current active; 1.80 GiB free; 58.73 GiB reserved in total by PyTorch)")
    assert not BENIGN.search(oom)
    assert "mem:oom" in kinds(oom)
    # a raised refusal of a feature (constructed: the words without the reset notice)
    refused = "NotImplementedError: use_trtllm_ragged_deepseek_prefill is not supported on Ascend."
    assert not BENIGN.search(refused)
    assert "op:unsupported" in kinds(refused)
