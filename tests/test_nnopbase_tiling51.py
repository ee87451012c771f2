"""The aclnn engine's own line when an operator's tiling function returns a failure (session 51, tester51d).

hicann/opbase src/nnopbase/individual_op/executor/indv_executor.cpp @313b0146 (``NnopbaseExecutorDoTiling``):
``CHECK_COND((ret == ge::GRAPH_SUCCESS), ACLNN_ERR_INNER_TILING_ERROR, "%s do tiling failed, ret is %d.",
executor->opType, ret)`` -- the line is the message of the check that returns ACLNN_ERR_INNER_TILING_ERROR, aclnn
status 561002 (knowledge_base/code_tables/aclnn_status_codes.yaml), the same code torch_npu prints after the call
(``call aclnnKvRmsNormRopeCache failed, error code is 561002`` above ``KvRmsNormRopeCache do tiling failed, ret is
-1.`` in vllm-ascend#6243). Public lines: vllm-ascend#2858 (MoeDistributeDispatch), #4051 (MoeDistributeDispatchV2),
#7160 (MoeGatingTopK). The line alone gave no signal: a cut excerpt of the nnopbase block read only by the text
fallback."""

from __future__ import annotations

import pytest

from opsbrain.ingest.parsers import parse_line


def kinds(line: str) -> set[str]:
    return {s.kind for s in parse_line(line)}


@pytest.mark.parametrize("line", [
    # vllm-project/vllm-ascend#4051 (Qwen3-next EP, under vLLM's worker prefix)
    "(Worker_TP2_EP2 pid=940665) ERROR 11-07 06:32:37 [multiproc_executor.py:671]        MoeDistributeDispatchV2 do "
    "tiling failed, ret is -1.",
    # vllm-project/vllm-ascend#7160 (Qwen3.5 MoE start)
    "(Worker_TP0 pid=85) ERROR 03-11 08:33:36 [multiproc_executor.py:863]        MoeGatingTopK do tiling failed, "
    "ret is -1.",
    # vllm-project/vllm-ascend#6243 (the EZ9999 block's TraceBack, unindented)
    "KvRmsNormRopeCache do tiling failed, ret is -1.",
])
def test_an_operators_failed_tiling_is_the_tiling_status(line: str) -> None:
    assert "rt:561002" in kinds(line), kinds(line)


@pytest.mark.parametrize("line", [
    # the traceback frames under it name no operator and no code of their own
    "       Check NnopbaseExecutorDoTiling(executor) failed",
    # a sentence about tiling that is not the engine's check
    "INFO 03-11 08:33:36 tiling of MoeGatingTopK done, ret is 0",
    "note: the op do tiling failed path is covered by test_tiling.py",
])
def test_other_tiling_words_are_not_the_status(line: str) -> None:
    assert "rt:561002" not in kinds(line), kinds(line)
