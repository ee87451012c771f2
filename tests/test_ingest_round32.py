"""Line shapes from session 32's software-side pastes: a setting named too small or invalid (HCCL_BUFFSIZE), device
names against SoC version names, AscendCL codes printed beside their documented names (onnxruntime's CANN execution
provider), the single-operator compile call, MindIE's hexadecimal error codes and its listen failure, and an ATB
operation's setup failure. Lines are written in each source's documented format (the source is named beside each);
one per family is a line of a public issue, as its comment says."""

from __future__ import annotations

from pathlib import Path

import pytest

from opsbrain.ingest.parsers import parse_line
from opsbrain.ingest.where import device_in


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


# --- 1. a setting the line names too small / invalid / required: the configuration ---------------------------------

@pytest.mark.parametrize("line", [
    # the MoE dispatch/combine tiling check (ops-transformer moe_distribute_*_tiling.cpp: "HCCL_BUFFSIZE is too
    # SMALL, ... NEEDED_HCCL_BUFFSIZE(...) = %luMB, HCCL_BUFFSIZE=%luMB."); vllm-ascend#16835's line
    "        HCCL_BUFFSIZE_EP is too SMALL, maxBs = 64, h = 6144,NEEDED_HCCL_BUFFSIZE_HIERARCHY((moeExpertNum * maxBs "
    "* (h * MAX_OUT_DTYPE_SIZE + (3 * (k + 7) / 8 * 8) *sizeof(uint32_t) + 64) + 404 * 1024 * 1024)) = 600MB, "
    "HCCL_BUFFSIZE=256MB.[FUNC:CheckActualWinSize][FILE:moe_distribute_combine_v2_tiling.cpp][LINE:104]",
    "[ERROR] HCCL_BUFFSIZE is too SMALL, should larger than 420MB.",
    "[ERROR] ASCEND_RT_MEM_LIMIT value 0 is invalid",
    "[ERROR] HCCL_INTRA_ROCE_ENABLE must be set to 1 when HCCL_INTRA_PCIE_ENABLE is 0",
    "RuntimeError: invalid value of HCCL_OP_EXPANSION_MODE: XYZ",
    "ERROR: ATB_WORKSPACE_MEM_ALLOC_ALG_TYPE is out of range",
])
def test_setting_named_wrong_is_configuration(line: str) -> None:
    assert "cfg:env" in kinds(line)


@pytest.mark.parametrize("line", [
    "export HCCL_BUFFSIZE=256",                                   # a launch script's setting (benign.SETTING_LINE)
    "[WARNING] HCCL_BUFFSIZE is too small, performance may drop",  # a warning: the job goes on
    "[INFO] HCCL_EXEC_TIMEOUT is not set, using default value 1836s",
    "if HCCL_BUFFSIZE is too small the operator fails",           # a sentence about the setting, no failure
    "HCCL_BUFFSIZE_TOTAL = 1024",
])
def test_setting_without_a_failure_is_not_configuration(line: str) -> None:
    assert "cfg:env" not in kinds(line)


# --- 2. device names (MindCluster device plugin) against SoC version names ------------------------------------------

@pytest.mark.parametrize(("line", "dev"), [
    # the device plugin names a device <type>-<physical id> (mind-cluster ascend-device-plugin ascendcommon.go
    # fmt.Sprintf("%s-%d", ...); its patterns ^Ascend910-\d+, ^Ascend310-\d+, ^Ascend310P-\d+)
    ("ListAndWatch resp devices: Ascend910-4 Healthy", 4),
    ("fault code [80E01801] Ascend910-3", 3),
    ("allocate Ascend310P-2 to pod demo", 2),
    ("device Ascend310-7 unhealthy", 7),
    ("Ascend310P-IPro-5 Unhealthy", 5),
    # onnxruntime's CANN EP names the current device (cann_call.cc "... ; NPU=%d ; hostname=%s ; expr=%s")
    ("CANN failure 507033: ACL_ERROR_RT_DEVICE_TASK_ABORT ; NPU=3 ; hostname=h ; expr=aclrtSynchronizeStream(s);", 3),
])
def test_device_names_carry_the_index(line: str, dev: int) -> None:
    assert device_in(line) == dev


@pytest.mark.parametrize("line", [
    # SoC versions (CANN soc_version lists: Ascend910B4-1, Ascend910_9391 ...) name a chip model, no device;
    # sglang#16360's line
    "bishengir-compile: for the --target option: Cannot find option named 'Ascend910B4-1'!",
    "soc_version=Ascend910B2-1",
    'ListAndWatch ended unexpectedly for device plugin" err="EOF" resource="huawei.com/Ascend910B4-1"',
    "Ascend910-2c-100-0 allocated",  # a virtual NPU's name (vNPU template Ascend910-2c), not device 2
])
def test_soc_versions_name_no_device(line: str) -> None:
    assert device_in(line) is None


# --- 3. AscendCL codes beside their documented names; the single-operator compile call ------------------------------

def test_acl_code_beside_its_name_is_read() -> None:
    # onnxruntime/core/providers/cann/cann_call.cc: "%s failure %d: %s ; NPU=%d ; hostname=%s ; expr=%s; %s";
    # onnxruntime#26195's line
    line = ('2025-09-29 06:21:38.967642262 [E:onnxruntime:Default, cann_call.cc:139 CannCall] CANN failure 500002: '
            'ACL_ERROR_GE_FAILURE ; NPU=0 ; hostname=nb-1 ; expr=aclopCompileAndExecute("BroadcastToD", '
            'prepare.inputDesc_.size(), stream); ')
    got = parse_line(line)
    assert {"rt:500002", "op:compile"} <= {s.kind for s in got}
    assert {s.device for s in got if s.kind == "rt:500002"} == {0}


@pytest.mark.parametrize(("line", "kind"), [
    ("CANN failure 507015: ACL_ERROR_RT_AICORE_EXCEPTION ; NPU=1 ; hostname=h ; expr=aclrtSynchronizeStream(s);",
     "rt:507015"),
    ("aclopCompileAndExecuteV2 failed, ret = 500002", "op:compile"),
])
def test_acl_named_codes_and_compile_calls(line: str, kind: str) -> None:
    assert kind in kinds(line)


def test_a_code_followed_by_a_colon_alone_is_still_no_code() -> None:
    assert not [k for k in kinds("[ERROR] failed at 12:500001: retry") if k.startswith("rt:")]


# --- 4. MindIE: hexadecimal codes, the listen failure; ATB: an operation's setup ------------------------------------

@pytest.mark.parametrize(("line", "kind"), [
    # MindIE's codes end in six hexadecimal digits (MindIE error-code reference, "使用说明": MIE + component + level +
    # a hexadecimal code); gpustack#3894's line
    ("[2025-12-15 15:19:22.682+08:00] [38] [41] [server] [ERROR] [endpoint.cpp:99] : [MIE04E02011C] [endpoint] "
     "Failed to start http wrapper", "err:MIE04E02011C"),
    ("[ERROR] [daemon] : [MIE04E01010A] internal error", "err:MIE04E01010A"),
    ("[ERROR] [config.cpp:1] : [MIE04E03011B] [config] npuDeviceIds is empty", "cfg:env"),  # type 1B: config error
])
def test_mindie_codes(line: str, kind: str) -> None:
    assert kind in kinds(line)


@pytest.mark.parametrize("line", [
    "[2025-12-15 15:19:22.681+08:00] [38] [452] [server] [ERROR] [http_server.cpp:163] : [MIE04E02041C] [endpoint] "
    "Failed to listen 172.17.0.3:40032, please check if business ip and port are legal.",
    "[ERROR] failed to bind 0.0.0.0:8080",
    "[ERROR] Failed to listen on 10.0.0.2:1025",
])
def test_listen_failure_is_configuration(line: str) -> None:
    assert "cfg:env" in kinds(line)


def test_mindie_code_type_other_than_config_is_no_configuration() -> None:
    assert "cfg:env" not in kinds("[ERROR] : [MIE04E02011C] [endpoint] Failed to start http wrapper")


@pytest.mark.parametrize("line", [
    # op-plugin's OperationSetup (op_plugin/utils/custom_functions/atb AtbCommon.cpp: TORCH_CHECK(status == 0,
    # operation->GetName(), " setup failed!")); vllm-ascend#2720's line
    ".[rank0]:[E903 07:21:23.263967696 compiler_depend.ts:429] RopeOperation setup failed!",
    "RuntimeError: PagedAttentionOperation setup failed!",
    # ATB's own log (OperationBase::Setup: "setup fail, error code: " + ErrorType; 8 ERROR_INVALID_TENSOR_DIM)
    "[2025-12-08 11:52:44.735471] [error] [69197] [operation_base.cpp:420] SelfAttention_0 setup fail, error code: 8",
])
def test_atb_setup_failure_is_an_operator_failure(line: str) -> None:
    assert "op:atb_setup" in kinds(line)


def test_atb_setup_out_of_device_memory_is_memory() -> None:
    # ErrorType 26: ERROR_OUT_OF_DEVICE_MEMORY (ATB API reference, ErrorType)
    got = kinds("[2025-12-08 11:52:44.735471] [error] [69197] [operation_base.cpp:420] Linear_3 setup fail, "
                "error code: 26")
    assert "mem:oom" in got and "op:atb_setup" not in got


def test_atb_working_operator_name_is_not_a_setup_failure() -> None:
    # torch_npu names the operator running when an asynchronous error surfaced: no evidence of the cause
    line = ("RuntimeError: The Inner error is reported as above. The process exits for this inner error, and the "
            "current working operator name is SelfAttentionOperation.")
    assert "op:atb_setup" not in kinds(line)


# --- the diagnosis: the setting outweighs the operator's wrapper codes ----------------------------------------------

def test_a_setting_too_small_outweighs_the_operator_wrapper(tmp_path: Path) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs
    from opsbrain.kb.training import load_engine

    # torch_npu's wrapper (ERR00100), the operator's tiling failure (EZ1008, hicann/runtime error_code.json) and
    # the tiling check that names the setting (the MoE combine operator's "HCCL_BUFFSIZE is too SMALL")
    paste = tmp_path / "paste.log"
    paste.write_text(
        "[ERROR] 2026-03-02-10:00:01 (PID:2001, Device:2, RankID:-1) ERR00100 PTA call acl api failed.\n"
        "[PID: 2001] 2026-03-02-10:00:01.100.200 Execution_Error(EZ1008): Failed to execute operator "
        "MoeDistributeCombine_12. Reason: Failed to execute tiling function.\n"
        "        HCCL_BUFFSIZE is too SMALL, maxBs = 32, h = 7168, epWorldSize = 16, localMoeExpertNum = 16, "
        "ep_worldsize * maxBs * h * 2 * 2 * localMoeExpertNum = 449MB, HCCL_BUFFSIZE=200MB.\n",
        encoding="utf-8")
    d = diagnose_logs(str(paste), load_engine())["diagnosis"]
    assert d["fault_class"] == "config_error" and d["root"]["device"] == 2, d
