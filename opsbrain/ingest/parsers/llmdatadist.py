"""LLM-DataDist (CANN's KV-cache transfer library between prefill and decode instances: vllm-ascend's
LLMDataDistCMgrConnector, MindIE's and xLLM's PD separation) raises ``LLMException`` with the status's documented
name: ``llm_datadist.status.LLMException: [link] failed, error code is LLMStatusCode.LLM_LINK_FAILED, {5: 0, 21: 1}.``
(status.py's ``handle_llm_status``: ``{func_name} failed, error code is {code_2_status(status)}, {other_info}.``,
vllm-ascend#2900). The name is read as the message category its documented meaning and solution give
(LLMStatusCode, https://www.hiascend.com/document/detail/en/CANNCommunityEdition/900/others/llmdatadistdev/llmpr_42_0101.html;
the C++ Status codes of the same names, https://www.hiascend.com/document/detail/en/CANNCommunityEdition/900/API/hixlug/llmcrv2_42_19.html),
``msg:<category>``, whose classes knowledge_base/categories.yaml gives, as for a documented message:

- ``LLM_DEVICE_OUT_OF_MEMORY`` / ``LLM_OUT_OF_MEMORY`` (out of memory): memory_exhausted;
- ``LLM_LINK_FAILED`` (link establishment failed; check the network connectivity between the two devices): comm, a
  communication failure whose cause the name does not give (the network or the peer);
- ``LLM_WAIT_PROCESS_TIMEOUT`` / ``LLM_WAIT_PROC_TIMEOUT`` / ``LLM_TIMEOUT`` (processing timeout): timeout;
- ``LLM_PARAM_INVALID`` (incorrect parameter, locate it from the logs) and ``LLM_KV_CACHE_NOT_EXIST`` (check the
  prefill request finished, duplicate pulls, the cache's parameters): parameter_or_usage;
- ``LLM_NOT_YET_LINK`` / ``LLM_ALREADY_LINK`` / ``LLM_EXIST_LINK`` / ``LLM_REPEAT_REQUEST`` (the caller's link
  state or a repeated call, checked "at the upper layer"): api_misuse;
- ``LLM_FAILED`` (general failure, keep the logs): internal.

Other names (``LLM_FEATURE_NOT_ENABLED``, ``LLM_LINK_BUSY`` ...) add nothing. Session 46 (tester46g).

HIXL (the same family's transfer engine, ``adxl::AdxlEngine`` / ``hixl::Hixl``) returns numbered statuses, which
Mooncake's AscendDirectTransport logs after its own words, ``LOG(ERROR) << "Transfer slice failed with status: " <<
status`` and ``"Failed to initialize AdxlEngine, status: "``, ``"Failed to connect to target: " << name << ", status:
"``, ``"Failed to disconnect to: " << name << ", status: "`` (Mooncake ascend_direct_transport.cpp,
transfer_executor_base.cpp). The number is read on those shapes only, as the category of its documented meaning
(HIXL error codes, https://www.hiascend.com/document/detail/en/CANNCommunityEdition/900/API/hixlug/llmcrv2_42_36.html;
cann/hixl docs/zh/api/cpp/HIXL-error-code.md): PARAM_INVALID 103900 (incorrect parameter, locate it from the logs)
parameter_or_usage; TIMEOUT 103901 (processing timeout) timeout; NOT_CONNECTED 103902 (no link established) comm: the
link is missing, and in Mooncake it is missing because the transport's own connect failed (vllm-ascend#7401: a connect
timeout to the peer, then 103902 on the transfer and the disconnect), so the caller's misuse (LLM_NOT_YET_LINK's
reading) is not what it says; FAILED 503900 (common failure) internal. Those four are the statuses real lines print
(vllm-ascend#4866, #5044, #7401, #7792, Mooncake PR#857); ALREADY_CONNECTED 103903, UNSUPPORTED 103905 and
RESOURCE_EXHAUSTED 203900 (stream resources) are left until one is seen. Session 46 (hixl46).

A status its caller handles, on a line that states INFO, adds nothing either (:data:`HANDLED`; session 46, polish46):
``LLM_ALREADY_LINK`` says the link the call asks for exists. MindIE-LLM's ``SeparateDeploymentEngine.link`` returns
it as ``TEXT_GENERATOR_PD_ALREADY_LINK`` and its worker logs ``Device%d already link.`` at INFO and goes on ("已建链视为
成功", mindie_llm/text_generator/utils/separate_deployment_engine.py); vllm-ascend's v0 ``LLMDataDistConnector`` logs
``link_clusters``' per-cluster statuses unchecked at INFO (``local_rank {n} link, ret={ret}``,
vllm_ascend/distributed/llmdatadist_connector.py). Raised (``[link] failed, error code is
LLMStatusCode.LLM_ALREADY_LINK``) it is the caller's misuse as before, and a failure logged at INFO
(``LLM_LINK_FAILED`` in that same line) still reads: the program goes on to use the link."""

from __future__ import annotations

from opsbrain.ingest.parsers.ctx import LineCtx
from opsbrain.ingest.screen import group_of, screened

RE_LLM_STATUS = screened(r"\bLLMStatusCode\.(LLM_[A-Z_]+)\b")
CATEGORY = {
    "LLM_DEVICE_OUT_OF_MEMORY": "memory_exhausted",
    "LLM_OUT_OF_MEMORY": "memory_exhausted",
    "LLM_LINK_FAILED": "comm",
    "LLM_WAIT_PROCESS_TIMEOUT": "timeout",
    "LLM_WAIT_PROC_TIMEOUT": "timeout",
    "LLM_TIMEOUT": "timeout",
    "LLM_PARAM_INVALID": "parameter_or_usage",
    "LLM_KV_CACHE_NOT_EXIST": "parameter_or_usage",
    "LLM_NOT_YET_LINK": "api_misuse",
    "LLM_ALREADY_LINK": "api_misuse",
    "LLM_EXIST_LINK": "api_misuse",
    "LLM_REPEAT_REQUEST": "api_misuse",
    "LLM_FAILED": "internal",
}
"""A status name -> the message category (knowledge_base/categories.yaml) of its documented meaning."""
HANDLED = frozenset({"LLM_ALREADY_LINK"})
"""Statuses a caller handles as success: no failure on a line that states INFO (module docstring)."""

RE_HIXL_STATUS = screened(r"\b(?:Transfer slice failed with status|Failed to initialize AdxlEngine, status|"
                          r"Failed to (?:connect to target|disconnect to): \S+, status):\s*(\d{6})(?![0-9A-Za-z.])")
HIXL_CATEGORY = {"103900": "parameter_or_usage", "103901": "timeout", "103902": "comm", "503900": "internal"}
"""A HIXL status -> the message category of its documented meaning (the statuses real lines print)."""

_ANY = group_of(globals())


def parse(ctx: LineCtx) -> bool:
    if not _ANY.may(ctx.text):
        return False
    info = ctx.stated and ctx.sev == 0
    for name in dict.fromkeys(RE_LLM_STATUS.findall(ctx.text)):
        if (cat := CATEGORY.get(name)) and not (info and name in HANDLED):
            ctx.add(f"msg:{cat}", ctx.npu() or ctx.node, max(ctx.sev, 1), device=ctx.device())
    for code in dict.fromkeys(RE_HIXL_STATUS.findall(ctx.text)):
        if cat := HIXL_CATEGORY.get(code):
            ctx.add(f"msg:{cat}", ctx.npu() or ctx.node, max(ctx.sev, 1), device=ctx.device())
    return False  # the status adds to the line; the framework parser still reads the exception
