"""Driver-layer text from session 48's blind look (tester48t): the HDK driver installer's refusal while processes or
containers hold its device nodes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.diagnosis.oneclick import diagnose_logs
from tests.test_tester40b import kinds

# The installer's console line (drvColorEcho: "[Driver] [date] " + the message, red on a terminal) and its log line,
# https://github.com/hicann/driver/blob/ef377e950a32b1641c108c59481e39e9643b7d63/scripts/package/custom/driver/common/
# scripts/driver_install.sh, exitInstallInfo; the cause and fix on Huawei Cloud's driver upgrade page
# (https://support.huaweicloud.com/bestpractice-aics/aics_bp_0106.html), which quotes it without the tag.
CONSOLE = ("[Driver] [2024-05-20 10:12:31] [ERROR]\x1b[31mThe davinci nodes are occupied by some processes, please "
           "stop processes and install or uninstall again, details in : /var/log/ascend_seclog/ascend_install.log "
           "\x1b[0m\n")
QUOTED = ("The davinci nodes are occupied by some processes, please stop processes and install or uninstall again, "
          "details in : /var/log/ascend_seclog/ascend_install.log\n")
# A user's note on reinstalling a 310P driver (GitHub markdown "常见问题解决"): the console line, then the
# install log's reason (common.sh checkUserDocker) and its own copy; docker stop/rm and --force fixed it. Read only
# by the text model before (config_error 0.60), QUOTED not at all (unknown).
NOTE = ("[ERROR]The davinci nodes are occupied by some processes, please stop processes and install or uninstall "
        "again, details in : /var/log/ascend_seclog/ascend_install.log \n"
        "[WARNING]/dev/davinci_manager has used by docker\n"
        "[ERROR]The davinci nodes are occupied by some processes, please stop processes and install or uninstall "
        "again.\n")


@pytest.mark.parametrize("line", [CONSOLE, QUOTED])
def test_the_installer_s_held_nodes_are_the_device_allocation(line: str) -> None:
    assert kinds(line) == ["cfg:device"]


def test_the_user_s_note_reads_as_two_refusals() -> None:
    assert kinds(NOTE) == ["cfg:device", "cfg:device"]


@pytest.fixture(scope="module")
def engine() -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine()


@pytest.mark.parametrize("text", [QUOTED, NOTE])
def test_the_blind_excerpts_read(tmp_path: Path, engine: Any, text: str) -> None:
    log = tmp_path / "paste.log"
    log.write_text(text)
    d = diagnose_logs(str(log), engine)["diagnosis"]
    assert d["fault_class"] == "config_error"
    assert d["decided_by"] == "signals"
