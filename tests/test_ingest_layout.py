"""A parallel layout the launcher rejects is the job's configuration (opsbrain.ingest.parsers.framework)."""

from __future__ import annotations

import pytest

from opsbrain.ingest.text import ingest_text


@pytest.mark.parametrize("line", [
    # vLLM ModelConfig.verify_with_parallel_config (vllm/config.py)
    "ValueError: Total number of attention heads (32) must be divisible by tensor parallel size (3).",
    # MindSpeed-MM troubleshooting guide (corpus part O, o014)
    "RuntimeError: tp_size exceeds num_key_value_heads",
])
def test_a_rejected_parallel_layout_is_a_setting(line: str) -> None:
    sigs, _ = ingest_text(line + "\n")
    assert "cfg:env" in {s.kind for s in sigs}


@pytest.mark.parametrize("line", [
    "INFO 08-13 15:31:21 [config.py:1] tensor_parallel_size=4 pipeline_parallel_size=1",  # a launch banner
    "RuntimeError: stack expects each tensor to be equal size, but got [8193] at entry 0 and [8246] at entry 1",
])
def test_a_layout_named_without_a_rejection_is_not(line: str) -> None:
    sigs, _ = ingest_text(line + "\n")
    assert "cfg:env" not in {s.kind for s in sigs}
