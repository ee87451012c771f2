"""Memory exhaustion and driver readings (session 15, swdrv): the driver's return code the runtime prints after a
failed driver call (``drvRetCode=N``) and GE's memory assigner's check against the device memory. Every line is in
the format its source prints (the comment names it)."""

from __future__ import annotations

import pytest

from opsbrain.diagnosis.knowledge import default_table
from opsbrain.ingest import ingest_text
from opsbrain.kb.compiled import compiled_kb


def kinds(text: str) -> list[str]:
    return [s.kind for s in ingest_text(text)[0]]


@pytest.mark.parametrize(("line", "kind"), [
    # CANN 8.0.0 troubleshooting guide, 'OOM Error Due to Memory Allocation Failure' (the runtime's
    # DevMemAllocHugePageManaged line): drvRetCode 6 is DRV_ERROR_OUT_OF_MEMORY (hicann/runtime
    # pkg_inc/driver/ascend_hal_error.h), RT_ERROR_DRV_OUT_MEMORY, ACL_ERROR_RT_MEMORY_ALLOCATION 207001
    ("[ERROR] RUNTIME(2936187,python3):2022-04-21-14:19:39.429.495 [npu_driver.cc:780]2969960 "
     "DevMemAllocHugePageManaged:[driver interface] halMemAlloc failed: device_id=1, size=8592031776, type=0, "
     "env_type=3, drvRetCode=6!", "rt:207001"),
    # the runtime's current format (hicann/runtime src/runtime/driver/npu_driver_mem.cc, DRV_MALLOC_ERROR_PROCESS)
    ("[ERROR] RUNTIME(1021,python3):2025-03-01-10:00:00.000.001 [npu_driver_mem.cc:855]1021 DevMemAlloc:Call "
     "driver api halMemAlloc failed, drvRetCode=6, size=2147483648(bytes), type=2, moduleId=3, drvFlag=0, "
     "drvDevId=0, driver error:out of memory.", "rt:207001"),
    # drvRetCode 33 is DRV_ERROR_BUS_DOWN, which the runtime reports as RT_ERROR_LOST_HEARTBEAT 507010
    ("[ERROR] RUNTIME(77,python3):2025-03-01-10:00:00.000.001 [npu_driver.cc:494]77 GetDevicePhyIdByIndex:Call "
     "driver api drvDeviceGetPhyIdByIndex failed, drvRetCode=33, drvDevId=0.", "rt:507010"),
])
def test_driver_return_code_is_read_as_the_runtime_reports_it(line: str, kind: str) -> None:
    assert kind in kinds(line)


def test_driver_return_code_the_map_does_not_list_gives_nothing() -> None:
    # drvRetCode 7 (DRV_ERROR_INNER_ERR) is not in the runtime's drvErrMap_: no rt: kind from the number
    line = ("[ERROR] RUNTIME(77,python3):2025-03-01-10:00:00.000.001 [npu_driver.cc:494]77 GetDevicePhyIdByIndex:"
            "Call driver api drvDeviceGetPhyIdByIndex failed, drvRetCode=7, drvDevId=0.")
    assert not [k for k in kinds(line) if k.startswith("rt:")]


def test_driver_return_rows_agree_with_the_runtime_rows() -> None:
    """Each driver_return_codes row names a runtime_inner_codes row and carries its AscendCL code and category."""
    from importlib import resources
    from pathlib import Path

    from opsbrain.yamlio import read_package_yaml

    doc = read_package_yaml(Path(str(resources.files("knowledge_base"))) / "codes.yaml")
    inner = {r["name"]: r for r in doc["runtime_inner_codes"]}
    for row in doc["driver_return_codes"]:
        assert int(row["acl"]) == int(inner[row["runtime"]]["acl"]), row["name"]
        assert row["category"] == inner[row["runtime"]]["category"], row["name"]
    assert compiled_kb().driver_return_codes["6"] == 207001


def test_ge_graph_memory_over_the_device_memory_is_memory_exhaustion() -> None:
    # hicann/ge compiler/graph/build/memory/graph_mem_assigner.cc (E19999 'Sum of total_mem_offset:%zu and
    # var_mem_size:%zu is greater than memory manager malloc max size %zu'); the line as Rec SDK's FAQ shows it
    line = ("Sum of total mem_offset:_26496001536_ and var_mem_size:_11776003072_ is greater than memory manager "
            "malloc max size 33285996544")
    got = kinds(line)
    assert "msg:memory_exhausted" in got
    assert ("npu_oom", "primary") in default_table().of("msg:memory_exhausted")


def test_a_program_line_in_the_driver_head_is_no_driver_error() -> None:
    # Ascend DMI's AML test library writes the driver's head with its own module (MindCluster ToolBox FAQ,
    # hiascend.com mindcluster/730 toolboxug_0198); the driver's user-space library names devdrv (CANN 8.0.0
    # troubleshooting_0117) and the kernel driver its module (drv_soft_fault)
    aml = ("[ascend][ERROR][AML][tid:xxxx] >>> Run testcase preprocess failed, device[0], npu id[0], case name: "
           "MatMul_Atomic_NORMAL, error code:110000, message:run aclnnMatmul failed with...")
    assert "drv:error" not in kinds(aml)
    drv = ("[ascend][ERROR][2021-06-26-17:53:15:689064][curpid: 32707, 32707][devdrv][drvDeviceOpen 79]get phys "
           "failed, devId(0), phy_devId(0)")
    assert [k for k in kinds(drv) if k.startswith(("drv:", "cfg:"))]
    assert "drv:error" in kinds("[ascend][ERROR][hdc][hdc_session 12] session closed unexpectedly")
