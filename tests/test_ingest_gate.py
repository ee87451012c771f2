"""The line gate lets through every failure text a parser reads, also when it stands on a line of its own (a pasted
message wraps, a shell prints only the library's words): the environment texts of
``opsbrain.ingest.parsers.framework`` and the bare device event ids of ``opsbrain.ingest.parsers.device``."""

from __future__ import annotations

import pytest

from opsbrain.ingest.parsers import parse_line


@pytest.mark.parametrize("line", [
    "No module named 'torch_npu'",  # CPython's import error text (Python/import.c), the exception name on another line
    "cat: /usr/local/Ascend/ascend-toolkit/set_env.sh: No such file or directory",  # glibc strerror(ENOENT)
    "undefined symbol: _ZN3Mki2DlC1ERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEb",  # glibc ld.so
    "bind: Address already in use",  # glibc strerror(EADDRINUSE)
    "ping: worker-1: Name or service not known",  # glibc gai_strerror(EAI_NONAME)
])
def test_an_environment_text_alone_on_its_line_is_read(line: str) -> None:
    assert [s.kind for s in parse_line(line)] == ["cfg:env"]


@pytest.mark.parametrize("line", [
    "export LD_LIBRARY_PATH=/usr/local/Ascend/driver/lib64:$LD_LIBRARY_PATH",  # a set-up step, no failure
    "mov x0, #0x80000000",  # an eight-digit hex value no document lists
    "/dev/davinci3: No such file or directory",  # a device node: the driver's or the container's, not the job's
    "find: '/proc/12345/task/12346': No such file or directory",  # a process that ended during a walk of /proc
])
def test_a_line_without_a_failure_text_gives_no_signal(line: str) -> None:
    assert parse_line(line) == []
