"""A metric named for an error, printed as ``<name> error: <real number>``, is a measurement, not a failing line
(session 49, tester49c).

MindFlow's PINNs tutorials evaluate the network every few epochs and print the relative L2 error of its prediction:
``calculate_l2_error`` computes ``sqrt(sum((label - prediction)**2)) / sqrt(sum(label**2))`` and prints
``print("    l2_error: ", l2_error)`` (mindspore-ai/mindscience @5d02e53c
MindFlow/applications/physics_driven/burgers/src/utils.py). The Burgers notebook's recorded run on Ascend
(mindspore-ai/mindscience @07e7d20e MindFlow/applications/physics_driven/burgers/burgers1D.ipynb, the training cell's
output) prints it 150 times while the loss falls to 1e-4; the lines below are that output, verbatim. The text fallback
counted each ``l2_error:`` line as a program failing (a field whose name ends in its error noun was read as "<what>
error: <detail>") and the healthy excerpt read framework_error 0.46.

An error of a kind is told in words or a code (``Socket error: connection reset by peer``, ``Error Code : 80E01801``),
never as a fraction: a real number (a decimal point or an exponent) after a name ending in its error noun is the
size of an error, a measurement. A count (an integer) and ``nan`` keep their reading, as does a one-word name
(``Error: 0.5`` is an exception's or a level's)."""

from __future__ import annotations

import io
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from tests.textviews import view_of

BURGERS = (
    "burgers: u(x, t)*Derivative(u(x, t), x) + Derivative(u(x, t), t) - "
    "0.00318309897556901*Derivative(u(x, t), (x, 2))\n"
    """    Item numbers of current derivative formula nodes: 3
ic: u(x, t) + sin(3.14159265358979*x)
    Item numbers of current derivative formula nodes: 2
bc: u(x, t)
    Item numbers of current derivative formula nodes: 1
epoch: 100 train loss: 0.42995507 epoch time: 63.536 ms
    predict total time: 243.24369430541992 ms
    l2_error:  0.8788317251751688
=================================================================================================
epoch: 200 train loss: 0.41935205 epoch time: 62.145 ms
    predict total time: 7.87043571472168 ms
    l2_error:  0.88964679457787
=================================================================================================
epoch: 14900 train loss: 0.00013548511 epoch time: 62.688 ms
    predict total time: 6.286382675170898 ms
    l2_error:  0.004916392108302118
=================================================================================================
epoch: 15000 train loss: 0.00011926594 epoch time: 61.978 ms
    predict total time: 5.469322204589844 ms
    l2_error:  0.004314286890692662
=================================================================================================
End-to-End total time: 944.745542049408 s
""")


def test_a_pinns_run_printing_its_l2_error_is_no_failure(engine: Any) -> None:
    assert view_of(BURGERS).failing == 0
    d = diagnose_logs("-", engine, stdin=io.BytesIO(BURGERS.encode()))["diagnosis"]
    assert d["fault_class"] == "unknown", (d["fault_class"], d["confidence"], d.get("evidence_lines"))


@pytest.mark.parametrize("line", ["    l2_error:  0.8788317251751688", "    l2_error:  0.004314286890692662",
                                  "relative error: 7.498202e-05"])
def test_an_error_metric_with_a_real_value_is_no_failing_line(line: str) -> None:
    assert view_of(line).failing == 0


@pytest.mark.parametrize("line", ["    l2_error:  nan", "Socket error: 104", "Error: 0.5",
                                  "Socket error: connection reset by peer", "error_msg: 0.5"])
def test_a_count_a_nan_or_an_account_still_counts(line: str) -> None:
    assert view_of(line).failing == 1
