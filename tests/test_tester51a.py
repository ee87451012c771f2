"""Session 51, tester51a (video, image and multimodal generation on Ascend).

The ATB-models graph of a MindIE model whose shape inference failed is a deployment setting, not the program. MindIE
LLM's FAQ (Ascend/MindIE-LLM @613aab54 docs/en/faq/faq.md, "What to Do If Error Message "Qwen2VL/Qwen2.5VL_VIT_graph
nodes[1] infershape fail" Is Displayed During Multi-Modal Model Inference") quotes both forms below and names two
causes, both settings: the model not supported on the hardware by the installed MindIE version (choose the MindIE
version its model list gives) and an input shape too large for the self-attention operator (lower
``maxPrefillTokens`` in the serving config.json). The message comes from ATB-models' base model
(examples/atb_models/atb_framework/core/base/model.cpp, ``Model::BuildNodeOutTensorImpl``: the node's
``InferShape`` returned an error). gpustack#2814 (Qwen2.5-VL on MindIE, an image request): the maintainers'
workaround is the environment variable ``ATB_LLM_ENABLE_AUTO_TRANSPOSE=1``, which gpustack stopped setting by default.
"""

from __future__ import annotations

import io
from typing import Any

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.parsers import parse_line

# gpustack#2814 (https://github.com/gpustack/gpustack/issues/2814), as posted
VIT_GRAPH = ("[2025-08-28 09:26:00.028+0000] [4831] [281472853422496] [batchscheduler] [ERROR] [standard_model.py:186] "
             ": [Model]\t>>> global rank-2 Execute type:1, Exception:Qwen25VL_VIT_graph nodes[1] infershape  fail, "
             "enable log: export ASDOPS_LOG_LEVEL=ERROR, export ASDOPS_LOG_TO_STDOUT=1")
# the FAQ's second form (Ascend/MindIE-LLM docs/en/faq/faq.md)
LAYER_GRAPH = ("[error] [1256320] [operation_base.cpp:273] Qwen25VL_VIT_layer_0_graph infer shape fail, "
               "error code: 8")
EXCERPT = "\n".join([
    VIT_GRAPH,
    "Traceback (most recent call last):",
    '  File "/usr/local/lib/python3.11/dist-packages/model_wrapper/standard_model.py", line 174, in execute',
    "    return self._prefill(requests)",
    '  File "/usr/local/lib/python3.11/dist-packages/mindie_llm/text_generator/generator.py", line 317, in '
    "generate_token",
    "    raise e",
]) + "\n"


def _kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


def test_the_atb_graph_infershape_failure_is_a_setting() -> None:
    for line in (VIT_GRAPH, LAYER_GRAPH):
        assert "cfg:env" in _kinds(line), (line, _kinds(line))


def test_other_shape_inference_failures_are_not_read_so() -> None:
    # MindSpore Lite's scheduler (blind b45j-06's lines): its own cause, not ATB-models' graph
    assert "cfg:env" not in _kinds("ERROR [mindspore/lite/src/scheduler.cc:78] SchedulePreProcess] op infer shape "
                                   "failed.")
    # the aclnn status 561001 ACLNN_ERR_INNER_INFERSHAPE_ERROR is an operator's, read elsewhere
    assert "cfg:env" not in _kinds("EZ9999: Inner Error! infershape failed for op MatMulV3")


def test_the_mindie_vit_excerpt_reads_config_error(engine: Any) -> None:
    d = diagnose_logs("-", engine, stdin=io.BytesIO(EXCERPT.encode()))["diagnosis"]
    assert d["fault_class"] == "config_error", (d["fault_class"], d["confidence"], d.get("evidence_lines"))
