"""HIXL / ADXL statuses and Mooncake's connect-timeout advice (session 38, a blind look at 2026 threads): what the
KV-transfer library under Mooncake's AscendDirectTransport prints is not an AscendCL code, and its advice to raise
a timeout variable is not a missing environment variable."""

from __future__ import annotations

import pytest

from opsbrain.ingest.text import ingest_text


def kinds(text: str) -> set[str]:
    return {s.kind for s in ingest_text(text)[0]}


CONNECT_TIMEOUT = ("E20260608 14:45:44.404089 342420 ascend_direct_transport.cpp:1107] Connect timeout to: "
                   "10.2:20033, you can increase the timeout duration to reduce the ASCEND_CONNECT_TIMEOUT environment "
                   "variable.")


def test_advice_to_raise_a_timeout_variable_is_no_missing_environment() -> None:
    assert "cfg:env" not in kinds(CONNECT_TIMEOUT)


def test_a_missing_module_beside_such_advice_is_still_the_environment() -> None:
    line = ("ERROR 06-08 14:45:44 [worker.py:12] ModuleNotFoundError: No module named 'mooncake'; you can increase "
            "the timeout duration to reduce the ASCEND_CONNECT_TIMEOUT environment variable.")
    assert "cfg:env" in kinds(line)


@pytest.mark.parametrize("line, code", [
    ("E20260608 14:45:44.404292 342420 ascend_direct_transport.cpp:836] Transfer slice failed with status: 103902",
     "103902"),
    ("E0923 12:12:19.110647 29135 ascend_direct_transport.cpp:164] Failed to initialize AdxlEngine, status: 503900",
     "503900"),
    ("E20260106 06:43:02.966156  5793 ascend_direct_transport.cpp:820] Failed to connect to target: "
     "172.17.0.16:25482, status: 103900", "103900"),
])
def test_a_hixl_status_is_no_ascendcl_code(line: str, code: str) -> None:
    assert f"rt:{code}" not in kinds(line)


@pytest.mark.parametrize("line, kind", [
    ("RuntimeError: synchronize:../torch_npu/csrc/core/npu/NPUStream.cpp:414 NPU function error: "
     "c10_npu::acl::AclrtSynchronizeStreamWithTimeout(stream()), error code is 507035", "rt:507035"),
    ("RuntimeError: Initialize:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:152 NPU function error: "
     "c10_npu::SetDevice(device_id_), error code is 107002", "rt:107002"),
    ("OSError: (External) ACL error, the error code is : 500002", "rt:500002"),
])
def test_the_ascendcl_blocks_are_still_read(line: str, kind: str) -> None:
    assert kind in kinds(line)
