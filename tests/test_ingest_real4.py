"""Line shapes added in the real-log corpus' fourth round (issue 14): HCCL's API return codes (HcclResult) as
torch_npu, MindIE and HCCL print them, CANN's error titles (``Invalid_Argument(EE1003)``), the aclnn call named on
a CANN error line, and a port whose link re-locked within seconds (a flap, not a port that stays down)."""

from __future__ import annotations

import pytest

from opsbrain.diagnosis.knowledge import default_table
from opsbrain.ingest import ingest_text


def kinds(text: str) -> list[str]:
    return [s.kind for s in ingest_text(text)[0]]


@pytest.mark.parametrize(("line", "kind"), [
    # torch_npu relays the HCCL API's return code (vllm-ascend#2712)
    ("(VllmWorker rank=1 pid=7226) ERROR 09-03 03:02:37 [multiproc_executor.py:522] RuntimeError: create_config:build/"
     "CMakeFiles/torch_npu.dir/compiler_depend.ts:148 HCCL function error: hcclCommInitRootInfoConfig(numRanks, "
     "&rootInfo, rank, config, &(comm->hcclComm_)), error code is 1", "hcclret:1"),
    # HCCL's own plog (HCCL fault-diagnosis guide, link set-up timeout EI0006)
    ("[ERROR] HCCL(17528,python3):2026-03-18-10:33:52.113.454 [hccl_socket_manager.cc:861] [18744][Wait]"
     "[LinksEstablishCompleted] is failed. ret[9].", "hcclret:9"),
    # MindIE's HCCL runner (gpustack#2021)
    ("[2025-05-13 02:25:58.64217] [error] [36815] [hccl_runner.cpp:132] AllGatherHcclRunner:0 HcclCommInitRootInfo "
     "fail, error:2, rank:1, rankSize:4", "hcclret:2"),
    # torch_npu prints its description of the runtime code after ERR00100 (NPUErrorCodes.h), also when the excerpt
    # lost the line with the code itself (vllm-ascend#10720, Ascend/pytorch#66, #48)
    ("(Worker_TP3 pid=26762) ERROR 06-23 17:20:43 [multiproc_executor.py:962] [Error]: The aicpu execution is "
     "abnormal. ", "msg:aicpu_error"),
    ("[Error]: The vector core execution is abnormal.", "msg:aicore_error"),
    ("[Error]: In the specified timeout waiting event, all tasks in the specified stream are not completed.",
     "msg:timeout"),
    # the DSMI query that cannot count the devices (lmdeploy#2585): no NPU visible where the process runs
    ("[ERROR] IDEDD(1,python3.10):2024-10-14-07:24:13.097.930 [adx_dsmi.cpp:54][tid:201]>>> Get physical device "
     "number failed, err: 87", "cfg:device"),
    # the aclnn base's HCCL resource call (vllm-ascend#5461)
    ("        Nnopbase fails to invoke the HcclAllocComResourceByTiling function of the hccl module. ret = 4, comm = "
     "0xfffcc6ed27a0.", "hcclret:4"),
    # hw-native-sys/PTOAS#341 (a board run that cannot allocate the device memory pool)
    ("[ERROR] RecentErrMsg: [PID: 1613532] 2026-03-24-12:14:45.885.234 Memory_Allocation_Failure(EL0004): Failed to "
     "allocate memory.", "msg:memory_exhausted"),
    # vllm-ascend#8981: a code the knowledge base does not list still carries its documented title
    ("(EngineCore pid=471424) [PID: 471424] 2026-05-08-17:31:28.781.490 Invalid_Argument(EL0003): The argument is "
     "invalid.", "msg:parameter_or_usage"),
])
def test_fourth_round_line_shapes(line: str, kind: str) -> None:
    assert kind in kinds(line)


def test_hccl_return_codes_take_their_roles_from_the_documented_enum() -> None:
    table = default_table()
    assert ("collective_timeout_sw", "secondary") in table.of("hcclret:9")  # HCCL_E_TIMEOUT
    assert ("npu_oom", "primary") in table.of("hcclret:24")  # HCCL_E_OOM
    assert table.of("hcclret:0") == []  # HCCL_SUCCESS names nothing


def test_a_relayed_return_code_does_not_hide_the_python_exception() -> None:
    line = ("[rank1]: RuntimeError: InnerRunOpApi:torch_npu/csrc/framework/OpParamMaker.cpp:281 OPS function error: "
            "HcclAllreduce, error code is 6")
    assert {"hcclret:6", "py:RuntimeError"} <= set(kinds(line))


def test_a_cann_error_title_and_the_failed_aclnn_call_on_its_line() -> None:
    line = ("[rank2]:[E316 07:55:33.244368902 compiler_depend.ts:350] call aclnnCausalConv1d failed, "
            "detail:[PID: 30776] "
            "2026-03-16-07:55:33.842.415 Invalid_Argument(EE1003): LaunchKernelV2 failed because value 0 for parameter "
            "blockDim is invalid. Expected value: not equal to 0.")
    found = set(kinds(line))
    assert {"err:EE1003", "msg:parameter_or_usage", "op:aclnn"} <= found, found
    assert ("framework_error", "secondary") in default_table().of("err:EE1003")


def test_a_port_that_relocked_within_seconds_is_a_flap_and_not_also_a_port_down() -> None:
    """hccn_tool's link change records, newest first (HCCL guide, ERROR CQE EI0013): DOWN at 10:13:50, UP at
    10:13:51."""
    text = "\n".join([
        "[devid 0]link change records :",
        "[devid 0]    Sun Oct  5 10:13:51 2025    LINK UP",
        "[devid 0]    Sun Oct  5 10:13:50 2025    LINK DOWN",
        "[devid 0]    Sun Oct  5 10:13:35 2025    LINK UP",
    ])
    found = kinds(text)
    assert found.count("hccn:flap") == 1
    assert "hccn:down" not in found


def test_a_port_that_stays_down_is_still_down() -> None:
    text = "\n".join([
        "[devid 3]link change records :",
        "[devid 3]    Sun Oct  5 10:13:50 2025    LINK DOWN",
        "[devid 3]    Sun Oct  5 09:00:00 2025    LINK UP",
    ])
    found = kinds(text)
    assert "hccn:down" in found and "hccn:flap" not in found



def test_a_cann_errors_canned_advice_is_not_read_as_what_happened() -> None:
    """EI0002's 'Possible Cause:' lists packet loss on the link among four causes for every notify timeout
    (vllm-ascend#3413); the code line itself is still read."""
    text = "\n".join([
        "EI0002: [PID: 2969] 2025-10-11-15:09:34.713.335 The wait execution of the Notify register times out. Reason: "
        "The Notify register has not received the Notify record from remote rank: [24].",
        "        Possible Cause: 1. An exception occurs during the execution on some NPUs in the cluster. As a result, "
        "collective communication operation failed.2. The execution speed on some NPU in the cluster is too slow to "
        "complete a communication operation within the timeout interval. (default 1800s, You can set the interval by "
        "using HCCL_EXEC_TIMEOUT.)3. The number of training samples of each NPU is inconsistent.4. Packet loss or "
        "other connectivity problems occur on the communication link.",
    ])
    sigs = ingest_text(text)[0]
    assert "hccl:EI0002" in {s.kind for s in sigs}
    assert all(s.line_no == 1 for s in sigs), [(s.kind, s.line_no) for s in sigs]
