"""Line shapes added from the real-log corpus' second round (issue 14): each line is copied from the public source
named beside it, and each test can fail (a kind that must appear, or one that must not)."""

from __future__ import annotations

import pytest

from opsbrain.ingest import ingest_text, parse_line

LINES = [
    # (line, kind expected, device expected) -- source
    # vllm-ascend#9372: the weights leave no room for the KV cache
    ("Available KV cache memory: -0.87 GiB", "mem:oom", None),
    # mindone#820: MindSpore's allocator cannot grow past the device memory
    ("[ERROR] PRE_ACT(145615,fffbdf67f120,python):2025-01-12-09:48:13.703.514 [mindspore/ccsrc/backend/common/mem_reuse/"
     "mem_dynamic_allocator.cc:392] AddMemBlockAndMemBufByEagerFree] TotalUsedMemStatistics : 24725382656 plus "
     "TotalUsedByEventMemStatistics : 0 and plus alloc size : 100555779072 is more than total mem size : 61079552000.",
     "msg:memory_exhausted", None),
    # vllm-ascend#340: an Ascend module without the API its caller expects (a version mismatch)
    ("AttributeError: module 'torch_npu' has no attribute '_npu_flash_attention'", "cfg:version", None),
    # cann-container-image#46: DCMI refuses a device another container holds
    ("dcmi model initialized failed, because the device is used. ret is -8020", "cfg:device", None),
    # Ascend/pytorch#7: CANN's own environment error behind an EH9999
    ("EH9999  [Init][Env]init env failed![FUNC:ReportInnerError][FILE:log_inner.cpp][LINE:145]", "cfg:env", None),
    # vllm-ascend#4284: E30006, the operator package fails verification
    ("E30006: 2025-11-19-11:14:58.516.606 Failed to verify the OPP", "err:E30006", None),
    # lmdeploy#3354: the FFTS+ form of a notify-wait timeout
    ("        The error from device(chipId:5, dieId:0), serial number is 17, hccl fftsplus task timeout occurred during "
     "task execution, stream_id:7, sq_id:7, task_id:9865, stuck notify num:3, timeout:1836.[FUNC:ProcessStarsHcclFftsPlus"
     "TimeoutErrorInfo][FILE:device_error_proc.cc][LINE:1657]", "hccl:notify_timeout", 5),
    # HCCL user guide hcclug_000031: the abnormal device EI0002 names
    ("serverId[192.168.100.111], deviceId[4], Heartbeat Lost Occurred, Possible Reason: 1. Process has exited, "
     "2. Network Disconnected", "hccl:remote", 4),
    # hicann/driver Ascend 950 HCCN tool reference: the link_stat history table
    ("|  0  |  0   |  4   |  LINK_DOWN  | Mon Feb 9 21:45:47 2026 |", "hccn:down", 0),
    # Huawei black-box log guide EDOC1100164868: history.log device heartbeat lost
    ("[2020-02-27-19:18:46.142527] system exception code [0x68020002]: ModuleName [DRIVER], ExceptionReason "
     "[DEVICE_HBL_EXCEPTION], TimeStamp [20200227191842-300803183].", "msg:device_lost", None),
]


@pytest.mark.parametrize(("line", "kind", "dev"), LINES)
def test_second_round_lines_become_their_signal(line: str, kind: str, dev: int | None) -> None:
    sigs = parse_line(line)
    kinds = [s.kind for s in sigs]
    assert kind in kinds, kinds
    if dev is not None:
        assert any(s.device == dev for s in sigs if s.kind == kind)


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
