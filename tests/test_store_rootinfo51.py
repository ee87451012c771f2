"""torch_npu's failure to fetch rank 0's HCCL root info from the c10d store (ProcessGroupHCCL::broadcastMasterID) is
a rank's wait for a peer that never answered: ``hccl:socket_error``, a wait kind (the printing rank is a witness).
Lines marked (real) are copied from a public log, (src) are the message as the cited source builds it, with example
values where it formats a key or a reason (session 51, tester51j)."""

from __future__ import annotations

import pytest

from opsbrain.ingest.parsers import parse_line
from opsbrain.ingest.parsers.hccl import WAIT_KINDS

ROOT_INFO_WAITS = [
    # (real) intelligent-machine-learning/dlrover@0eebaa0c4 dlrover/python/tests/data/training.log:37, an Ascend
    # NPU FSDP job of Ant Group's (torch_npu v2.1-era wording, Ascend/pytorch@750d5d12 ProcessGroupHCCL.cpp:890)
    "RuntimeError: store->get() got error: HCCL_BLOCKING_WAIT",
    # (src) Ascend/pytorch@750d5d12 torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:892, the catch-all branch
    "RuntimeError: Unknown exception: HCCL_BLOCKING_WAIT",
    # (src) Ascend/pytorch@9e73e708 torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:2347-2354, the later wording,
    # with a reason that names no socket
    "RuntimeError: [3] is setting up HCCL communicator and retrieving hcclUniqueId from [0] via c10d key-value store "
    "by key '1', but store->get('1') got error: Connection reset by peer. This may indicate a possible application "
    "crash on rank 0 or a network set up issue.",
]


SETTINGS = ["export HCCL_BLOCKING_WAIT=1", "HCCL_BLOCKING_WAIT=0",
            "HCCL_BLOCKING_WAIT and HCCL_ASYNC_ERROR_HANDLING are both enabled."]
"""The variable named without the store's failure: no wait."""


@pytest.mark.parametrize("line", ROOT_INFO_WAITS)
def test_a_rank_that_could_not_fetch_the_root_info_waited_on_a_peer(line: str) -> None:
    kinds = [s.kind for s in parse_line(line)]
    assert "hccl:socket_error" in kinds
    assert "hccl:socket_error" in WAIT_KINDS
    for setting in SETTINGS:
        assert "hccl:socket_error" not in [s.kind for s in parse_line(setting)], setting
