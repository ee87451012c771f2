"""Two readings from the blind look at AI-for-science runs on Ascend (session 51, tester51n).

1. MindElec's electromagnetic PINNs print the relative L2 error of each field on one line after evaluating:
   ``print("l2_error, Ex: ", l2_error_ex, ", Ey: ", l2_error_ey, ", Hz: ", l2_error_hz)`` (mindspore-ai/mindscience
   @52902750 MindElec/examples/physics_driven/time_domain_maxwell/eval.py line 112; the same print in
   incremental_learning/src/callback.py). The time-domain Maxwell README quotes the training log of a run on Ascend
   ending in that line as the output to expect; the lines below are that log, verbatim (cut). The text fallback read
   the ``l2_error`` header as a failing line and the healthy log as framework_error 0.39. A name that ends in its
   error noun, then ``Field: value`` pairs whose values are all real numbers, is the error measured per field.

2. conda refusing an environment whose packages no channel holds: ``PackagesNotFoundError: The following packages
   are not available from current channels:`` then the package list (conda/conda @9c644e1e conda/exceptions.py,
   class ``PackagesNotFoundError``). An AI4S ocean model's environment pins ``blas==1.0=mkl``, an x86 build, and
   ``conda env create`` fails on a 910B (aarch64) server (iocaswolfteam/LangYa_v1_0#3). Like pip's resolver
   failures (session 48), the package index and pins, not a device; it read framework_error 0.57 through the text
   fallback."""

from __future__ import annotations

import io
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from tests.textviews import view_of

MAXWELL = """epoch: 1 step: 8, loss is 11.496931
epoch time: 185.432 s, per step time: 23178.955 ms
epoch: 2 step: 8, loss is 9.000967
epoch time: 0.511 s, per step time: 63.926 ms
epoch: 5999 step: 8, loss is 0.7317751
epoch time: 0.485 s, per step time: 60.591 ms
epoch: 6000 step: 8, loss is 0.71511096
epoch time: 0.485 s, per step time: 60.580 ms
==========================================================================================
l2_error, Ex:  0.03556711707787814 , Ey:  0.03434167989333677 , Hz:  0.022974221345851673
==========================================================================================
"""

CONDA = """PackagesNotFoundError: The following packages are not available from current channels:

  - blas==1.0=mkl
"""


def test_a_pinn_run_printing_its_l2_error_per_field_is_no_failure(engine: Any) -> None:
    assert view_of(MAXWELL).failing == 0
    d = diagnose_logs("-", engine, stdin=io.BytesIO(MAXWELL.encode()))["diagnosis"]
    assert d["fault_class"] == "unknown", (d["fault_class"], d["confidence"], d.get("evidence_lines"))


@pytest.mark.parametrize("line", [
    "l2_error, Ex:  0.03556711707787814 , Ey:  0.03434167989333677 , Hz:  0.022974221345851673",
    "l2_error, Ex:  0.06892983792636541 , Ey:  0.06803824510149464 , Hz:  0.07061244131423149",
    "relative error, u: 1.2e-03, v: 4.5e-03"])
def test_an_error_measured_per_field_is_no_failing_line(line: str) -> None:
    assert view_of(line).failing == 0


@pytest.mark.parametrize("line", [
    "l2_error, Ex:  nan , Ey:  0.03434167989333677 , Hz:  0.022974221345851673",
    "l2_error, Ex:  3 , Ey:  0.0343",
    "l2_error, Ex:  0.0355 , Ey:  failed to converge",
    "socket error, errno: 0.5, reason: connection reset"])
def test_a_nan_a_count_or_a_failing_field_still_counts(line: str) -> None:
    assert view_of(line).failing == 1


def test_conda_packages_not_in_the_channels_read_as_the_environment(engine: Any) -> None:
    d = diagnose_logs("-", engine, stdin=io.BytesIO(CONDA.encode()))["diagnosis"]
    assert d["fault_class"] == "config_error", (d["fault_class"], d["confidence"], d.get("evidence"))


def test_a_sentence_that_ends_in_an_error_noun_is_no_metric_list() -> None:
    """review51: made here in Python logging's default format (``%(levelname)s:%(name)s:%(message)s``, the logging
    module's BASIC_FORMAT) and as a bracketed level: the head is a sentence, not a metric's name."""
    from tests.textviews import view_of

    for line in ("ERROR:root:Heartbeat timeout, elapsed: 30.01", "[ERROR] Socket timeout, elapsed: 30.01"):
        assert view_of(line).errors, line  # before: quiet, read as l2_error's per-field list
    assert not view_of("l2_error, Ex:  0.0355 , Ey:  0.0343 , Hz:  0.0229").errors
