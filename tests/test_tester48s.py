"""Session 48 (tester48s): a blind look at healthy Ascend training and serving runs whose logs carry error-looking
lines. SGLang's own start notices on an NPU server that went on to serve (sgl-project/sglang#29853, a Grok-2 start on
Ascend whose benchmark then answers every request with 200 OK):

- ``Failed to load generation config for <model>: <error>. Proceeding without generation config.``: SGLang's
  ``get_generation_config`` (python/sglang/srt/utils/hf_transformers_utils.py) logs it as a warning when
  ``GenerationConfig.from_pretrained`` raises an OSError (no generation_config.json) and returns None;
- ``Failed to load tokenizer vocab for template detection: <error>. Vocab-dependent detection rules will be
  skipped.``: ``build_detection_context`` (python/sglang/srt/parser/template_detection.py @eb4befd8) logs it as a
  warning and goes on with an empty vocabulary.

Both read config_error 0.60 from the text model before. SGLang's ``NPU custom kernel packages unavailable: No module
named 'custom_ops'`` is left reading: a warning where the model does not need the kernels, the cause where it does
(DeepSeek-V4's sparse attention has no fallback), as vllm-ascend's ``Failed to import vllm_ascend_C``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

# https://github.com/sgl-project/sglang/pull/29853 (the PR's test log, cut)
SGLANG_START = """[2026-07-01 15:18:37] Using default HuggingFace chat template with detected content format: string
[2026-07-01 15:18:37] Failed to load tokenizer vocab for template detection: 'TiktokenTokenizer' object has no attribute 'get_vocab'. Vocab-dependent detection rules will be skipped.
[2026-07-01 15:18:51 TP1] Failed to load generation config for /data/weights/grok-2: /data/weights/grok-2 does not appear to have a file named generation_config.json. Checkout 'https://huggingface.co//data/weights/grok-2/tree/main' for available files.. Proceeding without generation config.
[2026-07-01 15:18:51 TP4] Failed to load generation config for /data/weights/grok-2: /data/weights/grok-2 does not appear to have a file named generation_config.json. Checkout 'https://huggingface.co//data/weights/grok-2/tree/main' for available files.. Proceeding without generation config.
[2026-07-01 15:18:53 TP1] Init torch distributed begin.
"""  # noqa: E501
CUSTOM_OPS = "[2026-07-01 15:18:55 TP13] NPU custom kernel packages unavailable: No module named 'custom_ops'"


def test_an_sglang_start_without_generation_config_is_no_fault(tmp_path: Path, engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "in.log"
    f.write_text(SGLANG_START)
    assert diagnose_logs(str(f), engine)["diagnosis"]["fault_class"] == "unknown"


def test_only_the_notices_that_proceed_are_benign() -> None:
    from opsbrain.ingest.benign import BENIGN

    lines = SGLANG_START.splitlines()
    assert BENIGN.search(lines[1]) and BENIGN.search(lines[2])
    # a load that fails without going on, and the custom kernels that may be the cause, still read
    assert not BENIGN.search("Failed to load generation config for /m: boom")
    assert not BENIGN.search(CUSTOM_OPS)
