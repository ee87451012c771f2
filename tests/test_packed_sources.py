"""``watch`` and ``sweep --source commands`` read compressed files and archives through the reader of
``diagnose --logs`` (:func:`opsbrain.ingest.bytelines.read_members`), not as plain text (session 12)."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from opsbrain.cli import cli
from opsbrain.sources.commands import CommandDirSource
from opsbrain.sources.follow import LogFollower
from tests.test_archives_nested import tar_of
from tests.test_sources_commands import _optical
from tests.test_watch import UCE, _read_line, _start


# ---- watch --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("pack", [gzip.compress, bz2.compress, lzma.compress])
def test_follower_reads_a_compressed_log_whole_once(pack: object, tmp_path: Path) -> None:
    """A compressed log that appears is read once its size holds for a poll, as its text (before: its compressed
    bytes were split into lines and no signal came of them)."""
    follow = LogFollower(tmp_path)
    (tmp_path / "h1").mkdir()
    (tmp_path / "h1" / "dev.log.gz").write_bytes(pack((UCE[0] + "\n").encode()))  # type: ignore[operator]
    assert follow.poll(1.0) == []  # its size is new: wait one poll (a copy may still be under way)
    (sig, *_rest) = follow.poll(2.0)
    assert sig.kind.startswith("dev:") and sig.component == "h1/npu3" and sig.t == 2.0
    assert sig.file == os.path.join("h1", "dev.log.gz") and sig.line_no == 1
    assert follow.poll(3.0) == [] and follow.stats.decompressed == 1


def test_follower_reads_an_archive_and_skips_a_rotated_copy(tmp_path: Path) -> None:
    """A node's logs dropped in as a .tar.gz are read member by member; a rotated copy of a followed log
    (messages-20250301.gz beside messages) is listed as not read (its lines were read as written)."""
    (tmp_path / "h2").mkdir()
    (tmp_path / "h2" / "messages").write_text("")
    follow = LogFollower(tmp_path)
    (tmp_path / "h2" / "node.tar.gz").write_bytes(tar_of({"device-os/dev.log": (UCE[0] + "\n").encode()}))
    (tmp_path / "h2" / "messages-20250301.gz").write_bytes(gzip.compress((UCE[0] + "\n").encode()))
    follow.poll(1.0)
    got = follow.poll(2.0)
    member = os.path.join("h2", "node.tar.gz") + ":device-os/dev.log"
    assert [(s.component, s.file) for s in got] == [("h2/npu3", member)]
    assert any("messages-20250301.gz: a rotated copy of" in x for x in follow.stats.not_read), follow.stats.not_read


def test_follower_waits_for_a_tar_whose_first_header_is_still_being_written(tmp_path: Path) -> None:
    """An archive copied in is seen part-written: before its ustar magic (offset 257) its tar header cannot be
    told. A short file holding a NUL is decided at a later poll (before: it was taken for text for good, and its
    lines were junk); a short text file is still followed at once."""
    (tmp_path / "h3").mkdir()
    data = tar_of({"device-os/dev.log": (UCE[0] + "\n").encode()}, mode="w")
    follow = LogFollower(tmp_path)
    arc = tmp_path / "h3" / "node.tar"
    arc.write_bytes(data[:200])  # before the ustar magic at offset 257
    (tmp_path / "h3" / "short.log").write_text(UCE[0] + "\n")
    first = follow.poll(1.0)
    assert [s.file for s in first] == [os.path.join("h3", "short.log")]
    arc.write_bytes(data)
    follow.poll(2.0)
    got = follow.poll(3.0)
    assert [s.file for s in got] == [os.path.join("h3", "node.tar") + ":device-os/dev.log"]


def test_follower_from_start_reads_a_rotated_copy_that_was_there_before_the_watch(tmp_path: Path) -> None:
    """With ``--from-start`` a rotated copy already in the directory holds lines the watch never read (written
    before it started): it is read, as the followed file is. Only a copy that appears while the watch runs is left
    out (before: it was left out too, since a packed file is read at the second poll)."""
    (tmp_path / "h2").mkdir()
    (tmp_path / "h2" / "messages").write_text("")
    (tmp_path / "h2" / "messages-20250301.gz").write_bytes(gzip.compress((UCE[0] + "\n").encode()))
    follow = LogFollower(tmp_path, from_start=True)
    got = follow.poll(1.0) + follow.poll(2.0)
    assert [s.file for s in got] == [os.path.join("h2", "messages-20250301.gz")], follow.stats.not_read
    assert not follow.stats.not_read


def test_watch_cli_reports_an_incident_from_a_gz(tmp_path: Path) -> None:
    """``opsbrain watch --from-start`` on a directory holding only a gzip of device logs reports the incident."""
    logs = tmp_path / "logs" / "worker-1"
    logs.mkdir(parents=True)
    (logs / "device-os.log.gz").write_bytes(gzip.compress(("\n".join(UCE) + "\n").encode()))
    proc = _start(tmp_path, tmp_path / "logs", "--from-start", "--max-runtime", "20")
    try:
        line = _read_line(proc, proc.stdout, time.monotonic() + 20)
        assert line, "no incident reported"
        d = json.loads(line)
        assert d["fault_class"] != "unknown" and d["evidence_lines"][0]["file"].endswith("device-os.log.gz")
    finally:
        proc.terminate()
        proc.communicate(timeout=10)  # and its pipes closed


# ---- sweep --source commands --------------------------------------------------------------------------------------
def test_command_outputs_compressed_and_archived(tmp_path: Path) -> None:
    """Collected outputs as ``.gz`` in a host folder and as one ``.tar.gz`` of host folders give the same findings
    as the plain files (before: the compressed bytes held no command line: "no npu-smi or hccn_tool output")."""
    text = _optical(0, [1.0, 0.08, 1.0, 1.0], [23.0] * 4).encode()  # lane 1 at -11 dBm: Rx alarm
    plain, packed = tmp_path / "plain", tmp_path / "packed"
    (plain / "worker-4").mkdir(parents=True)
    (plain / "worker-5").mkdir()
    (plain / "worker-4" / "optical.txt").write_bytes(text)
    (plain / "worker-5" / "optical.txt").write_bytes(text)
    (packed / "worker-4").mkdir(parents=True)
    (packed / "worker-4" / "optical.txt.gz").write_bytes(gzip.compress(text))
    (packed / "all.tar.gz").write_bytes(tar_of({"worker-5/optical.txt": text}))

    def findings(d: Path) -> set[tuple[str, str, str]]:
        res = CliRunner().invoke(cli, ["sweep", "once", "--source", "commands", "--dir", str(d), "--json"],
                                 env={"OPSBRAIN_HOME": str(tmp_path / "home")})
        assert res.exit_code == 1, res.output
        return {(f["component"], f["check"], f["severity"]) for f in json.loads(res.stdout)["findings"]}

    want = findings(plain)
    assert {c for c, _k, _s in want} >= {"worker-4/npu0/port/xcvr", "worker-5/npu0/port/xcvr"}
    assert findings(packed) == want
    src = CommandDirSource(packed)
    src.collect()
    assert src.stats.files == 2 and src.stats.decompressed == 1  # the .gz (the tar.gz member is plain)


def test_command_outputs_broken_archive_is_stated(tmp_path: Path) -> None:
    """A cut .tar.gz among good files: the good ones are read, the archive's break is stated."""
    text = _optical(0, [1.0, 0.08, 1.0, 1.0], [23.0] * 4).encode()
    (tmp_path / "worker-4").mkdir()
    (tmp_path / "worker-4" / "optical.txt").write_bytes(text)
    (tmp_path / "cut.tar.gz").write_bytes(tar_of({"worker-5/optical.txt": text * 50})[:300])
    src = CommandDirSource(tmp_path)
    src.collect()
    assert src.stats.files == 1 and any(x.startswith("cut.tar.gz") for x in src.stats.not_read), src.stats.not_read
