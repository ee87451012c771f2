"""A one-word share or count named by an error word that reads zero is no failing line (session 47, fix47b).

sglang's GSM8K accuracy benchmark ends with four lines (sgl-project/sglang @b2d7f2bb benchmark/gsm8k/bench_sglang.py
and @109fdd2f python/sglang/test/few_shot_gsm8k.py: ``print(f"Accuracy: {acc:.3f}")``, ``print(f"Invalid:
{invalid:.3f}")``, ``print(f"Latency: {latency:.3f} s")``, ``print(f"Output throughput: {output_throughput:.3f}
token/s")``; ``invalid`` is the share of answers with no number in them). A run that went well prints ``Invalid:
0.000``, as datacrunch-research/blogs deepseek/sglang_optimizations/optimizations_part2.md quotes it for DeepSeek-V3
(the summary below, verbatim): the text fallback read the word as config_error 0.40."""

from __future__ import annotations

import io
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from tests.textviews import view_of

GSM8K = "Accuracy: 0.951\nInvalid: 0.000\nLatency: 77.397 s\nOutput throughput: 1809.790 token/s\n"
"""bench_sglang.py's summary, as the blog quotes it (``--num-shots 8 --num-questions 1319 --parallel 1319``)."""


def test_an_accuracy_summary_with_no_invalid_answer_is_no_failure(engine: Any) -> None:
    assert view_of(GSM8K).failing == 0
    d = diagnose_logs("-", engine, stdin=io.BytesIO(GSM8K.encode()))["diagnosis"]
    assert d["fault_class"] == "unknown", (d["fault_class"], d["confidence"], d.get("evidence_lines"))


@pytest.mark.parametrize("line", ["Invalid: 0.000", "Invalid: 0", "Errors: 0", "Failed: 0", "Failures: 0.0",
                                  "Failed:                0", "Invalid: 0.00%",
                                  "Failed requests: 0.00"])
def test_a_zero_share_or_count_named_by_an_error_word_is_no_failing_line(line: str) -> None:
    assert view_of(line).failing == 0


@pytest.mark.parametrize("line", ["Invalid: 0.055", "Errors: 3", "Failed: 1",  # a share or count above zero
                                  "Invalid argument: 0", "Invalid value: 0",  # a sentence: the value is invalid
                                  "Error: 0", "Timeout: 0",  # a level's or an exception's word, not a count
                                  "Failed: connection refused", "Invalid: 0 is not a valid rank"])
def test_a_nonzero_share_or_a_sentence_still_counts(line: str) -> None:
    assert view_of(line).failing == 1
