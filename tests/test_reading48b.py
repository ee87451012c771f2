"""Session 48 (tester48b): msaicerr's root-cause conclusions, read on the line info.txt prints them on."""

from __future__ import annotations

import pytest

from opsbrain.ingest.parsers import parse_line


def kinds(line: str) -> set[str]:
    return {s.kind for s in parse_line(line)}


# The tool prints the quoted header, then the conclusion on a line of its own (AicErrorInfo.get_conclusion). The
# lines are the documented examples of CANN's troubleshooting guide, each page giving the conclusion's cause.
@pytest.mark.parametrize("line", [
    # atomic add overflow on extreme input data (canncommercial 850 troubleshooting_0015)
    "Atomic add has a precision overflow. Check the operator precision.Note that if tasks are concurrently executed "
    "on the NPU, a false warning may be reported.",
    # its older wording, on its own line (canncommercial 70RC1 troubleshooting_0018)
    '"dha status 1" found in log. It means Atomic accumulation exception, please check the input data and network '
    "accuracy.",
    # the single-operator rerun failed: the operator's implementation or compile (CANNCommunityEdition 900 0014)
    "Failed to execute the single-operator test case. The operator logic may be incorrect.",
    # its older wording (canncommercial 800 troubleshooting_0014)
    "Single op test aicore error, please check op.",
])
def test_msaicerr_program_conclusion_is_the_operators(line: str) -> None:
    assert "rt:aicore_sw" in kinds(line)


@pytest.mark.parametrize("line", [
    # the benchmark operator failed: "system environment or hardware" (troubleshooting_0013), no class named
    "Failed to execute the built-in sample operator. Check the environment.",
    "Golden Op run error on your environment. Please check your environment!",
    # msaicerr -e on a healthy environment (CANNCommunityEdition 910 troubleshooting_0534)
    "[INFO] The build-in sample operator runs successfully, The environment is normal.",
    '"**********************Root cause conclusion******************"',
])
def test_environment_conclusions_and_healthy_check_are_no_operator_error(line: str) -> None:
    assert "rt:aicore_sw" not in kinds(line)
