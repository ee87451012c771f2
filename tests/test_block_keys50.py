"""A metrics printout's block key whose error word qualifies what it measures
(``mismatch_ratios_by_channel_threshold:``) is no failing line of the text view (session 50, tester50i).

vllm-omni's pixel accuracy check prints the comparison of an online image with the diffusers one as nested keys
(vllm-project/vllm-omni @1d05e396 tests/e2e/accuracy/helpers.py ``assert_images_pixel_close``; "The printed mismatch
ratios are diagnostics only"). The block below is the test result of vllm-project/vllm-omni#6350 (a fix of MoE
registration on NPU machines; the test passed), verbatim; before this change its one error word (``mismatch``, in the
key) made it a failing excerpt and the text fallback read config_error 0.49."""

from __future__ import annotations

import io
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from tests.textviews import view_of

PIXEL_METRICS = """tencent/HunyuanImage-3.0-Instruct (offline vs baseline) pixel metrics:
  mean_abs_diff: value=6.643443e-03, threshold<=3.000000e-02, range=[0, 1], lower_is_better=True
  p99_abs_diff: value=5.882353e-02, threshold<=3.000000e-01, range=[0, 1], lower_is_better=True
  abs_diff_percentiles:
    p50: value=3.921568e-03, range=[0, 1], lower_is_better=True
    p90: value=1.568627e-02, range=[0, 1], lower_is_better=True
    p95: value=2.745098e-02, range=[0, 1], lower_is_better=True
    p99: value=5.882353e-02, range=[0, 1], lower_is_better=True
    p99.9: value=1.176471e-01, range=[0, 1], lower_is_better=True
  mismatch_ratios_by_channel_threshold:
    threshold>0.000000e+00 (0/255): pixel_ratio=0.79634285, channel_ratio=0.60190201
"""


def test_a_pixel_metrics_block_is_no_failure(engine: Any) -> None:
    assert view_of(PIXEL_METRICS).failing == 0
    d = diagnose_logs("-", engine, stdin=io.BytesIO(PIXEL_METRICS.encode()))["diagnosis"]
    assert d["fault_class"] == "unknown", (d["fault_class"], d["confidence"], d.get("evidence_lines"))


@pytest.mark.parametrize("line", ["  mismatch_ratios_by_channel_threshold:", "error_rates:",
                                  "timeout_seconds_by_stage:"])
def test_a_key_naming_a_measure_is_no_failing_line(line: str) -> None:
    assert view_of(line).failing == 0


@pytest.mark.parametrize("line", [
    "errors:",  # one word: the heading of the errors themselves
    "request_errors:",  # the error noun is what the block lists
    "failure_reasons:",  # ... or what describes the failures
    "failed_requests:",  # a participle: the block lists what failed
    "mismatch_ratios: 0.5 Tensor mismatch",  # a value on the line: not a block key
    "RuntimeError_info:",  # an error word that is no noun of KEY_NOUNS
])
def test_a_key_of_errors_still_counts(line: str) -> None:
    assert view_of(line).failing == 1
