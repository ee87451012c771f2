"""CANN's aclnn return (status) codes: knowledge_base/code_tables/aclnn_status_codes.yaml (hicann/ops-nn
docs/zh/context/aclnn_return_code.md @e07a287a; CANN "aclnn返回码 / aclnn Return Codes") with their codes.yaml rows,
read where a real log prints them: right after the aclnn call that returned them. The lines are the forms public
reports show (each cited); a six-digit number without that context is no code."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
import yaml

from opsbrain.diagnosis.knowledge import default_table
from opsbrain.ingest.parsers import parse_line
from opsbrain.kb.coverage import measure, shipped_tables, tables_dir

KB = Path(__file__).resolve().parents[1] / "knowledge_base"


def kinds(line: str) -> set[str]:
    return {s.kind for s in parse_line(line)}


@pytest.mark.parametrize(("line", "code"), [
    # torch_npu NPU_CHECK_ERROR after op-plugin's EXEC_NPU_CMD (Ascend/pytorch#90, the title)
    ("RuntimeError: copy_d2d_baseformat_opapi:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:88 NPU function "
     "error: call aclnnInplaceCopy failed, error code is 561103", "561103"),
    # the same under vLLM's engine prefix (vllm-project/vllm-ascend#4859)
    ("(EngineCore_DP0 pid=3473945) ERROR 12-10 10:52:09 [patch_core.py:58] RuntimeError: zero_:build/CMakeFiles/"
     "torch_npu.dir/compiler_depend.ts:26 NPU function error: call aclnnInplaceZero failed, error code is 561103",
     "561103"),
    # a parameter check (vllm-project/vllm-ascend#6636)
    ("RuntimeError: npu_quant_matmul_symint:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:211 NPU function "
     "error: call aclnnQuantMatmulWeightNz failed, error code is 161002", "161002"),
    # torch_npu OPS_CHECK_ERROR in OpParamMaker's InnerRunOpApi (flashserve/flash-linear-attention-npu#149)
    ("[rank6]: RuntimeError: InnerRunOpApi:../torch_npu/csrc/framework/OpParamMaker.cpp:287 OPS function error: "
     "aclnnRecomputeWUFwd, error code is 561000", "561000"),
    # fla_npu's ctypes caller (flashserve/flash-linear-attention-npu#333, #303)
    ("RuntimeError: aclnnCausalConv1dGetWorkspaceSize failed with aclnnStatus=561002.", "561002"),
    ("[rank1]: RuntimeError: aclnnCausalConv1dGetWorkspaceSize failed with aclnnStatus=161001.", "161001"),
])
def test_an_aclnn_status_after_its_call_is_the_code(line: str, code: str) -> None:
    assert f"rt:{code}" in kinds(line)


@pytest.mark.parametrize("line", [
    "[ERROR] 2025-12-10-10:52:09 step 561103 failed, retrying",  # a count on an error line
    "RuntimeError: call aclnnInplaceCopy failed after 561103 calls",  # no status field
    "aclnnMatmul error: workspace 161002 bytes, error code is 0",  # the number is not the status
    "ERROR task 361001 failed, error code is 561103",  # no aclnn call named: not read as an aclnn status
])
def test_a_six_digit_number_without_the_status_context_is_no_code(line: str) -> None:
    assert not {k for k in kinds(line) if k.startswith("rt:") and k[3:].isdigit()}, kinds(line)


def test_an_acl_code_after_an_aclnn_call_is_still_the_acl_code() -> None:
    # verl-project/verl#5046: the aclnn call relayed a runtime code (107000 ACL_ERROR_RT_PARAM_INVALID)
    got = kinds("[rank0]:[E126 03:28:29.988683190 compiler_depend.ts:444] operator():build/CMakeFiles/torch_npu.dir/"
                "compiler_depend.ts:88 NPU function error: call aclnnInplaceCopy failed, error code is 107000")
    assert "rt:107000" in got


def test_roles_follow_the_documented_meaning() -> None:
    kt = default_table()
    assert dict(kt.of("rt:561107")).get("config_error") == "primary"  # ASCEND_OPP_PATH not set
    assert dict(kt.of("rt:561112")).get("config_error") == "primary"  # operator binary package not loaded
    param = dict(kt.of("rt:161001"))  # as ACL_ERROR_INVALID_PARAM (100000): the caller's or its set-up
    assert param == dict(kt.of("rt:100000"))
    for inner in ("rt:561000", "rt:561103", "rt:361001"):
        assert {r for _c, r in kt.of(inner)} == {"ambiguous"}, inner


def test_the_table_is_shipped_counted_and_matches_its_rows() -> None:
    table = next(t for t in shipped_tables() if t.id == "aclnn_status_codes")
    assert table.source.startswith("https://github.com/hicann/ops-nn/blob/")
    cov = measure(table)
    assert cov.total == len(table.rows) and cov.counts()["not read"] == 0 and cov.counts()["unknown"] == 0
    rows = {int(r["code"]): r for r in yaml.safe_load((KB / "codes.yaml").read_text(encoding="utf-8"))["aclnn_status"]}
    doc = yaml.safe_load((tables_dir() / "aclnn_status_codes.yaml").read_text(encoding="utf-8"))
    assert {int(r["code"]) for r in doc["rows"]} == set(rows)
    for r in doc["rows"]:  # one name and one meaning per code, in both places
        assert (r["name"], r["meaning"]) == (rows[int(r["code"])]["name"], rows[int(r["code"])]["meaning"])



# The aclnn engine's own lines when an operator's kernel fails (hicann/opbase src/nnopbase, session 38):
# op_executor.cpp aclOpExecutor::Run ``OP_LOGE(status, "launch failed for %s, errno:%d.", <op type>, status)`` and
# common/inc/kernel_mgr.h ``OP_LOGE(rc, "Kernel Run failed. opType: %u, %s", opType, <op type>)``; the lines below
# fill those format strings (an op type id and name as the engine prints them).
@pytest.mark.parametrize(("line", "code"), [
    ("launch failed for MatMulV3, errno:561000.", "561000"),
    ("        launch failed for ZerosLike, errno:361001.", "361001"),
    ("[ERROR] OP(2117,python3):2026-03-01-10:00:00.000.001 [op_executor.cpp:597]2117 launch failed for Add, "
     "errno:161002.", "161002"),
])
def test_the_aclnn_engine_names_the_status_of_a_failed_launch(line: str, code: str) -> None:
    got = kinds(line)
    assert f"rt:{code}" in got and "op:aclnn" in got, got


def test_a_kernel_run_failure_is_a_failed_aclnn_operator_call() -> None:
    assert "op:aclnn" in kinds("Kernel Run failed. opType: 13, ZerosLike")


@pytest.mark.parametrize("line", [
    "launch failed for Add, errno:5.",  # not an aclnn status
    "rocket launch failed for Apollo, errno 561000 in the manual",  # not the engine's form (no colon)
])
def test_a_launch_line_without_an_aclnn_status_gives_no_code(line: str) -> None:
    assert not {k for k in kinds(line) if k.startswith("rt:") and k[3:].isdigit()}, kinds(line)


def test_a_failed_aclnn_launch_alone_reads_as_an_operator_fault() -> None:
    # before session 38 these three engine lines held no known signal: the engine abstained and the text model guessed
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb.training import load_engine

    text = ("KernelLaunch failed: /usr/local/Ascend/cann/opp/built-in/op_impl/ai_core/tbe/kernel/ascend910b/"
            "zeros_like/ZerosLike_0_high_performance.o\n"
            "Kernel Run failed. opType: 13, ZerosLike\n"
            "launch failed for ZerosLike, errno:361001.\n")
    d = diagnose_logs("-", load_engine(), stdin=io.BytesIO(text.encode()))["diagnosis"]
    assert d["fault_class"] == "framework_error" and d["decided_by"] == "signals", d
    assert {e["kind"] for e in d["evidence_lines"]} >= {"op:aclnn", "rt:361001"}
