"""Session 47's blind look at the installation of the Ascend software stack (tester47d): the CANN run packages'
documented refusals of the host's Python, of ``--install-path`` and of pip's options read as settings (cfg:env)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from tests.test_tester40b import kinds

# The vendor's case "安装CANN包时提示Python版本不满足" quotes the line without the package's tag and date:
# https://www.hiascend.com/document/caselibrary/detail/canncase_0023 (the Python in use is not one CANN supports).
CASE = "[ERROR] There is no python3.7,python3.8,python3.9,python3.10,python3.11 in the current environment\n"
# As the Toolkit run package prints it: a 200DK with Python 3.6 (https://www.hiascend.com/forum/
# thread-0230106218971550063-1-1.html) and a CANN 8.2 deb install on Python 3.12 (GitHub-hosted notes, code-search
# index id 69417607893). Before: no signal, the engine abstained (the text model's config_error 0.59 / 0.60).
TOOLKIT = [
    "[Toolkit] [20221212-09:10:38] [ERROR] There is no python3.7,python3.8,python3.9 in the current environment !\n",
    "[Toolkit] [20250912-21:52:11] [ERROR] There is no python3.7,python3.8,python3.9,python3.10,python3.11 in the "
    "current environment !\n",
]
# The MindX DL guide's image-building section (its 出现原因: the first CANN package records its path in
# ascend_cann_install.info, the later ones install there and refuse --install-path). Before: op:unsupported.
INSTALL_PATH = ("[toolkit] [20210316-02:39:37] [ERROR] /etc/Ascend/ascend_cann_install.info exists ! 'install-path' "
                "parameter are not supported.\n")
# The vendor's case "安装toolkit包,报错Can not combine '--user' and '--target'" (pip.conf user = true):
# https://www.hiascend.com/document/caselibrary/detail/installcase_0002; pip's own option check
# (pip/_internal/commands/install.py, CommandError). Before: no signal.
PIP = "ERROR: Can not combine '--user' and '--target'\n"


@pytest.mark.parametrize("line", [CASE, *TOOLKIT, INSTALL_PATH, PIP])
def test_the_cann_installer_s_refusals_are_settings(line: str) -> None:
    assert kinds(line) == ["cfg:env"]


def test_its_progress_and_other_errors_are_not_read_so() -> None:
    # the installer's INFO lines and an error no document explains (the architecture it picks packages by) stay as
    # they were; "python3" alone in a line is no reading
    assert kinds("[Toolkit] [20230710-22:44:15] [INFO] install package CANN-runtime-6.3.0.1.241-linux.aarch64.run "
                 "start\n") == []
    assert kinds("[Toolkit] [ERROR] No packages to install !\n") == []
    assert kinds("[ERROR] python3 is not in the current environment\n") != ["cfg:env"]


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


@pytest.mark.parametrize("text", [CASE, "".join(TOOLKIT), INSTALL_PATH])
def test_the_blind_excerpt_reads(tmp_path: Path, engine: Any, text: str) -> None:
    log = tmp_path / "paste.log"
    log.write_text(text)
    d = diagnose_logs(str(log), engine)["diagnosis"]
    assert d["fault_class"] == "config_error"
    assert not any("engine abstained" in e for e in d["evidence"])
