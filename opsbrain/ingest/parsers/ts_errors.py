"""The task scheduler's error numbers (session 39): what the runtime prints after a task's failure as ``retCode=%#x,
[%s]`` and the AscendCL code the application gets for it.

A failed task's CQE carries a task-scheduler (TS) error number (hicann/runtime
``src/runtime/core/inc/task_scheduler_error.h``, ``TS_ERROR_*``). The runtime logs it with its description from the
table ``g_tsErrCodeMap`` (``src/runtime/core/src/common/error_code.cc``, GetTsErrCodeDesc / GetTsErrCodeMap), which
also names the inner runtime number (``RT_ERROR_*``) the number becomes; the application gets that inner number's
AscendCL code (codes.yaml ``runtime_inner_codes``, :mod:`.rt_internal`). :data:`TS_ERRORS` is that table as the
source lists it at 681ef7610df13c8128982901142a2c869ddbb53e (the repository's first commit, d8beaaf0, lists the same
rows less seven later ones): TS number -> (description, inner number). TS_SUCCESS and TS_ERROR_RESERVED (no value of
its own) are left out.

The printers (all pass the TS number and its description): a notify wait's ``Kernel task happen error, retCode=%#x,
[%s].`` (``task_info/event/notify_task.cc``, ReportNotifyErrorForNotifyWaitTask), the same words older releases printed
for a kernel task (PreCheckTaskErr; now ``An error occurred in the kernel task, retCode=%#x, [%s].``,
``davinci_kernel_task.cc``), ``event wait error``, ``mem async copy error``, ``model execute error``, ``Stream
Synchronize failed, stream_id=%d, retCode=%#x, [%s].`` (``stream/stream.cc``) and others. The words before the number
say which task printed it, not what failed: the number and its text do. A line is read only where its text is the
table's description of its number, so an inner number printed with ``GetTsErrDescByRtErr`` (``engine.cc``) or any
other pair is not taken."""

from __future__ import annotations

from opsbrain.ingest.screen import screened

TS_ERRORS: dict[int, tuple[str, int]] = {
    0x1: ("unknown error", 0x7150001),  # TS_ERROR_UNKNOWN
    0x2: ("NULL ptr", 0x7150002),  # TS_ERROR_NULL_PTR
    0x3: ("illegal aicore id", 0x7150003),  # TS_ERROR_ILLEGAL_AI_CORE_ID
    0x4: ("illegal param", 0x7150004),  # TS_ERROR_ILLEGAL_PARAM
    0x5: ("task cmd queue is full", 0x7150005),  # TS_ERROR_TASK_CMD_QUEUE_FULL
    0x6: ("task cmd queue is empty", 0x7150006),  # TS_ERROR_TASK_CMD_QUEUE_EMPTY
    0x7: ("task report queue is full", 0x7150007),  # TS_ERROR_TASK_REPORT_QUEUE_FULL
    0x8: ("task report queue is empty", 0x7150008),  # TS_ERROR_TASK_REPORT_QUEUE_EMPTY
    0x9: ("all the node of public task buff are occupied", 0x7150009),  # TS_ERROR_TASK_NODE_BUFF_ALL_OCCUPYED
    0xa: ("all the node of public task buff are free", 0x715000a),  # TS_ERROR_TASK_NODE_BUFF_ALL_FREED
    0xb: ("there is not enough space on l2 memory", 0x715000b),  # TS_ERROR_L2_MEM_INSUFFICIENT_SPACE
    0xc: ("malloc l2 failed", 0x715000c),  # TS_ERROR_L2_MALLOC_FAILED
    0xd: ("all the DMA channel are occupied", 0x715000d),  # TS_ERROR_DMA_CHANNEL_ALL_OCCUPYED
    0xe: ("memcpy failed", 0x715000e),  # TS_ERROR_MEMCPY_OP_FAILED
    0xf: ("there is not free bs slot for new task", 0x715000f),  # TS_ERROR_BS_SLOT_ALL_OCCUPYED
    0x10: ("one free bs slot cannot be freed again", 0x7150010),  # TS_ERROR_TBS_SLOT_REPEAT_FREE
    0x11: ("the priority list is full", 0x7150011),  # TS_ERROR_PRIORITY_TASK_LIST_FULL
    0x12: ("the priority list is empty", 0x7150012),  # TS_ERROR_PRIORITY_TASK_LIST_EMPTY
    0x13: ("there is no stream list need service", 0x7150013),  # TS_ERROR_NO_STREAM_LIST_NEED_TO_BE_PROCESSED
    0x14: ("repeat mark the stream list need service", 0x7150014),  # TS_ERROR_REPEAT_MARK_STREAM_NEED_SERVICE
    0x15: ("system dma channel all occupied", 0x7150015),  # TS_ERROR_SYS_DMA_CHANNEL_ALL_OCCUPAPYED
    0x16: ("no hbm l2 task node found", 0x7150016),  # TS_ERROR_NO_HBML2TASKNODE_FOUND
    0x17: ("all the node of the current sq are occupied", 0x7150017),  # TS_ERROR_SQNODE_NODE_SLOT_ALL_OCCUPAPYED
    0x18: ("all the node of the current sq are occupied", 0x7150018),  # TS_ERROR_CQNODE_NODE_SLOT_ALL_OCCUPAPYED
    0x19: ("the sq node is not enough for data transfer", 0x7150019),  # TS_ERROR_SQNODE_NOT_ENOUGH
    0x1a: ("sq node slot repeat free", 0x715001a),  # TS_ERROR_SQNODE_SLOT_REPEAT_FREE
    0x1b: ("cq node slot repeat free", 0x715001b),  # TS_ERROR_CQNODE_SLOT_REPEAT_FREE
    0x1c: ("cq report failed", 0x715001c),  # TS_ERROR_CQ_REPORT_FAILED
    0x1d: ("sys dma reset success", 0x715001d),  # TS_SYS_DMA_RESET_SUCCESS
    0x1e: ("sys dma reset failed", 0x715001e),  # TS_SYS_DMA_RESET_FAILED
    0x1f: ("sys dma transfer failed", 0x715001f),  # TS_SYS_DMA_TRNSFER_FAILED
    0x20: ("sys dma mem address align failed", 0x7150020),  # TS_SYS_DMA_MEMADDRALIGN_FAILED
    0x21: ("sys dma queue full", 0x7150021),  # TS_SYS_DMA_ERROR_QUEUE_FULL
    0x22: ("sys dma queue empty", 0x7150022),  # TS_SYS_DMA_ERROR_QUEUE_EMPTY
    0x23: ("timer event full", 0x7150023),  # TS_ERROR_TIMER_EVENT_FULL
    0x24: ("l2 description enter not enough", 0x7150024),  # TS_TASK_L2_DESC_ENTRY_NOT_ENOUGH
    0x25: ("aicore timeout", 0x7150025),  # TS_ERROR_AICORE_TIMEOUT
    0x26: ("aicore exception", 0x7150026),  # TS_ERROR_AICORE_EXCEPTION
    0x27: ("aicore trap exception", 0x7150027),  # TS_ERROR_AICORE_TRAP_EXCEPTION
    0x28: ("aicpu timeout", 0x7150028),  # TS_ERROR_AICPU_TIMEOUT
    0x29: ("sdma move l2 to ddr malloc failed", 0x7150029),  # TS_ERROR_SDMA_L2_TO_DDR_MALLOC_FAIL
    0x2a: ("aicpu exception", 0x715002a),  # TS_ERROR_AICPU_EXCEPTION
    0x2b: ("aicpu datadump response error", 0x715002b),  # TS_ERROR_AICPU_DATADUMP_RSP_ERR
    0x2c: ("aicpu model operate response error", 0x715002c),  # TS_ERROR_AICPU_MODEL_RSP_ERR
    0x2d: ("active stream already in running", 0x715002d),  # TS_ERROR_REPEAT_ACTIVE_MODEL_STREAM
    0x2e: ("repeat stream notify wait", 0x715002e),  # TS_ERROR_REPEAT_NOTIFY_WAIT
    0x2f: ("aicore overflow", 0x715005b),  # TS_ERROR_AICORE_OVERFLOW
    0x30: ("vector core timeout", 0x715005d),  # TS_ERROR_VECTOR_CORE_TIMEOUT
    0x31: ("vector core exception", 0x715005e),  # TS_ERROR_VECTOR_CORE_EXCEPTION
    0x32: ("vector core trap exception", 0x715005f),  # TS_ERROR_VECTOR_CORE_TRAP_EXCEPTION
    0x33: ("aivec overflow", 0x7150061),  # TS_ERROR_AIVEC_OVERFLOW
    0x34: ("aicpu overflow", 0x7150065),  # TS_ERROR_AICPU_OVERFLOW
    0x35: ("sdma overflow", 0x7150066),  # TS_ERROR_SDMA_OVERFLOW
    0x57: ("aicpu info load response error", 0x715006f),  # TS_ERROR_AICPU_INFO_LOAD_RSP_ERR
    0x58: ("aicore mem error", 0x7010026),  # TS_ERROR_AICORE_MTE_ERROR
    0x5a: ("suspect mem error", 0x701002a),  # TS_ERROR_SUSPECT_MTE_ERROR
    0x5b: ("aicore software error", 0x701002c),  # TS_ERROR_AICORE_ERROR_SW
    0x5c: ("aicore hardware local error", 0x701002d),  # TS_ERROR_AICORE_ERROR_HW_L
    0x5d: ("device network link error", 0x7010033),  # TS_ERROR_LINK_ERROR
    0x70: ("debug invalid sqcq", 0x715002f),  # TS_ERROR_DEBUG_INVALID_SQCQ
    0x71: ("debug wrong command type", 0x7150030),  # TS_ERROR_DEBUG_WRONG_COMMAND_TYPE
    0x72: ("dbg cmd process", 0x7150031),  # TS_ERROR_DEBUG_CMD_PROCESS
    0x73: ("debug invalid device status", 0x7150032),  # TS_ERROR_DEBUG_INVALID_DEVICE_STATUS
    0x74: ("debug not in debug status", 0x7150033),  # TS_ERROR_DEBUG_NOT_IN_DEBUG_STATUS
    0x75: ("debug invalid task status", 0x7150034),  # TS_ERROR_DEBUG_INVALID_TASK_STATUS
    0x76: ("debug task empty", 0x7150035),  # TS_ERROR_DEBUG_TASK_EMPTY
    0x77: ("debug task full", 0x7150036),  # TS_ERROR_DEBUG_TASK_FULL
    0x78: ("debug task not exist", 0x7150037),  # TS_ERROR_DEBUG_TASK_NOT_EXIST
    0x79: ("debug aicore full", 0x7150038),  # TS_ERROR_DEBUG_AI_CORE_FULL
    0x7a: ("debug aicore not exist", 0x7150039),  # TS_ERROR_DEBUG_AI_CORE_NOT_EXIST
    0x7b: ("debug aicore exception", 0x715003a),  # TS_ERROR_DEBUG_AI_CORE_EXCEPTION
    0x7c: ("debug aicore timeout", 0x715003b),  # TS_ERROR_DEBUG_AI_CORE_TIMEOUT
    0x7d: ("debug breakpoint full", 0x715003c),  # TS_ERROR_DEBUG_BREAKPOINT_FULL
    0x7e: ("debug read error", 0x715003d),  # TS_ERROR_DEBUG_READ_ERROR
    0x7f: ("debug write fail", 0x715003e),  # TS_ERROR_DEBUG_WRITE_FAIL
    0x80: ("ts queue full", 0x715003f),  # TS_QUEUE_FULL
    0x81: ("ts queue empty", 0x7150040),  # TS_QUEUE_EMPTY
    0x82: ("ts queue alloc mem fail", 0x7150041),  # TS_QUEUE_ALLOC_MEM_FAIL
    0x83: ("ts queue data size unmatch", 0x7150042),  # TS_QUEUE_DATA_SIZE_UNMATCH
    0x84: ("pcie dma invalid copy type", 0x7150043),  # TS_PCIE_DMA_INVLD_CPY_TYPE
    0x85: ("invalid copy dir", 0x7150044),  # TS_INVLD_CPY_DIR
    0x86: ("pcie dma invalid cq des", 0x7150045),  # TS_PCIE_DMA_INVLD_CQ_DES
    0x87: ("pcie dma copy error", 0x7150046),  # TS_PCIE_DMA_CPY_ERR
    0x88: ("pcie dima link channal busy", 0x7150047),  # TS_PCIE_DMA_LNK_CHN_BUSY
    0x89: ("profile buff full", 0x7150048),  # TS_ERROR_PROFILE_BUFF_FULL
    0x8a: ("profile mode conflict", 0x7150049),  # TS_ERROR_PROFILE_MODE_CONFLICT
    0x8b: ("profile other pid on", 0x715004a),  # TS_ERROR_PROFILE_OTHER_PID_ON
    0x8c: ("sched aic task preload failed", 0x715004b),  # TS_ERROR_SCHD_AIC_TASK_PRELOAD_FAILED
    0x8d: ("tscpu close failed", 0x715004c),  # TS_ERROR_TSCPU_CLOSE_FAILED
    0x8e: ("expect failed", 0x715004d),  # TS_ERROR_EXPECT_FAIL
    0x8f: ("repeat model stream", 0x715004e),  # TS_ERROR_REPEAT_MODEL_STREAM
    0x90: ("the model stream unbind failed", 0x715004f),  # TS_ERROR_STREAM_MODEL_UNBIND
    0x91: ("the model stream execute failed", 0x7150050),  # TS_MODEL_STREAM_EXE_FAILED
    0x92: ("ipc send failed", 0x7150051),  # TS_ERROR_IPC_SEND_FAILED
    0x93: ("ipc process register failed", 0x7150052),  # TS_ERROR_IPC_PROC_REG_FAILED
    0x94: ("stream sq full", 0x7150053),  # TS_STREAM_SQ_FULL
    0x95: ("end of sequence", 0x7150054),  # TS_ERROR_END_OF_SEQUENCE
    0x96: ("switch stream label failed", 0x7150055),  # TS_ERROR_SWITCH_STREAM_LABEL
    0x97: ("task type not support", 0x7100003),  # TS_ERROR_TASK_TYPE_NOT_SUPPORT
    0x98: ("translate sqe fail", 0x7150056),  # TS_ERROR_TRANS_SQE_FAIL
    0x99: ("model abort normal", 0x704000e),  # TS_MODEL_ABORT_NORMAL
    0x103: ("task exception", 0x7150057),  # TS_ERROR_TASK_EXCEPTION
    0x104: ("task trap exception", 0x7150058),  # TS_ERROR_TASK_TRAP
    0x105: ("task timeout", 0x7150059),  # TS_ERROR_TASK_TIMEOUT
    0x106: ("task sqe error", 0x715005a),  # TS_ERROR_TASK_SQE_ERROR
    0x107: ("vf slot alloc fail", 0x715005c),  # TS_ERROR_VF_SLOT_ALLOC_FAIL
    0x109: ("debug register conflict, only one pid can be registered at the same time",
            0x7150060),  # TS_ERROR_DEBUG_REGISTER_CONFLICT
    0x10a: ("aic trap read overflow", 0x7150067),  # TS_ERROR_AIC_TRAP_RD_OVERFLOW
    0x10b: ("aic trap write overflow", 0x7150068),  # TS_ERROR_AIC_TRAP_WR_OVERFLOW
    0x10c: ("aiv trap read overflow", 0x7150069),  # TS_ERROR_AIV_TRAP_RD_OVERFLOW
    0x10d: ("aiv trap write overflow", 0x715006a),  # TS_ERROR_AIV_TRAP_WR_OVERFLOW
    0x10e: ("model is aborted", 0x704000e),  # TS_ERROR_MODEL_ABORTED
    0x10f: ("fftsplus task exception", 0x715006c),  # TS_ERROR_FFTSPLUS_TASK_EXCEPTION
    0x110: ("fftsplus task trap exception", 0x715006d),  # TS_ERROR_FFTSPLUS_TASK_TRAP
    0x111: ("fftsplus task timeout", 0x715006b),  # TS_ERROR_FFTSPLUS_TASK_TIMEOUT
    0x112: ("task bus error", 0x7150070),  # TS_ERROR_TASK_BUS_ERROR
    0x113: ("task res conflict error", 0x7150071),  # TS_ERROR_TASK_RES_CONFLICT_ERROR
    0x114: ("task sw status error", 0x7150072),  # TS_ERROR_TASK_SW_STATUS_ERROR
    0x20b: ("memcpy exception", 0x7150057),  # TS_ERROR_SDMA_ERROR
    0x20c: ("memcpy timeout", 0x7150059),  # TS_ERROR_SDMA_TIMEOUT
    0x217: ("sdma copy error", 0x7150063),  # TS_ERROR_SDMA_COPY_ERROR
    0x218: ("sdma reduce error", 0x7150064),  # TS_ERROR_SDMA_REDUCE_ERROR
    0x220: ("sdma poison error", 0x7010027),  # TS_ERROR_SDMA_DDRC_ERROR
    0x221: ("sdma poison error", 0x7010027),  # TS_ERROR_SDMA_POISON_ERROR
    0x222: ("suspect remote error", 0x701002b),  # TS_ERROR_SDMA_LINK_ERROR
    0x223: ("hccl other error", 0x7180003),  # TS_ERROR_HCCL_OTHER_ERROR
    0x224: ("hccl op retry failed", 0x7180002),  # TS_ERROR_AICPU_HCCL_OP_RETRY_FAILED
    0x225: ("local mem error", 0x701002f),  # TS_ERROR_LOCAL_MEM_ERROR
    0x226: ("remote mem error", 0x7010030),  # TS_ERROR_REMOTE_MEM_ERROR
    0x227: ("ccu exception", 0x7010035),  # TS_ERROR_CCU_EXCEPTION
    0x228: ("ccu timeout", 0x7010036),  # TS_ERROR_CCU_TIMEOUT
    0x909: ("TS is closed", 0x715006e),  # TS_ERROR_TS_CLOSED
}


RE_TS_RETCODE = screened(r"(?<![A-Za-z_])retCode=0x([0-9a-fA-F]{1,3}), \[([^\[\]]{2,100})\]")
"""``retCode=%#x, [%s]``: a TS number and its description (GetTsErrCodeDesc / GetTsErrCodeMap)."""
RE_TS_KERNEL = screened(r"\b(?:AICORE|AIV|AICPU) Kernel (?:task )?happen error, retCode=0x([0-9a-fA-F]{1,3})\b")
"""The kernel task's own report of the TS number it was given, without a description (hicann/runtime d8beaaf0,
``src/runtime/feature/src/task/v100/davinci_task.cc``: ``AICORE Kernel task happen error, retCode=%#x.``, ``AIV Kernel
happen error, ...``, ``AICPU Kernel task happen error, ...``, the number from the CQE's error bit by the core's map:
0x25 for an AI Core timeout, 0x26 for its exception); the core named first is the task's, the number says what
failed."""


def ts_numbers(text: str) -> list[int]:
    """The TS error numbers a line reports: beside their own description, or in a kernel task's report."""
    found = [int(n, 16) for n, said in RE_TS_RETCODE.findall(text)
             if int(n, 16) in TS_ERRORS and TS_ERRORS[int(n, 16)][0].lower() == said.strip().lower()]
    found += [int(n, 16) for n in RE_TS_KERNEL.findall(text) if int(n, 16) in TS_ERRORS]
    return list(dict.fromkeys(found))


def ts_timeout(text: str) -> bool:
    """Whether a TS number the line reports is a timeout (its description says so: ``aicore timeout``, ``task
    timeout``, ``fftsplus task timeout`` ...)."""
    return any(TS_ERRORS[n][0].endswith("timeout") for n in ts_numbers(text))


__all__ = ["RE_TS_KERNEL", "RE_TS_RETCODE", "TS_ERRORS", "ts_numbers", "ts_timeout"]
