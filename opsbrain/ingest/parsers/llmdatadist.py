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

_ANY = group_of(globals())


def parse(ctx: LineCtx) -> bool:
    if not _ANY.may(ctx.text):
        return False
    info = ctx.stated and ctx.sev == 0
    for name in dict.fromkeys(RE_LLM_STATUS.findall(ctx.text)):
        if (cat := CATEGORY.get(name)) and not (info and name in HANDLED):
            ctx.add(f"msg:{cat}", ctx.npu() or ctx.node, max(ctx.sev, 1), device=ctx.device())
    return False  # the status adds to the line; the framework parser still reads the exception
