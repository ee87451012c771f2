"""Whole run logs committed to public repositories (session 50, tester50n): runs that went well, read as faults from
start-up notices that state settings or a placement, not a failure.

torch_npu's process group compares its watchdog's timeout with HCCL's execution timeout when it is built and warns
``The watchdog timeout ...ms(which is set by init_process_group) is less than or equal to HCCL execution timeout
...ms! The plog may not be recorded.`` (or, for an execution timeout of 0, ``The HCCL execution timeout was set to
0(never timeout), so it is bigger than watchdog timeout ...``): TORCH_NPU_WARN in the ProcessGroupHCCL constructor,
Ascend/pytorch@9e73e708 torch_npu/csrc/distributed/ProcessGroupHCCL.cpp. An 8-rank HCCL smoke test in which every rank
printed ``hccl_ok`` (chiro2001/deepseek-v4.1-flash-ascend910B@0e975b02 evidence/ced_dram_20261009/hccl8.log) read
collective_timeout_sw 0.69 from the eight notices.

TensorFlow 1.x's placer warns ``Failed to place the graph without changing the devices of some resources ...`` after
soft placement found devices for a colocation group (LOG(WARNING) in ``ColocationGraph::GetSoftDeviceCandidates``,
tensorflow core/common_runtime/colocation_graph.cc), and ``disable_resource_variables`` prints the deprecation's
``Instructions for updating:`` / ``non-resource variables are not supported in the long term`` (tensorflow
python/ops/variable_scope.py). Two whole ModelZoo-TensorFlow logs (MONODEPTH_ID2099 test/output/2/train_2.log, 2690
lines; IEG_ID2049 log/perflog.txt, 1696 lines; Ascend/ModelZoo-TensorFlow@a2c3332a) read framework_error 0.64 from
them."""

from __future__ import annotations

import pytest

from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line

# chiro2001/deepseek-v4.1-flash-ascend910B @0e975b02 evidence/ced_dram_20261009/hccl8.log (line 11)
WATCHDOG_LE = ("[W1009 03:41:43.594398300 ProcessGroupHCCL.cpp:1294] Warning: The watchdog timeout 90000ms(which is "
               "set by init_process_group) is less than or equal to HCCL execution timeout 1836000ms! The plog may not "
               "be recorded. (function ProcessGroupHCCL)")
# the same constructor's other branch (Ascend/pytorch @9e73e708 ProcessGroupHCCL.cpp), as TORCH_NPU_WARN prints it
WATCHDOG_ZERO = ("[W1009 03:41:43.594398300 ProcessGroupHCCL.cpp:1299] Warning: The HCCL execution timeout was set to "
                 "0(never timeout), so it is bigger than watchdog timeout 90000ms which is set by init_process_group! "
                 "The plog may not be recorded. You can disable watchdog by "
                 "'export TORCH_HCCL_ASYNC_ERROR_HANDLING=0'. (function ProcessGroupHCCL)")
# a collective that did time out keeps its reading (tests/test_ingest_real*.py: c10d's watchdog form)
WATCHDOG_CAUGHT = ("[Rank 3] Watchdog caught collective operation timeout: WorkHCCL(SeqNum=2, OpType=ALLREDUCE, "
                   "Timeout(ms)=1800000) ran for 1800340 milliseconds before timing out.")

# Ascend/ModelZoo-TensorFlow @a2c3332a TensorFlow/contrib/cv/MONODEPTH_ID2099_for_TensorFlow/test/output/2/train_2.log
# (line 150, cut at its list of devices)
COLOCATION = ("2022-08-12 16:08:58.583786: W tensorflow/core/common_runtime/colocation_graph.cc:983] Failed to place "
              "the graph without changing the devices of some resources. Some of the operations (that had to be "
              "colocated with resource generating operations) are not supported on the resources' devices. Current "
              "candidate devices are [")
# Ascend/ModelZoo-TensorFlow @a2c3332a TensorFlow/contrib/cv/IEG_ID2049_for_TensorFlow/log/perflog.txt (line 6)
NON_RESOURCE = "non-resource variables are not supported in the long term"
# a placement that failed stays a failure (the placer's InvalidArgument in colocation_graph.cc)
NO_KERNEL = ("tensorflow.python.framework.errors_impl.InvalidArgumentError: Cannot assign a device for operation "
             "a: Could not satisfy explicit device specification '/device:NPU:0' because no supported kernel for NPU "
             "devices is available.")


@pytest.mark.parametrize("line", [WATCHDOG_LE, WATCHDOG_ZERO, COLOCATION, NON_RESOURCE])
def test_the_start_up_notice_is_benign(line: str) -> None:
    assert BENIGN.search(line)
    assert [s.kind for s in parse_line(line)] == []


def test_a_collective_that_timed_out_still_reads() -> None:
    assert not BENIGN.search(WATCHDOG_CAUGHT)
    assert "hccl:exec_timeout" in [s.kind for s in parse_line(WATCHDOG_CAUGHT)]


def test_a_failed_placement_and_a_worded_deprecation_still_read() -> None:
    assert not BENIGN.search(NO_KERNEL)
    assert parse_line(NO_KERNEL)
    assert not BENIGN.search("Instructions for updating: non-resource variables are not supported, op failed")
