"""Line shapes added from the real-log corpus' second round (issue 14; their kinds are in test_ingest.REAL): the
root rank HCCL names, and words inside other words that must not be read as causes."""

from __future__ import annotations

import pytest

from opsbrain.ingest import ingest_text, parse_line


def test_the_cluster_exception_line_names_the_root_rank_on_its_server() -> None:
    """HCCL's heartbeat broadcast blames 90.90.92.240 device 1 (torch_npu HCCL_timeout troubleshooting doc): that is
    the remote the collective waited for, and HCCL's rank heartbeat is not the driver's device heartbeat."""
    line = ("Cluster Exception Location[IP/ID]:[90.90.92.240/1], Arrival Time:[Thu Nov 28 11:56:34 2024], "
            "Discoverer:[90.90.92.240/0], ExceptionType:[Heartbeat Lost Occurred], Possible Reason:1. Process has "
            "exited, 2. Network Disconnected")
    sigs = parse_line(line)
    assert [s.component for s in sigs if s.kind == "hccl:remote"] == ["90.90.92.240/npu1"]
    assert "msg:device_lost" not in {s.kind for s in sigs}


@pytest.mark.parametrize("line", [
    # torch_npu's source file name (compiler_depend.ts) before "failed" is no compile failure (vllm-ascend#382)
    "[rank1]:[E324 13:00:25.428092542 compiler_depend.ts:628] Some HCCL operations have failed or timed out. Due to "
    "the asynchronous nature of ASCEND kernels, subsequent NPU operations might run on corrupted/incomplete data.",
    # 'roce' inside 'ProcessStars...' is no RoCE error (lmdeploy#3354)
    "        The 0 stuck notify wait context info:(context_id=13, notify_id=17).[FUNC:ProcessStarsHcclFftsPlusTimeout"
    "ErrorInfo][FILE:device_error_proc.cc][LINE:1664]",
])
def test_words_inside_other_words_are_not_read_as_causes(line: str) -> None:
    kinds = {s.kind for s in ingest_text(line)[0]}
    assert not kinds & {"op:compile", "hccl:rdma_error"}, kinds
