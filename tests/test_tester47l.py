"""Session 47 (tester47l): a blind look at MindIE (Server, LLM, Motor) troubleshooting pages and forum threads. One
reading fix: the file-security check MindIE's components (and MindX SDK) run on each file they read, refusing a file
whose mode allows more than the program accepts or that another user owns (Ascend/MindIE-LLM
src/utils/log/file_utils.cpp, ``FileUtils::ConstrainPermission`` / ``ConstrainOwner`` at 8b4871ad): ``Check path:
config.json failed, by: Check Other group permission failed: Current permission is 4, but required no greater than
0.``. The MindIE LLM FAQ ("Check_path: config.json failed") names the cause, the model's config.json without mode
640, and the fix, chmod 640: the files' mode, a configuration error (cfg:env), not a device."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.ingest.parsers import parse_line

CHECK_LINES = [
    # hiascend forum thread-02104167047335054008 (mindieservice_daemon after editing conf/config.json)
    "Check path: config.json failed, by: Check Other group permission failed: Current permission is 4, but required "
    "no greater than 0.",
    # hiascend forum thread-0275134818179133091 (MindX SDK base.mx_init, solved: the library file's mode)
    "E20231108 17:22:50.684195 38674 FileUtils.cpp:468] Check Owner permission failed: Current permission is 7, but "
    "required no greater than 6.",
    # the owner check as FileUtils::IsFileValid prints it (Ascend/MindIE-LLM src/utils/log/file_utils.cpp @8b4871ad:
    # "[ERROR] " << "Check path: " + name + " failed, by:" + "owner id diff: current process user id is " ...)
    "[ERROR] Check path: config.json failed, by:owner id diff: current process user id is 0, file owner id is 1000; "
    "Please set: chmod 750 config.json",
]


@pytest.mark.parametrize("line", CHECK_LINES)
def test_a_file_the_security_check_refuses_is_the_files_mode_or_owner(line: str) -> None:
    assert "cfg:env" in [s.kind for s in parse_line(line)]


def test_the_check_s_info_notice_is_not_read() -> None:
    # MindX SDK's INFO-level notice of the same check (thread-0275134818179133091): no "failed", the program goes on
    line = ("I20231108 17:22:50.681514 38674 FileUtils.cpp:472] Check Other group permission: Current permission is "
            "4, but required no greater than 0.")
    assert "cfg:env" not in [s.kind for s in parse_line(line)]


def test_the_refused_config_reads_as_a_configuration_error(tmp_path: Path, engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "mindie.log"
    f.write_text("root@localhost:/usr/local/Ascend/mindie/latest/mindie-service# ./bin/mindieservice_daemon\n"
                 + CHECK_LINES[0] + "\n"
                 "Failed check model config.json! take modelConfig.modelWeightPath to empty\n"
                 "ERR: Failed to init endpoint! Please check the service log or console output.\n")
    d = diagnose_logs(str(f), engine)["diagnosis"]
    assert d["fault_class"] == "config_error"
    assert any("cfg:env" in e for e in d["evidence"])
