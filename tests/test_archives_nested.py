"""Archives inside archives and files named as archives that are not (session 12 hardening of the text readers).

A gzip of one log named ``.tgz`` / ``.tar.gz`` is read as the text it holds, with a note; an archive inside an
archive is told by its content (``node1-logs.gz`` holding a tar) and read up to two levels deep (a collection
re-packed: per-node archives inside a gathered one inside the bundle); an archive deeper than that is listed as not
read, never read as text. Property tests feed arbitrary bytes through these shapes.
"""

from __future__ import annotations

import bz2
import gzip
import io
import json
import os
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from opsbrain.bundle import diagnose_bundle
from opsbrain.cli import cli
from opsbrain.ingest import ingest_path
from tests.test_archives import assert_exit_0_or_2

FIX = Path(__file__).parent / "fixtures" / "bundles"
OOM = b"Mar 15 03:40:50 host1 kernel: Out of memory: Kill process 6033 (java) score 367 or sacrifice child\n"
UCE = b"Mar 15 03:41:00 host1 kernel: [Hardware Error]: event severity: fatal, uncorrectable ECC error\n"
EXAMPLES = int(os.environ.get("OPSBRAIN_PROP_EXAMPLES", "12"))


def tar_of(members: dict[str, bytes], mode: str = "w:gz") -> bytes:
    from fuzz_cli import tar_bytes

    return tar_bytes(members, mode)


def zip_of(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, body in members.items():
            zf.writestr(name, body)
    return buf.getvalue()


def logs(path: Path) -> dict[str, Any]:
    res = CliRunner().invoke(cli, ["diagnose", "--logs", str(path), "--json"])
    assert res.exit_code == 0, (res.output, res.exception)
    return json.loads(res.stdout)


# ---- a file named as an archive that is one compressed text -------------------------------------------------------
@pytest.mark.parametrize(("name", "pack"), [("oom.tgz", gzip.compress), ("oom.tar.gz", gzip.compress),
                                            ("oom.tar.bz2", bz2.compress)])
def test_misnamed_compressed_log_is_read_as_its_text(name: str, pack: Any, tmp_path: Path) -> None:
    """``gzip -c app.log > app.tgz``: --logs reads the text (exit 0, same signals as the plain file) and says how it
    read it; --bundle, which needs a directory or an archive, refuses it in one line."""
    (tmp_path / name).write_bytes(pack(OOM))
    (tmp_path / "plain.log").write_bytes(OOM)
    got, want = logs(tmp_path / name), logs(tmp_path / "plain.log")
    assert got["diagnosis"]["fault_class"] == want["diagnosis"]["fault_class"] != "unknown"
    assert got["input"]["signals"] == want["input"]["signals"] and got["input"]["lines"] == 1
    assert any(name in n and "not a tar" not in n and "stream of text (no tar)" in n for n in got["limits"])
    res = CliRunner().invoke(cli, ["diagnose", "--logs", str(tmp_path / name)])
    assert "note:" in res.output and "read as that text" in res.output
    res = CliRunner().invoke(cli, ["diagnose", "--bundle", str(tmp_path / name)])
    assert res.exit_code == 2 and len(res.stderr.strip().splitlines()) == 1


def test_misnamed_archive_that_is_neither_stays_an_error(tmp_path: Path) -> None:
    """A ``.tgz`` whose gzip holds binary bytes (no text: a core dump), or is cut at its start, is one error line."""
    (tmp_path / "core.tgz").write_bytes(gzip.compress(b"\x7fELF\x00\x00\x01" * 200))
    (tmp_path / "cut.tgz").write_bytes(gzip.compress(OOM)[:6])
    for name in ("core.tgz", "cut.tgz"):
        res = CliRunner().invoke(cli, ["diagnose", "--logs", str(tmp_path / name)])
        assert res.exit_code == 2, res.output
        assert len(res.stderr.strip().splitlines()) == 1 and name in res.stderr


# ---- archives inside archives --------------------------------------------------------------------------------------
def nested(tmp_path: Path) -> Path:
    """A .tar.gz gathering three nodes: node1's logs as a tar.gz named ``.gz``, node2's as a zip, node3's as a tar.gz
    with one more archive in it (``deep.tar.gz``, itself holding one more, ``deeper.tar.gz``), a compressed log and
    a file named as an archive that is none."""
    deep = tar_of({"deep.log": UCE, "deeper.tar.gz": tar_of({"deeper.log": OOM})})
    outer = tar_of({"node1-logs.gz": tar_of({"kern.log": OOM, "rot/kern.log.1.gz": gzip.compress(OOM)}),
                    "node2.zip": zip_of({"kern.log": OOM}),
                    "node3.tar.gz": tar_of({"deep.tar.gz": deep, "kern.log.gz": gzip.compress(OOM),
                                            "junk.tar.gz": b"no archive\n"})})
    f = tmp_path / "gathered.tar.gz"
    f.write_bytes(outer)
    return f


def test_nested_archives_are_read_two_levels_deep(tmp_path: Path) -> None:
    """Members of members, and of their members, are read as their text (no tar header or compressed byte becomes a
    line): the archive two levels down is read (its UCE line seen) and said so with the limits it was read within;
    the one three levels down is listed as not read, and its OOM line is not seen."""
    _sigs, stats = ingest_path(str(nested(tmp_path)))
    assert stats.lines == 5 and stats.lines_cut == 0, stats  # four copies of the OOM line and the UCE line
    assert stats.files == 5 and stats.decompressed == 2
    assert stats.not_read == ["gathered.tar.gz:node3:deep:deeper.tar.gz: tar archive three levels deep (archives "
                              "are read up to two levels inside the input; the archive holding it, given by itself, "
                              "is read with it): listed, not read",
                              "gathered.tar.gz:node3:junk.tar.gz: unreadable archive: its first block is not a tar "
                              "header: not read"]
    assert any(n.startswith("gathered.tar.gz:node3:deep.tar.gz: tar.gzip archive two levels deep, read in place ")
               and "limits" in n for n in stats.notes), stats.notes
    assert {s.kind for s in _sigs} >= {"os:oom_killer", "ecc:uce"}


def test_nested_archives_in_a_logs_directory(tmp_path: Path) -> None:
    """A directory given to --logs: its archive is the first level, the archives in it the second, deeper listed."""
    d = tmp_path / "d"
    d.mkdir()
    shutil.move(nested(tmp_path), d / "gathered.tar.gz")
    _sigs, stats = ingest_path(str(d))
    assert stats.lines == 4 and any("deep.tar.gz" in x and "listed, not read" in x for x in stats.not_read)
    assert not any("deeper" in x for x in stats.not_read)  # (inside the one not read: never looked at)


def test_nested_archives_share_the_member_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An archive inside over MAX_INNER_BYTES as stored is listed, not read; its limit is stated."""
    import opsbrain.ingest.bytelines as T  # (the module whose limits the walk reads)

    monkeypatch.setattr(T, "MAX_INNER_BYTES", 64)
    _sigs, stats = ingest_path(str(nested(tmp_path)))
    assert stats.lines == 0
    assert sum("over the 64-byte limit: not read" in x for x in stats.not_read) == 3, stats.not_read


def test_bundle_with_per_worker_archives_named_gz(tmp_path: Path) -> None:
    """A collection that packs each node's folder as ``worker-0.gz`` (a tar.gz by its content) and gathers them:
    the bundle reads as the directory (before: every packed node was an unknown file)."""
    from opsbrain.kb.training import load_engine

    engine = load_engine()
    src = FIX / "hbm-uce-real"
    want = diagnose_bundle(src, engine)
    b = tmp_path / "gathered"
    shutil.copytree(src, b)
    packed = 0
    for w in sorted(x for x in b.iterdir() if x.is_dir() and x.name.startswith("worker")):
        members = {p.relative_to(b).as_posix(): p.read_bytes() for p in sorted(w.rglob("*")) if p.is_file()}
        (b / f"{w.name}.gz").write_bytes(tar_of(members))
        shutil.rmtree(w)
        packed += 1
    assert packed >= 1
    got = diagnose_bundle(b, engine)
    assert got["diagnosis"]["fault_class"] == want["diagnosis"]["fault_class"]
    assert got["diagnosis"]["component"] == want["diagnosis"]["component"]
    assert got["lines"]["read"] == want["lines"]["read"] and got["refused"] == []


# ---- properties ---------------------------------------------------------------------------------------------------
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(blob=st.binary(max_size=2048), cut=st.integers(min_value=0, max_value=4096))
def test_nested_and_misnamed_arbitrary_bytes_never_raise(blob: bytes, cut: int,
                                                         tmp_path_factory: pytest.TempPathFactory) -> None:
    """Arbitrary bytes as a member of an archive inside an archive, two levels down, as a misnamed .tgz, and the
    same cut anywhere: exit 0 or 2 with one line, never a traceback."""
    d = tmp_path_factory.mktemp("nestfuzz")
    inner = tar_of({"w/messages": blob, "w/x.gz": gzip.compress(blob), "w/y.tar.gz": tar_of({"z": blob})})
    outer = tar_of({"b/worker-0.tar.gz": inner, "b/worker-1.gz": inner[:cut], "b/worker-2.zip": zip_of({"m": blob}),
                    "b/worker-3.tgz": gzip.compress(blob)})
    inputs = {"n.tar.gz": outer, "m.tar.gz": outer[:cut], "g.tgz": gzip.compress(blob), "h.tgz": blob[:cut]}
    assert_exit_0_or_2(d, inputs)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(st.sampled_from([OOM, UCE, b"INFO all good\n", b"plain words\n"]), min_size=1, max_size=30))
def test_misnamed_gzip_and_nested_member_read_as_the_plain_text(lines: list[bytes],
                                                                 tmp_path_factory: pytest.TempPathFactory) -> None:
    """Text read three ways gives the plain file's signals: as a misnamed .tgz, and as a .gz member of a tar.gz
    named .gz inside a .tar.gz."""
    d = tmp_path_factory.mktemp("nestsame")
    text = b"".join(lines)
    (d / "plain.log").write_bytes(text)
    (d / "mis.tgz").write_bytes(gzip.compress(text))
    (d / "nest.tar.gz").write_bytes(tar_of({"n1.gz": tar_of({"k.log.gz": gzip.compress(text)})}))
    want, _ = ingest_path(str(d / "plain.log"))
    for name in ("mis.tgz", "nest.tar.gz"):
        got, stats = ingest_path(str(d / name))
        assert [(s.kind, s.t) for s in got] == [(s.kind, s.t) for s in want], name
        assert stats.lines == text.count(b"\n") and not stats.not_read, (name, stats)


def _ingest_with_peak(path: Path) -> tuple[Any, Any, int]:
    """``ingest_path`` of ``path`` and the peak of Python allocations while it ran (tracemalloc)."""
    import tracemalloc

    tracemalloc.start()
    try:
        signals, stats = ingest_path(str(path))
        return signals, stats, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_gzip_header_without_end_inside_an_archive_is_not_kept_in_memory(tmp_path: Path) -> None:
    """A member named as an archive whose gzip header names a file and never ends the name (24 MiB of it, which the
    outer gzip packs into ~24 KiB): looking at its first bytes reads a bounded head, not the whole member into
    memory (before: the look kept every byte it took, the whole member, byte by byte); the other member is read."""
    bomb = b"\x1f\x8b\x08\x08\0\0\0\0\0\x03" + b"a" * (24 << 20)  # FLG.FNAME, and no NUL ending the name
    path = tmp_path / "node.tar.gz"
    path.write_bytes(tar_of({"node1.tar.gz": bomb, "messages": OOM}))
    assert path.stat().st_size < 1 << 20
    signals, stats, peak = _ingest_with_peak(path)
    assert peak < 12 << 20, f"peak {peak >> 20} MiB"
    assert any("node1.tar.gz" in x for x in stats.not_read), stats.not_read
    assert any(s.file and s.file.endswith("messages") for s in signals)


@pytest.mark.parametrize("kind", ["pax", "gnu_longname"])
def test_a_huge_tar_header_record_is_refused_not_read_into_memory(kind: str, tmp_path: Path) -> None:
    """A tar whose second header is a pax (or GNU long-name) record of 48 MiB (the outer gzip packs it into ~48 KiB):
    tarfile reads such a record whole into memory before the walk sees it; the walk now ends there, says so, and
    keeps what came before (before: 96-145 MiB peak here, and several GiB at the stream cap from a 4 MB file)."""
    import tarfile

    n = 48 << 20
    head = tarfile.TarInfo("././@PaxHeader" if kind == "pax" else "././@LongLink")
    head.type, head.size = (tarfile.XHDTYPE if kind == "pax" else tarfile.GNUTYPE_LONGNAME), n
    first, member = tarfile.TarInfo("first.log"), tarfile.TarInfo("messages")
    first.size = member.size = len(OOM)
    body = OOM + b"\0" * (-len(OOM) % 512)
    raw = (first.tobuf(format=tarfile.USTAR_FORMAT) + body + head.tobuf(format=tarfile.USTAR_FORMAT) + b"a" * n
           + member.tobuf(format=tarfile.USTAR_FORMAT) + body + b"\0" * 1024)
    path = tmp_path / "node.tar.gz"
    path.write_bytes(gzip.compress(raw, 6))
    signals, stats, peak = _ingest_with_peak(path)
    assert peak < 16 << 20, f"peak {peak >> 20} MiB"
    assert any("header of" in x for x in stats.not_read), stats.not_read
    assert any(s.file and s.file.endswith("first.log") for s in signals)  # what came before is read


@pytest.mark.parametrize(("raw", "want"), [
    ("节点0/process_log/run/plog/plog-1_2.log".encode("gbk"), "节点0/process_log/run/plog/plog-1_2.log"),  # GBK
    ("节点0/messages".encode(), "节点0/messages"),  # UTF-8 without its flag
    ("caf\u00e9/messages".encode("cp437"), "caf\u00e9/messages"),  # cp437 as the format says
    (b"worker-0/messages", "worker-0/messages"),
])
def test_a_zip_members_name_in_its_writers_code_page(raw: bytes, want: str) -> None:
    """A zip made on a Chinese-locale Windows names its members in GBK without the UTF-8 flag; ``zipfile`` reads
    such a name as cp437 (``╜┌╡π0``): it is read back as its writer meant it (session 25)."""
    import zipfile

    from opsbrain.ingest.trees import zip_name

    info = zipfile.ZipInfo(raw.decode("cp437"))  # what zipfile gives for a name without the flag
    info.flag_bits = 0
    assert zip_name(info) == want


def test_bundle_repacked_two_levels_deep(tmp_path: Path) -> None:
    """An operator re-packs a collection: each node's folder packed (``worker-0.tar.gz``), the node archives gathered
    into one (``repack.tar.gz`` holding ``repack/worker-0.tar.gz``), that put in the bundle directory: the bundle reads
    as the directory (before: the node archives two levels down were refused), with the files' own paths, and the
    answer says the archives two levels down were read and within which limits."""
    from opsbrain.kb.training import load_engine

    engine = load_engine()
    src = FIX / "hbm-uce-real"
    want = diagnose_bundle(src, engine)
    b = tmp_path / "b"
    b.mkdir()
    shutil.copy(src / "README.md", b / "README.md")
    packed: dict[str, bytes] = {}
    for w in sorted(x for x in src.iterdir() if x.is_dir()):
        members = {p.relative_to(src).as_posix(): p.read_bytes() for p in sorted(w.rglob("*")) if p.is_file()}
        packed[f"repack/{w.name}.tar.gz"] = tar_of(members)
    (b / "repack.tar.gz").write_bytes(tar_of(packed))
    got = diagnose_bundle(b, engine)
    assert got["refused"] == [], got["refused"]
    assert got["diagnosis"]["fault_class"] == want["diagnosis"]["fault_class"]
    assert got["diagnosis"]["component"] == want["diagnosis"]["component"]
    assert got["lines"]["read"] == want["lines"]["read"]
    notes = [n for n in got["limits"] if "two levels deep" in n]
    assert [n.split(":")[0] for n in notes] == ["repack/worker-0.tar.gz", "repack/worker-1.tar.gz"], got["limits"]
    assert all("uncompressed" in n and "entries" in n and "as stored" in n for n in notes), notes
    res = CliRunner().invoke(cli, ["diagnose", "--bundle", str(b)])
    assert res.exit_code == 0 and "note: repack/worker-0.tar.gz: tar.gzip archive two levels deep" in res.output
