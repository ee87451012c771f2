"""Readings added in the real-log corpus' seventh round (issue 14, part J): torch_npu's debugging advice is no
missing environment, and the runtime's API-misuse codes and texts (no current context, a stream of another context,
a wrong call order, a parameter of the wrong type) name a software error of the calling program, and the runtime's
lost device heartbeat is no HCCL heartbeat. Every line is copied from the source its comment names."""

from __future__ import annotations

import pytest

from opsbrain.diagnosis.knowledge import default_table
from opsbrain.ingest.parsers import parse_line


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


# torch_npu's runtime error after an asynchronous inner error (Ascend/pytorch torch_npu/csrc/core/npu/NPUQueue.cpp),
# as vLLM's worker printed it (triton-ascend#783)
ADVICE = ("(Worker pid=42941) ERROR 08-04 06:01:38 [multiproc_executor.py:1018] Since the operator is called "
          "asynchronously, the stacktrace may be inaccurate. If you want to get the accurate stacktrace, please set "
          "the environment variable ASCEND_LAUNCH_BLOCKING=1.")


def test_launch_blocking_advice_is_no_missing_environment() -> None:
    assert "cfg:env" not in kinds(ADVICE)


def test_a_real_environment_error_still_reads() -> None:
    # CANN error reference E20002 (hicann/runtime docs/zh/error_code_ref/FE-Errors): a variable naming a path that
    # does not exist is an environment error
    line = ("Value /usr/local/Ascend/cann/opp for environment variable ASCEND_OPP_PATH is invalid. Reason: "
            "ASCEND_OPP_PATH does not exist or access permission is denied during FE initialization.")
    assert "cfg:env" in kinds(line)


@pytest.mark.parametrize(("line", "kind"), [
    # torch_npu's allocator in a process that never set its device (lm-sys/FastChat#2843)
    ("(allocate:torch_npu/csrc/core/npu/NPUCachingAllocator.cpp:2050 NPU error, error code is 107002", "rt:107002"),
    # EE1010's message template, fixed part (hicann/runtime docs/zh/error_code_ref/RTS-Errors/EE1010 example)
    ("MemCopy2DAsync execution failed because stream does not belong to the current context. Extended information: "
     "stream_id=61, stream_ctx=0x56519b7e0ee0, cur_ctx=0x5651a0428090.", "msg:api_misuse"),
    # a non-contiguous tensor given to a collective (Ascend/pytorch troubleshooting case
    # communication_operator_transfers_Non-contiguous_tensors.md)
    ("[ERROR] 2024-08-18-22:15:47 (PID:23232, Device:0, RankID:0) ERR02002 DIST invalid type", "err:ERR02002"),
])
def test_api_misuse_names_the_software_error(line: str, kind: str) -> None:
    assert kind in kinds(line)
    assert default_table().of(kind) == [("framework_error", "primary")]


def test_every_message_category_has_a_feature() -> None:
    """A category used only by the template parts (``cann_message_parts``) still gives its classes a feature."""
    from importlib import resources
    from pathlib import Path

    from opsbrain.yamlio import read_package_yaml

    doc = read_package_yaml(Path(str(resources.files("knowledge_base"))) / "codes.yaml")
    cats = read_package_yaml(Path(str(resources.files("knowledge_base"))) / "categories.yaml")
    used = {str(r["category"]) for r in doc["messages"] + doc["cann_message_parts"]}
    t = default_table()
    for cat in sorted(used):
        if cats.get(cat):
            assert t.of(f"msg:{cat}"), cat


@pytest.mark.parametrize("kind", ["err:EE1003", "err:ERR02001", "rt:100000"])
def test_an_invalid_parameter_stays_shared(kind: str) -> None:
    # an invalid argument in general may be the program or its set-up (EE1003 Invalid_Argument, torch_npu's ERR**001
    # invalid parameter, ACL_ERROR_INVALID_PARAM): only the API-misuse codes name the program
    assert default_table().of(kind) == [("config_error", "secondary"), ("framework_error", "secondary")]


@pytest.mark.parametrize("line", [
    # the runtime's trace of a device whose task scheduler stopped answering (vllm-ascend#8186, Ascend 310P3)
    "        Device[0] lost heartbeat.[FUNC:SyncTask][FILE:direct_hwts_engine.cc][LINE:407]",
    "        rtDeviceSynchronizeWithTimeout execution failed, reason=lost heartbeat[FUNC:FuncErrorReason]"
    "[FILE:error_message_manage.cc][LINE:65]",
])
def test_the_runtime_lost_heartbeat_is_a_lost_device(line: str) -> None:
    got = kinds(line)
    assert "rt:device_lost" in got and "hccl:heartbeat_lost" not in got


def test_hccl_heartbeat_between_ranks_stays_hccl() -> None:
    # HCCL's cluster-exception record (HCCL user guide, hcclug_000055: a rank's process exited)
    line = ("[ERROR]HCCL(835695,all_reduce_test):2025-10-23-17:28:06.049.385[task_exception_handler.cc:610][835695]"
            "Cluster Exception Location[IP/ID]:[127.10.0.1/1], Arrival Time:[Thu Oct 23 17:25:58 2025], "
            "Discoverer:[127.10.0.1/2], ExceptionType:[Heartbeat Lost Occurred], Possible Reason:1. Process has "
            "exited, 2. Network Disconnected")
    assert "hccl:heartbeat_lost" in kinds(line)


@pytest.mark.parametrize("field", ["deviceId[4]", "chip 4", "npu4", "device_id=4", "logicDevId[4]", "device 4"])
def test_the_ei0002_abnormal_device_is_read_in_any_device_spelling(field: str) -> None:
    """EI0002's abnormal-device list (HCCL user guide hcclug_000031) names the root the collective waited for; a
    copy that re-spells the device field still names it (session 21: the robustness variants' ``chip N``)."""
    line = f"serverId[192.168.100.111], {field}, Heartbeat Lost Occurred, Possible Reason: 1. Process has exited"
    got = [s for s in parse_line(line) if s.kind == "hccl:remote"]
    assert [(s.peer, s.device) for s in got] == [("192.168.100.111", 4)]
