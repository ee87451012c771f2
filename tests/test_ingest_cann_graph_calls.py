"""A GE graph-API call that failed in a C++ program handing its network to CANN as a graph is a graph compile failure
(session 47, tester47b). onnxruntime's CANN execution provider converts each subgraph it takes into an offline model
through ``ge::aclgrphParseONNXFromMem`` / ``ge::aclgrphBuildModel`` and reports a failed call as ``CANNGRAPH failure
<graphStatus>`` (cann_call.h / cann_call.cc) and ``CANN Graph error executing <expr>`` (cann_common.h); OpenCV's dnn
CANN backend reports the same calls as ``CANN graph check failed`` (op_cann.hpp ``ACL_CHECK_GRAPH_RET``, used by
net_cann.cpp ``compileCannGraph``)."""

from __future__ import annotations

import pytest

from opsbrain.ingest.text import ingest_text


def kinds(text: str) -> set[str]:
    return {s.kind for s in ingest_text(text)[0]}


FAILED = [
    # https://github.com/microsoft/onnxruntime/issues/20617 (onnxruntime CANN EP, GE's ONNX parser)
    "2024-05-09 07:05:28.107324198 [E:onnxruntime:Default, cann_call.cc:139 CannCall] CANNGRAPH failure -1: "
    "GRAPH_FAILED ; NPU=0 ; hostname=d5624f2a4431 ; expr=ge::aclgrphParseONNXFromMem(string_model.data(), "
    "string_model.size(), parser_params, graph); ",
    # https://github.com/microsoft/onnxruntime/issues/21352 (onnxruntime-cann 1.18, the graph build)
    "onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : Non-zero status code returned "
    "while running torch-jit-export_6141346329611778433_0 node. Name:'CANNExecutionProvider_torch-jit-export_"
    "6141346329611778433_0_0' Status Message: CANN Graph error executing ge::aclgrphBuildModel(graph, options, model)",
    # https://github.com/opencv/opencv/issues/23199 (OpenCV 4.7.0 dnn CANN backend, compileCannGraph)
    "[ERROR:0@0.822] global net_cann.cpp:286 compileCannGraph CANN graph check failed, ret = 4294967295",
    "what(): OpenCV(4.7.0) /usr/huaweitest1/OpenCV_4.7/opencv-4.7.0/modules/dnn/src/net_cann.cpp:286: error: "
    "(-2:Unspecified error) CANN graph check failed in function \u2018compileCannGraph\u2019",
]


@pytest.mark.parametrize("line", FAILED)
def test_a_failed_graph_call_is_a_graph_compile_failure(line: str) -> None:
    assert "op:compile" in kinds(line)


@pytest.mark.parametrize("line", [
    # OpenCV's dnn CANN backend converting a layer before its build (https://github.com/opencv/opencv/issues/26477)
    "[ INFO:0@51.135] global net_cann.cpp:204 initBackend DNN/CANN: converting layer onnx_node!/model.22/Add_1@"
    "NaryEltwise@361 to CANN operator",
    # the AscendCL check of the same backend: its code is the cann parser's (rt:100000), not a graph call
    "[ERROR:0@1.959] global op_cann.cpp:258 loadToDevice CANN check failed, ret = 100000",
])
def test_lines_without_a_failed_graph_call_give_no_compile_failure(line: str) -> None:
    assert "op:compile" not in kinds(line)
