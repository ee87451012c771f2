"""Session 41 (tester41c): a blind look at recent Ascend threads (sglang, triton-ascend, vllm-ascend, FlagGems,
PaddleCustomDevice, dlinfer). One reading fix: vllm-ascend's platform corrects two engine settings at start and
warns that it did (vllm_ascend/platform.py, ``NPUPlatform.check_and_update_config``): the compilation level it does
not support is forced to NO_COMPILATION, prefix caching under the V1 engine is turned off. A setting corrected, the
run goes on: no unsupported operator or feature the job hit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.ingest.parsers import parse_line

# https://github.com/vllm-project/vllm-ascend/issues/644 (the v0.7.3 release checklist: a maintainer's check run of
# DeepSeek on the NPU, its start-up warnings)
RELEASE_CHECK = (
    "WARNING 04-30 09:36:30 registry.py:351] Model architecture DeepseekV2ForCausalLM is already registered, and "
    "will be overwritten by the new model class vllm_ascend.models.deepseek_v2:CustomDeepseekV2ForCausalLM.\n"
    "WARNING 04-30 09:36:30 registry.py:351] Model architecture DeepseekV3ForCausalLM is already registered, and "
    "will be overwritten by the new model class vllm_ascend.models.deepseek_v2:CustomDeepseekV3ForCausalLM.\n"
    "WARNING 04-30 09:36:30 registry.py:351] Model architecture DeepSeekMTPModel is already registered, and will be "
    "overwritten by the new model class vllm_ascend.models.deepseek_mtp:CustomDeepSeekMTP.\n"
    "INFO 04-30 09:36:30 importing.py:16] Triton not installed or not compatible; certain GPU-related functions will "
    "not be available.\n"
    "WARNING 04-30 09:36:30 arg_utils.py:1385] Setting max_num_batched_tokens to 8192 for LLM_CLASS usage context.\n"
    "INFO 04-30 09:36:44 config.py:549] This model supports multiple tasks: {'reward', 'classify', 'generate', "
    "'score', 'embed'}. Defaulting to 'generate'.\n"
    "INFO 04-30 09:36:44 config.py:1555] Chunked prefill is enabled with max_num_batched_tokens=8192.\n"
    "WARNING 04-30 09:36:44 platform.py:110] Compilation level 3 is not supported on NPU now, forcing compilation "
    "level to NO_COMPILATION\n"
)


@pytest.mark.parametrize("line", [
    RELEASE_CHECK.splitlines()[-1],
    # vllm_ascend/platform.py (v0.7.x), NPUPlatform.check_and_update_config: logger.warning of a fixed text
    "WARNING 03-05 07:15:20 platform.py:125] Prefix caching is not supported for V1 now, disable prefix caching",
])
def test_a_setting_the_platform_corrects_is_no_unsupported_feature(line: str) -> None:
    assert parse_line(line) == []


def test_a_feature_the_platform_refuses_still_reads() -> None:
    # vllm_ascend/worker/model_runner_v1.py, load_model: raised, the run stops
    line = "ValueError: LoRA model is not supported on NPU now."
    assert "op:unsupported" in [s.kind for s in parse_line(line)]


def test_the_release_check_start_is_no_fault(tmp_path: Path, engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "vllm.log"
    f.write_text(RELEASE_CHECK)
    assert diagnose_logs(str(f), engine)["diagnosis"]["fault_class"] == "unknown"
