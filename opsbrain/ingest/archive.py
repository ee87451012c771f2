"""Compressed logs and archives, read in place: which kind a file is, opened as a tree, archives inside read in
their place.

The parts: byte streams told by their first bytes and decompressed as read (:mod:`opsbrain.ingest.streams`), and
the trees of named byte streams a directory, a tar or a zip is (:mod:`opsbrain.ingest.trees`); this module tells an
archive by its content (:func:`archive_kind`), opens it (:func:`open_tree`) and reads the archives inside one
(:func:`with_nested`). The names of both parts are re-exported here, the one import of the readers.
"""

from __future__ import annotations

import io
import os
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from opsbrain.ingest.streams import (
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
           "Entry", "TarTree", "Tree", "Unpacked", "ZipTree", "archive_kind", "archive_stem", "common_top",
           "compression_of", "open_tree", "plain_name", "printable", "safe_name", "unsupported", "unsupported_of",
           "with_nested", "zip_entries"]


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
