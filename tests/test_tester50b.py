"""Session 50, tester50b (configuration vs framework errors).

1. The TBE op-store adapter's initialisation failures are the compiler's environment (``cfg:env``), not an operator
   that failed to compile. FE prints them when ``TbeOpStoreAdapter`` cannot start TBE, before any operator is
   compiled (hicann/ge @ffdcbc9f compiler/engines/nn_engine/optimizer/adapter/tbe_adapter/tbe_op_store_adapter.cc:
   ``[GraphOpt][InitializeInner][InitTbeFunc] Failed to init tbe.`` when ``TbeInitialize(options)`` fails,
   ``[GraphOpt][InitializeInner][InitTeFusion]: Failed to initialize TeFusion.``; .../adapter/common/
   op_store_adapter_manager.cc: ``[SubGraphOpt][PreCompileOp][InitAdapter] InitializeAdapter adapter [%s] failed!``).
   The ``[PreCompileOp]`` stage tag and "tbe ... fail" read ``op:compile`` before. Real lines: vllm-ascend#2748 (the
   E40023 path of ge.debugDir invalid, Permission denied), MinerU#2258 (EC0010, TBE's Python under NumPy 2.0),
   Ascend/pytorch#29 (``No module named 'tbe.common'``).
2. Two warnings of healthy NPU runs are harmless: torch_npu's ``torch.save`` advice for the legacy format
   (Ascend/pytorch torch_npu/utils/serialization.py) and torch's ``barrier(): using the device under current
   context`` (torch/distributed/distributed_c10d.py, ``barrier``); sglang#28628's running server read
   framework_error 0.59 from them through the text fallback.
"""

from __future__ import annotations

import io
from typing import Any

from opsbrain.diagnosis.oneclick import diagnose_logs
from opsbrain.ingest.benign import BENIGN
from opsbrain.ingest.parsers import parse_line

# vllm-ascend#2748 (https://github.com/vllm-project/vllm-ascend/issues/2748), as posted (Ray's worker prefix cut)
INIT_TBE = ("[GraphOpt][InitializeInner][InitTbeFunc] Failed to init tbe.[FUNC:InitializeTeFusion]"
            "[FILE:tbe_op_store_adapter.cc][LINE:1921]")
INIT_TEFUSION = ("[GraphOpt][InitializeInner][InitTeFusion]: Failed to initiaalize TeFusion.[FUNC:InitializeInner]"
                 "[FILE:tbe_op_store_adapter.cc][LINE:1888]")
# MinerU#2258 (https://github.com/opendatalab/MinerU/issues/2258), blind b48p-11
INIT_ADAPTER = ("        [SubGraphOpt][PreCompileOp][InitAdapter] InitializeAdapter adapter [tbe_op_adapter] failed! "
                "Ret [4294967295][FUNC:InitializeAdapter][FILE:op_store_adapter_manager.cc][LINE:79]")
# Ascend/pytorch#29 (https://github.com/Ascend/pytorch/issues/29), the plog form
PLOG_INIT_TBE = ("[ERROR] FE(2440326,python):2024-04-08-15:18:43.444.623 [tbe_op_store_adapter.cc:1623]2440326 "
                 "InitializeInner:\"[GraphOpt][InitializeInner][InitTbeFunc] Failed to init tbe.\"")

# the vllm-ascend#2748 excerpt without its first message (the issue title holds it): the TBE start-up chain alone
EXCERPT = "\n".join([
    "Solution: Change the path to the effective value.",
    "TraceBack (most recent call last):",
    "Failed to initialize TeConfigInfo.",
    INIT_TBE,
    INIT_TEFUSION,
    "[SubGraphOpt][PreCompileOp][InitAdapter] InitializeAdapter adapter [tbe_op_adapter] failed! Ret [4294967295]"
    "[FUNC:InitializeAdapter][FIL",
]) + "\n"

# sglang#28628 (https://github.com/sgl-project/sglang/issues/28628): the main-cann9.0.0-910b image, "can run"
SAVE_WARNING = ("('Warning: torch.save with \"_use_new_zipfile_serialization = False\" is not recommended for npu "
                "tensor, which may bring unexpected errors and hopefully set \"_use_new_zipfile_serialization = "
                "True\"', 'if it is necessary to use this, please convert the npu tensor to cpu tensor for saving')")
BARRIER_WARNING = ("/usr/local/python3.11.15/lib/python3.11/site-packages/torch/distributed/c10d_logger.py:83: "
                   "UserWarning: barrier(): using the device under current context. You can specify `device_id` in "
                   "`init_process_group` to mute this warning.")
HEALTHY = "\n".join([
    "[2026-06-22 06:19:33] INFO:     Uvicorn running on http://0.0.0.0:8080 (Press CTRL+C to quit)",
    "[2026-06-22 06:19:34] INFO:     127.0.0.1:6564 - \"GET /health HTTP/1.1\" 200 OK",
    "[06-22 06:19:34] Diffusers version: 0.37.0.dev0",
    BARRIER_WARNING,
    "  return func(*args, **kwargs)",
    SAVE_WARNING,
    "[rank0]:[W622 06:20:04.275106718 TensorFactories.cpp:340] Warning: Cannot create tensor with interal format "
    "while allow_internel_format=False, tensor will be ",
    "created with base format. (function operator())",
]) + "\n"


def _kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


def test_tbe_initialisation_failures_are_the_environment() -> None:
    for line in (INIT_TBE, INIT_TEFUSION, INIT_ADAPTER, PLOG_INIT_TBE):
        kinds = _kinds(line)
        assert "cfg:env" in kinds and "op:compile" not in kinds, (line, kinds)


def test_an_operator_that_failed_to_compile_stays_a_compile_failure() -> None:
    # E40021 (hicann/runtime error_code.json): an operator named, its compile failed
    line = ("E40021: [PID: 2000] 2025-07-17-11:24:31.572.955 Failed to compile Op [Conv3D1_to_Conv3dv2,"
            "[Conv3D1,Conv3D1]]. (oppath: [Compile /usr/local/Ascend/ascend-toolkit/latest/opp/conv3d.py failed")
    assert "cfg:env" not in _kinds(line)
    assert "cfg:env" not in _kinds("[SubGraphOpt][PreCompileOp] PreCompile op Conv2D failed")


def test_the_tbe_start_up_chain_reads_config_error(engine: Any) -> None:
    d = diagnose_logs("-", engine, stdin=io.BytesIO(EXCERPT.encode()))["diagnosis"]
    assert d["fault_class"] == "config_error", (d["fault_class"], d["confidence"], d.get("evidence_lines"))


def test_the_two_warnings_of_a_healthy_run_are_benign() -> None:
    assert BENIGN.search(SAVE_WARNING) and BENIGN.search(BARRIER_WARNING)
    assert not BENIGN.search("RuntimeError: torch.save failed: No space left on device")


def test_the_running_server_raises_no_fault(engine: Any) -> None:
    d = diagnose_logs("-", engine, stdin=io.BytesIO(HEALTHY.encode()))["diagnosis"]
    assert d["fault_class"] in (None, "unknown"), (d["fault_class"], d["confidence"], d.get("evidence_lines"))
