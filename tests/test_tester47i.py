"""Session 47 (tester47i): a blind look at Huawei Cloud's documented ModelArts / Ascend-vLLM cases. Two reading fixes,
both a job set up for something the installed stack or the model does not allow:

- vLLM's ``User-specified max_model_len (N) is greater than the derived max_model_len (...)``: the ``--max-model-len``
  the server was started with exceeds what the model's config.json allows (vllm/config ``_get_and_verify_max_len``);
  Huawei Cloud's Ascend-vLLM FAQ fixes it with ``VLLM_ALLOW_LONG_MAX_MODEL_LEN=1`` or ``seq_length``. ``cfg:env``.
- transformers < 4.43 rejecting a Llama 3.1 ``rope_scaling`` dict (``must be a dictionary with two fields, `type` and
  `factor`, got {... 'rope_type': 'llama3'}``): the model is newer than the library; Huawei Cloud's FAQ fixes it by
  upgrading transformers. ``cfg:version``.

Both read framework_error (the bare ValueError) before."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.ingest.parsers import parse_line

MAX_LEN_LINES = [
    # https://support.huaweicloud.com/bestpractice-modelarts/modelarts_llm_infer_5908032.md (problem 2, as quoted)
    "ValueError:User-specified max_model_len is greater than the drived max_model_len",
    # vLLM's own wording, as a user pasted it (Qwen2.5-72B with --max-model-len=131072)
    "ValueError: User-specified max_model_len (131072) is greater than the derived max_model_len "
    "(max_position_embeddings=32768 or model_max_length=None in model's config.json). This may lead to incorrect "
    "model outputs or CUDA errors. To allow overriding this maximum, set the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1",
]
ROPE_LINES = [
    # https://support.huaweicloud.com/bestpractice-modelarts/modelarts_llm_infer_91237.html (problem 3)
    "ValueError: 'rope_scaling' must be a dictionary with two fields, 'type' and 'factor', got {'factor': 8.0, "
    "'low_freq_factor': 1.0, 'high_freq_factor': 4.0, 'original_max_position_embeddings': 8192, 'rope_type': "
    "'llama3'}",
    # transformers' own backticks (LlamaConfig._rope_scaling_validation before 4.43)
    "ValueError: `rope_scaling` must be a dictionary with two fields, `type` and `factor`, got {'factor': 8.0, "
    "'low_freq_factor': 1.0, 'high_freq_factor': 4.0, 'original_max_position_embeddings': 8192, 'rope_type': "
    "'llama3'}",
]


@pytest.mark.parametrize("line", MAX_LEN_LINES)
def test_a_context_longer_than_the_model_allows_is_a_setting(line: str) -> None:
    assert "cfg:env" in [s.kind for s in parse_line(line)]


@pytest.mark.parametrize("line", ROPE_LINES)
def test_a_rope_schema_the_library_does_not_know_is_a_version_mismatch(line: str) -> None:
    assert "cfg:version" in [s.kind for s in parse_line(line)]


def test_a_malformed_rope_dict_without_the_new_schema_is_not_read_as_a_version() -> None:
    line = "ValueError: `rope_scaling` must be a dictionary with two fields, `type` and `factor`, got {'type': 'x'}"
    assert "cfg:version" not in [s.kind for s in parse_line(line)]


@pytest.mark.parametrize("line", [MAX_LEN_LINES[0], ROPE_LINES[0]])
def test_the_lines_read_as_a_configuration_error(tmp_path: Path, engine: Any, line: str) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "serve.log"
    f.write_text(line + "\n")
    d = diagnose_logs(str(f), engine)["diagnosis"]
    assert d["fault_class"] == "config_error"
