"""Compressed logs and archives, read in place: which kind a file is, opened as a tree, archives inside read in
their place.

The parts: byte streams told by their first bytes and decompressed as read (:mod:`opsbrain.ingest.streams`), and
the trees of named byte streams a directory, a tar or a zip is (:mod:`opsbrain.ingest.trees`); this module tells an
archive by its content (:func:`sniff`), opens it (:func:`open_tree`) and reads the archives inside one
(:func:`with_nested`). The names of both parts are re-exported here, the one import of the readers.
"""

from __future__ import annotations

import io
import os
import tarfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, cast

from opsbrain.ingest.streams import (
    _MAGIC,
    _UNSUPPORTED,
    CHUNK,
    COMPRESSED_SUFFIXES,
    READ_ERRORS,
    ArchiveError,
    Unpacked,
    _Prefixed,
    archive_stem,
    compression_of,
    plain_name,
    unsupported,
    unsupported_of,
)
from opsbrain.ingest.trees import (
    DIR,
    FILE,
    LINK,
    SPECIAL,
    DirTree,
    Entry,
    TarTree,
    Tree,
    ZipTree,
    printable,
    safe_name,
    zip_entries,
)

__all__ = ["CHUNK", "COMPRESSED_SUFFIXES", "DIR", "FILE", "LINK", "READ_ERRORS", "SPECIAL", "ArchiveError", "DirTree",
           "Entry", "TarTree", "Tree", "Unpacked", "ZipTree", "archive_stem", "common_top",
           "compression_of", "open_tree", "plain_name", "printable", "safe_name", "unsupported", "unsupported_of",
           "with_nested", "zip_entries", "MAX_NESTING", "NEST", "group_parts"]


@dataclass(frozen=True)
class Sniffed:
    """What a stream's first bytes say: ``zip``, ``tar`` or None (``kind``); the compression around it (gzip, bzip2,
    xz, or a format without a reader, :func:`~opsbrain.ingest.streams.unsupported_of`); what broke the look; and
    whether its first (decompressed) block reads as text (no NUL byte: a tar header, an executable or a core dump
    holds many)."""

    kind: str | None
    compression: str | None
    error: str | None
    text: bool

    @property
    def compressed_text(self) -> bool:
        """One whole compressed stream of text (``gzip -c app.log > app.tgz``): readable as the text it holds."""
        return self.kind is None and self.compression in _READABLE and self.error is None and self.text


_READABLE = frozenset(kind for _m, kind in _MAGIC)


SNIFF_INPUT = 2 << 20
"""Bytes of a stream :func:`sniff` reads at most to find its first tar block: a compressed stream gives its first
bytes within its first bzip2 block (at most 900 kB of text, a little more for bytes that do not compress); one that
gives none by then (a gzip header's name or comment that never ends, empty gzip members) reads as truncated."""


def sniff(fh: IO[bytes]) -> Sniffed:
    """The kind of the stream ``fh`` by its bytes, whatever its name (reads at most its first tar block once
    decompressed, from at most :data:`SNIFF_INPUT` bytes; the caller replays them, :class:`Replay`): a zip's local or
    end header, a ``ustar`` magic in the first block (a compressed tar's once decompressed), or a first block of
    zeros (an empty tar)."""
    u = Unpacked(cast(IO[bytes], _Head(fh, SNIFF_INPUT)), tarfile.BLOCKSIZE)
    block = b""
    while len(block) < tarfile.BLOCKSIZE and (got := u.read(tarfile.BLOCKSIZE - len(block))):
        block += got
    if u.kind is None and block[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return Sniffed("zip", None, None, False)
    empty = len(block) == tarfile.BLOCKSIZE and not block.strip(b"\0")  # an empty tar: end-of-archive blocks only
    tar = block[257:262] == b"ustar" or empty
    return Sniffed("tar" if tar else None, u.kind, u.error, b"\0" not in block)


class _Head(io.RawIOBase):
    """The first ``left`` bytes of ``raw``, then the end."""

    def __init__(self, raw: IO[bytes], left: int) -> None:
        super().__init__()
        self._raw, self._left = raw, left

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self._raw.read(min(len(b), self._left)) if self._left > 0 else b""
        self._left -= len(data)
        b[: len(data)] = data
        return len(data)


class Replay(io.RawIOBase):
    """A stream whose bytes read so far are kept, to be read again from the start (:meth:`again`): an archive's
    member in a tar read as a stream cannot be opened twice, so the bytes :func:`sniff` took are given back."""

    def __init__(self, raw: IO[bytes]) -> None:
        super().__init__()
        self._raw, self.taken = raw, bytearray()

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self._raw.read(len(b))
        self.taken += data
        b[: len(data)] = data
        return len(data)

    def again(self) -> IO[bytes]:
        """The whole stream from its first byte: the bytes taken, then the rest of ``raw`` (once)."""
        return io.BufferedReader(_Prefixed(bytes(self.taken), self._raw))


def sniff_path(path: Path) -> Sniffed:
    """:func:`sniff` of the file at ``path``; :class:`ArchiveError` for a format without a reader (zstd, ...)."""
    with path.open("rb") as fh:
        s = sniff(fh)
    if s.compression in {kind for _m, kind in _UNSUPPORTED}:
        raise ArchiveError(f"{s.compression} data {unsupported(s.compression or '')}")
    return s


def open_tree(path: Path, stream_cap: int, max_members: int) -> TarTree | ZipTree | None:
    """The archive at ``path`` as a tree, or None when it is not an archive (a file named as an archive that is
    one compressed stream of text, :attr:`Sniffed.compressed_text`, is not one: :func:`misnamed` says so);
    :class:`ArchiveError` when it is one that cannot be opened, or is named as one and is neither."""
    s = sniff_path(path)
    if s.kind == "zip":
        return ZipTree(path, max_members)
    if s.kind == "tar" and not (s.compression is None and _text_after_zeros(path)):
        return TarTree(path, stream_cap, max_members)
    if archive_stem(path.name) != path.name and not s.compressed_text:
        raise ArchiveError(f"unreadable archive: {s.error or 'its first block is not a tar header'}")
    return None


def _text_after_zeros(path: Path, look: int = 64 << 20) -> bool:
    """Whether a file whose first tar block is zeros (an empty tar's end-of-archive blocks) holds anything but zeros
    within its first ``look`` bytes: then it is no tar but a text file whose head a crash lost (a run of NULs where
    its last writes were, :data:`opsbrain.ingest.surface.NUL_HOLE`)."""
    with path.open("rb") as fh:
        if fh.read(tarfile.BLOCKSIZE).strip(b"\0"):
            return False  # (a ustar header: a tar)
        while look > 0 and (chunk := fh.read(min(1 << 20, look))):
            if chunk.strip(b"\0"):
                return True
            look -= len(chunk)
    return False


def misnamed(name: str, compression: str | None) -> str | None:
    """The note for a file named as an archive (``.tgz``, ``.tar.gz``) that was read as the one compressed text it
    holds, else None."""
    if archive_stem(name) == name or compression is None:
        return None
    return f"named as an archive, its content is one {compression} stream of text (no tar): read as that text"


def _candidate(rel: str) -> bool:
    """A member whose name says archive or compressed (``node1.tar.gz``, ``node1-logs.gz``, ``logs.zip``): the
    members whose first bytes are looked at (an archive named ``messages`` is not looked for)."""
    return archive_stem(rel) != rel or plain_name(rel) != rel


MAX_NESTING = 2
"""Levels of archives read inside a tree: per-node archives gathered into one (1), that one put in a bundle
directory or gathered again as operators re-pack collections (2). An archive deeper is listed, not read."""

NEST = "//"
"""Between the groups of an entry two levels down (``node3//deep``: ``deep.tar.gz`` inside ``node3.tar.gz``):
:func:`safe_name` leaves no empty part in a name, so the mark is never part of one."""


def group_parts(group: str) -> list[str]:
    """An entry's group as the path of each archive inside the one before (``["node3", "deep"]``)."""
    return group.split(NEST) if group else []


class _Budget:
    """The bytes of uncompressed tar streams the archives inside share: those done, and those open now."""

    def __init__(self, cap: int) -> None:
        self.cap, self.spent = cap, 0
        self.open: list[TarTree] = []

    def left(self) -> int:
        return self.cap - self.spent - sum(t.stream.produced for t in self.open)


def with_nested(tree: Tree, stream_cap: int, max_members: int, max_inner_bytes: int, level: int = 1
                ) -> Iterator[Entry]:
    """The tree's entries, where an archive among its regular files (told by its content, among the members named
    as archives or compressed: ``worker-0.tar.gz``, ``node.zip``, ``node1-logs.gz`` holding a tar) stands for its
    own entries, read in place up to :data:`MAX_NESTING` levels deep, each with ``group`` = the member's path
    without its suffix (two levels down: both paths, joined by :data:`NEST`); an archive deeper is listed, not read.
    A member named as an archive that holds one compressed text is read as that text (``note`` says so). An archive
    inside over ``max_inner_bytes`` as stored is not read (a core-dump tarball is not a node's logs; a zip inside is
    read into memory, as zips are read from their end); the archives inside share ``stream_cap`` (bytes of their
    uncompressed streams together), each walks at most ``max_members`` entries, and their members' paths are made
    safe as the tree's are. An archive read two levels down is stated, with those limits, in a directory entry's
    ``note`` before its entries. Their troubles go to the tree's ``problems``, prefixed with their path. A member's
    ``open`` works once, while the walk stands on it. ``level``: how deep the tree's entries are in the input (2:
    the tree is an archive in a directory given, itself the first level)."""
    limits = _Limits(max_members, max_inner_bytes, _Budget(stream_cap))
    yield from _nested(tree.entries(), tree.problems, "", level, limits)


@dataclass(frozen=True)
class _Limits:
    max_members: int
    max_inner_bytes: int
    budget: _Budget

    def said(self, kind: str) -> str:
        return (f"{kind} archive two levels deep, read in place within the limits of the archives inside: "
                f"{self.budget.cap} bytes of their uncompressed streams together, {self.max_members} entries each, "
                f"{self.max_inner_bytes} bytes each as stored; absolute or '..' paths and links not read")


def _nested(entries: Iterator[Entry], problems: list[str], group: str, depth: int, lim: _Limits
            ) -> Iterator[Entry]:
    """``entries`` (of the tree itself, ``group`` "", or of an archive inside, ``depth`` levels down), an archive
    among them read in its place while ``depth`` is within :data:`MAX_NESTING`."""
    for x in entries:
        if x.what != FILE or x.open is None or x.problem is not None or not _candidate(x.rel):
            yield x if not group else Entry(x.rel, x.what, x.size, x.open, x.problem, x.unsafe, group, x.note)
            continue
        try:
            with x.open() as fh:
                size = x.size if x.size is not None else os.fstat(fh.fileno()).st_size
                rec = Replay(fh)
                s = sniff(cast(IO[bytes], rec))
                if s.kind is None:
                    if archive_stem(x.rel) != x.rel and not s.compressed_text:
                        raise ArchiveError(f"unreadable archive: {s.error or 'its first block is not a tar header'}")
                    yield Entry(x.rel, x.what, size, _given(rec.again()), None, x.unsafe, group,
                                misnamed(x.rel, s.compression))
                    continue
                if depth > MAX_NESTING:
                    yield Entry(x.rel, FILE, x.size, problem=f"{s.kind} archive three levels deep (archives are read "
                                f"up to two levels inside the input; the archive holding it, given by itself, is "
                                f"read with it): listed, not read", group=group)
                    continue
                if size > lim.max_inner_bytes:
                    yield Entry(x.rel, FILE, size, problem=f"archive inside, {size} bytes, over the "
                                f"{lim.max_inner_bytes}-byte limit: not read", group=group)
                    continue
                yield from _inner(x.rel, s.kind, rec, problems, group, depth, lim)
        except ArchiveError as exc:
            yield Entry(x.rel, FILE, x.size, problem=f"{exc}: not read", group=group)
        except READ_ERRORS as exc:
            yield Entry(x.rel, FILE, x.size, problem=f"cannot read: {exc}", group=group)


def _inner(rel: str, kind: str, rec: Replay, problems: list[str], group: str, depth: int, lim: _Limits
           ) -> Iterator[Entry]:
    """The entries of the archive inside at ``rel`` (of kind ``kind``, its first bytes in ``rec``)."""
    inner = _inner_tree(kind, rec.again(), rel, lim.budget.left(), lim.max_members)
    stem = archive_stem(rel) if archive_stem(rel) != rel else plain_name(rel)
    sub = f"{group}{NEST}{stem}" if group else stem
    if depth == MAX_NESTING:
        yield Entry(rel, DIR, group=group, note=lim.said(inner.kind))
    tar = inner if isinstance(inner, TarTree) else None
    if tar is not None:
        lim.budget.open.append(tar)
    try:
        yield from _nested(inner.entries(), problems, sub, depth + 1, lim)
    finally:
        problems.extend(f"{':'.join([*group_parts(group), rel])}: {p}" for p in inner.problems)
        if tar is not None:
            lim.budget.open.remove(tar)
            lim.budget.spent += tar.stream.produced


def _given(stream: IO[bytes]) -> Callable[[], IO[bytes]]:
    return lambda: stream


def _inner_tree(kind: str, fh: IO[bytes], rel: str, stream_cap: int, max_members: int) -> TarTree | ZipTree:
    if kind == "zip":  # (its stored size is within the caller's limit)
        return ZipTree(Path(rel), max_members, io.BytesIO(fh.read()))
    if stream_cap <= 0:
        raise ArchiveError("the archives' uncompressed bytes are spent")
    return TarTree(Path(rel), stream_cap, max_members, fh)


def common_top(rels: list[str]) -> str:
    """The one top-level folder every entry sits in (``bundle/``, as ``tar czf b.tgz bundle`` leaves), with its
    slash, else ``""``: the directory reader pointed at that folder sees the paths without it."""
    tops = {r.split("/", 1)[0] for r in rels}
    if len(tops) != 1 or not any("/" in r for r in rels):
        return ""
    top = tops.pop()
    return f"{top}/" if all(r == top or r.startswith(top + "/") for r in rels) else ""
