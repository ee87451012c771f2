"""An input's bytes as decoded lines: a file, a stream, or an archive's members one by one, within the read's limits.

Input is streamed in chunks (bounded memory whatever the size), gzip/bzip2/xz streams decompressed as they are read
and tar/zip archives read member by member in place (:mod:`opsbrain.ingest.archive`): undecodable bytes are replaced,
runs of NULs read as line breaks, a line without end kept by its head, and every limit that stops a read (total
bytes, members, an archive inside one, a decompression bomb) is listed in the statistics, never silent. What becomes of
the lines is :class:`opsbrain.ingest.text.LineReader`'s (split from :mod:`opsbrain.ingest.text`, session 46).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Generator, Iterator
from dataclasses import asdict, dataclass, field
from itertools import chain
from pathlib import Path
from typing import IO, Any, cast

from opsbrain.ingest.archive import (
    FILE,
    READ_ERRORS,
    Unpacked,
    group_parts,
    misnamed,
    open_tree,
    with_nested,
)
from opsbrain.ingest.dirwalk import MAX_FILES, no_logs
from opsbrain.ingest.encoding import SAMPLE, decoded_lines, sniff
from opsbrain.ingest.parsers import MAX_LINE
from opsbrain.ingest.streams import NOT_EVIDENCE, AsOpened, ground_truth_sidecar, not_a_log
from opsbrain.ingest.surface import fill_holes

MAX_TOTAL_BYTES = 4 << 30
"""Bytes read from one input (all files of a directory together): far beyond any log bundle worth pasting; past it
the rest is not read, and the answer says so."""
MAX_MEMBERS = 100_000
"""Entries of one archive looked at (files, folders, links): MAX_FILES' files and their folders with room to spare;
a tar of millions of empty members stops here (the rest listed as not read)."""
MAX_INNER_BYTES = 64 << 20
"""An archive inside an archive, as stored: up to this size (as a bundle's ``max_file_bytes``; a zip inside is read
into memory, as zips are read from their end); a bigger one is listed as not read."""
READ_CHUNK = 1 << 20
MAX_EXPANSION = 200
"""Text read per byte of input as given (on disk, or from stdin), past :data:`EXPANSION_FLOOR`: a decompression bomb
stops here, the answer saying so. gzip -9 shrinks a real trace (reference/traces/infinitehbd/fault_trace.json) 18:1
and xz 22:1; DEFLATE's ceiling is 1032:1, so 200:1 leaves real logs ~10x room and cuts a bomb's work ~5x; without
it, a 4 MB .gz of short lines keeps a read parsing (~1.6 MB/s, this machine) until MAX_TOTAL_BYTES, most of an hour."""
EXPANSION_FLOOR = 64 << 20
"""Text read before :data:`MAX_EXPANSION` applies (as a bundle's ``max_file_bytes``): a small input is never judged."""


@dataclass
class TextStats:
    lines: int = 0
    blank_lines: int = 0  # lines of white space only (counted in ``lines``): no text to read
    bytes: int = 0
    files: int = 0
    decompressed: int = 0  # files (or members) that were gzip, bzip2 or xz streams
    lines_cut: int = 0
    signals: int = 0
    binary_lines: int = 0  # lines of binary content (surface.looks_binary): counted, not read
    not_read: list[str] = field(default_factory=list)  # what was left out, and why (never silent)
    notes: list[str] = field(default_factory=list)  # how an input was read when not as its name says
    symptoms: list[str] = field(default_factory=list)
    """What the input shows that gives no signal and names no fault class: an exporter page's node health summary
    beyond its chips' series (:func:`opsbrain.ingest.exporterpage.node_health_found`); an answer leads with it where
    it found nothing else (:mod:`opsbrain.diagnosis.symptoms`)."""

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["not_read"] = self.not_read[:20] + ([f"... {len(self.not_read) - 20} more"] if len(self.not_read) > 20
                                              else [])
        return d


def _chunks(stream: IO[bytes] | Unpacked, stats: TextStats, given: Callable[[], int]) -> Iterator[bytes]:
    """The stream's bytes in chunks, within MAX_TOTAL_BYTES and MAX_EXPANSION times the ``given()`` bytes of input
    (past EXPANSION_FLOOR); where a limit stops the read, the answer's not-read list says so."""
    while True:
        budget = MAX_TOTAL_BYTES - stats.bytes
        if budget <= 0:
            stats.not_read.append(f"input beyond {MAX_TOTAL_BYTES} bytes")
            return
        expands = max(EXPANSION_FLOOR, MAX_EXPANSION * given()) - stats.bytes
        if expands <= 0:
            stats.not_read.append(f"input expands past {MAX_EXPANSION}:1 its {given()} bytes as given (a "
                                  f"decompression bomb?): the rest not read after {stats.bytes} bytes of text")
            return
        chunk = stream.read(min(READ_CHUNK, budget, expands))
        if not chunk:
            return
        stats.bytes += len(chunk)
        yield chunk


def lines_of(stream: IO[bytes] | Unpacked, stats: TextStats, given: Callable[[], int],
              label: str | None = None) -> Iterator[str]:
    """Decoded lines of a byte stream, read in chunks (a 50 MB file never sits in memory whole): UTF-8, or the
    encoding its first bytes show (:mod:`.encoding`: UTF-16 with a BOM, GB18030), said in the notes."""
    chunks = _chunks(stream, stats, given)
    first = next(chunks, b"")
    codec = sniff(first[:SAMPLE])
    if codec != "utf-8":
        why = "its byte-order mark" if codec.startswith("utf-16") else "its bytes are not UTF-8"
        stats.notes.append(f"{label or 'input'}: read as {codec} text ({why})")
        yield from decoded_lines(chain([first], chunks), codec, 16 * MAX_LINE)
        return
    rest, holes = b"", 0
    for chunk in chain([first], chunks):
        if b"\x00" in chunk:
            chunk, n = fill_holes(chunk)
            if n and not holes:
                stats.notes.append(f"{label or 'input'}: runs of NUL bytes (the writes a crash lost) read as line "
                                   "breaks")
            holes += n
        parts = (rest + chunk).split(b"\n")
        rest = parts.pop()
        if len(rest) > 16 * MAX_LINE:  # a line without end: keep its head, drop the middle
            rest = rest[: 4 * MAX_LINE]
        for p in parts:
            yield p.decode("utf-8", "replace")
    if rest:
        yield rest.decode("utf-8", "replace")


def read_members(path: Path, name: str, stats: TextStats, cap: int | None = None, level: int = 1
                 ) -> Iterator[tuple[str, str, Unpacked]]:
    """Each file of ``path`` as (label, path in the tree, its content decompressed, at most ``cap`` bytes): the file
    itself (label ``name``, path ""), or an archive's members one by one, in place (label ``name:member``; archives
    inside read up to two levels deep, their members' paths under the archive's path without its suffix), within
    MAX_FILES, MAX_MEMBERS and MAX_INNER_BYTES (``level`` 2: ``path`` is a file of a directory given, itself the
    first level, :func:`~opsbrain.ingest.archive.with_nested`). What is not read (and why) and how a file was read
    when not as its name says go to ``stats``; a stream's break is stated once the caller has read it. The one walk of
    ``diagnose --logs``, ``watch`` and ``sweep --source commands``. Raises ArchiveError for an archive that cannot
    be opened."""
    tree = open_tree(path, MAX_TOTAL_BYTES, MAX_MEMBERS)
    if tree is None:
        with path.open("rb") as fh:
            size = os.fstat(fh.fileno()).st_size  # (0: a /proc file, or empty: read as it comes)
            src = cast(IO[bytes], AsOpened(fh, size)) if size else fh
            u = yield from one_stream(src, name, "", stats, cap)
            if isinstance(src, AsOpened) and (grew := src.grew()):
                stats.not_read.append(f"{name}: {grew} bytes written after the read began (a live log)")
        if note := misnamed(path.name, u.kind):
            stats.notes.append(f"{name}: {note}")
        return
    over: list[str] = []  # files past MAX_FILES: one line for them all, so the archive's own limits show
    skipped: list[str] = []  # members that are by their names no logs (not_a_log): one line for them all
    try:
        for e in with_nested(tree, MAX_TOTAL_BYTES, MAX_MEMBERS, MAX_INNER_BYTES, level):
            label = ":".join([name, *group_parts(e.group), e.rel])
            if e.note is not None:
                stats.notes.append(f"{label}: {e.note}")
            if e.problem is not None:
                stats.not_read.append(f"{label}: {e.problem}")
            elif e.what == FILE and e.open is not None:
                if ground_truth_sidecar(e.rel):
                    stats.not_read.append(f"{label}: {NOT_EVIDENCE}")
                    continue
                if not_a_log(e.rel):
                    skipped.append(label)
                    continue
                if stats.files >= MAX_FILES:
                    over.append(label)
                    continue
                try:
                    with e.open() as fh:
                        yield from one_stream(fh, label, "/".join([*group_parts(e.group), e.rel]), stats, cap)
                except READ_ERRORS as exc:
                    stats.not_read.append(f"{label}: cannot read: {exc}")
        if skipped:
            stats.not_read.append(no_logs(skipped))
        if over:
            stats.not_read.append(f"{over[0]} and {len(over) - 1} files after it: more than {MAX_FILES} files, not "
                                  "read")
        stats.not_read.extend(f"{name}: {x}" for x in tree.problems)
    finally:
        tree.close()


def one_stream(fh: IO[bytes], label: str, rel: str, stats: TextStats, cap: int | None = None
         ) -> Generator[tuple[str, str, Unpacked], None, Unpacked]:
    """One stream, decompressed when compressed, given to the caller; then its break or cut stated."""
    u = Unpacked(fh, cap)
    yield label, rel, u
    stats.decompressed += u.kind is not None
    if u.error:
        stats.not_read.append(f"{label}: {u.kind or 'the'} stream {u.error} " + (
            f"after {u.produced} bytes: the lines before were read" if u.produced else "at its start: not read"))
    elif u.capped:
        stats.not_read.append(f"{label}: more than {cap} bytes (decompressed): the rest not read")
    return u
