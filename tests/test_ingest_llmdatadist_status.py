"""LLM-DataDist's LLMException names its status (session 46, tester46g): the name is read as the message category of
its documented meaning (LLMStatusCode, hiascend llmdatadistdev llmpr_42_0101), not left as a bare exception."""

from __future__ import annotations

import pytest

from opsbrain.ingest.text import ingest_text


def kinds(text: str) -> set[str]:
    return {s.kind for s in ingest_text(text)[0]}


@pytest.mark.parametrize("line, kind", [
    # vllm-ascend#2900 (Qwen3-235B 1P1D, LLMDataDistCMgrConnector.add_remote_agent -> link)
    ("(Worker_DP0_TP4_EP4 pid=852061) llm_datadist.status.LLMException: [link] failed, error code is "
     "LLMStatusCode.LLM_LINK_FAILED, {5: 0, 21: 1}.", "msg:comm"),
    # vllm-ascend#696 (LLMDataDist.init at the v0.8.4 connector's start)
    ("llm_datadist.status.LLMException: [LLMDataDist.init] failed, error code is LLMStatusCode.LLM_FAILED, Failed to "
     "initialize llm datadist, options = {'llm.SyncKvCacheWaitTime': '5000', 'ge.exec.deviceId': '0'}",
     "msg:internal"),
])
def test_a_named_llm_datadist_status_reads_as_its_category(line: str, kind: str) -> None:
    assert kind in kinds(line)


def test_the_raise_line_of_the_traceback_names_no_status() -> None:
    line = ('    raise LLMException(f"{func_name} failed, error code is {code_2_status(status)}, {other_info}.",')
    assert not {k for k in kinds(line) if k.startswith("msg:")}
