"""A tally of failed items that counts none is no failing line; a count above zero still is (session 47, tester47k).

vLLM's serving benchmark ends with a summary whose second line is ``Failed requests:`` and the count
(vllm-project/vllm @009e6d4a vllm/benchmarks/serve.py: ``print("{:<40} {:<10}".format("Failed requests:",
metrics.failed))``). vllm-ascend's benchmark guide shows it as the output of a run that succeeded
(https://github.com/vllm-project/vllm-ascend/blob/182b75ea84ff13ece27b57391331ef8935410aea/docs/source/developer_guide/
performance_and_debug/performance_benchmark.md, "If successful, you will see the following output"): the text
fallback read the summary as framework_error 0.47 (blind b47k-07). The lines below are that output, verbatim."""

from __future__ import annotations

import io
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from tests.textviews import view_of

_SUMMARY = [
    ('Successful requests:', '10'),
    ('Failed requests:', '0'),
    ('Benchmark duration (s):', '19.92'),
    ('Total input tokens:', '1374'),
    ('Total generated tokens:', '2663'),
    ('Request throughput (req/s):', '0.50'),
    ('Output token throughput (tok/s):', '133.67'),
    ('Peak output token throughput (tok/s):', '312.00'),
    ('Peak concurrent requests:', '10.00'),
    ('Total Token throughput (tok/s):', '202.64'),
    ('---------------Time to First Token----------------', None),
    ('Mean TTFT (ms):', '127.10'),
    ('Median TTFT (ms):', '136.29'),
    ('P99 TTFT (ms):', '137.83'),
    ('-----Time per Output Token (excl. 1st token)------', None),
    ('Mean TPOT (ms):', '25.85'),
    ('Median TPOT (ms):', '25.78'),
    ('P99 TPOT (ms):', '26.64'),
]
BENCH = "\n".join(["============ Serving Benchmark Result ============",
                   *(f"{name:<40} {value:<10}" if value is not None else name for name, value in _SUMMARY)])
BENCH += "\n"
"""The summary as vLLM prints it (each field ``"{:<40} {:<10}".format(name, value)``, the padding kept)."""


def test_a_benchmark_summary_with_no_failed_request_is_no_failure(engine: Any) -> None:
    assert view_of(BENCH).failing == 0
    d = diagnose_logs("-", engine, stdin=io.BytesIO(BENCH.encode()))["diagnosis"]
    assert d["fault_class"] == "unknown", (d["fault_class"], d["confidence"], d.get("evidence_lines"))


@pytest.mark.parametrize("line", ["Failed requests:                         0         ",
                                  "Probe requests failed:                   0", "Failed requests:        0"])
def test_a_tally_of_no_failed_items_is_no_failing_line(line: str) -> None:
    assert view_of(line).failing == 0


@pytest.mark.parametrize("line", ["Failed requests:                         3         ",
                                  "Probe requests failed:                   12",
                                  "Failed to load model: 0",  # a sentence, not a tally
                                  "Failed requests: connection refused"])
def test_a_tally_that_counts_failures_or_a_sentence_still_counts(line: str) -> None:
    assert view_of(line).failing == 1
