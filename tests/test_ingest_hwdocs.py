"""Documented hardware, fabric and collective texts, read as their documents print them (issue: hardware-side real
text). Every line is the documented output form its comment names; none is a corpus excerpt."""

from __future__ import annotations

import pytest

from opsbrain.ingest.parsers import parse_line


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


# ``npu-smi info -t health -i id -c chip_id`` (HDK npu-smi reference, "查询指定芯片健康状态", npusmi_028; the
# MindCluster log-collection guide shows the same three fields): one field a line, the fault codes of the black-box
# error list.
SMI_T_HEALTH = [
    "        Health Status                  : Critical",
    "        Error Code                     : 80E01801",
    "        Error Information              : NA",
]


def test_the_chip_health_query_names_its_fault_code() -> None:
    assert kinds(SMI_T_HEALTH[1]) == ["dev:80E01801"]


def test_the_chip_health_query_reads_several_codes() -> None:
    assert kinds("        Error Code                     : 80E01801 80FA4E00") == ["dev:80E01801", "dev:80FA4E00"]


def test_the_chip_health_query_status_is_left_to_its_codes() -> None:
    assert kinds(SMI_T_HEALTH[0]) == []


@pytest.mark.parametrize("line", ["        Health Status                  : OK",
                                  "        Error Code                     : NA", SMI_T_HEALTH[2],
                                  "        Error Code                     : 00000000"])
def test_a_healthy_chip_gives_no_signal(line: str) -> None:
    assert kinds(line) == []


# The MindCluster FaultDiag guide's pre-/post-training check file (log collection, npu_info_before.txt,
# https://www.hiascend.com/doc_center/source/zh/mindcluster/70rc1/faultdiag/faultdiagug/mindxdlFDUG021.html): the link
# history of ``hccn_tool -i 0 -link_stat -g`` tagged ``[device 0]`` and the counters of ``npu-smi info -i 0 -t ecc``.
LINK_STAT = [
    "[device 0]current time        : Wed Jun  7 10:08:28 2023",
    "[device 0]    Tue Jun  6 16:32:12 2023    LINK UP",
    "[device 0]    Tue Jun  6 16:32:10 2023    LINK DOWN",
]


def test_the_device_tagged_link_history_is_read() -> None:
    assert "hccn:down" in kinds(LINK_STAT[2])
    assert kinds(LINK_STAT[1]) == ["hccn:up"]
    assert kinds(LINK_STAT[0]) == []


def test_the_hbm_double_bit_count_is_an_uncorrectable_error() -> None:
    assert kinds("HBM Double Bit Error Count               : 2") == ["ecc:uce"]
    assert kinds("HBM Single Bit Error Count               : 4213") == ["ecc:ce"]


@pytest.mark.parametrize("line", ["HBM Double Bit Error Count               : 0",
                                  "HBM Double Bit Aggregate Total Err Cnt   : 2",
                                  "HBM Double Bit Isolated Pages Count      : 2"])
def test_zero_counts_and_lifetime_totals_are_not_read(line: str) -> None:
    assert kinds(line) == []


# ``hccn_tool -i 0 -optical -g`` as the same check file prints it (the RoCE port's optical module): a module not
# present, and the loss-of-signal / loss-of-lock lane bitmaps.
def test_an_absent_optical_module_is_read() -> None:
    assert kinds("present              : not present") == ["hccn:optical_absent"]
    assert kinds("present              : present") == []


def test_optical_loss_of_signal_or_lock_is_read() -> None:
    assert kinds("Rx Los Flag          : 0xff") == ["hccn:optical_loss"]
    assert kinds("Rx LoL Flag          : 0x1") == ["hccn:optical_loss"]
    assert kinds("Tx Los Flag          : 0x0") == []


# ``npu-smi info -t board -i id`` (HDK npu-smi reference npusmi_008): Compatibility NOK, driver and firmware do not
# match.
def test_a_driver_firmware_mismatch_is_read() -> None:
    assert kinds("Compatibility                  : NOK") == ["smi:compat_nok"]
    assert kinds("Compatibility                  : OK") == []


def test_the_knowledge_base_reads_the_new_signals() -> None:
    """The knowledge-base rows behind these readings (the shipped model is to be retrained on them): the HBM
    controller's multi-bit ECC event 0x80F38008 (hicann/runtime device_error_proc.cc, g_mulBitEccEventId 'HBMA Multi
    Bit Ecc.'), npu-smi's driver/firmware mismatch, and a RoCE port's absent or dark optical module."""
    from opsbrain.diagnosis.knowledge import default_table

    table = default_table()
    assert table.of("dev:80F38008") == [("hbm_uce", "primary")]
    assert table.of("smi:compat_nok") == [("driver_firmware_error", "primary")]
    assert table.of("hccn:optical_absent") == table.of("hccn:optical_loss") == [("roce_port_down", "secondary")]
    assert kinds("        Error Code                     : 80F38008") == ["dev:80F38008"]
    assert "msg:memory_exhausted" in kinds("E19999: " + GE_MAX)  # a line the graph engine's code opens


# hicann/runtime's trace of a failed driver call (src/runtime/driver/npu_driver*.cc, "[drv api] halMemAlloc
# failed:size=%lu(bytes), type=%u, moduleId=%hu, drvFlag=%#lx, drvRetCode=%d, device_id=%u!"); drvRetCode 6 is
# DRV_ERROR_OUT_OF_MEMORY (hicann/driver pkg_inc/ascend_hal_error.h), which the runtime reports as 207001.
HAL_OOM = ("[ERROR] RUNTIME(1234,python):2025-01-01-10:00:00.123.456 [npu_driver.cc:1000]1234 DevMemAlloc:[drv api] "
           "halMemAlloc failed:size=4294967296(bytes), type=2, moduleId=3, drvFlag=0, drvRetCode=6, device_id=0!")


def test_a_driver_allocation_out_of_memory_is_the_runtime_allocation_failure() -> None:
    assert "rt:207001" in kinds(HAL_OOM)
    assert "rt:207001" not in kinds(HAL_OOM.replace("drvRetCode=6", "drvRetCode=4"))


def test_the_small_page_warning_before_the_huge_page_retry_is_not_read() -> None:
    assert "rt:207001" not in kinds(HAL_OOM.replace("[ERROR]", "[WARNING]"))


# The graph engine's check that a graph's memory fits the device (mindspore-ai/graphengine
# ge/graph/build/memory/graph_mem_assigner.cc: "Sum of total_mem_offset:%zu and var_mem_size:%zu is greater than
# memory manager malloc max size %zu, graph_id:%u, graph_name:%s, reduce your batchsize or scale your model may solve
# problem").
GE_MAX = ("Sum of total_mem_offset:26496001536 and var_mem_size:11776003072 is greater than memory manager malloc max "
          "size 33285996544, graph_id:1, graph_name:ge_default_1, reduce your batchsize or scale your model may solve "
          "problem")


def test_a_graph_past_the_memory_manager_maximum_is_out_of_memory() -> None:
    assert "mem:oom" in kinds(GE_MAX)


# The device black box's driver record (hisi_logs/.../bbox/driver.txt), as the ascend-fd test fixture of that file
# prints it (Ascend/mind-cluster component/ascend-faultdiag/test/st_testcase/modelarts-job-testdt/ascend/device_log/
# hisi_logs/device-0/20230713162044-070000011/bbox/driver.txt).
def test_the_black_box_multi_ecc_record_is_an_uncorrectable_error() -> None:
    line = "device_id = 2, fail info: device_id-2 appeared multi ecc err, the physical address is 0x400cd8d202e0"
    assert kinds(line) == ["ecc:uce"]


@pytest.mark.parametrize(("line", "want"), [
    ("0x80E01801", ["dev:80E01801"]),  # the HBM UCE event id (MindCluster's resumable-training guide), quoted alone
    ("hit 0x80E01801 on npu 3, the job restarted", ["dev:80E01801"]),
    ("[ERROR] DRV(1,python):2024-01-01-00:00:00.000.000 event id 0x80E01801", ["dev:80E01801"]),
    ("addr 0x80E01802 write", []),  # an eight-digit hex value the knowledge base does not list: an address
    ("x0=0x80e01801ab", []),  # part of a longer value
    ("[ERROR] RuntimeError: call aclnnAdd failed, addr 0x80E18000", ["op:aclnn", "py:RuntimeError"]),  # an address
    ("range 0x80000000-0x80E18000 mapped", []),  # a range's end
    ("write 0x80000000 then hit 0x80E01801 on npu 3", ["dev:80E01801"]),  # the documented one of two values
    ("npu 3: 0x80E01801 recovered", ["dev:80E01801:recover"]),
    ("[INFO] alarm 0x80E01801 cleared", []),  # stated below WARNING
    # the kernel's segfault report (arch/x86/mm/fault.c show_signal_msg) names the faulting address: the segfault
    ("python[1234]: segfault at 0x80e18000 ip 00007f0000001000 sp 00007ffd00001000 error 4 in libfoo.so",
     ["os:segfault"]),
])
def test_a_documented_device_event_id_is_read_bare(line: str, want: list[str]) -> None:
    assert kinds(line) == want


def test_a_bare_event_id_keeps_the_device_the_line_names() -> None:
    (s,) = parse_line("hit 0x80E01801 on npu 3, the job restarted")
    assert s.kind == "dev:80E01801" and s.device == 3


SDMA_HEAD = ("[ERROR] RUNTIME(33549,python3):2024-01-16-06:49:00.516.893 [device_error_proc.cc:1226]122568 "
             "ProcessStarsSdmaErrorInfo:[FINAL][FINAL]The error from device(chipId:7, dieId:0), serial number is 1. ")


@pytest.mark.parametrize(("tail", "memory"), [
    # CANN troubleshooting case 'D2D copy error during operator execution' (corpus u001): status 0xA, COMPDATAERR
    ("there is a fftsplus sdma error, sdma channel is 6, sdmaState=0x6, sdmaTslotid=0x5, sdmaCxtid=0x1, "
     "sdmaThreadid=0x0, irqStatus=0x420000, cqeStatus=0x150000.", True),
    # the same form with status 3 (Ascend/pytorch#166, a software interaction): no memory status
    ("there is a fftsplus sdma error, sdma channel is 2, sdmaState=0x6, irqStatus=0x0, cqeStatus=0x70000.", False),
    # the STARS form prints the status as it is (hicann/runtime device_error_proc.cc): 0x8 DDRC, 0x9 link (not read)
    ("there is a sdma error, sdma channel is 1, sdmaBlkFsmState=0x0, dfxSdmaBlkFsmOstCnt=0x0, sdmaChFree=0x0, "
     "irqStatus=0x1, cqeStatus=0x8 ", True),
    ("there is a sdma error, sdma channel is 1, sdmaBlkFsmState=0x0, dfxSdmaBlkFsmOstCnt=0x0, sdmaChFree=0x0, "
     "irqStatus=0x1, cqeStatus=0x9 ", False),
])
def test_an_sdma_error_with_a_memory_status_is_read_on_its_device(tail: str, memory: bool) -> None:
    sigs = parse_line(SDMA_HEAD + tail)
    mem = [s for s in sigs if s.kind == "rt:sdma_mem"]
    assert bool(mem) == memory
    assert all(s.component == "npu7" for s in mem)
