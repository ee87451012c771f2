"""Readings revised in the real-log corpus' ninth round (issue 14, part L): HCCL's scene tags. HCCL tags every error of
a scene with a stage and a scene keyword (hicann/hccl docs/zh/user_guide/fault_diagnosis/debug_thinking.md, "HCCL
多级检索关键字"); ``RanktableConfig`` and ``RanktableCheck`` are rank-table faults, ``RanktableDetect`` is the
root-info negotiation of the ranks, which uses no rank table. HCCL's port-bind failure (EI0019) is a port another
process holds. Every line is copied from the source its comment names."""

from __future__ import annotations

import pytest

from opsbrain.ingest.parsers import parse_line


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


# hicann/hccl docs/zh/user_guide/fault_diagnosis/cluster_info_nego.md @09300b70 (EI0015, corpus part L l001, l004)
DETECT = [
    "[ERROR] HCCL(1041085,all_reduce_test):2025-11-21-01:20:01.630.122 [topoinfo_exchange_base.cc:145] [1041085]"
    "[InitGroupStage][RanktableDetect] TopoDetect ERROR occur !!! fault_type[1], fault_info[\"Failed to connect "
    "agent[1,3,5,7,]\"]",
    "[ERROR] HCCL(1041085,all_reduce_test):2025-11-21-01:20:01.630.557 [topoinfo_exchange_agent.cc:552] [1041085]"
    "[InitGroupStage][RanktableDetect]rank num[8]is different with rank list size[4] in total topo rank info.",
    "[ERROR] HCCL(7988,all_reduce_test):2025-03-19-04:16:13.978.979 [topoinfo_exchange_agent.cc:190] [7988]"
    "[InitGroupStage][RanktableDetect]topo exchange agent get socket timeout! timeout[120] ",
]
# the same repository, param_link_stage.md @09300b70 (EI0019: the device NIC's port is held by another process)
PORT_BIND = ("[ERROR] HCCL(1009464,all_reduce_test):2025-03-15-00:41:48.470.172 [hccl_socket.cc:110] [1009464]"
             "[InitGroupStage][RanktableDetect] socket type[0], listen on ip[192.168.2.199] and specific port[16666] "
             "fail. Please check the port status and whether the port is being used by other process.")


@pytest.mark.parametrize("line", DETECT + [PORT_BIND])
def test_the_root_info_negotiation_tag_is_no_rank_table_fault(line: str) -> None:
    assert "cfg:ranktable" not in kinds(line)


def test_a_socket_timeout_in_the_negotiation_is_still_read() -> None:
    assert "hccl:socket_error" in kinds(DETECT[2])


def test_a_port_held_by_another_process_is_a_configuration_fault() -> None:
    assert "cfg:env" in kinds(PORT_BIND)


@pytest.mark.parametrize("line", [
    # rank_table_load_fail.md @09300b70 (the rank table file cannot be read)
    "[ERROR] HCCL(1104629,test_one_side):2025-10-28-17:45:13.679.684 [param_check.cc:66] [1104629][InitGroupStage]"
    "[RanktableConfig]errNo[0x0000000005010001] path /ranktable.json is not a valid real path",
    # cluster_info_verify_fail.md (corpus part B: the ranks' device IP families differ)
    "[ERROR] HCCL(144905,python):2025-04-20-00:26:54.435.048 [config.cc:413] [145735][InitGroupStage][RanktableCheck]"
    "rank[0] device ip family[2] is not same as others[10].",
])
def test_the_rank_table_scene_tags_are_rank_table_faults(line: str) -> None:
    assert "cfg:ranktable" in kinds(line)


def test_a_rank_table_text_without_a_tag_is_still_read() -> None:
    # MindSpore's CANN error cases, EI0004 (corpus part L l025): a device_id twice in the rank table
    line = ("EI0004: The ranktable is invalid,Reason:[The ranktable config devId is inconsistent with the local "
            "devId.]. "
            "Please check the configured ranktable.")
    assert "cfg:ranktable" in kinds(line)


def test_an_aicpu_timeout_with_an_oom_event_reads_as_memory_exhausted() -> None:
    # hicann/runtime docs/zh/error_code_ref/RTS-Errors/EE1024-Execution_Error_Stream_Synchronize_Timeout.md (0b98035),
    # the page's example message (corpus part L l009): the runtime's EE1024, not the plain AI CPU timeout E30008
    line = ("Stream synchronize failed. Reason: AI CPU operator execution timed out on device 0. In addition, an OOM "
            "event occurred on the device within 10 seconds.")
    got = kinds(line)
    assert "msg:memory_exhausted" in got
    assert "msg:timeout" in got  # the timeout part is still read


def test_the_plain_aicpu_timeout_stays_a_timeout() -> None:
    # hicann/runtime's error-code reference page for E30008 (Execution_Error_AICPU_Operator_Timeout), its example
    line = ("AI CPU operator execution timed out. The AI CPU operator RunAicpuRpcSrvLaunchV2_receive that times out is "
            "on device 0 stream 181. The task ID is 543, the so name is libccl_kernel.so, and the entry function for "
            "executing this AI CPU operator is RunAicpuRpcSrvLaunchV2.")
    assert "msg:memory_exhausted" not in kinds(line)
