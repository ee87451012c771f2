"""Test runners' records of passing tests (session 50, tester50p, :mod:`opsbrain.ingest.testruns`): a test's name is
its author's words (``..._fail_before_read``, ``plugin_failed``), no failure of the run's; a failing record keeps its
reading, and so does a unittest run whose verdict is ``FAILED``."""

from __future__ import annotations

import pytest

from opsbrain.ingest.parsers import parse_line
from opsbrain.ingest.recovered import RecoveredScan
from opsbrain.ingest.testruns import outcome_words
from tests.textviews import view_of

# chiro2001/deepseek-v4.1-flash-ascend910B @b0f4be93 evidence/ced_dram_20261009/v11-cpu-check.log: a passing
# unittest -v run on the NPU host (lines 1-5, 7-8, 15, 21-26 of 26: cut, not edited)
V11_RUN = """\
test_async_p_boundary_and_invalid_full_hit (tests.test_ced_dram.AsyncResumeTests.test_async_p_boundary_and_invalid_full_hit) ... ok
test_local_full_hit_at_one_block_recomputes_instead_of_scheduling_zero (tests.test_ced_dram.AsyncResumeTests.test_local_full_hit_at_one_block_recomputes_instead_of_scheduling_zero) ... [CED-DRAM-RESUME] req=r loaded=1024 tail=1 unit=1024
[CED-P-HIT] req=short status=WAITING num_tokens=1 num_computed=1 -> truncated to 0 (step=128, local=1 external=0 max_tokens=1)
ok
test_abort_barrier_waits_for_pending_load_destinations (tests.test_ced_dram.BarrierTests.test_abort_barrier_waits_for_pending_load_destinations) ... [CED-DRAM] save barrier complete req=aborted
ok
test_mock_rejects_unregistered_payload_before_native_read (tests.test_ced_dram.GeometryTests.test_mock_rejects_unregistered_payload_before_native_read) ... ok
test_lazy_identity_comes_from_p_and_mixed_addresses_fail_before_read (tests.test_ced_dram.MockIdentityTests.test_lazy_identity_comes_from_p_and_mixed_addresses_fail_before_read) ... ok

----------------------------------------------------------------------
Ran 20 tests in 1.420s

OK
"""  # noqa: E501


def test_a_passing_unittest_run_has_no_failing_line() -> None:
    assert view_of(V11_RUN).failing == 0  # before: 3 (the names' "invalid", "fail"; "req=aborted" of a passing test)


def test_a_unittest_run_that_failed_keeps_its_lines() -> None:
    # the same lines under the verdict TextTestRunner writes when a test failed (made in its documented shape)
    failed = V11_RUN.replace("\nOK\n", "\nFAILED (failures=1)\n")
    assert view_of(failed).failing >= 2
    scan = RecoveredScan()
    assert not any(scan.step(n, line) for n, line in enumerate(failed.splitlines(), 1))


def test_a_count_without_verdict_recovers_nothing() -> None:
    scan = RecoveredScan()
    lines = V11_RUN.splitlines()[:-2] + ["", "", "", "", "OK"]  # the verdict too far below its count
    assert not any(scan.step(n, line) for n, line in enumerate(lines, 1))


@pytest.mark.parametrize("line", [
    # Ascend/pytorch docs/zh/developer_notes/custom_operator_adaptation/opplugin_operator_adaptation/
    # sample_call_opplugin.md (op-plugin's test run, "说明执行正确")
    "test_add_custom_backward (__main__.TestCustomAdd) ... ok",
    # huggingface/trl#7178 (pytest -v)
    "tests/test_vllm_client_server.py::TestParseLogprobs::test_returns_none_when_logprobs_missing PASSED [  7%]",
    # huggingface/sentence-transformers#2466 (the Ascend NPU support PR's run)
    "tests/test_cmnrl.py::test_rand_context_working[True] PASSED",
    # iovisor/ubpf#266 (ctest)
    "      Start  9: plugin_failed",
    " 9/38 Test  #9: plugin_failed ....................   Passed    0.02 sec",
    " 6/38 Test  #6: invalid_return_value .............   Passed    0.06 sec",
    # nfs-ganesha/nfs-ganesha#424 (GoogleTest)
    "[ RUN      ] LookupEmptyLatencyTest.SIMPLE",
    "[       OK ] LookupEmptyLatencyTest.SIMPLE (3 ms)",
    "[----------] 2 tests from LookupEmptyLatencyTest (16653 ms total)",
    "[  PASSED  ] 4 tests.",
    # BitFunnel/BitFunnel#108 (ctest's closing count)
    "100% tests passed, 0 tests failed out of 4",
    # vllm-project/vllm-ascend csrc/attention/sparse_attention_score/tests/FLASH_DECODING_GENERALIZED_TEST.md (-q)
    "23 passed, 1 xfailed in 4.86s",
])
def test_a_passing_record_is_no_failing_line_and_no_signal(line: str) -> None:
    assert view_of(line).failing == 0
    assert parse_line(line) == []


@pytest.mark.parametrize("line", [
    # iovisor/ubpf#266 (cut at the regex it printed)
    "10/38 Test #10: wrong_error ......................***Failed  Required regular expression not found.",
    # DeepLink-org/DeepLinkExt#122: the loader could not import the test module
    "test_one_hot (unittest.loader._FailedTest) ... ERROR",
    # facebookarchive/caffe2#516
    "96% tests passed, 3 tests failed out of 67",
    # made in GoogleTest's and pytest's documented shapes
    "[  FAILED  ] GetErrorTest.UnknownError (0 ms)",
    "tests/test_x.py::test_timeout FAILED                       [ 50%]",
    "FAILED tests/ut/compilation/test_acl_graph.py::TestPCPDCPGraphParams::test_update_attn_dcp_pcp_params",
])
def test_a_failing_record_keeps_its_reading(line: str) -> None:
    assert outcome_words(line) == line
    assert view_of(line).failing == 1


def test_a_test_name_gives_no_exception_signal() -> None:
    # GoogleTest's head of a test named after an error (gtest.cc's "[ RUN      ] " shape): before, py:UnknownError
    assert parse_line("[ RUN      ] GetErrorTest.UnknownError") == []


def test_only_the_output_after_a_unittest_head_is_read() -> None:
    line = V11_RUN.splitlines()[4]
    assert outcome_words(line) == "[CED-DRAM] save barrier complete req=aborted"
