"""Byte streams of logs as collections leave them: told by their first bytes, decompressed as they are read.

- :class:`Unpacked`: a byte stream, decompressed when its first bytes are a gzip, bzip2 or xz header (the stdlib's
  ``gzip``/``bz2``/``lzma``, streamed), else passed through. Reading never raises: a truncated or corrupt stream ends
  where it broke, ``error`` says why; ``cap`` bounds the bytes given (``capped``: there were more).
- the formats told by their magic bytes (:func:`compression_of`, :func:`unsupported_of`), the errors the stdlib's
  readers raise on bad data (:data:`READ_ERRORS`) and the names of compressed files and archives
  (:func:`plain_name`, :func:`archive_stem`).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import re
import tarfile
import zipfile
import zlib
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import IO

from opsbrain.lazyre import lazy_compile

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


ROTATION = lazy_compile(r"(?:-\d{8}(?:\d{2})?|\.\d{1,3})$")
"""logrotate's marks: a date (``dateext``, ``-YYYYMMDD[HH]``) or a number (``.1``)."""
_ROTATED_LOG = lazy_compile(r"(\.log)" + ROTATION.pattern)


def log_name(name: str) -> str:
    """The name a log was written under: without its compression suffix (:func:`plain_name`) and a rotation mark
    after ``.log`` (``plog-903_20250619092715212.log.1.gz`` -> ``plog-903_20250619092715212.log``: logrotate or a
    copy script's rotation of a file whose name the readers know)."""
    return _ROTATED_LOG.sub(r"\1", plain_name(name))


_NOT_LOG_SUFFIXES = frozenset((
    ".md", ".rst", ".adoc", ".py", ".pyi", ".sh", ".bash", ".zsh", ".c", ".cc", ".cpp", ".cxx", ".h", ".hpp", ".java",
    ".go", ".rs", ".js", ".ts", ".css", ".html", ".htm", ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".svg", ".ico",
    ".pdf", ".doc", ".docx", ".xls", ".xlsx", ".ppt", ".pptx", ".whl", ".so", ".pyc"))
_NOT_LOG_NAMES = lazy_compile(r"(?:README|LICEN[CS]E|COPYING|NOTICE|AUTHORS|CHANGELOG|CONTRIBUTING)"
                            r"(?:\.(?:md|markdown|rst|txt|adoc))?", re.I)  # notice.log is a log


def not_a_log(name: str) -> bool:
    """Whether a file found in a directory is, by its name, documentation, source code or a picture rather than
    something a program logged (``README.md``, ``run.sh``, ``train.py``, ``topology.png``): ``--logs DIR`` skips it,
    as ``--bundle`` skips the files it does not know. A file given by name is read whatever it is called."""
    base = plain_name(name.rpartition("/")[2])
    return bool(_NOT_LOG_NAMES.fullmatch(base)) or PurePosixPath(base).suffix.lower() in _NOT_LOG_SUFFIXES


SIM_SIDECAR = ".sim.json"
"""Suffix of the file the twin writes beside each bundle with the simulation's ground truth (``<bundle>.sim.json``,
:func:`opsbrain.bundle.writer.sim_sidecar`, docs/bundles.md)."""
NOT_EVIDENCE = "the twin's ground truth beside a bundle it wrote (docs/bundles.md), not logs"


def ground_truth_sidecar(name: str) -> bool:
    """Whether a file found in a directory or archive is, by its name, the twin's ground-truth sidecar: what was
    injected is never evidence, so ``--logs DIR`` skips it (a file given by name is read whatever it is called)."""
    return name.rpartition("/")[2].endswith(SIM_SIDECAR)


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


_ARCHIVE_SUFFIXES = (".tar.gz", ".tar.bz2", ".tar.xz", ".tgz", ".tbz2", ".tbz", ".txz", ".tar", ".zip")


def archive_stem(name: str) -> str:
    """An archive's name without its suffix (``job-7.tar.gz`` -> ``job-7``)."""
    return next((name[: -len(s)] for s in _ARCHIVE_SUFFIXES if name.endswith(s) and len(name) > len(s)), name)


class AsOpened(io.RawIOBase):
    """A regular file's bytes up to the size it had when opened (a live log written faster than it is read would
    otherwise keep the read going, up to MAX_TOTAL_BYTES: review40). :attr:`grew` after the read: the bytes written
    since, not read."""

    def __init__(self, raw: IO[bytes], size: int) -> None:
        super().__init__()
        self._raw, self.size, self._left = raw, size, size

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> bytes:
        n = self._left if size is None or size < 0 else min(size, self._left)
        data = self._raw.read(n) if n > 0 else b""
        self._left -= len(data)
        return data

    def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.read(len(b))
        b[: len(data)] = data
        return len(data)

    def grew(self) -> int:
        """Bytes the file holds past the size it had when opened (0 when it did not grow)."""
        import os

        try:
            return max(0, os.fstat(self._raw.fileno()).st_size - self.size)
        except (OSError, ValueError):
            return 0
