"""Session 42's blind look at Chinese-language sources (tester42d): the HDK driver installer's check that the package's
kernel modules can run on the host's kernel."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from tests.test_tester40b import kinds

# The vendor's troubleshooting page "内核版本差异导致驱动子包安装失败" quotes the installer's last line, without its
# "[Driver] [date] [ERROR]" tag, as the caption of its figure 1; the page names the causes (a kernel the run package
# was not built for, DKMS tools not installed) and the fix on the host:
# https://www.hiascend.com/document/detail/zh/canncommercial/601/troublemanagement/troubleshooting/troubleshooting_0053.html
# Before: no signal, the text model's framework_error 0.46.
CAPTION = "Drv_dkms_env_check failed, details in : ****\n"

# The lines as the installer writes them (https://github.com/hicann/driver/blob/ef377e950a32b1641c108c59481e39e9643b7d63/
# scripts/package/driver/common/scripts/run_driver_install.sh: drv_vermagic_check's log "[ERROR]..." lines and the
# drvColorEcho "[ERROR]\033[31mDrv_dkms_env_check failed, details in : $logFile \033[0m" after drv_dkms_env_check;
# common.sh log / install.sh drvColorEcho add "[Driver] [date] "). Before: drv:api_error, driver_firmware_error 0.58.
SCREEN = ("[Driver] [2023-05-10 10:11:12] [ERROR]\033[31mDrv_dkms_env_check failed, details in : "
          "/var/log/ascend_seclog/ascend_install.log \033[0m\n")
VERMAGIC = [
    "[Driver] [2023-05-10 10:11:10] [ERROR]current kernel primary version(5.15.0-91-generic) is different from the "
    "driver(4.19.90-24.4.v2101.ky10.aarch64).\n",
    "[Driver] [2023-05-10 10:11:10] [ERROR]driver ko vermagic(4.19.90-24.4.v2101.ky10.aarch64 SMP mod_unload "
    "aarch64) is different from the os(4.19.90-23.8.v2101.ky10.aarch64), need rebuild driver\n",
    "[Driver] [2023-05-10 10:11:10] [ERROR]driver in run packet test load failed, need rebuild driver\n",
    "[Driver] [2023-05-10 10:11:10] [ERROR]driver vermagic check failed.\n",
]


@pytest.mark.parametrize("line", [CAPTION, SCREEN, *VERMAGIC])
def test_the_kernel_check_of_the_installer_is_a_setting(line: str) -> None:
    assert kinds(line) == ["cfg:env"]


def test_the_dkms_tools_it_misses_are_its_advice() -> None:
    # drv_dkms_dependent_check logs a WARNING for each missing tool and goes on to the vermagic check
    assert kinds("[Driver] [2023-05-10 10:11:09] [WARNING]The program 'dkms' is currently not installed.\n") == []
    assert kinds("[Driver] [2023-05-10 10:11:09] [WARNING]linux headers is currently not installed.\n") == []


def test_the_check_s_name_alone_is_not_read() -> None:
    # only the failure line: the installer's INFO "dkms environment check success" (drv_dkms_dependent_check) stays
    # explained, and a text naming the function without its failure reads nothing
    assert kinds("[Driver] [2023-05-10 10:11:09] [INFO]dkms environment check success\n") == []
    assert kinds("see drv_dkms_env_check in run_driver_install.sh\n") == []


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


@pytest.mark.parametrize("text", [CAPTION, SCREEN, "".join(VERMAGIC)])
def test_the_blind_excerpt_reads(tmp_path: Path, engine: Any, text: str) -> None:
    log = tmp_path / "paste.log"
    log.write_text(text)
    assert diagnose_logs(str(log), engine)["diagnosis"]["fault_class"] == "config_error"
