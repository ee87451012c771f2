"""The Ascend driver's generic error line names no class (session 41): the driver reports the call it could not serve,
whatever the cause; its memory manager's ``out of memory`` is device memory exhausted."""

from __future__ import annotations

from opsbrain.diagnosis.knowledge import KindTable, default_table
from opsbrain.ingest.text import ingest_text
from opsbrain.kb.loader import load_kb

# HIXL troubleshooting guide, link set-up error scenario 1: registered memory not 2 MB aligned (the caller's address).
INVALID_PARA = ("[ERROR] DRV(76558,python3):2025-10-28-10:59:43.651.977 [devmm_svm.c:1451][ascend][curpid:76558,76619]"
                "[drv][devmm][halShmemCreateHandle]<errno:22, 8> Share memory create device error. "
                "(ret=8; vptr=0x12c1c0f40200)\n")
# CANN 8.0.0 troubleshooting guide, "OOM Error Due to Memory Allocation Failure".
HEAP_OOM = ("[ERROR] DRV(2936187,python3):2022-04-21-14:19:39.429.481 [ascend][curpid: 2936187, 2969960][drv][devmm]"
            "[devmm_alloc_managed 182]<errno:12, 6> Heap_alloc_managed out of memory. (temp_ptr=0x1; "
            "bytesize=8592031776)\n")


def kinds(text: str) -> set[str]:
    return {s.kind for s in ingest_text(text)[0]}


def test_a_generic_driver_error_is_read_but_decides_no_class() -> None:
    assert "drv:error" in kinds(INVALID_PARA)
    table = KindTable.from_kb(load_kb())
    assert table.of("drv:error") and all(role != "primary" for _cls, role in table.of("drv:error"))
    assert default_table().of("drv:error") == table.of("drv:error")  # the compiled form agrees


def test_the_memory_managers_out_of_memory_is_device_memory_exhausted() -> None:
    got = kinds(HEAP_OOM)
    assert "mem:oom" in got and "drv:error" not in got
    assert ("npu_oom", "primary") in default_table().of("mem:oom")
