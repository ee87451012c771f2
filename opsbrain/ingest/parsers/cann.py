"""CANN process-log (plog) and runtime codes: ``[ERROR] RUNTIME(pid,proc):YYYY-MM-DD-HH:MM:SS.mmm.uuu [file:line]``
lines and consoles that relay them. Error codes of the CANN error-code reference (``EE9999``, ``EZ9999``,
``EL0004``, ``EJ0001``, ``EH0001``, ``E30008`` ...; ``EI`` codes are HCCL's, see :mod:`.hccl`), AscendCL / runtime
return codes (``507053``, ``507015``, ``207018``, ``107002``) after the word that says so (``ErrCode=``,
``ret=``, ``error code is``, ``failed:``), aclnn return codes after the aclnn call that returned them (``161002``,
``561103``), torch_npu's ``ERR00100`` / ``ERR99999`` family, and the runtime's exception texts (AI Core / AI CPU /
FFTS+ task exceptions, memory copy failures)."""

from __future__ import annotations

import re

from opsbrain.ingest.parsers.cfgenv import RE_OP_NO_BINARY, RE_TBE_DIR_INVALID
from opsbrain.ingest.parsers.ctx import CODE_START, RE_PLOG_HEAD, LineCtx
from opsbrain.ingest.parsers.framework import CFG_ENV, RE_VERSION_STATED
from opsbrain.ingest.parsers.ts_errors import ts_timeout
from opsbrain.ingest.screen import Screened, group_of, screened
from opsbrain.lazyre import lazy_compile

RE_ECODE = screened(CODE_START + r"(E[A-HJ-Z]\d{4}|E[1-9]\d{4})(?![0-9A-Za-z])")
RE_ERR = screened(CODE_START + r"(ERR\d{5})(?![0-9A-Za-z])")
RT_CODE = r"[125]0[07]\d{3}|[1-5]4[58]\d{3}"
"""AscendCL return codes: ACL_ERROR_* (100xxx/200xxx/500xxx) and ACL_ERROR_RT_* (107xxx/207xxx/507xxx), ACL_ERROR_*
148xxx, ACL_ERROR_GE_* (145xxx/245xxx/345xxx/545xxx): hicann/runtime acl_base_rt.h, rt_error_codes.h,
ge_error_codes.h define no code in the other x0xxxx blocks. Session 38: HIXL / ADXL (the KV-transfer library under
Mooncake's AscendDirectTransport) returns its own statuses there, PARAM_INVALID 103900 ... UNSUPPORTED 103905,
RESOURCE_EXHAUSTED 203900, FAILED 503900 (hixl error-code reference; adxl_engine.h), printed as ``status: 103902``:
they are not AscendCL codes and are not read as such."""
RT_WORD = r"(?:ret(?:urn)?[ _]?code|retcode|ret|returned|result(?:[ _]?code)?|err(?:or)?[ _]?code|error|err|code|" \
          r"fail(?:ed|ure)?)"
"""The words a program prints a return code after, as whole words (``ErrCode`` and ``retCode`` are one word each;
``drvRetCode``, ``InnerCode``, ``retry``, ``decode``, ``stderr``, ``errorStreamId`` are other words)."""
RE_RT = screened(rf"(?<![0-9A-Za-z]){RT_WORD}(?![0-9A-Za-z_])\s*(?:(?:[:=]|\bis\b(?:\s*:)?)\s*)?(?:[\[(]\s*)?"
                 rf"({RT_CODE})(?![0-9A-Za-z:\-/_]|\.\d)", re.I)  # "= 507033." ends a sentence
# (session 42: each run of spaces is one repeat; ``\s*(?:[:=]|...)?\s*[\[(]?\s*`` split it three ways, minutes on a
# 4 KB near-miss line)
"""A code right after the word that says it is one, in the same clause: the field (``ErrCode=507053``,
``retCode=507035``, ``ret=507011``, ``ret: 145021``, ``ret[207001]``, ``ret=[507015]``, ``ret is 207000``,
``result = 500002``, ``error code:507053``, ``error code is 507015``, ``error code is : 500001``, ``errorCode =
507033``) or the verb (``failed: 507053``, ``returned 207001``, ``ret 107000``, ``device error 507899``): the
format strings of hicann/runtime, GE and AscendCL samples, torch_npu's NPUException.h, MindSpore's and Paddle's
checks. A number before the word, or with another field between (``stream id 507015 error``, ``failed for task id
100000``, ``queue id:[100000]``), is no code: session 38 (before, any such number on a line where "ret", "err",
"code" ... occurred anywhere, also inside "retry", "decode", "stderr", was read as one). A colon after the number is
still refused: reading it moved one dev excerpt of framework_error to driver_firmware_error. Session 39:
onnxruntime's ``CANN failure 507013:`` is read by :data:`RE_RT_NAMED`, whose printer says the number is an aclError;
no other number before a colon is."""
RE_RT_NAMED = screened(rf"(?<![0-9A-Za-z.:\-/_])({RT_CODE}):?\s*\(?ACL_ERROR_[A-Z_]+\b|"
                       rf"\bACL_ERROR_[A-Z_]+\s*[(\[]\s*({RT_CODE})\s*[)\]]|"
                       rf"(?<![0-9A-Za-z_])CANN failure ({RT_CODE}):")
"""A code printed beside its documented name, ``500002: ACL_ERROR_GE_FAILURE`` or ``ACL_ERROR_GE_FAILURE(500002)``:
onnxruntime's CANN execution provider (onnxruntime/core/providers/cann/cann_call.cc: ``%s failure %d: %s ; NPU=%d ;
hostname=%s ; expr=%s``, the name from CannErrString). The name says the number is the AscendCL code, also where no
word precedes it (``107001 ACL_ERROR_RT_INVALID_DEVICEID``). Session 39: that printer's own head also says so where
the name is missing, ``CANN failure 507013: (look for ACL_ERROR_xxx in acl.h) ; NPU=0 ; ...`` (onnxruntime#15677):
``CANN`` is the library name its CANN_CALL macros pass for an ``aclError`` (cann_call.h; CANN_GRAPH_CALL passes
``CANNGRAPH`` for a ge::graphStatus), and CannErrString prints that placeholder for an aclError its switch does not
list, so the number after ``CANN failure`` is the AscendCL code. Only that head: another number before a colon stays
no code."""
ACLNN_CODE = r"[135]61\d{3}"
"""aclnn return codes (aclnnStatus): ACLNN_ERR_PARAM_* 161xxx, ACLNN_ERR_RUNTIME_ERROR 361001, ACLNN_ERR_INNER_* 561xxx
(knowledge_base/code_tables/aclnn_status_codes.yaml)."""
RE_ACLNN_RET = screened(rf"(?:\baclnn[A-Z]\w*[^\n]{{0,40}}?(?:\berror code is|\baclnnStatus\s*=)|"
                        rf"\blaunch failed for \w+, errno:)\s*({ACLNN_CODE})(?![0-9A-Za-z]|\.\d)")
"""The status an aclnn call returned, printed right after the call's name: torch_npu's NPU_CHECK_ERROR on op-plugin's
call (``NPU function error: call aclnnInplaceCopy failed, error code is 561103``, Ascend/pytorch#90,
vllm-ascend#4859), its OPS_CHECK_ERROR in OpParamMaker (``OPS function error: aclnnRecomputeWUFwd, error code is
561000``, flash-linear-attention-npu#149) and a ctypes caller's (``aclnnCausalConv1dGetWorkspaceSize failed with
aclnnStatus=561002.``, flash-linear-attention-npu#333); and the aclnn engine's own line when an operator's kernel
fails to launch, the status after ``errno:`` (hicann/opbase src/nnopbase/composite_op/aclnn_engine/op_executor.cpp,
aclOpExecutor::Run: ``launch failed for %s, errno:%d.``; session 38). Only there: the general pattern does not take
these ranges, so a six-digit count or id on an error line stays no code."""
RE_NNOP_TILING_FAILED = screened(r"\b[A-Z][A-Za-z0-9]* do tiling failed, ret is -?\d+\b")
"""The aclnn engine's own line when an operator's tiling function returned a failure: the message of the check that
returns ACLNN_ERR_INNER_TILING_ERROR, status 561002 (hicann/opbase src/nnopbase/individual_op/executor/indv_executor.cpp
@313b0146, ``NnopbaseExecutorDoTiling``: ``CHECK_COND((ret == ge::GRAPH_SUCCESS), ACLNN_ERR_INNER_TILING_ERROR,
"%s do tiling failed, ret is %d.", executor->opType, ret)``), read as that code (vllm-ascend#6243 prints both:
``call aclnnKvRmsNormRopeCache failed, error code is 561002`` and ``KvRmsNormRopeCache do tiling failed, ret is -1.``;
session 51, tester51d: the line alone gave no signal). Not ``Do not find tiling func of <op>!`` (the same code, but
the operator package lacks the function: an install, not the operator's check)."""
TEXTS: tuple[tuple[Screened, str], ...] = (
    # MindSpore's combined feature-value + CheckSum detection (ccsrc/tools/silent_detect/silent_detector.cc, logged at
    # WARNING) and the application-log keyword of a feature-value anomaly: the tutorial "Feature Value Detection"
    # (mindspore-ai/docs tutorials/source_en/debug/sdc.md) names them as the detection's findings; its "Global
    # CheckSum result is 0" (no rank's MatMul failed) is not one (session 45, tester45i)
    (screened(r"SilentCheck|silent[ _]check|npu_asd_detect|Silent detect strike|Feature value detection strikes out|"
              r"CheckSum detects MatMul error|accuracy sensitivity feature abnormal", re.I), "sdc:silent_check"),
    # session 45 (tester45f): "aicore" inside a path or file name is no AI Core (CANN ships
    # opp/fusion_pass/built_in/libops_fusion_pass_aicore.so: FE's "Fail to load so file .../
    # libops_fusion_pass_aicore.so, error message is (null)." at GE init read rt:aicore_exception; Paddle-Lite#10417)
    (screened(r"(?<![\w/.-])ai ?core(?![\w.-]*\.so\b).*(?:exception|error|trap)|aicore_exception|aic(?:ore)? error|"
              r"aivec.*(?:exception|error)",
              re.I), "rt:aicore_exception"),  # session 39: not "Kernel task happen error" (a notify wait prints it)
    (screened(r"ai ?cpu.*(?:exception|error|time ?out)", re.I), "rt:aicpu_exception"),
    # session 54 (tester54c): an FFTS+ task named with a failure word after it, as the runtime prints its task
    # failures ("fftsplus task exception", "there is a fftsplus sdma error", task_info.cc's
    # "TaskFailCallBackForFftsPlusTask"); not the task type alone (vllm-ascend's WARNING "communication is performed
    # using FFTS+ method ... set HCCL_OP_EXPANSION_MODE=AIV", advice in a run that went well). One direction only: a
    # failure word before it, ``(?:error|...).*ffts``, tried at every error word of a long line under ``re`` (2 s on
    # 60 KB of "error ")
    (screened(r"(?:fftsplus|ffts\+|ffts plus).*(?:exception|error|time ?out|fail|trap)|"
              r"\bTaskFailCallBackForFftsPlusTask\b", re.I), "rt:ffts_exception"),
    (screened(r"memory async copy failed|memcpy.*fail|Dma copy failed|DMA.*timeout", re.I), "rt:memcpy_failed"),
    # near each other: not "-i {device_id} -link -s down"; the id part is one optional group (session 42:
    # ``\s*\[?\d*\]?\s+`` split a run of spaces two ways, 1 s on a 4 KB line)
    (screened(r"device.{0,16}?(?:is )?(?:dead|lost)\b|\bdevice(?:\s*(?:\[\d*\]?|\d+\]?|\]))?\s+(?:is\s+)?down\b|"
              r"(?:lost|no) heart ?beat|heart ?beat lost", re.I), "rt:device_lost"),
    (screened(r"stream(?>.*?sync).*(?:fail|timeout)|rtStreamSynchronize|aclrtSynchronize.*fail", re.I),
     "rt:sync_failed"),
)


# What an AI Core exception's ``errorStr`` says. The runtime prints one text per error bit (hicann/runtime,
# src/runtime/feature/src/device/device_error_proc*.cc, the core error-map tables): ECC, parity and CRC failures of
# on-chip memories are hardware (and MTE_ERR_CACHE_ECC's "The MTE internal MVF cache fails."); out-of-range,
# out-of-bounds (a buffer address past its end: VEC_UB_WRAP_AROUND's "VEC instruction error: the ub address out of
# bounds." @d8beaaf09, "The address for the VEC instruction to read/write UB is out of bounds." @681ef761,
# src/runtime/core/src/device/device_error_core_proc.cc), a size greater or less than its limit, misaligned,
# illegal-configuration, read/write conflicts at the same address, an allocation scheme, an ISA-order violation, a
# zero count or mask, divide-by-zero, INF/NAN and overflow texts are what the kernel asked of the core (a program
# error); "timeout or trap error", bus responses and "Data from the X is abnormal" say neither. Session 37: the
# out-of-bounds family (some 40 texts of the tables) and the others after it were read as neither. The runtime
# also prints its own verdict on the error class (``hardware local error`` /
# ``software error`` / ``network link error`` ``, stream_id=``), the same sources; CANN's "AI Core hardware fault"
# troubleshooting page names the 2-bit ECC text as the hardware case (confirmed by an ascend-dmi stress test).
RE_ACLNN_CALL = screened(r"\baclnn[A-Z]\w*.{0,40}?(?:fail|error)|\blaunch failed for \w+, errno:|"
                         r"\bKernel Run failed\. opType:", re.I, context=True)
"""An aclnn operator call that failed, named on the same line as the CANN code it returned (``call
aclnnCausalConv1d failed, detail: ... Invalid_Argument(EE1003)``, vllm-ascend#7310): the operator is the subject
of the error, as the framework parser reads it on a line without a code (``op:aclnn``). The aclnn engine names the
operator itself when its kernel fails to launch or run (hicann/opbase src/nnopbase: op_executor.cpp ``launch failed for
%s, errno:%d.``, common/inc/kernel_mgr.h ``Kernel Run failed. opType: %u, %s``; session 38)."""
RE_ACLOP_COMPILE = screened(r"\baclopCompile(?:AndExecute)?(?:V2)?\b", context=True)
"""The single-operator API that compiles an operator before it runs it (AscendCL ``aclopCompile`` /
``aclopCompileAndExecute`` / ``aclopCompileAndExecuteV2``: GE builds the operator's single-op model first), named by a
failing line with the code it returned (onnxruntime's CANN EP: ``CANN failure 500002: ACL_ERROR_GE_FAILURE ; ... ;
expr=aclopCompileAndExecute("BroadcastToD", ...)``): the operator's compile, read as GE's own ``build op model failed,
result = 500002`` is (``op:compile``)."""
RE_ERRSTR = screened(r"errorStr:\s*(.{0,300})", re.I)
AICORE_HW = screened(r"\becc\b|parity|\bcrc\b|SF MEM failure|multi-bit|2-?bits?\b|internal MVF cache fails", re.I,
                     context=True)
AICORE_SW = screened(
    r"out of range|out[- ]of[- ]bounds?|out of (?:the )?boundary|out of the [\w ]{1,30}? range|(?:greater|less) than|"
    r"overflow|underflow|misalign|not aligned|illegal|divi(?:de|sion)[- ]by[- ](?:zero|0)|div0|inf/nan|nan/inf|"
    r"\binf (?:or|and) nan\b|negative|exceeds|wrap|incorrect|not supported|invalid|conf(?:l|il)icts?|"
    r"same (?:block )?address|addresses are the same|is same as|overwrit|configuration error|"
    r"error in [\w ]{1,30}configuration|allocation scheme|violates (?:ISA|IAS) constraints|not defined in ISA|"
    r"\b(?:is|are) (?:all )?0\b|compiler bug|contains a non-\w+ instruction|an extra \w+ instruction|"
    r"value of the \w+ instruction is abnormal|nesting times|payload undefine|unsorted|"
    r"(?:incorrectly|not correctly) sorted", re.I, context=True)
RE_AICERR_SW = screened(r"\bIt means Atomic accumulation exception\b|\bAtomic add has a precision overflow\b|"
                        r"\bAccess ddr address out of boundary\b|\bSingle op test aicore error\b|"
                        r"\bFailed to execute the single-operator test case\b|"
                        r"\bThe input/output memory address of the operator is abnormal\b|"
                        r"\bIf the arguments are inconsistent before and after operator execution\b", re.I)
"""The AI Core error analyser's conclusion (``Analysis result: success. "*****Root cause conclusion*****" "dha status 1"
found in log. It means Atomic accumulation exception, please check the input data and network accuracy.``): an
atomic add that overflowed on extreme data, the operator's inputs (CANN troubleshooting case "atomic add precision
overflow", CANNCommunityEdition 80RC2alpha002 troubleshooting_0018). Session 39: the tool's older conclusion ``Access
ddr address out of boundary`` (Ascend/tools@54e703b3 msaicerr/ms_interface/aic_error_info.py, AicErrorInfo.analyse:
printed under ``Root cause conclusion`` when error bit 23, the MTE's DDR-address error, is set and an input or output
address of the operator lies outside every range the task allocated): the operator's address, the program's. Its
``code  : 0x800000`` / ``error code  : ...`` field is the AI Core error register's bit mask, whose bits the tool
names from a per-chip table (constant.py AIC_ERROR_INFO_DICT: bit 4 is a CCU illegal instruction in the 910B table,
another error in the 910 one), and its ``meaning:`` lines decode bus / address sub-fields: neither names a fault on
the line alone, and neither is read. Session 48: the conclusion is read on its own line, as info.txt prints it under
the quoted header (before, only a line that also held ``Root cause conclusion`` was read), with the tool's other
conclusions that its key-information table gives a program cause (CANN troubleshooting_0007 "使用msaicerr工具分析AI
Core Error问题", canncommercial 900; AicErrorInfo.get_conclusion): the newer wording of the atomic-add overflow
(``Atomic add has a precision overflow. Check the operator precision.``, troubleshooting_0015, canncommercial 850),
the failed single-operator rerun (``Failed to execute the single-operator test case. The operator logic may be
incorrect.``, troubleshooting_0014, CANNCommunityEdition 900: the operator's implementation or compile; its older
``Single op test aicore error, please check op.``, canncommercial 800), the operator's input/output address (``The
input/output memory address of the operator is abnormal ... Check the framework or application.``) and arguments
changed during execution (``If the arguments are inconsistent before and after operator execution, memory access may
be out of bounds.``). Not read: ``Failed to execute the built-in sample operator. Check the environment.`` (older
``Golden Op run error on your environment. Please check your environment!``, troubleshooting_0013): the tool's
benchmark operator failed, so "the system environment or hardware" is abnormal, which names no class."""
RE_VERDICT = screened(r"\b(hardware local error|software error|network link error|mte error), stream_id=", re.I)
VERDICT_KIND = {"hardware local error": "rt:aicore_hw", "software error": "rt:aicore_sw",
                "network link error": "rt:aicore_link", "mte error": "rt:aicore_mte"}


RE_SDMA_CQE = screened(r"there is a (fftsplus )?sdma error\b[^\n]{0,400}?cqeStatus=0x([0-9a-f]{1,8})\b", re.I)
"""The runtime's SDMA (device-to-device copy) error line and its CQE status (hicann/runtime @681ef761,
src/runtime/core/src/device/device_error_proc.cc: ``there is a sdma error, ... cqeStatus=0x%x`` with the status as
it is, ``there is a fftsplus sdma error, ... cqeStatus=0x%x.`` with the status in bits 17-21, ``(cqeStatus >> 17) &
0x1F``)."""
SDMA_MEMORY_STATUS = {0x8: "DDRC error", 0xA: "poison error (COMPDATAERR)"}
"""The SDMA statuses the runtime reports as a memory error (device_error_core_proc.cc GetMteErrFromCqeStatus:
TS_SDMA_STATUS_DDRC_ERROR 0x8, TS_SDMA_STATUS_POISON_ERROR 0xA; 0x9, LINK_ERROR, it tells apart from a memory
error only by the device's RAS report, so it is not read). CANN's troubleshooting case "算子执行过程中D2D拷贝出错"
gives 0xA's likely cause: data read back from HBM with an error, most probably an HBM bit-ECC fault."""


RE_CORE_TIMEOUT_DFX = screened(r"\baicore task timeout dfx\b", re.I)
"""The runtime's record of an AI Core task that ran past its time (hicann/runtime @681ef761,
src/runtime/core/src/device/device_error_core_proc.cc ProcessStarsCoreTimeoutDfxInfo, the handler of the device's
AICORE_TIMEOUT_DFX reports: ``The error from device(chipId:%u, dieId:%u), serial number is %lu, aicore task timeout
dfx, falut_stream_id=%u, ...``, then ``aicore task timeout dfx, show slot info, ...`` and ``..., show core info,
core_id=%u, core_type=%u, sub_error=%u, ...`` for a core still stuck; ``fftsplus aicore task timeout dfx`` for an
FFTS+ slot; v200_base/device_error_proc_c.cc the same words): the AI Core timeout the runtime reports as
ACL_ERROR_RT_AICORE_TIMEOUT 507014 (its reason text ``aicore timeout``), read as ``rt:507014``. Session 39: before,
the first line gave nothing and the core-info line an AI Core exception (``aicore ... sub_error``)."""
RE_CQE_TIMEOUT = screened(r"\bTask run failed\b[^\n]{0,240}?\bsqe_type=\d+\((aic|aiv|aicpu|aicpu_h|aicpu_d)\), "
                          r"errType=0x[0-9a-f]{1,2}\(task timeout\)", re.I)
"""The runtime's failed-task record of a kernel task whose CQE's first error bit is the timeout (hicann/runtime
@681ef761, src/runtime/core/src/engine/stars/stars_engine.cc ProcLogicCqReport, ``Task run failed, device_id=%u,
stream_id=%hu, task_id=%hu, sqe_type=%u(%s), errType=%#x(%s), sqSwStatus=%#x``; the name in brackets is
StarsCqeErrorDesc_ of the lowest set bit: 0x1 task exception, 0x2 task trap, 0x4 task timeout, 0x8 sqe error, 0x10
resource conflict error, 0x20 sq sw status error; v200's task_recycle_cqrpt_base.cc prints ``Task run failed`` with
the same bits, 0x2 named bus error, and the sqe types ``aic``, ``aiv``, ``aicpu_h``, ``aicpu_d``; its ``Task run
timeout`` line names a task type, not a kernel's sqe type, and is not read here). The runtime turns that bit of a
kernel task into the task's error by the kernel's core (davinci_kernel_task_v100.cc, v200_base/stars_david.cc: bit 2 is
TS_ERROR_AICORE_TIMEOUT, TS_ERROR_VECTOR_CORE_TIMEOUT or TS_ERROR_AICPU_TIMEOUT) and reports it as
ACL_ERROR_RT_AICORE_TIMEOUT 507014, ACL_ERROR_RT_VECTOR_CORE_TIMEOUT 507034 or ACL_ERROR_RT_AICPU_TIMEOUT 507017
(error_code.cc g_tsErrCodeMap, errcode_manage.cc rtErrMap_). Not read (session 39's review): the v100 sqe type
``ffts``, the SQE header's type 0, which AI Core and Vector Core kernels carry (davinci_kernel_task_v100.cc) and
FFTS+ tasks too (feature/ffts/ffts_task.cc FillFftsPlusSqe, HCCL's collectives among them, launched with a timeout of
their own), whose timeout bit is TS_ERROR_FFTSPLUS_TASK_TIMEOUT, ACL_ERROR_RT_FFTS_PLUS_TIMEOUT 507048
(SetStarsResultForFftsPlusTask): the line alone does not say which (before, it read as the AI Core's 507014, also for
a collective waiting on its peer). Neither read: a notify wait's timeout (the
HCCL parser's), the other bits (the exception lines after it name what failed: ``Kernel task happen error ...``,
``there is an aicore error``), and ``sq sw status error`` (0x20), whose sqSwStatus is the status the task's own
software wrote: for a kernel task a task-scheduler error number (the maps' last entry), for a notify wait a status
the runtime does not decode on that line (public lines: ``sqe_type=7(notify wait), errType=0x20(sq sw status
error), sqSwStatus=0x16620324`` before the AI Core's own MTE error, CANN's MoE dispatch troubleshooting case): the
reason is on the lines that follow (``Kernel task happen error, retCode=%#x, [%s]`` with the number's text, read
by :mod:`.ts_errors`)."""
CQE_TIMEOUT_CODE = {"aic": "507014", "aiv": "507034", "aicpu": "507017", "aicpu_h": "507017",
                    "aicpu_d": "507017"}


def timeout_code(text: str) -> str | None:
    """The AscendCL code of the AI Core / Vector Core / AI CPU timeout a runtime record reports (session 39), or
    None."""
    if RE_CORE_TIMEOUT_DFX.search(text):
        return "507014"
    if m := RE_CQE_TIMEOUT.search(text):
        return CQE_TIMEOUT_CODE[m.group(1).lower()]
    return None


RE_SOURCE_TAGS = lazy_compile(r"\[(?:FUNC|FILE|LINE):[^\]\[]{0,200}\]")
"""The source position CANN's error messages end with
(``[FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]``): names of the code that printed the line, not its
words. :data:`TEXTS` reads the line without them (``reason=[aicore
timeout][FUNC:FuncErrorReason]...``, the runtime's text of 507014, is a timeout, not an AI Core error)."""


_ANY = group_of(globals())


def rt_codes(body: str) -> list[str]:
    """The AscendCL / runtime / aclnn codes a line's text (its plog head off) prints: after their word, beside their
    name, after the aclnn call that returned them."""
    named = [a or b or c for a, b, c in RE_RT_NAMED.findall(body)]
    tiling = ["561002"] if RE_NNOP_TILING_FAILED.search(body) else []  # ACLNN_ERR_INNER_TILING_ERROR's check
    return list(dict.fromkeys(RE_RT.findall(body) + named + RE_ACLNN_RET.findall(body) + tiling))


def sdma_status(ctx: LineCtx) -> bool:
    """``rt:sdma_mem`` for an SDMA error whose CQE status is one the runtime reports as a memory error."""
    if (m := RE_SDMA_CQE.search(ctx.text)) is None:
        return False
    status = int(m.group(2), 16)
    if m.group(1):
        status = (status >> 17) & 0x1F
    if status not in SDMA_MEMORY_STATUS:
        return False
    dev = ctx.device()
    ctx.add("rt:sdma_mem", ctx.npu(dev), 2, device=dev)
    return True


def aicore_detail(ctx: LineCtx) -> bool:
    """The AI Core error class the runtime's own texts give: ``rt:aicore_hw`` / ``rt:aicore_sw`` (or link/mte)."""
    kind = None
    if m := RE_ERRSTR.search(ctx.text):
        said = m.group(1)
        kind = "rt:aicore_hw" if AICORE_HW.search(said) else "rt:aicore_sw" if AICORE_SW.search(said) else None
    elif m := RE_VERDICT.search(ctx.text):
        kind = VERDICT_KIND[m.group(1).lower()]
    elif RE_AICERR_SW.search(ctx.text):
        kind = "rt:aicore_sw"
    if kind is None:
        return False
    dev = ctx.device()
    ctx.add(kind, ctx.npu(dev), 2, device=dev)
    return True


def parse(ctx: LineCtx) -> bool:
    if not _ANY.may(ctx.text):  # the line screen rules out every regex of this parser: no signal here
        return False
    text = ctx.text
    found = aicore_detail(ctx)
    found = sdma_status(ctx) or found
    dev = ctx.device()
    comp = ctx.npu(dev)
    for code in dict.fromkeys(RE_ECODE.findall(text)):
        ctx.add(f"err:{code}", comp, 2, device=dev)
        found = True
    for code in dict.fromkeys(RE_ERR.findall(text)):
        ctx.add(f"err:{code}", comp, 2, device=dev)
        found = True
    for code in rt_codes(RE_PLOG_HEAD.sub("", text, count=1)):  # not the head's pid, clock or thread id
        ctx.add(f"rt:{code}", comp, 2, device=dev)
        found = True
    if timed_out := timeout_code(text):  # the record of a core timeout: no exception text of its own
        ctx.add(f"rt:{timed_out}", comp, 2, device=dev)
        found = True
    quiet = bool(timed_out) or ts_timeout(text)  # a TS timeout number (errnums reads its code): no exception either
    said = RE_SOURCE_TAGS.sub("", text) if "[FUNC:" in text or "[FILE:" in text else text
    for rx, kind in TEXTS:
        if quiet:
            break
        if rx.found(said) and (ctx.sev >= 1 or found):
            ctx.add(kind, comp, max(ctx.sev, 1), device=dev)
            found = True
            break
    if found and CFG_ENV.search(text):
        ctx.add("cfg:env", comp, 2, device=dev)  # a CANN error that names its environment cause ("init env failed")
    if found and (RE_OP_NO_BINARY.found(said) or RE_TBE_DIR_INVALID.found(said)):
        ctx.add("cfg:env", comp, 2, device=dev)  # no kernel binary for the op here; TBE's compile dir unusable (cfgenv)
    if found and RE_VERSION_STATED.found(said):
        ctx.add("cfg:version", comp, 2, device=dev)  # one that states a version mismatch (framework.RE_VERSION_STATED)
    if found and RE_ACLNN_CALL.search(text):
        ctx.add("op:aclnn", comp, 2, device=dev)  # the failed aclnn call that returned the code
    if found and RE_ACLOP_COMPILE.search(text):
        ctx.add("op:compile", comp, 2, device=dev)  # the single-operator compile call that returned it
    return found
