"""A syslog a crash left with a run of NULs where its last writes were (ext4's delayed allocation): read around the
hole, under --logs and --bundle alike, said in the notes; a binary file stays binary."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from opsbrain.ingest.surface import fill_holes

OOM = ("Aug 11 09:15:29 node-a kernel: Out of memory: Killed process 2309 (python3) total-vm:401348kB, "
       "anon-rss:1536kB, file-rss:6144kB, shmem-rss:0kB, UID:0 pgtables:136kB oom_score_adj:0\n")
BOOT = "Aug 11 09:20:01 node-a kernel: Linux version 4.19.90-24.4.v2101.ky10.aarch64 (gcc version 7.3.0)\n"
BEFORE = "Aug 11 09:15:20 node-a kernel: [ 5000.000000] IPv6: ADDRCONF(NETDEV_CHANGE): veth0: link becomes ready\n"


@pytest.mark.parametrize("layout", ["hole-in-head", "leading-hole", "hole-mid-file"])
def test_both_inputs_read_the_lines_around_a_hole(tmp_path: Path, layout: str) -> None:
    from opsbrain.bundle import read_bundle
    from opsbrain.diagnosis.oneclick import ingest_paths
    from opsbrain.ingest import LineReader

    hole = b"\x00" * 4096
    data = {"hole-in-head": BEFORE.encode() + hole + OOM.encode(),
            "leading-hole": hole + OOM.encode(),
            "hole-mid-file": BEFORE.encode() * 300 + OOM.encode()[:40] + hole + BOOT.encode() + OOM.encode()}[layout]
    (tmp_path / "node-a").mkdir()
    (tmp_path / "node-a" / "messages").write_bytes(data)
    r = LineReader()
    ingest_paths([str(tmp_path)], None, r)
    assert "os:oom_killer" in {s.kind for s in r.signals}
    assert any("NUL" in n for n in r.stats.notes)
    lines, rep = read_bundle(tmp_path)
    texts = [ln.text for ln in lines]
    assert any("Out of memory" in t for t in texts) and rep["refused"] == []
    if layout == "hole-mid-file":  # the first line after the hole is a line of its own
        assert any(t.startswith("Linux version") or "Linux version" in t[:60] for t in texts)


def test_a_binary_file_with_runs_of_nuls_stays_binary() -> None:
    core = b"\x7fELF\x02\x01\x01" + b"\x00" * 64 + os.urandom(4096) + b"\x00" * 512
    assert fill_holes(core) == (core, 0)
    assert fill_holes(b"a\n" + b"\x00" * 7 + b"b\n") == (b"a\n" + b"\x00" * 7 + b"b\n", 0)  # too short for a hole
