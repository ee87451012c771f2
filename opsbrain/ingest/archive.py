"""Compressed logs and archives, read in place: a tree of named byte streams for a directory, a tar or a zip.

- :class:`Unpacked`: a byte stream, decompressed when its first bytes are a gzip, bzip2 or xz header (the stdlib's
  ``gzip``/``bz2``/``lzma``, streamed), else passed through. Reading never raises: a truncated or corrupt stream ends
  where it broke, ``error`` says why; ``cap`` bounds the bytes given (``capped``: there were more).
- :class:`DirTree`, :class:`TarTree`, :class:`ZipTree`: the entries of a directory (walked level by level, links
  never followed) or an archive (members read where they are, never extracted to disk), each an :class:`Entry`
  with its ``/``-separated relative name, what it is (file, directory, link, special) and, for a regular file, a
  way to open its raw bytes. Members with an absolute path or a ``..`` component, links (symbolic or hard), devices
  and FIFOs are never opened: their entries carry the reason (``problem``). An archive's trouble (truncated,
  corrupt, over a limit) ends its walk and is kept in ``problems``; an archive that cannot be opened at all raises
  :class:`ArchiveError` (the caller's one-line error).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import re
import stat
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

FILE, DIR, LINK, SPECIAL = "file", "dir", "link", "special"
_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"))
_UNSUPPORTED = ((b"\x28\xb5\x2f\xfd", "zstd"), (b"\x04\x22\x4d\x18", "lz4"), (b"7z\xbc\xaf\x27\x1c", "7z"),
                (b"Rar!\x1a\x07", "rar"))
"""Formats told by their magic bytes that the standard library cannot read: named in the answer, never read as text."""
COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz", ".zst", ".lz4")
READ_ERRORS = (OSError, EOFError, zlib.error, lzma.LZMAError, zipfile.BadZipFile, tarfile.TarError, ValueError,
               NotImplementedError, RuntimeError)
"""What the stdlib's decompressors and archive readers raise on truncated, corrupt or unsupported data (RuntimeError:
an encrypted zip member; NotImplementedError: a zip compression method the stdlib lacks)."""
CHUNK = 1 << 20
_DECOMPRESSORS: dict[str, Callable[[IO[bytes]], gzip.GzipFile | bz2.BZ2File | lzma.LZMAFile]] = {
    "gzip": lambda f: gzip.GzipFile(fileobj=f, mode="rb"), "bzip2": bz2.BZ2File, "xz": lzma.LZMAFile}


class ArchiveError(Exception):
    """An archive that cannot be opened at all (the first header or its central directory unreadable)."""


def compression_of(head: bytes) -> str | None:
    """``gzip``, ``bzip2`` or ``xz`` when ``head`` starts with that format's magic bytes, else None."""
    return next((kind for magic, kind in _MAGIC if head.startswith(magic)), None)


def unsupported_of(head: bytes) -> str | None:
    """``zstd``, ``lz4``, ``7z`` or ``rar`` when ``head`` starts with that format's magic bytes, else None."""
    return next((kind for magic, kind in _UNSUPPORTED if head.startswith(magic)), None)


def unsupported(kind: str) -> str:
    """Why a stream of ``kind`` (:func:`unsupported_of`) is not read."""
    return f"cannot be decompressed (no {kind} reader in this Python's standard library; unpack it first)"


def plain_name(name: str) -> str:
    """A name without its compression suffix (``messages-20250301.gz`` -> ``messages-20250301``, ``x.log.xz`` ->
    ``x.log``), for recognising a compressed log by the name of its content."""
    for suf in COMPRESSED_SUFFIXES:
        if name.endswith(suf) and len(name) > len(suf) and not name.endswith("/" + suf):
            return name[: -len(suf)]
    return name


def _describe(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    if isinstance(exc, EOFError) or "end of data" in text or "ended before" in text:
        return f"truncated ({text})"
    return f"corrupt or unsupported ({text})"


class Unpacked(io.RawIOBase):
    """The content of ``raw``: decompressed if compressed (``kind``), else as it is; at most ``cap`` bytes."""

    def __init__(self, raw: IO[bytes], cap: int | None = None) -> None:
        super().__init__()
        self.cap = cap
        self.produced = 0
        self.error: str | None = None
        self.capped = False
        self._head = b""
        try:
            while len(self._head) < 6 and (got := raw.read(6 - len(self._head))):
                self._head += got
        except READ_ERRORS as exc:
            self.error = _describe(exc)
        self.kind = compression_of(self._head)
        if (other := unsupported_of(self._head)) is not None:
            self.kind, self.error = other, unsupported(other)
        self._raw = raw
        self._inner: gzip.GzipFile | bz2.BZ2File | lzma.LZMAFile | None = None
        if self.kind is not None and self.error is None:
            src = io.BufferedReader(_Prefixed(self._head, raw))
            self._head = b""
            self._inner = _DECOMPRESSORS[self.kind](src)  # lives as long as this stream; the caller closes raw

    def readable(self) -> bool:
        return True

    def _read(self, n: int) -> bytes:
        if self._inner is not None:  # read1: one step of the decompressor, so a break loses nothing before it
            return self._inner.read1(n)
        head, self._head = self._head[:n], self._head[n:]
        return head + (self._raw.read(n - len(head)) if n > len(head) else b"")

    def read(self, size: int | None = -1) -> bytes:
        """Up to ``size`` bytes (all that is left when negative); b"" at the end, at an error or at the cap."""
        if self.error is not None or self.capped:
            return b""
        want = CHUNK if size is None or size < 0 else size
        if self.cap is not None:
            want = min(want, self.cap - self.produced)
        out: list[bytes] = []
        try:
            while True:
                if want <= 0:
                    if self.cap is not None and self.produced >= self.cap and self._read(1):
                        self.capped = True  # one byte more than the cap exists
                    break
                data = self._read(want)
                if not data:
                    break
                out.append(data)
                self.produced += len(data)
                if size is not None and size >= 0:
                    break
                want = CHUNK if self.cap is None else min(CHUNK, self.cap - self.produced)
        except READ_ERRORS as exc:
            self.error = _describe(exc)
        return b"".join(out)

    def readall(self) -> bytes:
        return self.read(-1)

    def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)


class _Prefixed(io.RawIOBase):
    """``head`` then the rest of ``raw`` (the magic bytes read to tell the format, given back to the decompressor)."""

    def __init__(self, head: bytes, raw: IO[bytes]) -> None:
        super().__init__()
        self._head, self._raw = head, raw

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]
        if self._head:
            n = min(len(b), len(self._head))
            b[:n], self._head = self._head[:n], self._head[n:]
            return n
        data = self._raw.read(len(b))
        b[: len(data)] = data
        return len(data)


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


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


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


class DirTree:
    """A directory, level by level (names sorted), up to ``max_depth`` levels, links never followed."""

    archive = False

    def __init__(self, root: Path, max_depth: int) -> None:
        self.root, self.name, self.max_depth = root, root.name, max_depth
        self.problems: list[str] = []
        self.kind = "directory"

    def close(self) -> None:
        """Nothing to close (as an archive's tree has)."""

    def entries(self) -> Iterator[Entry]:
        level: list[tuple[Path, str]] = [(self.root, "")]
        depth = 0
        while level:
            nxt: list[tuple[Path, str]] = []
            for d, rel_d in level:
                try:
                    found = sorted(os.scandir(d), key=lambda e: e.name)
                except OSError as exc:
                    yield Entry(rel_d or ".", DIR, problem=f"cannot list the directory: {exc.strerror or exc}")
                    continue
                for e in found:
                    rel = f"{rel_d}/{printable(e.name)}" if rel_d else printable(e.name)
                    if e.is_symlink():
                        yield Entry(rel, LINK, problem="symbolic link: not followed")
                    elif e.is_dir(follow_symlinks=False):
                        if depth + 1 > self.max_depth:
                            yield Entry(rel, DIR, problem=f"deeper than {self.max_depth} directory levels: not read")
                        else:
                            nxt.append((Path(e.path), rel))
                    elif e.is_file(follow_symlinks=False):
                        yield Entry(rel, FILE, None, _dir_opener(e))
                    else:
                        yield Entry(rel, SPECIAL, problem="not a regular file")
            level = nxt
            depth += 1


def _dir_opener(e: os.DirEntry[str]) -> Callable[[], IO[bytes]]:
    return lambda: open(e.path, "rb")  # noqa: PTH123, SIM115 - the entry walked; the caller closes it


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
            self.tar = tarfile.open(fileobj=self.stream, mode="r|", bufsize=1 << 16)  # noqa: SIM115 - closed by close()
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
            rel, bad = safe_name(info.filename)
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

_ARCHIVE_SUFFIXES = (".tar.gz", ".tar.bz2", ".tar.xz", ".tgz", ".tbz2", ".tbz", ".txz", ".tar", ".zip")


def archive_stem(name: str) -> str:
    """An archive's name without its suffix (``job-7.tar.gz`` -> ``job-7``)."""
    return next((name[: -len(s)] for s in _ARCHIVE_SUFFIXES if name.endswith(s) and len(name) > len(s)), name)


def archive_kind(path: Path) -> tuple[str | None, str | None]:
    """``zip`` or ``tar`` when the file's content is one (by its bytes, whatever its name; a compressed tar's
    first block is decompressed to see its ``ustar`` magic; a first block of zeros is an empty tar), else None; and
    what broke the look, if anything."""
    with path.open("rb") as fh:
        head = fh.read(4)
        if head[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
            return "zip", None
        fh.seek(0)
        u = Unpacked(fh, tarfile.BLOCKSIZE)
        block = u.read(tarfile.BLOCKSIZE)
    if u.kind in {kind for _m, kind in _UNSUPPORTED}:
        raise ArchiveError(f"{u.kind} data {unsupported(u.kind or '')}")
    empty = len(block) == tarfile.BLOCKSIZE and not block.strip(b"\0")  # an empty tar: end-of-archive blocks only
    return ("tar" if block[257:262] == b"ustar" or empty else None), u.error


def open_tree(path: Path, stream_cap: int, max_members: int) -> TarTree | ZipTree | None:
    """The archive at ``path`` as a tree, or None when it is not an archive; :class:`ArchiveError` when it is
    one that cannot be opened (or is named as one, ``.tar.gz``, ``.zip``, ..., and is not)."""
    kind, error = archive_kind(path)
    if kind == "zip":
        return ZipTree(path, max_members)
    if kind == "tar":
        return TarTree(path, stream_cap, max_members)
    if archive_stem(path.name) != path.name:
        raise ArchiveError(f"unreadable archive: {error or 'its first block is not a tar header'}")
    return None


def with_nested(tree: Tree, stream_cap: int, max_members: int, max_inner_bytes: int) -> Iterator[Entry]:
    """The tree's entries, where an archive among its regular files (by its name: ``worker-0.tar.gz``, ``node.zip``)
    stands for its own entries, read in place one level deep (an archive in that one is an unknown file), each with
    ``group`` = the member's path without its suffix. An archive inside over ``max_inner_bytes`` as stored is not
    read (a core-dump tarball is not a node's logs; a zip inside is read into memory, as zips are read from their
    end); the archives inside share ``stream_cap`` (bytes of their uncompressed streams together). Their troubles
    go to the tree's ``problems``, prefixed with their path."""
    spent = 0
    for e in tree.entries():
        if e.what != FILE or e.open is None or archive_stem(e.rel) == e.rel:
            yield e
            continue
        try:
            with e.open() as fh:
                size = e.size if e.size is not None else os.fstat(fh.fileno()).st_size
                if size > max_inner_bytes:
                    yield Entry(e.rel, FILE, size, problem=f"archive inside, {size} bytes, over the "
                                f"{max_inner_bytes}-byte limit: not read")
                    continue
                inner = _inner_tree(fh, e.rel, stream_cap - spent, max_members)
                try:
                    for x in inner.entries():
                        yield Entry(x.rel, x.what, x.size, x.open, x.problem, x.unsafe, archive_stem(e.rel))
                finally:
                    tree.problems.extend(f"{e.rel}: {x}" for x in inner.problems)
                    spent += inner.stream.produced if isinstance(inner, TarTree) else 0
        except ArchiveError as exc:
            yield Entry(e.rel, FILE, e.size, problem=f"{exc}: not read")
        except READ_ERRORS as exc:
            yield Entry(e.rel, FILE, e.size, problem=f"cannot read: {exc}")


def _inner_tree(fh: IO[bytes], rel: str, stream_cap: int, max_members: int) -> TarTree | ZipTree:
    head = fh.read(4)
    if head in (b"PK\x03\x04", b"PK\x05\x06"):  # (its stored size is within the caller's limit)
        return ZipTree(Path(rel), max_members, io.BytesIO(head + fh.read()))
    if stream_cap <= 0:
        raise ArchiveError("the archives' uncompressed bytes are spent")
    return TarTree(Path(rel), stream_cap, max_members, io.BufferedReader(_Prefixed(head, fh)))


def common_top(rels: list[str]) -> str:
    """The one top-level folder every entry sits in (``bundle/``, as ``tar czf b.tgz bundle`` leaves), with its
    slash, else ``""``: the directory reader pointed at that folder sees the paths without it."""
    tops = {r.split("/", 1)[0] for r in rels}
    if len(tops) != 1 or not any("/" in r for r in rels):
        return ""
    top = tops.pop()
    return f"{top}/" if all(r == top or r.startswith(top + "/") for r in rels) else ""
