"""Processes that ended, in texts session 45 left unread (session 46, killed46): docker compose's ``exited with code
137`` (SIGKILL), and the kernel's OOM-killer lines without ``Out of memory:`` before them
(``Killed process N (...) total-vm:...`` as Linux 4.x printed it, and the OOM reaper's ``oom_reaper: reaped process``).
Every line is copied from the public source its comment names (docs/formats.md)."""

from __future__ import annotations

import pytest

from opsbrain.ingest.parsers import parse_line


def kinds(line: str) -> list[str]:
    return [s.kind for s in parse_line(line)]


COMPOSE_KILLED = [
    # docker compose v2's status line: pkg/compose/printer.go formats "exited with code %d", cmd/formatter/logs.go
    # prints "<container> <msg>" (open-webui/open-webui#6168's title quotes it)
    "server-1 exited with code 137",
    # a container_name of its own (web3labs/blk-explorer-free#10)
    "blk-explorer-free exited with code 137",
    # compose v1 (compose/cli/log_printer.py wait_on_exit: "{} exited with code {}"), georchestra/georchestra#1178
    "georchestra_smtp_1 exited with code 137",
]


@pytest.mark.parametrize("line", COMPOSE_KILLED)
def test_compose_exit_137_is_a_sigkill(line: str) -> None:
    assert kinds(line) == ["os:sigkill"]


def test_compose_exit_137_of_a_restarting_service_is_a_sigkill() -> None:
    # the format string's other branch (pkg/compose/printer.go: "exited with code %d (restarting)"); no observed
    # 137 line of it was found, the layout is the source's
    assert kinds("vllm-1 exited with code 137 (restarting)") == ["os:sigkill"]


@pytest.mark.parametrize("line", [
    "georchestra_header_1 exited with code 143",  # SIGTERM on Ctrl+C (georchestra/georchestra#1178): a stop asked for
    "georchestra_database_1 exited with code 0",  # the same listing
    "fail-1 exited with code 111",  # docker/compose pkg/e2e/cascade_test.go: the program's own code, no signal
])
def test_other_compose_exit_codes_are_not_read(line: str) -> None:
    assert kinds(line) == []


OOM_KILLER_ALONE = [
    # Linux 4.x __oom_kill_process (v4.19 mm/oom_kill.c) printed the victim without the "Out of memory:" prefix
    # (systemd/systemd#6966, a syslog line)
    "Aug 18 03:19:11 169 kernel: Killed process 7748 (python) total-vm:12907828kB, anon-rss:11500204kB, file-rss:0kB",
    # intel/platform-resource-manager#42 (dmesg -T)
    "[Thu Mar 14 01:57:55 2019] Killed process 89746 (python) total-vm:118026216kB, anon-rss:109819332kB, "
    "file-rss:3324kB, shmem-rss:0kB",
    # a RHEL kernel's variant with the UID before total-vm (linux-test-project/ltp#1080)
    "Aug 16 20:29:54 hgzmm3cs239 kernel: Killed process 42452 (memcg_test_1), UID 0, total-vm:7296kB, anon-rss:96kB, "
    "file-rss:164kB, shmem-rss:0kB",
    # the OOM reaper, which reaps only the OOM killer's victims (mm/oom_kill.c oom_reap_task_mm; openbmc/openbmc#1887)
    "[ 4022.980000] oom_reaper: reaped process 935 (python), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB",
]


@pytest.mark.parametrize("line", OOM_KILLER_ALONE)
def test_the_oom_killers_line_alone_is_the_oom_killer(line: str) -> None:
    assert "os:oom_killer" in kinds(line)


@pytest.mark.parametrize("line", [
    "Killed process list refreshed",  # no pid, no total-vm: not the kernel's line
    "[ERROR] Killed process 1234 (python) after timeout",  # a program's own words, no total-vm
])
def test_a_killed_process_without_the_kernels_fields_is_not_the_oom_killer(line: str) -> None:
    assert "os:oom_killer" not in kinds(line)
