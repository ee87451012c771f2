"""Error numbers printed in hex or beside a field name, decoded to the documented codes they stand for. The kinds are
the ones the other parsers give the documented codes (``hcclret:N``, ``rt:N``, ``cfg:device`` ...), so the
knowledge base's roles apply to them; this parser only adds to a line (the others still read it).

- HCCL's ``errNo[0x0000000005000013]`` (plog): ``HCCL_ERROR_CODE(error)`` of hicann/hccl ``src/common/log.h`` is
  ``(HCCL_MODULE_ID=5 << 24) + (sub-module << 16) + HcclResult``; the low 16 bits are the HcclResult
  (``hcclret:N``, hicann/hcomm ``include/hccl/hccl_types.h``).
- The runtime's ``retCode=0x7020010`` (its own trace lines: ``stream setup failed, retCode=0x7020010.``; also
  ``InnerCode=0x7020023``, ``is err:0x7010003``, ``ret=`` / ``error=``): an internal ``RT_ERROR_*`` number, reported
  to the application as the AscendCL code of its knowledge-base row (codes.yaml ``runtime_inner_codes``, read
  through :mod:`.rt_internal`); only numbers the runtime defines.
- The runtime's reason strings, its description of such a number, after a failed runtime API
  (``rtSetDevice execute failed, reason=[device id error]``, later ``reason=device retain error[FUNC:...``, or
  ``execution failed, the context is a null pointer.``) and beside the codes (``desc=[driver error:resource alloc
  fail]``): the same AscendCL code (codes.yaml ``runtime_reasons``); a text the runtime's maps do not hold gives
  nothing.
- The driver's return code the runtime prints after a failed driver call (``Call driver api halMemAlloc failed,
  drvRetCode=6, ...``, ``[driver interface] halMemAlloc failed: ..., drvRetCode=6!``): a drvError_t
  (hicann/runtime ``pkg_inc/driver/ascend_hal_error.h``; 6 is DRV_ERROR_OUT_OF_MEMORY), reported as the AscendCL code
  of the inner number the runtime's drvErrMap_ turns it into (codes.yaml ``driver_return_codes``); a code the map
  does not list gives nothing. The HCCL fault-diagnosis guide's P-side log shows the pair (``drvRetCode=6, device_id
  7, ErrCode=207001, desc=[driver error:out of memory]``). A line logged below ERROR is not read: the runtime warns
  of a small-page allocation that ran out and retries it on huge pages (npu_driver.cc DevMemAlloc).
- The task scheduler's error number of a failed task, printed beside its description (``Kernel task happen error,
  retCode=0x25, [aicore timeout].``, ``Kernel task happen error, retCode=0x31, [vector core exception].``, a notify
  wait's ``Kernel task happen error, retCode=%#x, [%s].``, ``event wait error, retCode=...``) or in the kernel task's
  own report (``AICORE Kernel task happen error, retCode=0x25.``): the AscendCL code of the inner number the runtime's
  table turns it into (:mod:`.ts_errors`; 0x25 is ACL_ERROR_RT_AICORE_TIMEOUT 507014, 0x105 ``task timeout``
  ACL_ERROR_RT_TASK_TIMEOUT 107020); a description that is not the table's for its number gives nothing (session 39).
- HCCL Test's ``hccl interface return err ./common/src/hccl_test_common.cc:538, retcode: 7`` (hicann/oam-tools
  ``docs/zh/hccl_test/faqs.md``), MindSpore's ``HcclCommInitRootInfo failed. | Error Number 2`` (mindspore-ai/docs
  ``faq/distributed_parallel.md``) and ``HcclCommInitClusterInfo failed, ret:1`` (its HCCL adapter,
  mindspore-ai/mindspore ``plugin/device/ascend/hal/hccl_adapter/hccl_adapter.cc``, InitHcclComm), and a glog check
  on an HCCL call, ``Check failed: status == HCCL_SUCCESS (1 vs. 0) HCCL get root info failed.`` (xLLM-AI/xllm#350:
  glog's CHECK_EQ prints the two values, the left one the call's return): the HCCL API's HcclResult.
- DCMI return codes in device-plugin and npu-smi lines (``get cur vDev's activity info failed, err: retCode: -8255``,
  Project-HAMi/ascend-device-plugin#66): hicann/driver ``docs/zh/Ascend_910B_DCMI_API/.../return_codes.md``. Only the
  codes whose documented meaning is the device's set-up give a kind: -8020 resource occupied and -8007 invalid
  device id (``cfg:device``), -8002 operation not permitted and -8013 not supported in a container (``cfg:env``).
  Internal errors (-8005 ...) and "not supported" (-8255) name no cause and give none.
"""

from __future__ import annotations

import re

from opsbrain.ingest.parsers.ctx import LineCtx
from opsbrain.ingest.parsers.rt_internal import acl_maps, driver_codes
from opsbrain.ingest.parsers.ts_errors import RE_TS_KERNEL, RE_TS_RETCODE, TS_ERRORS, ts_numbers  # noqa: F401 (screen)
from opsbrain.ingest.screen import group_of, screened

HCCL_MODULE_ID = 5  # hicann/hccl src/common/log.h
MAX_HCCL_RESULT = 64  # HcclResult values are small (hccl_types.h); larger low bits are no HcclResult

RE_HCCL_ERRNO = screened(r"errNo\[0x([0-9a-fA-F]{16})\]")
RE_RT_RETCODE = screened(r"(?<![A-Za-z_])(?:retCode|reCode|InnerCode|error_?code|error|err|ret)\s*[=:]\s*"
                         r"0x(0?7[0-9a-fA-F]{6})(?![0-9A-Za-z])", re.I)
"""The runtime's field names of an inner number (its printf formats: ``retCode=%#x`` in most trace lines,
``InnerCode=0x`` in GetErrorDesc, ``is err:%#x``, ``ret=%#x``, ``error=%#x``); the number's own shape (0x07 and six
hex digits, looked up in the runtime's definitions) keeps driver and HCCL numbers out."""
RE_RT_REASON = screened(r"(?:\breason=|\bdesc=|execut(?:e|ion) failed, (?!reason=))\[?([^\[\]]{3,200})")
"""Where the runtime prints a reason string (ErrorMessageUtils::FuncErrorReason, ErrorcodeManage::GetErrorDesc): up
to its closing bracket, the ``[FUNC:`` of the trace's tail, or the end of the line."""
RE_DRV_RETCODE = screened(r"\bdrvRetCode\s*[=:]\s*(\d{1,5})\b")
"""The runtime's ``drvRetCode=%d`` (npu_driver*.cc, api_impl*.cc: a failed driver call's drvError_t)."""
RE_HCCL_TEST = screened(r"hccl interface return err \S+, retcode: (\d{1,4})\b")
RE_ERROR_NUMBER = screened(r"Hccl\w+ failed(?:\. \| Error Number |, ret:)(\d{1,4})\b")
RE_GLOG_CHECK = screened(r"Check failed: \w+ == HCCL_SUCCESS \((\d{1,4}) vs\. 0\)")
RE_DCMI = screened(r"(?<![A-Za-z_])(?:retCode|ret code|ret is|ret|return code)\s*(?:[:=]\s*)?(-80\d\d)\b", re.I)
"""DCMI's return code after its word, a whole word (session 38: not ``secret -8020``)."""
_DCMI_CONTEXT = screened(r"dcmi|npu-smi|vDev|device ?plugin|DrvMng", re.I, context=True)
DCMI_KIND = {-8020: "cfg:device", -8007: "cfg:device", -8002: "cfg:env", -8013: "cfg:env"}

_ANY = group_of(globals())  # with RE_TS_RETCODE and RE_TS_KERNEL (ts_numbers)


def hccl_result(errno_hex: str) -> int | None:
    """The HcclResult inside an HCCL ``errNo`` (None when the number is not HCCL's, or carries no error)."""
    n = int(errno_hex, 16)
    if (n >> 24) & 0xFF != HCCL_MODULE_ID:
        return None
    res = n & 0xFFFF
    return res if 0 < res <= MAX_HCCL_RESULT else None


def reason_code(said: str) -> int | None:
    """The AscendCL code of a runtime reason string (None for a text the runtime's maps do not hold)."""
    said = said.strip().lower()
    reasons = acl_maps()[1]
    return reasons.get(said) or reasons.get(said.removesuffix(".").rstrip())


def driver_acl_codes(text: str) -> list[int]:
    """The AscendCL codes of the driver return codes a line prints (``drvRetCode=48`` is ACL 207008; codes.yaml
    ``driver_return_codes``); a code the table does not list gives none."""
    return [a for m in RE_DRV_RETCODE.finditer(text) if (a := driver_codes().get(int(m.group(1))))]


def driver_return_read(ctx: LineCtx) -> bool:
    """Whether this parser reads the line's failed driver call by its return code (:func:`driver_acl_codes`, at a
    level the line does not state below ERROR: at WARNING the runtime retries): the code says why the call failed
    (``drvRetCode=48``, DRV_ERROR_NO_STREAM_RESOURCES, ACL 207008), and the runtime's ``[driver interface]
    halResourceIdAlloc streamid failed`` is no failure of the driver's own. Session 58: the runtime FAQ's restarted
    process that found the device's streams held by its dead predecessor (blind b57l-03, config_error) read
    driver_firmware_error 0.45 from the call's words beside six 207008 lines. A code the table maps to the driver (17,
    DRV_ERROR_IOCTL_FAIL, 507899) still speaks for it by its own kind."""
    return not (ctx.stated and ctx.sev < 2) and bool(driver_acl_codes(ctx.text))


def parse(ctx: LineCtx) -> bool:
    if not _ANY.may(ctx.text):  # the line screen rules out every regex of this parser: no signal here
        return False
    text = ctx.text
    dev = ctx.device()
    comp = ctx.npu(dev)
    rets: list[int] = []
    if (m := RE_HCCL_ERRNO.search(text)) and (res := hccl_result(m.group(1))) is not None:
        rets.append(res)
    for rx in (RE_HCCL_TEST, RE_ERROR_NUMBER, RE_GLOG_CHECK):
        if (m := rx.search(text)) and int(m.group(1)):
            rets.append(int(m.group(1)))
    for ret in dict.fromkeys(rets):
        ctx.add(f"hcclret:{ret}", comp, 2, device=dev)
    inner = acl_maps()[0]
    acls = [a for m in RE_RT_RETCODE.finditer(text) if (a := inner.get(int(m.group(1), 16)))]
    acls += [a for m in RE_RT_REASON.finditer(text) if (a := reason_code(m.group(1)))]
    acls += [a for n in ts_numbers(text) if (a := inner.get(TS_ERRORS[n][1]))]
    if not (ctx.stated and ctx.sev < 2):  # at WARNING the runtime retries a small-page allocation on huge pages
        acls += driver_acl_codes(text)
    for acl in dict.fromkeys(acls):
        ctx.add(f"rt:{acl}", comp, 2, device=dev)
    if (m := RE_DCMI.search(text)) and (kind := DCMI_KIND.get(int(m.group(1)))) and _DCMI_CONTEXT.search(text):
        ctx.add(kind, comp or ctx.node, 2, device=dev)
    return False  # decoded numbers add to what the other parsers read on the line; they never end it
