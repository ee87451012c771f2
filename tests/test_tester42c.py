"""Host and device layer text from session 42's blind look (tester42c): the HDK driver installer's own lines, the
kernel's notices for an unsigned out-of-tree module, hccn_tool's answer for a device with no network address."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from tests.test_tester40b import failing, kinds

# The driver run package's installation as printed (a GitHub-hosted post, "Atlas 800I A2 推理服务器大模型部署实战
# （一）：驱动/固件安装与MCU升级", 2025-07-17); the installer writes each line as "[Driver] [date] ..."
# (https://github.com/hicann/driver/blob/ef377e950a32b1641c108c59481e39e9643b7d63/scripts/package/driver/common/
# scripts/install.sh, log / drvEcho / drvColorEcho). Its WARNING line read driver_firmware_error 0.58 before.
INSTALL = "\n".join([
    "Verifying archive integrity...  100%   SHA256 checksums are OK. All good.",
    "Uncompressing ASCEND DRIVER RUN PACKAGE  100%  ",
    "[Driver] [2025-07-17 10:35:21] [INFO]Start time: 2025-07-17 10:35:21",
    "[Driver] [2025-07-17 10:35:21] [INFO]LogFile: /var/log/ascend_seclog/ascend_install.log",
    "[Driver] [2025-07-17 10:35:21] [WARNING]Do not power off or restart the system during the installation/upgrade",
    "[Driver] [2025-07-17 10:35:22] [INFO]driver install type: DKMS",
    "[Driver] [2025-07-17 10:35:44] [INFO]upgradePercentage:90%",
    "[Driver] [2025-07-17 10:35:45] [INFO]Waiting for device startup...",
    "[Driver] [2025-07-17 10:35:49] [INFO]Device startup success",
    "[Driver] [2025-07-17 10:36:24] [INFO]Driver package installed successfully! The new version takes effect "
    "immediately. ",
]) + "\n"

# A driver installation note for openEuler 24.03 LTS-SP3 on GitHub ("华为昇腾NPU驱动安装指南"): the installer's check
# of the run user (install.sh: errorUsage 1 "[ERROR]ERR_NO:0x0091;ERR_DES:${username} not exists! ..."), as the note
# quotes it; before, driver_firmware_error 0.58 from the tag's word "Driver".
NO_USER = "[Driver] [ERROR] ERR_NO:0x0091; ERR_DES: HwHiAiUser not exists!\n"
# The installer's environment check (scripts/package/custom/driver/common/scripts/env_check.sh, checkEnvTool).
MISSING_TOOLS = "[Driver] [2025-12-24 14:54:25] [ERROR]The list of missing tools: lspci,ifconfig,\n"
# The same note: the kernel's notice as DKMS's module loads, "a warning, no effect on function"
# (https://github.com/torvalds/linux/blob/v6.6/kernel/module/signing.c, module_sig_check); config_error 0.46 before.
UNSIGNED = "drv_vascend_stub: module verification failed: signature and/or required key missing - tainting kernel\n"
# hccn_tool -i N -ip -g on a device whose RoCE address was never set, from a TransferQueue/HIXL note's live check of
# NPU 0 and 1 (https://github.com/hicann/driver/blob/ef377e950a32b1641c108c59481e39e9643b7d63/src/custom/network/
# hccn/ascend910B/hccn_tool/cmd.c, g_uda_dsmi_err_list); only the text model's config_error 0.60 before.
NO_IP = "Get ipconf failed, because no ip was preset there!\n"


def test_the_installer_s_progress_is_no_driver_call() -> None:
    assert kinds(INSTALL) == []


@pytest.mark.parametrize("line", [NO_USER, MISSING_TOOLS,
                                  "[Driver] [2024-03-01 10:00:00] [ERROR]ERR_NO:0x0093;ERR_DES:do not have root "
                                  "permission, operation failed, please use root permission!\n"])
def test_the_installer_s_setting_errors_are_settings(line: str) -> None:
    assert kinds(line) == ["cfg:env"]


def test_an_installer_error_it_does_not_explain_is_left_to_the_others() -> None:
    # run_driver_install.sh: log "[ERROR]dkms install failed" (the printer names no cause): read as before
    assert kinds("[Driver] [2024-03-01 10:00:00] [ERROR]dkms install failed\n") == ["drv:api_error"]


def test_the_unsigned_module_notices_are_no_failure() -> None:
    assert kinds(UNSIGNED) == []
    assert failing(UNSIGNED) == 0
    assert failing("bpf_testmod: loading out-of-tree module taints kernel.\n") == 0


def test_a_device_with_no_address_is_a_setting() -> None:
    assert kinds(NO_IP) == ["cfg:env"]
    assert kinds("hccn_tool -i 3 -gateway -g Get gateway failed, because no gateway was preset there!\n") == ["cfg:env"]


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


@pytest.mark.parametrize("text, want", [(INSTALL, "unknown"), (UNSIGNED, "unknown"), (NO_USER, "config_error"),
                                        (NO_IP, "config_error")])
def test_the_blind_excerpts_read(tmp_path: Path, engine: Any, text: str, want: str) -> None:
    log = tmp_path / "paste.log"
    log.write_text(text)
    d = diagnose_logs(str(log), engine)["diagnosis"]
    assert d["fault_class"] == want
