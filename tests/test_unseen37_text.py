"""Session 37, tester 37a: kinds of line that unseen public pastes (PyTorch/serving stacks on Ascend) showed read
wrongly. Each line is written here from the documented format it follows (the source cited), not copied from the
pastes."""

from __future__ import annotations

from importlib import resources

import pytest
import yaml

from opsbrain.ingest.parsers import parse_line


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


def extend_info(error_str: str) -> str:
    # hicann/runtime src/runtime/core/src/device/device_error_core_proc.cc PrintCoreInfo: "The extend info: errcode:(%#
    # llx, %#llx, %#llx) errorStr: %s fixp_error0 info: ..." (the errorStr is the core error-map text of each error bit)
    return (f"       The extend info: errcode:(0x4000000000000000, 0, 0) errorStr: {error_str} fixp_error0 info: "
            "0x3004030, fixp_error1 info: 0x60, fsmId:0, tslot:4, thread:0, ctxid:0, blk:0, sublk:0, subErrType:4."
            "[FUNC:PrintCoreInfo][FILE:device_error_core_proc.cc][LINE:402]")


@pytest.mark.parametrize("error_str", [
    # VEC_UB_WRAP_AROUND in the two layouts of the table: hicann/runtime @d8beaaf09
    # src/runtime/feature/src/device/device_error_proc.cc, and @681ef761 device_error_core_proc.cc
    "VEC instruction error: the ub address out of bounds.",
    "The address for the VEC instruction to read/write UB is out of bounds.",
    "The address for FIXP to read L0C is out of bounds.",                      # FIXP_ERR_READ_L0C_OVFLW
    "The base address of the mte load3d instruction is out of boundary.",      # MTE_BAS_RADDR_OBOUND
    "The LOAD3D K position is out of the filter range.",                       # L1_FPOS_LARGER_FSIZE
    "The dyn ubuf size is greater than 224 KB.",                               # VEC_ERR_UB_SIZE_CFG_ERR_T0
    "Division by 0 error.",                                                    # CCU_DIV0
    "VEC instruction error: the data is inf or nan.",                          # VEC_INF_NAN
    "The address for VEC to read UB confilicts that for VEC to write UB.",     # VEC_UB_SELF_RDWR_CFLT (as spelt)
    "Software's L0A Ping/Pong memory allocation scheme has problem.",          # CUBE_ERR_L0A_RDWR_CFLT
    "VEC instruction error: the MASK instruction is all 0.",                   # VEC_ILLEGAL_MASK
    "The order of the VGA and VPD commands violates IAS constraints.",         # VEC_ILL_VGA_VPD_ORDER
    "The error in mte load3d padding configuration.",                          # MTE_PADDING_CFG
])
def test_a_program_error_the_core_error_map_names_is_read_as_one(error_str: str) -> None:
    assert "rt:aicore_sw" in kinds(extend_info(error_str))


@pytest.mark.parametrize("error_str", [
    "timeout or trap error.",                                  # device_error_core_proc.cc: no error bit named
    "Data from the MTE is abnormal.",                          # VEC_DATA_EXCP_MTE: the data, not the program
    "The bus is busy, and the response times out.",            # SC_BUS_RESP_TIMEOUT_ERR
])
def test_a_text_that_names_no_program_error_stays_neither(error_str: str) -> None:
    got = kinds(extend_info(error_str))
    assert "rt:aicore_sw" not in got and "rt:aicore_hw" not in got


def test_an_ecc_count_overflow_stays_hardware() -> None:
    # SU_SAFETY_1BIT_ECC_OVFLW_ERR_T0 holds "Overflow" (a program-error word) and "ECC": hardware is read first
    got = kinds(extend_info("Overflow error when the number of 1-bit ECC errors exceeds the preset value."))
    assert "rt:aicore_hw" in got and "rt:aicore_sw" not in got


# hicann/opbase src/nnopbase/composite_op/aclnn_engine/kernel_mgr.cpp: no operator kernel JSON configuration found for
# the SoC; logged "Parse dynamic kernel config fail." under EZ9999 until opbase commit c2739261 made it EZ1013
# (op_error_manager.cpp, Config_Error: the SoC's operator package not installed, or ASCEND_(CUSTOM_)OPP_PATH wrong)
@pytest.mark.parametrize("line", [
    "EZ9999: [PID: 4242] 2026-01-02-03:04:05.678.901 Parse dynamic kernel config fail.",
    "EZ1013: [PID: 4242] 2026-01-02-03:04:05.678.901 In the dynamic shape scenario, the JSON configuration file of "
    "operator ZerosLike cannot be found.",
])
def test_a_missing_operator_kernel_configuration_is_an_environment_error(line: str) -> None:
    assert {"msg:config_or_environment", "err:EZ1013"} & set(kinds(line))


@pytest.mark.parametrize(("code", "category"), [
    ("EZ1002", "config_or_environment"), ("EZ1005", "config_or_environment"), ("EZ1006", "feature_unsupported"),
    ("EZ1007", "parameter_or_usage"), ("EZ1008", "internal"), ("EZ1013", "config_or_environment"),
    ("EZ1014", "internal"),
])
def test_nnopbase_codes_are_catalogued(code: str, category: str) -> None:
    # hicann/opbase src/nnopbase/composite_op/log/op_error_manager.cpp (g_errorInfoJson: errTitle and suggestion)
    doc = yaml.safe_load((resources.files("knowledge_base") / "codes.yaml").read_text(encoding="utf-8"))
    rows = {str(r["code"]): r for r in doc["cann_error_codes"]}
    assert rows[code]["category"] == category and "hicann/opbase" in rows[code]["source"]
