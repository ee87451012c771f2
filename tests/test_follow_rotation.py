"""``watch`` follows files as logrotate, cron and operators treat them (session 26, a second pair of eyes on the
real-cluster sources): a rename rotation is read on, not again; a copytruncate copy is not read again and the
truncated file is read from its start even when it outgrew its old size before the poll; a file recreated under
a reused inode is read from its start; a small table rewritten in place at the same size is read again."""

from __future__ import annotations

import os
from pathlib import Path

from opsbrain.ingest import Signal
from opsbrain.sources.follow import LogFollower
from tests.test_watch import UCE

PAD = "".join(f"[INFO] 2025-03-01 10:00:{i % 60:02d} benign line {i:05d}\n" for i in range(200))


def _bump(path: Path) -> None:
    """A later modification time whatever the file system's resolution."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))


def _kinds(sigs: list[Signal]) -> list[str]:
    return [s.kind for s in sigs]


def test_a_rename_rotation_is_read_on_not_again(tmp_path: Path) -> None:
    (tmp_path / "h").mkdir()
    log = tmp_path / "h" / "device.log"
    log.write_text(PAD)
    follow = LogFollower(tmp_path)
    with log.open("a") as fh:
        fh.write(UCE[0] + "\n")
    assert len(follow.poll(1.0)) == 1
    with log.open("a") as fh:  # written after the last poll, just before the rotation
        fh.write(UCE[1] + "\n")
    log.rename(tmp_path / "h" / "device.log.1")
    log.write_text("[INFO] new file after rotation\n")
    got = follow.poll(2.0)
    assert {(s.file, s.line_no) for s in got} == {(os.path.join("h", "device.log.1"), 2)}  # that line, once
    assert follow.poll(3.0) == []


def test_copytruncate_with_a_burst_larger_than_the_old_file_is_read_from_the_start(tmp_path: Path) -> None:
    (tmp_path / "h").mkdir()
    log = tmp_path / "h" / "device.log"
    log.write_text(PAD)
    follow = LogFollower(tmp_path)
    (tmp_path / "h" / "device.log-20250301").write_text(log.read_text())  # the copy
    log.write_text(UCE[0] + "\n" + PAD + PAD)  # truncated, then more than before, all before the next poll
    _bump(log)
    got = follow.poll(1.0)
    assert len(got) == 1 and got[0].file == os.path.join("h", "device.log")
    assert any("device.log-20250301: a rotated copy" in x for x in follow.stats.not_read)


def test_a_file_recreated_under_its_old_inode_is_read_from_the_start(tmp_path: Path) -> None:
    (tmp_path / "h").mkdir()
    log = tmp_path / "h" / "device.log"
    log.write_text(PAD[:2000])
    follow = LogFollower(tmp_path)
    with log.open("r+") as fh:  # same inode, new content from the start, longer than the old
        fh.write(UCE[0] + "\n" + PAD)
    _bump(log)
    assert _kinds(follow.poll(1.0)) == ["dev:80E01801"]
    assert follow.poll(2.0) == []


def test_a_small_table_rewritten_in_place_at_the_same_size_is_read_again(tmp_path: Path) -> None:
    (tmp_path / "h").mkdir()
    table = tmp_path / "h" / "dmesg.txt"
    healthy = "[INFO] 2025-03-01 10:00:00 nothing to report".ljust(len(UCE[0]), ".") + "\n"
    table.write_text(healthy)
    follow = LogFollower(tmp_path)
    table.write_text(UCE[0] + "\n")
    assert table.stat().st_size == len(healthy)
    _bump(table)
    assert [s.file for s in follow.poll(1.0)] == [os.path.join("h", "dmesg.txt")]
    _bump(table)  # touched, not changed: not read again
    assert follow.poll(2.0) == []


def test_a_nodes_own_log_tree_names_no_host_and_a_removed_directory_is_said(tmp_path: Path) -> None:
    """``watch --logs /var/log/npu`` of one node: ``slog/...`` is no host (before: ``slog/npu3``); the directory
    removed while watched is named once in what was not read (before: the watch went on silently)."""
    import shutil

    from opsbrain.sources.follow import host_dir

    assert host_dir(os.path.join("slog", "dev-os-3", "x.log")) is None
    assert host_dir(os.path.join("node-7", "slog", "x.log")) == "node-7" and host_dir("x.log") is None
    root = tmp_path / "npu"
    (root / "slog").mkdir(parents=True)
    follow = LogFollower(root, from_start=True)
    (root / "slog" / "device-os.log").write_text(UCE[0] + "\n")
    (sig,) = follow.poll(1.0)
    assert sig.component == "npu3" and sig.host is None
    shutil.rmtree(root)
    follow.poll(2.0)
    follow.poll(3.0)
    assert [x for x in follow.stats.not_read if "the directory is gone" in x] == [
        f"{root}: the directory is gone (removed while watched); its files are read if it comes back"]


def test_a_new_file_that_reuses_a_deleted_files_inode_is_read_from_its_start(tmp_path: Path) -> None:
    """Found by review (session 26): the rename adoption took job-2.log, created on job-1.log's freed inode, for
    job-1.log renamed, and read it from job-1's offset (10 of 60 lines)."""
    (tmp_path / "h").mkdir()
    follow = LogFollower(tmp_path)
    follow.poll(1.0)
    (tmp_path / "h" / "job-1.log").write_text(PAD[:4000])
    follow.poll(2.0)
    before = follow.lines
    (tmp_path / "h" / "job-1.log").unlink()
    (tmp_path / "h" / "job-2.log").write_text(UCE[0] + "\n" + PAD)
    assert _kinds(follow.poll(3.0)) == ["dev:80E01801"] and follow.lines == before + 201


def test_a_rotated_copy_caught_while_being_written_is_never_read(tmp_path: Path) -> None:
    (tmp_path / "h").mkdir()
    log = tmp_path / "h" / "device.log"
    log.write_text(UCE[0] + "\n" + PAD)
    follow = LogFollower(tmp_path, from_start=True)
    assert len(follow.poll(1.0)) == 1
    copy = tmp_path / "h" / "device.log.1"
    copy.write_text((UCE[0] + "\n" + PAD)[:3000])  # a third of the copy written at the poll
    assert follow.poll(2.0) == []
    copy.write_text(UCE[0] + "\n" + PAD)  # the copy finished
    assert follow.poll(3.0) == [] and any("device.log.1: a rotated copy" in x for x in follow.stats.not_read)
