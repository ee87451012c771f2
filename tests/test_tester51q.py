"""A reading from the blind look at model hubs for Ascend (session 51, tester51q).

Model cards on AtomGit's model hub (ai.gitcode.com) that report an NPU adaptation tabulate the CPU/NPU accuracy
comparison in Markdown: the NPU adaptation report of timm/vit_giant_patch14_clip_224.laion2b
(https://ai.gitcode.com/gcw_uQ09W7jl/timm-vit_giant_patch14_clip_224.laion2b-NPU) prints the rows below, verbatim,
after the run's outputs. The text view counted the three ``*_error`` rows as failing lines: their error word is the
name of the error measured, and the cell beside it its size, as MindFlow's ``l2_error: 0.0043`` field
(:data:`opsbrain.ingest.readouts.MEASURE`). A row whose first cell names an error measured and whose other cells are
all real numbers or percentages is no failing line (:func:`opsbrain.ingest.readouts.quiet_table_metric`)."""

from __future__ import annotations

import pytest

from tests.textviews import view_of

CARD = """| 指标 | 数值 |
|---|---|
| max_abs_error | 0.044161 |
| mean_abs_error | 0.008519 |
| relative_error | 1.3408% |
| cosine_similarity | 0.999943 |
| threshold | 1.0% |
"""


def test_a_model_cards_accuracy_table_has_no_failing_line() -> None:
    assert view_of(CARD).failing == 0


@pytest.mark.parametrize("row", [
    "| max_abs_error | 0.044161 |",
    "| relative_error | 1.3408% |",
    "| max_abs_error | 0.0441 | 0.0432 |",
    "| **mean_abs_error** | **0.008519** |"])
def test_an_error_measured_in_a_table_row_is_no_failing_line(row: str) -> None:
    assert view_of(row).failing == 0


@pytest.mark.parametrize("row", [
    "| max_abs_error | nan |",
    "| max_abs_error | 3 |",
    "| max_abs_error | too large |",
    "| error | 0.5 |",
    "| result | FAIL (详见下方说明) |",
    "| socket error | connection reset by peer |"])
def test_a_nan_a_count_a_verdict_or_no_metric_name_still_fails(row: str) -> None:
    assert view_of(row).failing == 1
