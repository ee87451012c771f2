"""Fan-out heads (pdsh, clush, ``ansible -m shell``: ``<host>: <line>``) whose host has no digit are taken off and
name the line's host, as those with one are; a line's own head (a CANN error code, a Python exception, a
traceback, a level word, the kernel's tag) is never taken for a host."""

from __future__ import annotations

import pytest

from opsbrain.diagnosis.realtext import FAN_OUT_HEAD
from opsbrain.ingest import ingest_text
from opsbrain.ingest.surface import fan_out_host, plain

LINE = "[ERROR] 2025-04-08-18:07:20 (PID:1292363, Device:1, RankID:9) ERR01100 OPS call acl api failed."


@pytest.mark.parametrize("host", ["gpu-a", "master", "worker-1", "node.dc.example.com", "10.0.0.7"])
def test_a_fan_out_head_is_taken_off_and_names_the_host(host: str) -> None:
    text, prefix = plain(f"{host}: {LINE}")
    assert text == LINE and fan_out_host(prefix) == host
    sigs, _ = ingest_text(f"{host}: {LINE}\n")
    assert sigs and {s.host for s in sigs} == {host}
    assert FAN_OUT_HEAD.sub("", f"{host}: RuntimeError: ACL stream synchronize failed") == \
        "RuntimeError: ACL stream synchronize failed"


@pytest.mark.parametrize("line", [
    "EZ9999: Inner Error!",
    "EI0006: [PID: 1292363] 2025-04-08-18:07:20.444.436 Getting socket times out.",
    "RuntimeError: [ERROR] ACL stream synchronize failed, error code:507053",
    "Traceback (most recent call last):",
    "ERROR: [rank3] collective timed out",
    "error: [x] failed",
    "kernel: [ 100.1] EDAC MC0: 1 UE multi-bit ECC error on NPU device 3",
    "warning: | 0 | 910B |",
    "note: see the log",
])
def test_a_lines_own_head_is_not_a_host(line: str) -> None:
    text, prefix = plain(line)
    assert text == line and fan_out_host(prefix) is None
    assert FAN_OUT_HEAD.sub("", line) == line
