"""pytest's older summary and pytest-xdist's XFAIL record are no failing lines (session 51, review50's leftovers).

Lines: ``========================== 3 passed in 0.08 seconds ===========================`` as pytest 3.x/4.x printed its
summary (public pytest tutorials of that time); pytest-xdist's ``-v`` record head ``[gw0] [ 50%]`` (the form
opsbrain.ingest.testruns.PASSED_RECORD reads for PASSED)."""

from __future__ import annotations

import pytest

from opsbrain.ingest.benign import BENIGN


@pytest.mark.parametrize("line", [
    "========================== 3 passed in 0.08 seconds ===========================",
    "19 passed, 1 xfailed in 9.63 seconds",
    "[gw0] [ 50%] XFAIL tests/test_ops.py::test_flash_attention_fp8",
    "[gw1] XFAIL tests/test_ops.py::test_flash_attention_fp8",
])
def test_passing_forms_are_benign(line: str) -> None:
    assert BENIGN.search(line), line


@pytest.mark.parametrize("line", [
    "===================== 1 failed, 3 passed in 0.08 seconds ======================",
    "[gw0] [ 50%] FAILED tests/test_ops.py::test_flash_attention_fp8",
    "[gw0] [ 50%] XPASS tests/test_ops.py::test_a XFAIL strict",
])
def test_failing_forms_stay(line: str) -> None:
    assert not BENIGN.search(line), line
