"""Line shapes added in the real-log corpus' sixth round (issue 14, part I): HCCL's cluster-exception types and
task-exception timeouts, its parameter-consistency check, MindIE's error codes, kubelet's device-plugin lines, the
fixed parts of the CANN runtime's message templates, a command not found, and lines that must give nothing (the
INFO lines of a normal MindCluster start, ascend-fd's "no fault" status). Every line is copied from the source its
comment names."""

from __future__ import annotations

import pytest

from opsbrain.diagnosis.knowledge import default_table
from opsbrain.ingest.parsers import parse_line


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


@pytest.mark.parametrize(("line", "kind"), [
    # HCCL's task-exception record of a timed-out collective task (hicann/hccl docs/zh/user_guide/fault_diagnosis/
    # task_exec_stage.md, task exception mechanism)
    ("[ERROR] HCCL(2111667,all_reduce_test):2025-10-24-11:18:29.597.044 [task_exception_handler.cc:908] [2111667]"
     "[TaskExecStage][Timeout][Host]Task run failed, base information is streamID:[2], taskID[21], "
     "tag[AllReduce_127.10.0.1%enp_60000_0_1761275812718970], AlgType(level 0-1-2):[fullmesh-ring-NHR].",
     "hccl:exec_timeout"),
    # the consistency check at link set-up (param_link_stage.md, EI0005): the ranks issued different operators
    ("[ERROR] HCCL(3743927,all_reduce_test):2025-10-25-16:11:16.831.666 [rank_consistentcy_checker.cc:439] "
     "[3743951][InitChannelStage][ParameterConflict]CMD information cmdType check fail. local[6], remote[2]",
     "hccl:param_mismatch"),
    ("EI0005: 2024-04-24-06:32:27.781.599 The arguments for collective communication are inconsistent between "
     "ranks:parameter count, local end 16512, remote end 8320", "hccl:param_mismatch"),
    # MindIE's code (the Key log of an ascend-fd report, MindCluster docs/en/faultdiag/user_guide/
    # 07_diagnosing_faults.md; the code's cause: kg-config.json AISW_MindIE_LLM_LLMBackend_01)
    ("[2025-06-17 16:59:10.282+08:00] [97] [147] [server] [WARN] [llm_infer_engine.cpp:117] : "
     "MIE05E040000[llm_backend] get model instance processing request failed", "err:MIE05E040000"),
    # kubelet (Project-HAMi/ascend-device-plugin#129, Project-HAMi/HAMi#2712)
    ("  Allocate failed due to no healthy devices present;", "kube:no_healthy_devices"),
    ('8月 18 16:33:56 kylin10-6018 kubelet[176281]: E0818 16:33:56.754985  176281 client.go:90] "ListAndWatch '
     'ended unexpectedly for device plugin" err="EOF" resource="huawei.com/Ascend910B4-1"', "kube:plugin_stream_ended"),
    # a command the shell cannot find, and Open MPI's daemon exit 127 (HCCL Test FAQ, hicann/oam-tools)
    ("bash: orted: 未找到命令", "cfg:env"),
    ("A daemon (pid 8793) died unexpectedly with status 127 while attempting", "cfg:env"),
    # the fixed part of EE1010's message template (hicann/runtime error_code.json; the example of
    # docs/zh/error_code_ref/RTS-Errors/EE1010-Execution_Error_Invalid_Context.md)
    ("MemCopy2DAsync execution failed because stream does not belong to the current context. Extended information: "
     "stream_id=61, stream_ctx=0x56519b7e0ee0, cur_ctx=0x5651a0428090.", "msg:api_misuse"),
])
def test_sixth_round_line_kinds(line: str, kind: str) -> None:
    assert kind in kinds(line)


@pytest.mark.parametrize(("line", "ex_type", "kind", "absent"), [
    # the cluster-exception record is tagged [HeartbeatAbnormal] whatever its type (task_exec_stage.md)
    ("[ERROR]HCCL(1219039,all_reduce_test):2025-10-23-21:05:09.859.568[task_exception_handler.cc:610] [1219039]"
     "[TaskExecStage][HeartbeatAbnormal]Cluster Exception Location[IP/ID]:[127.10.0.1/1], Arrival Time:[Thu Oct 23 "
     "21:03:19 2025], ExceptionType:[Stuck Occurred], Possible Reason:1.Host process is stuck, 2.Device task is stuck",
     "Stuck", "hccl:exec_timeout", "hccl:heartbeat_lost"),
])
def test_cluster_exception_type_decides(line: str, ex_type: str, kind: str, absent: str) -> None:
    got = kinds(line)
    assert ex_type in line and kind in got and absent not in got
    assert "hccl:remote" in got  # the located rank stays the root


@pytest.mark.parametrize("line", [
    # INFO lines of a normal start (MindCluster upgrade guide, container-manager; installation guide, NPU Exporter)
    "[INFO]     2025/11/25 22:46:59.007506 1       devmanager/devmanager.go:134    get card list from dcmi reset "
    "timeout is 60",
    "[INFO]     2025/11/25 22:46:59.293773 1       app/config.go:40    load fault config from /home/faultCode.json "
    "success",
    # ascend-fd's status for "no fault event found" (07_diagnosing_faults.md)
    "|              |  Status code | NORMAL_OR_UNSUPPORTED                                                  |",
])
def test_normal_output_gives_no_signal(line: str) -> None:
    assert kinds(line) == []


def test_info_line_keeps_memory_budget() -> None:
    # vLLM logs its KV-cache budget at INFO; a negative one is still a memory shortage (vllm-ascend#9372 shape)
    assert "mem:oom" in kinds("INFO 07-01 10:00:00 [gpu_worker.py:1] Available KV cache memory: -0.87 GiB")


def test_new_kinds_have_documented_roles() -> None:
    t = default_table()
    assert t.of("hccl:param_mismatch") == [("framework_error", "primary")]
    assert t.of("err:MIE05E040000") == []  # no shipped meaning: vendor text is not copied (codes.yaml)
    # kubelet's lines do not say why no device is healthy: ambiguous for every class that lists them
    for kind in ("kube:no_healthy_devices", "kube:plugin_stream_ended"):
        roles = t.of(kind)
        assert len(roles) >= 3 and {r for _, r in roles} == {"ambiguous"}


def test_message_parts_skip_ambiguous_codes() -> None:
    # EI0002's template is ambiguous in codes.yaml; its fixed part must not become a non-ambiguous message
    from importlib import resources
    from pathlib import Path

    from opsbrain.yamlio import read_package_yaml

    doc = read_package_yaml(Path(str(resources.files("knowledge_base"))) / "codes.yaml")
    parts = {str(r["text"]) for r in doc["cann_message_parts"]}
    assert not any("Notify register" in p for p in parts)
    assert all(len(p) >= 26 and r.get("source") for p, r in ((str(r["text"]), r) for r in doc["cann_message_parts"]))


def test_a_template_part_stands_in_for_its_code_only_where_the_line_prints_none() -> None:
    """hicann/runtime's message templates: the fixed text is read where the code was lost, not beside the code."""
    from opsbrain.ingest.parsers.messages import catalog, parts

    rx, cats = catalog()
    part = next(p for p in sorted(parts()) if p in cats)
    bare = f"[ERROR] RUNTIME(1234,python):2024-05-01-10:00:00.000.000 {part}"
    coded = f"[ERROR] RUNTIME(1234,python):2024-05-01-10:00:00.000.000 EE1013: {part}"
    kinds_bare = set(kinds(bare))
    kinds_coded = set(kinds(coded))
    assert f"msg:{cats[part]}" in kinds_bare
    assert f"msg:{cats[part]}" not in kinds_coded
