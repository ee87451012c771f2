"""Line shapes added in the real-log corpus' third round (issue 14): configuration and environment texts of the CANN
error-code reference and the HCCL fault-diagnosis guide, an operator's own port-down command, and TLS switches that
differ between devices (a state of two lines, not of one)."""

from __future__ import annotations

import pytest

from opsbrain.ingest import ingest_text, parse_line


def kinds(text: str) -> set[str]:
    return {s.kind for s in ingest_text(text)[0]}


@pytest.mark.parametrize(("line", "kind"), [
    # a version mismatch printed as a warning is still the cause (Paddle-Lite#10514)
    ("[W  5/ 9 20:23:15.461 .../src/driver/huawei_ascend_npu/utility.cc:57 InitializeAscendCL] CANN version "
     "mismatch. The build version is 5.1.0, but the current environment version is 5.1.2.", "cfg:version"),
    # CANN E40002: an old Python is an environment error, not an unsupported operator
    ("Unsupported Python version: Python 2.7.18. Expected: Python 3.7.5 or later.", "cfg:version"),
    # no NPU mounted where the process runs (MindCluster resumable-training guide, head node)
    ('[ERROR] APP(38734,python3): "[PTA]:"get device count of NPU failed""', "cfg:device"),
    # torch_npu's compile options at device set-up (vllm-ascend#2210: numpy 2 with CANN 8.2.1)
    ("RuntimeError: SetPrecisionMode:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:155 NPU function error: "
     "at_npu::native::AclSetCompileopt(aclCompileOpt::ACL_PRECISION_MODE, precision_mode), error code is 500001",
     "cfg:env"),
    # HCCL's note on ranks of different physical superpods in one logical superpod (EI0006 guide)
    ("[ERROR] HCCL(3003627,scatter_test):2026-02-05-18:44:26.379.547 [transport_manager.cc:885] [3003959]"
     "[TransportManager][PrintErrorInfo]local rank information: nicType[VNIC_TYPE], logicSuperPodId[logic_1], "
     "phySuperPodId[0]. Note: Do not configure ranks belonging to different physical superpod ID info a single "
     "logical superpod ID", "msg:config_or_environment"),
    # the CANN error-code reference's own message texts
    ("Failed to load dynamic library libruntime_v100.so. Reason: /usr/local/Ascend/cann-9.2.0/lib64/"
     "libruntime_v100.so: undefined symbol: ConstructRuntimeImpl.", "msg:config_or_environment"),
    ("Failed to allocate 1024 bytes host memory via new to ACL.", "msg:memory_exhausted"),
])
def test_configuration_and_environment_texts(line: str, kind: str) -> None:
    found = kinds(line)
    assert kind in found, found
    assert "op:unsupported" not in found


def test_an_operators_port_down_command_is_configuration_not_a_lost_device() -> None:
    """``hccn_tool -i N -link -s down`` (MindCluster elastic-training guide) is a port disabled on purpose; 'device'
    and 'down' far apart in it are no lost device."""
    sigs = parse_line("hccn_tool -i 3 -link -s down")
    assert [(s.kind, s.device) for s in sigs] == [("cfg:manual_down", 3)]


@pytest.mark.parametrize("line", [
    "[ERROR] RUNTIME(1,python):2025-01-01-00:00:00.000.000 Device lost, device_id=2",
    "[ERROR] RUNTIME(1,python):2025-01-01-00:00:00.000.000 device 3 is down",
    "[ERROR] DRV(1,python): device is dead, reset it",
])
def test_lost_devices_are_still_read(line: str) -> None:
    assert "rt:device_lost" in kinds(line)


def test_tls_switches_that_differ_between_devices_are_a_configuration_error() -> None:
    """HCCL guide, link set-up timeout EI0006: two ends whose TLS switches differ fail socket verification. The
    switches may sit in different files (run/device-N/); alone they are states, not signals."""
    from opsbrain.ingest import LineReader

    on = ("run/device-0/device-2849330_20251024153927364.log:[INFO] HCCP(2988,hccp_service.bin):2025-10-24-15:39:26"
          ".133.826 [rs_ssl.c:1529]tid:2988,rs_ssl_init(1529) : TLS SWITCH (1)")
    off = "dev_id:1, tls switch[0](0:disable, 1:enable), tls alarm time threshold[60]days"
    r = LineReader()
    r.feed([on], "device-0.log")
    assert r.signals == []
    r.feed([off], "tls.txt")
    assert [(s.kind, s.device, s.file) for s in r.signals] == [("cfg:tls_mismatch", 1, "tls.txt")]
    same = LineReader()
    same.feed([off, off.replace("dev_id:1", "dev_id:0")], "tls.txt")
    assert same.signals == []
