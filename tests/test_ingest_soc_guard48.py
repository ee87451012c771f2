"""vllm-ascend's own SoC guards: the installed build does not know the chip it runs on, i.e. the installation does
not fit the device (``cfg:version``), not an unsupported operator (session 48, tester48p)."""

from __future__ import annotations

import pytest

from opsbrain.ingest.text import ingest_text


def kinds(line: str) -> set[str]:
    sigs, _ = ingest_text(line + "\n")
    return {s.kind for s in sigs}


@pytest.mark.parametrize("line", [
    # vllm_ascend/utils.py check_ascend_device_type / get_ascend_device_type:
    # raise RuntimeError(f"Can not support soc_version: {soc_version}.") -- as printed in vllm-ascend#6796
    "RuntimeError: Can not support soc_version: 104.",
    # vllm_ascend model runner _select_moe_comm_method: raise ValueError(f"Unsupported soc_version: {soc_version}")
    # -- as printed in vllm-ascend#2795 (Atlas 300I Duo, v0.10.1rc1-310p image)
    "ValueError: Unsupported soc_version: AscendSocVersion.UNDEFINED",
    # vllm_ascend/utils.py check_ascend_device_type's assert, the source's f-string with its two device types filled
    # in ("Current device type: {cur_device_type} does not match the installed version's device type:
    # {_ascend_device_type}, please check your installation package.")
    "AssertionError: Current device type: AscendDeviceType._310P does not match the installed version's device "
    "type: AscendDeviceType.A2, please check your installation package.",
])
def test_a_soc_the_installed_build_does_not_know_is_configuration(line: str) -> None:
    found = kinds(line)
    assert "cfg:version" in found
    assert "op:unsupported" not in found


def test_a_soc_version_printed_by_a_script_is_no_error() -> None:
    # the repro of Ascend/pytorch#144 printing torch_npu.npu.get_soc_version()
    assert "cfg:version" not in kinds("soc_version 104")
