"""Session 43's review (review43): defects found in the session's merged changes, each test failing before its fix."""

from __future__ import annotations

import pytest

from tests.test_tester40b import kinds

# A bound a failing line states at its end, in parentheses or after a dash, is an expectation about a value, not a
# note that the line itself is normal (benign.BENIGN's "normal/expected under <condition>", tester43b). Constructed
# lines: the failing part of each reads on its own (drv:api_error, mem:oom).
VALUE_BOUNDS = [
    "ERROR dcmi get chip info failed, value 12 (expected under 8)\n",
    "ERROR dcmi get chip info failed, value 12 - expected under 8\n",
    "ERROR dcmi get chip info failed, value 12 \u2014 expected under 8\n",
    "RuntimeError: NPU out of memory. Tried to allocate 70.00 GiB (expected under 60.00 GiB)\n",
]


@pytest.mark.parametrize("line", VALUE_BOUNDS)
def test_a_value_bound_at_a_failing_lines_end_is_no_benign_note(line: str) -> None:
    assert kinds(line), line


def test_the_documented_notes_stay_benign() -> None:
    # pypto-doctor under --runtime=ascend (hw-native-sys/pypto#2755), as tests/test_tester43b.py
    assert kinds("warn  driver libs present but version.info is not exposed (normal under --runtime=ascend)\n") == []
    board = "warn  npu-smi: npu get board type failed. ret is -9005 \u2014 expected under --runtime=ascend\n"
    assert kinds(board) == []
