"""Session 47 (tester47e): a blind look at permissions, users and device access in Ascend containers. One reading
fix: Docker's refusal of a container runtime the daemon does not know, ``unknown or invalid runtime name: <name>``
(moby/moby daemon/runtime_unix.go, ``getRuntime``: the name is neither configured in daemon.json ``runtimes`` nor a
containerd shim name) and the older daemons' ``Unknown runtime specified <name>.``: the runtime the ``--runtime``
flag asks for is not installed or not registered. For Ascend that is ``--runtime=ascend`` before Ascend Docker
Runtime is installed, registered, or Docker restarted after the install (hw-native-sys/pypto docs/en/user/
04-dev-container.md, Edge Cases: ``unknown or invalid runtime name: ascend``): the host's set-up (cfg:env), not a
device or a framework fault."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from opsbrain.ingest.parsers import parse_line

DAEMON_LINES = [
    # gpustack/gpustack#3654 (the runtime named in docker run is not registered with the daemon)
    "docker: Error response from daemon: unknown or invalid runtime name: nvidia",
    # duixcom/Duix-Avatar#28 (docker-compose's form, without the client's prefix)
    "Error response from daemon: unknown or invalid runtime name: nvidia",
    # AIR-DISCOVER/ICRA2024-Sim2Real-AXS#3 (an older daemon's wording)
    "docker: Error response from daemon: Unknown runtime specified nvidia.",
]


@pytest.mark.parametrize("line", DAEMON_LINES)
def test_a_container_runtime_the_daemon_does_not_know_is_the_hosts_setup(line: str) -> None:
    assert "cfg:env" in [s.kind for s in parse_line(line)]


def test_the_refused_runtime_reads_as_a_configuration_error(tmp_path: Path, engine: Any) -> None:
    from opsbrain.diagnosis.oneclick import diagnose_logs

    f = tmp_path / "docker.log"
    f.write_text(DAEMON_LINES[0] + "\n")
    d = diagnose_logs(str(f), engine)["diagnosis"]
    assert d["fault_class"] == "config_error"
