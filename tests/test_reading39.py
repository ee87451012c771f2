"""Session 39: readings session 38 left open, each from the public source that prints the line."""

from __future__ import annotations

import pytest

from opsbrain.ingest.parsers import parse_line


def kinds(line: str) -> set[str]:
    return {s.kind for s in parse_line(line)}


# 1. onnxruntime's CANN execution provider: CannCall prints "%s failure %d: %s ; NPU=%d ; hostname=%s ; expr=%s; %s"
# with libName "CANN" for an aclError (cann_call.h CANN_CALL) and CannErrString's placeholder for a code its switch
# does not list (https://github.com/microsoft/onnxruntime/blob/main/onnxruntime/core/providers/cann/cann_call.cc).
# The real line: https://github.com/microsoft/onnxruntime/issues/15677
ORT_UNNAMED = ("CANN failure 507013: (look for ACL_ERROR_xxx in acl. h); NPU=0 ; hostname=davinci-mini ; "
               "expr=aclrtSynchronizeStream(GetStream(kCannStreamDefault)); ")


def test_onnxruntime_head_names_an_acl_code_without_its_name() -> None:
    assert "rt:507013" in kinds(ORT_UNNAMED)
    logged = "2023-04-25 10:11:12.131415161 [E:onnxruntime:Default, cann_call.cc:139 CannCall] " + ORT_UNNAMED
    assert "rt:507013" in kinds(logged)


@pytest.mark.parametrize("line", [
    # CANN_GRAPH_CALL's head: a ge::graphStatus, not an aclError
    "CANNGRAPH failure 507013: (look for graphStatus in ge_error_codes.h) ; NPU=0 ; hostname=h ; expr=f()",
    # another word before "CANN", or another head: the colon after the number still refuses it (session 38)
    "ICANN failure 507013: NPU=0",
    "step failure 507013: NPU=0",
])
def test_other_numbers_before_a_colon_stay_no_code(line: str) -> None:
    assert not {k for k in kinds(line) if k.startswith("rt:") and k[3:].isdigit()}


# 2. The runtime's records of a core timeout (hicann/runtime @681ef761):
# https://github.com/hicann/runtime/blob/681ef7610df13c8128982901142a2c869ddbb53e/src/runtime/core/src/device/device_error_core_proc.cc
# (ProcessStarsCoreTimeoutDfxInfo) and .../src/runtime/core/src/engine/stars/stars_engine.cc (ProcLogicCqReport),
# the lines as their format strings print them under the runtime's plog head.
RT = "[ERROR] RUNTIME(3101,python3):2026-01-02-03:04:05.678.901"
DFX = [
    f"{RT} [device_error_core_proc.cc:1312]3101 ProcessStarsCoreTimeoutDfxInfo:The error from device(chipId:2, "
    "dieId:0), serial number is 7, aicore task timeout dfx, falut_stream_id=5, falut_task_id=17, falut_slot_id=0, "
    "timeout and own_bitmap=0",
    f"{RT} [device_error_core_proc.cc:1352]3101 ProcessStarsCoreTimeoutDfxInfo:aicore task timeout dfx, show core "
    "info, core_id=12, core_type=0, sub_error=2, current_pc=0x12c0c6ce5a6c, slot_id=0.",
    f"{RT} [device_error_core_proc.cc:1391]3101 ProcessStarsTimeoutDfxSlotInfo:aicore task timeout dfx, show slot "
    "info, slot_id=0, device_id=2, stream_id=5, task_id=17, sche_mode=0, blockd_dim=24, aic_own_bitmap=0xffffff, "
    "aiv_own_bitmap0=0 aiv_own_bitmap1=0, kernel_name=MatMul_1, kernel_info_ext=none, pc_start=0x12c0c6ce5000.",
]


@pytest.mark.parametrize("line", DFX)
def test_the_aicore_timeout_record_is_an_aicore_timeout(line: str) -> None:
    got = kinds(line)
    assert "rt:507014" in got
    assert "rt:aicore_exception" not in got  # "sub_error" is the stuck core's state, no exception


def cqe(sqe: str, err: str) -> str:
    return (f"{RT} [stars_engine.cc:1615]3101 ProcLogicCqReport:Task run failed, device_id=2, stream_id=5, "
            f"task_id=17, sqe_type={sqe}, errType={err}, sqSwStatus=0")


# v100's "ffts" sqe type is shared by kernels and FFTS+ tasks: not read on the line alone (tests/test_review39.py)
@pytest.mark.parametrize(("sqe", "code"), [("0(aic)", "507014"), ("1(aicpu)", "507017"), ("1(aiv)", "507034")])
def test_a_kernel_task_whose_cqe_says_task_timeout_is_that_core_timeout(sqe: str, code: str) -> None:
    assert f"rt:{code}" in kinds(cqe(sqe, "0x4(task timeout)"))


@pytest.mark.parametrize("line", [
    # hicann/runtime docs/zh/FAQ (how to locate a device-side exception from the plog), the real line: an exception
    "[ERROR] RUNTIME(2082291,python3):2024-07-04-14:14:25.036.721 [stars_engine.cc:1321]2082291 ProcLogicCqReport:"
    "[INIT][DEFAULT]Task run failed, device_id=0, stream_id=2, task_id=1, sqe_type=0(ffts), errType=0x1(task "
    "exception), sqSwStatus=0",
    # CANN troubleshooting, MoE Dispatch/Combine failing on a network fault (the real line): the notify wait aborted
    # with its stream, its status not decoded on the line
    "[ERROR] RUNTIME(1254,ker_DP25_EP25):2025-12-19-15:50:05.598.128 [stars_engine.cc:1502]1254 ProcLogicCqReport:"
    "Task run failed, device_id=9, stream_id=3, task_id=5981, sqe_type=7(notify wait), errType=0x20(sq sw status "
    "error), sqSwStatus=0x16620324",
    cqe("0(ffts)", "0x20(sq sw status error)"),
    cqe("0(ffts)", "0x5(task exception)"),  # the lowest bit names the error: an exception, not a timeout
])
def test_other_cqe_bits_are_no_timeout(line: str) -> None:
    assert not {k for k in kinds(line) if k in ("rt:507014", "rt:507017", "rt:507034", "rt:107020")}


# 3. msaicerr's info.txt (the AI Core error analyser of the CANN toolkit): AicErrorInfo.analyse prints the conclusion
# under "Root cause conclusion", then the AI Core error register as "code  : %s"
# (https://github.com/Ascend/tools/blob/54e703b3f78b6bc4baac80ab917b247a83d6aab7/msaicerr/ms_interface/aic_error_info.py;
# its ReadMe.md shows "code  : 0x800000" and the MTE_ERR_INFO meaning lines).
def test_msaicerr_out_of_boundary_conclusion_is_the_operators_address() -> None:
    assert "rt:aicore_sw" in kinds("Access ddr address out of boundary")


@pytest.mark.parametrize("line", [
    "code  : 0x800000",
    "error code  : 0x10",  # a bit mask whose bits the tool names from a per-chip table
    "    mte_err_type bit[26:24]=110  meaning:write bus error",
])
def test_msaicerr_register_fields_name_no_fault_alone(line: str) -> None:
    assert not {k for k in kinds(line) if k.startswith("rt:")}


# 4. The host PCIe driver's "Device is abnormal" (hicann/driver @ef377e95): printed when the device's status is not
# alive, which a lost heartbeat or PCIe link down sets and so does every removal of the driver (devdrv_remove), the
# host's shutdown too (devdrv_shutdown prints "Shutdown, pci remove driver." first). Lines as drv_printk prints them
# ("[ascend] [%s] [%s %d] " + devdrv's "<%s:%d:%d> "):
# https://github.com/hicann/driver/blob/ef377e950a32b1641c108c59481e39e9643b7d63/src/sdk_driver/comm/pcie/host/devdrv_dma.c
# https://github.com/hicann/driver/blob/ef377e950a32b1641c108c59481e39e9643b7d63/src/sdk_driver/comm/pcie/dc/host/devdrv_adapt.c
# https://github.com/hicann/driver/blob/ef377e950a32b1641c108c59481e39e9643b7d63/src/sdk_driver/comm/pcie/host/devdrv_ctrl.c
SHUTDOWN = [
    "[ 5120.431002] [ascend] [drv_pcie] [devdrv_shutdown 80] <systemd-shutdow:1:1> Shutdown, pci remove driver.",
    "[ 5120.431107] [ascend] [drv_pcie] [devdrv_remove 2279] <systemd-shutdow:1:1> Remove driver start. (dev_id=5; "
    "bdf:81:00.0)",
    "[ 5120.452310] [ascend] [drv_pcie] [devdrv_dma_copy_sml_pkt 1800] <kworker/5:1:812:812> Device is abnormal, can't "
    "dma copy. (dev_id=5)",
    "[ 5120.452388] [ascend] [drv_pcie] [devdrv_sync_msg_send 1758] <kworker/5:1:812:812> Device is abnormal. "
    "(dev_id=5; msg_type=\"devmng\")",
]


@pytest.mark.parametrize("line", SHUTDOWN)
def test_the_drivers_removal_lines_name_no_lost_device(line: str) -> None:
    assert "msg:device_lost" not in kinds(line)


def test_the_drivers_heartbeat_broken_line_is_a_lost_device() -> None:
    line = ("[ 3301.118204] [ascend] [drv_pcie] [devdrv_hb_broken_stop_msg_send_inner 1617] <kworker/3:2:4567:4567> "
            "Heartbeat broken, stop message send.")
    assert "msg:device_lost" in kinds(line)
