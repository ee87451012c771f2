"""Session 51 (tester51p): a blind look at agent-skill and troubleshooting-knowledge repositories for Ascend
(awesome-ascend-skills, ascend-sleuth, liguodongiot/llm-action's Ascend notes, cannbot skills). One reading fix:
MindX DL's file check (Ascend/mind-cluster @22bb3d98 component/ascend-docker-runtime/mindxcheckutils/
mindxcheckutils.go, ``FileChecker``) refusing a binary the Ascend Docker Runtime is about to exec, ``owner not right
<path> <uid>`` / ``write permission not right <name> <mode>``, gave no signal on its own: the line has no gate word.
The runtime dies by ``log.Fatal`` (runtime/main.go), so its stderr line is Go's log format, and docker quotes it after
``exit status 1:``. liguodongiot/llm-action llm-localization/ascend/FAQ.md gives the cause (runc not owned by root)
and the fix (chown root:root /usr/bin/runc); ascend-fd's knowledge graph (kg-config.json
AISW_MindX_Docker_Runtime_02) the same: the host's files, a configuration error (cfg:env), not a device."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.ingest.parsers import parse_line

# liguodongiot/llm-action llm-localization/ascend/FAQ.md (docker run on an Ascend host; fixed by chown root:root)
DOCKER_LINE = (
    "docker: Error response from daemon: failed to create shim task: OCI runtime create failed: unable to retrieve "
    "OCI runtime error (open /var/run/docker/containerd/daemon/io.containerd.runtime.v2.task/moby/579418211a825ef5c7"
    "fcf5becdbe90804f0ed7862d9c59663995f9dd463937b4/log.json: no such file or directory): /usr/local/Ascend/Ascend-"
    "Docker-Runtime/ascend-docker-runtime did not terminate successfully: exit status 1: 2024/07/24 09:59:29 owner "
    "not right /usr/bin/runc 1000")

REFUSALS = [
    # the runtime's own stderr line, as docker quotes it in DOCKER_LINE (Go's log.Fatal: date, time, the error)
    "2024/07/24 09:59:29 owner not right /usr/bin/runc 1000",
    # the mode check of the same function (mindxcheckutils.go: "write permission not right %v %v", name, mode)
    "write permission not right runc -rwxrwxrwx",
    # the device plugin's check of its log file (component/ascend-device-plugin/pkg/common/common.go, fmt.Printf)
    "check log file failed, owner not right",
]


@pytest.mark.parametrize("line", REFUSALS)
def test_mindx_file_check_refusal_is_the_hosts_files(line: str) -> None:
    assert "cfg:env" in [s.kind for s in parse_line(line)]


def test_an_info_line_of_the_check_is_no_failure() -> None:
    # ascend-fd's fixture of the runtime's run log at INFO (component/ascend-faultdiag/test/st_module_testcase/
    # kg_parse/dl_log/ascend-docker-runtime/runtime-run.log): a line below ERROR gives no configuration signal
    line = ("[INFO]     2024/01/10 03:29:09.354927 1       hwlog/api.go:108    failed to check files, owner not right "
            "/usr/bin/runc xxxx")
    assert "cfg:env" not in [s.kind for s in parse_line(line)]


def test_plain_words_are_not_the_check() -> None:
    assert parse_line("the permission is not right here, I think") == []


def test_the_docker_start_failure_reads_as_a_configuration_error(tmp_path: Path, engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "docker.log"
    f.write_text(DOCKER_LINE + "\n")
    d = diagnose_logs(str(f), engine)["diagnosis"]
    assert d["fault_class"] == "config_error"
