"""Readings revised in the real-log corpus' tenth round (issue 14, part M). The runtime's message-template parts
(knowledge_base/codes.yaml ``cann_message_parts``) are complete for the families their rule names (the stream-binding
codes EE1007 / EE4001 / EE4002, the TBE Python environment, profiling disk space ...); and the device's
task-scheduling resources (streams, events, notifies, models, CDQ queues) are their own category: the runtime FAQ on
EE1023 puts their exhaustion on the program that leaks them or on a graph too large, not on the device's memory.
Every line is copied from the source its comment names."""

from __future__ import annotations

import pytest

from opsbrain.diagnosis.knowledge import default_table
from opsbrain.ingest.parsers import parse_line


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


def roles(kind: str) -> dict[str, str]:
    return dict(default_table().of(kind))


@pytest.mark.parametrize("line, kind", [
    # hicann/runtime docs/zh/error_code_ref/RTS-Errors/EE4002-Model_Unbinding_Errors.md @681ef761 (corpus m010)
    ("Failed to unbind the stream from the model. The specified stream (stream_id=61) is not bound to the current "
     "model (model_id=63).", "msg:api_misuse"),
    # the same reference, TEfusion-Errors/E40024-Environment_Error_Call_Python_Function_Failed.md @681ef761
    ("Failed to call Python Method op_params_to_json. Reason: TypeError: op_params_to_json() takes 1 positional "
     "argument but 2 were given.", "msg:config_or_environment"),
])
def test_the_template_parts_the_rule_had_missed_are_read(line: str, kind: str) -> None:
    assert kind in kinds(line)


def test_ordinary_wording_is_no_template_part() -> None:
    # E39011's part, left out on purpose: other programs print it too
    assert not any(k.startswith("msg:") for k in kinds("Failed to load the package list from the mirror"))


# vLLM Ascend FAQ 17 @182b75ea (corpus m019); hicann/runtime docs/zh/FAQ/EE1023资源不足问题.md @681ef761 (m021)
STREAMS = "[PID: ...] Insufficient_Stream_Resources(EL0009): The stream resources are insufficient."
PLOG = ("[ERROR] RUNTIME(227839,rtstest_host):2026-07-13-11:39:20.982.674 [api_c.cc:1713]227839 rtModelExecute:"
        "ErrCode=207005, desc=[driver error:resource alloc fail], InnerCode=0x7020023")


@pytest.mark.parametrize("line, kind", [(STREAMS, "err:EL0009"), (PLOG, "rt:207005")])
def test_scheduling_resources_are_not_out_of_memory(line: str, kind: str) -> None:
    assert kind in kinds(line)
    r = roles(kind)
    assert "npu_oom" not in r
    assert r.get("framework_error") == "secondary" and r.get("config_error") == "secondary"


def test_device_memory_stays_out_of_memory() -> None:
    # torch_npu's allocator line (corpus part A a001) and ACL 207001 keep naming the out-of-memory class
    assert roles("rt:207001").get("npu_oom") == "primary"
    line = ("RuntimeError: NPU out of memory. Tried to allocate 3.47 GiB (NPU 0; 60.97 GiB total capacity; 58.92 GiB "
            "already allocated; 58.92 GiB current active; 1.66 GiB free; 58.95 GiB reserved in total by PyTorch)")
    assert any(roles(k).get("npu_oom") == "primary" for k in kinds(line))


# hicann/runtime docs/zh/FAQ/EE1023资源不足问题.md @681ef761: EE1023 is raised when the runtime cannot get the device's
# stream / event / notify resources or an ACL graph's async-copy queue is full; its table of plog keywords per resource
@pytest.mark.parametrize("line", [
    # the FAQ's stream example 1 (corpus m021)
    "[ERROR] RUNTIME(227839,rtstest_host):2026-07-13-11:39:20.982.566 [capture_model.cc:1802]227839 "
    "AllocSqCqAndBindInternal:Alloc Stream resource failed. Reason: Too many streams are captured to the ACL Graph. "
    "ErrorCode=EE1023.",
    # the EE1023 error-code reference's async-copy example (corpus part J j025)
    "Expanding the capacity failed. Reason: The number of asynchronous copy tasks in the ACL graph is too large.",
])
def test_ee1023_and_its_documented_keywords_are_scheduling_resources(line: str) -> None:
    got = kinds(line)
    assert "msg:scheduling_resources" in got
    assert all("npu_oom" not in roles(k) for k in got)
    if "EE1023" in line:
        assert roles("err:EE1023") == {"config_error": "secondary", "framework_error": "secondary"}
