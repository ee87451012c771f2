"""Trees of named byte streams: a directory, a tar or a zip, walked entry by entry, read in place.

:class:`DirTree`, :class:`TarTree`, :class:`ZipTree`: the entries of a directory (walked level by level, links never
followed) or an archive (members read where they are, never extracted to disk), each an :class:`Entry` with its
``/``-separated relative name, what it is (file, directory, link, special) and, for a regular file, a way to open its
raw bytes. Members with an absolute path or a ``..`` component, links (symbolic or hard), devices and FIFOs are never
opened: their entries carry the reason (``problem``). An archive's trouble (truncated, corrupt, over a limit) ends
its walk and is kept in ``problems``; an archive that cannot be opened at all raises :class:`ArchiveError` (the
caller's one-line error).
"""

from __future__ import annotations

import io
import os
import re
import stat
import tarfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from opsbrain.ingest.encoding import is_chinese
from opsbrain.ingest.streams import CHUNK, READ_ERRORS, ArchiveError, Unpacked, _describe, archive_stem
from opsbrain.lazyre import lazy_compile

FILE, DIR, LINK, SPECIAL = "file", "dir", "link", "special"


@dataclass(frozen=True)
class Entry:
    """One entry of a tree: relative name, what it is, stored size, how to open a regular file's raw bytes, and
    why it is not read (None: it may be)."""

    rel: str
    what: str
    size: int | None = None
    open: Callable[[], IO[bytes]] | None = None
    problem: str | None = None
    unsafe: bool = False  # an absolute or ``..`` name: says nothing of the archive's layout
    group: str = ""  # an archive inside the tree: its path there without its suffix (``worker-0`` for worker-0.tgz)
    note: str | None = None  # how it was read, when not as its name says (a ``.tgz`` that is one gzip of text)


_CONTROL = lazy_compile(r"[\x00-\x1f\x7f]")


def printable(name: str) -> str:
    """A name with its control characters (line ends, escapes) as ``?``: it cannot forge a line of the answer."""
    return _CONTROL.sub("?", name)


def safe_name(name: str) -> tuple[str, str | None]:
    """A member name made relative and ``/``-separated (``./`` and empty parts dropped, a zip's ``\\`` read as
    ``/``, undecodable bytes replaced, control characters as ``?``), and the reason not to read it (absolute,
    ``..``), else None."""
    n = printable(name.encode("utf-8", "surrogateescape").decode("utf-8", "replace").replace("\\", "/"))
    if n.startswith("/") or re.match(r"[A-Za-z]:/", n):
        return n, "absolute path in the archive: not read"
    parts = [p for p in n.split("/") if p not in ("", ".")]
    if ".." in parts:
        return n, "'..' in the member's path: not read"
    return "/".join(parts), None if parts else "empty member name: not read"


LINK_NOT_FOLLOWED = "symbolic link: not followed (--follow-links reads it)"


MAX_WRAPPED = 64
"""Directory levels a walk descends in all, wrappers included (``--logs``' own limit,
:data:`opsbrain.ingest.dirwalk.MAX_DIR_DEPTH`)."""


class DirTree:
    """A directory, level by level (names sorted), up to ``max_depth`` levels below its wrappers (the directories
    from the root down whose only entry is one directory, as ``data/collect/2025/01/24/.../nodes/`` around a
    collection: the limit is the collection's own depth, not where it was unpacked; :data:`MAX_WRAPPED` levels in
    all, as ``--logs`` walks); symbolic links followed only with
    ``follow_links`` (the operator's own tree: worker directories linked in from a store), each directory once (a
    link back up is not walked again)."""

    archive = False

    def __init__(self, root: Path, max_depth: int, follow_links: bool = False) -> None:
        self.root, self.name, self.max_depth = root, root.name, max_depth
        self.follow_links = follow_links
        self.problems: list[str] = []
        self.kind = "directory"

    def close(self) -> None:
        """Nothing to close (as an archive's tree has)."""

    def entries(self) -> Iterator[Entry]:
        level: list[tuple[Path, str, int]] = [(self.root, "", -1)]  # (directory, its name, levels above it; -1: a
        seen = {os.path.realpath(self.root)}                          # wrapper, or the root below wrappers)
        while level:
            nxt: list[tuple[Path, str, int]] = []
            for d, rel_d, above in level:
                try:
                    found = sorted(os.scandir(d), key=lambda e: e.name)
                except OSError as exc:
                    yield Entry(rel_d or ".", DIR, problem=f"cannot list the directory: {exc.strerror or exc}")
                    continue
                wrapper = above < 0 and len(found) == 1 and found[0].is_dir(follow_symlinks=False)
                depth = -1 if wrapper else max(above, 0) + 1  # the level of this directory's subdirectories
                for e in found:
                    rel = f"{rel_d}/{printable(e.name)}" if rel_d else printable(e.name)
                    link = e.is_symlink()
                    if link and not self.follow_links:
                        yield Entry(rel, LINK, problem=LINK_NOT_FOLLOWED)
                    elif link and not os.path.exists(e.path):
                        yield Entry(rel, LINK, problem="symbolic link to nothing: not read")
                    elif e.is_dir(follow_symlinks=link):
                        if depth > self.max_depth or rel.count("/") >= MAX_WRAPPED:
                            most = self.max_depth if depth > self.max_depth else MAX_WRAPPED
                            yield Entry(rel, DIR, problem=f"deeper than {most} directory levels: not read")
                        elif (real := os.path.realpath(e.path)) in seen:
                            yield Entry(rel, LINK, problem="a directory already walked (a link to it): not read again")
                        else:
                            seen.add(real)
                            nxt.append((Path(e.path), rel, depth))
                    elif e.is_file(follow_symlinks=link):
                        yield Entry(rel, FILE, None, _dir_opener(e))
                    else:
                        yield Entry(rel, SPECIAL, problem="not a regular file")
            level = nxt


def _dir_opener(e: os.DirEntry[str]) -> Callable[[], IO[bytes]]:
    return lambda: open(e.path, "rb")  # noqa: PTH123, SIM115 - the entry walked; the caller closes it


MAX_HEADER_BYTES = 1 << 20
"""A tar's pax or GNU long-name header record, at most (tarfile reads one whole into memory before the walk sees
it): real ones hold a path and a few times and sizes, bytes to kilobytes; a bigger one ends the walk, stated."""
_RECORDS = {tarfile.XHDTYPE: "pax", tarfile.XGLTYPE: "pax", tarfile.SOLARIS_XHDTYPE: "pax",
            tarfile.GNUTYPE_LONGNAME: "GNU long-name", tarfile.GNUTYPE_LONGLINK: "GNU long-name"}


class _TarInfo(tarfile.TarInfo):
    """tarfile's member header, refusing a header record over :data:`MAX_HEADER_BYTES` before it is read."""

    def _proc_member(self, tarfile_: tarfile.TarFile) -> tarfile.TarInfo:
        if self.type in _RECORDS and self.size > MAX_HEADER_BYTES:
            raise tarfile.ReadError(f"a {_RECORDS[self.type]} header of {self.size} bytes, over the "
                                    f"{MAX_HEADER_BYTES}-byte limit")
        return super()._proc_member(tarfile_)  # type: ignore[misc]


class TarTree:
    """A tar (plain, gzip, bzip2 or xz) read as one stream, member after member (``tarfile``'s stream mode: no
    seeking, nothing extracted). A member is opened only while the walk stands on it. At most ``stream_cap`` bytes
    of the uncompressed stream and ``max_members`` entries are walked."""

    archive = True

    def __init__(self, path: Path, stream_cap: int, max_members: int, fh: IO[bytes] | None = None) -> None:
        """The tar at ``path``, or in ``fh`` (an archive inside another: ``path`` its name there)."""
        self.path, self.name = path, archive_stem(path.name)
        self.stream_cap, self.max_members = stream_cap, max_members
        self.problems: list[str] = []
        self._fh = fh if fh is not None else path.open("rb")
        self.stream = Unpacked(self._fh, stream_cap)
        self.kind = f"tar.{self.stream.kind}" if self.stream.kind else "tar"
        try:
            self.tar = tarfile.open(fileobj=self.stream, mode="r|", bufsize=1 << 16,  # noqa: SIM115 - closed by close()
                                    tarinfo=_TarInfo)
        except READ_ERRORS as exc:
            self._fh.close()
            raise ArchiveError(f"unreadable {self.kind} archive: {self.stream.error or _describe(exc)}") from None

    def close(self) -> None:
        self._fh.close()

    def entries(self) -> Iterator[Entry]:
        n = 0
        it = iter(self.tar)
        try:
            while True:
                try:
                    m = next(it)
                except StopIteration:
                    break
                # stream mode keeps every header read; the walk needs none of them (typeshed omits the attribute)
                self.tar.members.clear()  # type: ignore[attr-defined]
                n += 1
                if n > self.max_members:
                    self.problems.append(f"more than {self.max_members} entries in the archive: the rest not read")
                    return
                if m.isdir() and not m.name.strip("./"):
                    continue  # the archive's own top (``tar czf - -C dir .`` writes ``./``): nothing to name
                rel, bad = safe_name(m.name)
                if bad:
                    yield Entry(rel, FILE if m.isfile() else SPECIAL, problem=bad, unsafe=True)
                elif m.isdir():
                    yield Entry(rel, DIR)
                elif m.issym() or m.islnk():
                    yield Entry(rel, LINK, problem=f"{'symbolic' if m.issym() else 'hard'} link: not followed")
                elif m.isfile():
                    yield Entry(rel, FILE, m.size, _tar_opener(self.tar, m))
                else:
                    yield Entry(rel, SPECIAL, problem="not a regular file (device or FIFO)")
        except READ_ERRORS as exc:
            self.problems.append(self._broken(n, self.stream.error or _describe(exc)))
            return
        if self.stream.error or self.stream.capped:
            self.problems.append(self._broken(n, self.stream.error))
        elif self._trailing() < tarfile.BLOCKSIZE:
            self.problems.append(self._broken(n, "truncated (the archive ends without its end-of-archive blocks)"))

    def _trailing(self) -> int:
        """Bytes of the stream after the last member (the end-of-archive blocks are at least 512)."""
        while self.stream.read(CHUNK):
            pass
        return self.stream.produced - self.tar.offset

    def _broken(self, n: int, why: str | None) -> str:
        if self.stream.capped:
            return (f"archive over {self.stream_cap} bytes uncompressed: read up to there ({n} entries), the rest "
                    "not read")
        return f"archive {why or 'truncated'} after {n} entries: what was read before is diagnosed"


def _tar_opener(tar: tarfile.TarFile, m: tarfile.TarInfo) -> Callable[[], IO[bytes]]:
    def _open() -> IO[bytes]:
        fh = tar.extractfile(m)
        if fh is None:
            raise OSError("not a regular member")
        return fh
    return _open


class ZipTree:
    """A zip archive through its central directory; members read in place (``zipfile``). A zip whose central
    directory is missing (truncated) cannot be opened: :class:`ArchiveError`."""

    archive = True
    kind = "zip"

    def __init__(self, path: Path, max_members: int, fh: IO[bytes] | None = None) -> None:
        """The zip at ``path``, or in ``fh`` (seekable; an archive inside another: ``path`` its name there)."""
        self.path, self.name, self.max_members = path, archive_stem(path.name), max_members
        self.problems: list[str] = []
        try:
            if fh is None:
                with path.open("rb") as f:
                    declared = zip_entries(f)
            else:
                declared = zip_entries(fh)
            if declared is not None and declared > max_members:  # zipfile would parse them all first
                raise ArchiveError(f"zip archive of {declared} entries (its end record), over the {max_members}-entry "
                                   "limit: not read")
            self.zip = zipfile.ZipFile(fh if fh is not None else path)
        except READ_ERRORS as exc:
            raise ArchiveError(f"unreadable zip archive (truncated or corrupt: {exc})") from None

    def close(self) -> None:
        self.zip.close()

    def entries(self) -> Iterator[Entry]:
        infos = self.zip.infolist()
        if len(infos) > self.max_members:
            self.problems.append(f"more than {self.max_members} entries in the archive: the rest not read")
        for info in infos[: self.max_members]:
            rel, bad = safe_name(zip_name(info))
            mode = info.external_attr >> 16
            if bad:
                yield Entry(rel, FILE, problem=bad, unsafe=True)
            elif info.is_dir():
                yield Entry(rel, DIR)
            elif stat.S_ISLNK(mode):
                yield Entry(rel, LINK, problem="symbolic link: not followed")
            elif stat.S_IFMT(mode) not in (0, stat.S_IFREG):  # a type is set and it is not a regular file
                yield Entry(rel, SPECIAL, problem="not a regular file (device or FIFO)")
            elif info.flag_bits & 0x1:
                yield Entry(rel, FILE, info.file_size, problem="encrypted: not read")
            else:
                yield Entry(rel, FILE, info.file_size, _zip_opener(self.zip, info))


def zip_name(info: zipfile.ZipInfo) -> str:
    """A member's name as its writer meant it. Without the UTF-8 flag (bit 11) ``zipfile`` reads a name as cp437
    (APPNOTE 4.4.4, appendix D); tools on a Chinese-locale Windows write the local code page (GBK) there, and some
    tools write UTF-8 without the flag. A name that is not ASCII is taken as UTF-8, else as GB18030 when it reads as
    Chinese, else as cp437 (``节点0/``, not ``╜┌╡π0/``)."""
    name = info.filename
    if info.flag_bits & 0x800 or name.isascii():
        return name
    try:
        raw = name.encode("cp437")
    except UnicodeEncodeError:
        return name
    for codec in ("utf-8", "gb18030"):
        try:
            text = raw.decode(codec)
        except UnicodeDecodeError:
            continue
        if codec == "utf-8" or all(c.isascii() or is_chinese(c) for c in text):
            return text
    return name


def zip_entries(fh: IO[bytes]) -> int | None:
    """The entries a zip's end-of-central-directory record (zip64's when it points to one) declares; None when no
    record is found in the last 64 KiB (zipfile then says why it cannot open the archive)."""
    size = fh.seek(0, io.SEEK_END)
    fh.seek(max(0, size - (1 << 16) - 22))
    tail = fh.read()
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) < at + 22:
        return None
    n = int.from_bytes(tail[at + 10: at + 12], "little")
    loc = at - 20  # the zip64 locator sits just before the end record
    if n == 0xFFFF and loc >= 0 and tail[loc: loc + 4] == b"PK\x06\x07":
        fh.seek(int.from_bytes(tail[loc + 8: loc + 16], "little"))
        rec = fh.read(56)
        if rec[:4] == b"PK\x06\x06" and len(rec) == 56:
            n = int.from_bytes(rec[32:40], "little")
    fh.seek(0)
    return n


def _zip_opener(z: zipfile.ZipFile, info: zipfile.ZipInfo) -> Callable[[], IO[bytes]]:
    return lambda: z.open(info)


Tree = DirTree | TarTree | ZipTree
