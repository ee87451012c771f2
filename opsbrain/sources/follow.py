"""Follow a directory of logs as ``tail -F`` would: lines appended to known files, new files, truncated or
replaced files (read again from the start). Every complete line goes through the ingestion layer
(:func:`opsbrain.ingest.parse_line`); a partial last line waits for its end.

Layout: ``DIR/<host>/...`` names the host of lines that do not name one (the device plugin and device-os logs
print only the device index); files directly in ``DIR`` have no host.

A compressed file (gzip, bzip2, xz) or an archive (tar, compressed or not, zip), told by its first bytes, is not
appended to: it is read whole, through the same reader as ``diagnose --logs`` (:func:`opsbrain.ingest.text.
read_members`: members in place, archives inside one level deep, the same limits, stated), once its size has held
for one poll (a copy still being written is not read half), and again if it is replaced. One that appears while
the watch runs and is named as the rotation of a followed file (``messages-20250301.gz``, ``kern.log.1.gz`` beside
``messages``, ``kern.log``) holds lines already read as they were written: it is listed as not read, not read twice.

Files are found by the walk of ``diagnose --logs`` (:func:`opsbrain.ingest.dirwalk.log_files`: symbolic links
followed only with ``follow_links``, files that are by their names no logs, pseudo-file systems, the depth and file
limits), and what it leaves out is kept for the summary (:meth:`LogFollower.skipped`); lines are read by its rules
too (:mod:`opsbrain.sources.tailread`: encodings, cut lines, binary content, the heads a collection put before a
line), each with its own time stamp. Lines already in the files when the watch starts (``from_start``) or written
while a resumed watch was stopped (``resume``: the offsets of :meth:`LogFollower.state`) are *replayed*: the watch
groups them by their time stamps, not by when they were read.
"""

from __future__ import annotations

import hashlib
import os
import re
import tarfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from opsbrain.ingest import Signal, parse_line
from opsbrain.ingest.archive import READ_ERRORS, ArchiveError, plain_name, sniff_path
from opsbrain.ingest.derive import SectionPlacer
from opsbrain.ingest.dirwalk import log_files
from opsbrain.ingest.encoding import SAMPLE
from opsbrain.ingest.streams import ROTATION
from opsbrain.ingest.text import LineReader, TextStats
from opsbrain.ingest.where import with_host
from opsbrain.ingest.workers import NODE_LOG_DIRS, device_dir, is_wrapper
from opsbrain.ingest.wrappers import LOOK, plain_under, shared_head
from opsbrain.sources.tailread import TailText, line_stamp, split_lines, tell_codec

READ_BUDGET = 4 << 20
"""Bytes read from one file per poll (a file growing faster is caught up over the next polls)."""
HEAD_BYTES = 4096
"""The start of a file that tells a recreated file from the one followed (its first lines, their times)."""
SMALL_BYTES = 64 << 10
"""Files up to this size are fingerprinted whole, so that one rewritten in place at the same size is read again
(reason: a command's output rewritten by cron, ``npu-smi info`` of 16 NPUs, is a few KB; past this, a file is a log
that grows)."""


@dataclass(frozen=True)
class Arrival:
    """A signal as the watch gets it: ``sig.t`` is when it was read (wall clock), ``stamp`` its line's time stamp (or
    its file's last before it; None: none), ``replayed`` whether the line was already written when the watch
    started (``from_start``) or while a resumed watch was stopped."""

    sig: Signal
    stamp: float | None
    replayed: bool


@dataclass
class _Tail:
    inode: int
    offset: int
    line_no: int = 0
    packed: bool | None = None  # compressed or an archive (read whole), told by its first bytes once it has some
    size: int = -1  # a packed file's size at the last poll: read once it holds
    appeared: bool = False  # first seen while the watch ran, not there at its start (a rotated copy: lines read)
    place: SectionPlacer = field(default_factory=SectionPlacer)  # a health table's section, across polls
    mtime_ns: int = -1  # at the last poll that read it
    head: bytes = b""  # digest of its first head_n bytes (HEAD_BYTES, fewer while it is shorter): a file recreated
    head_n: int = 0  # under the same inode (deleted, written anew; copytruncate, then a burst) starts differently
    rotated_copy: bool = False  # a copy named as a followed file's rotation (its lines were read): never read
    whole: bytes | None = None  # digest of the whole file while it is at most SMALL_BYTES: a health table
    # rewritten in place at the same size (``npu-smi info > t.txt`` every minute) differs
    text: TailText = field(default_factory=TailText)  # how its bytes are read into lines
    column: re.Pattern[str] | None = None  # a collector's head on its every line (ingest.wrappers.shared_head)
    column_told: bool = False  # told from its first lines (read under plain() until then)
    first_rows: list[str] = field(default_factory=list)  # its first lines that are not blank, until it is told
    replay_to: int = 0  # its bytes before this offset were written before the watch (or while it was stopped)


class LogFollower:
    """``poll()`` returns the signals of the lines written since the last poll."""

    def __init__(self, root: str | Path, from_start: bool = False, follow_links: bool = False,
                 resume: dict[str, Any] | None = None) -> None:
        self.root = Path(root)
        self.follow_links = follow_links
        self.stats = TextStats()
        self.walk_not_read: list[str] = []  # what the latest walk left out (links, no logs, limits), and why
        self._tails: dict[str, _Tail] = {}
        self._by_inode: dict[int, tuple[str, _Tail]] = {}
        self.lines = 0
        self.resumed = 0  # files continued from a saved offset
        self._polled = not from_start  # a file seen from now on appeared while the watch ran (--from-start: after
        # the first poll, which finds the files already there)
        if resume is not None:
            self._resume(resume)
            self._polled = True
        elif not from_start:  # files already there are followed from their end, as tail -F does
            for path, rel in self._walk():
                try:
                    st = path.stat()
                except OSError:
                    continue
                tail = self._tails[rel] = _Tail(st.st_ino, st.st_size, mtime_ns=st.st_mtime_ns)
                _fingerprint(path, tail)

    def _walk(self) -> list[tuple[Path, str]]:
        """The files to follow (``diagnose --logs``' walk); what it leaves out replaces :attr:`walk_not_read`."""
        walk = TextStats()
        files = log_files(self.root, walk, self.follow_links)
        self.walk_not_read = walk.not_read
        return files

    def skipped(self) -> list[str]:
        """Everything not read, and why: the latest walk's, then what reading left out (each file once)."""
        return self.walk_not_read + self.stats.not_read

    def state(self) -> dict[str, Any]:
        """Each followed file's inode, the offset read to (a partial last line not counted) and the digest of its
        start: what :meth:`_resume` continues from."""
        files = {}
        for rel, t in self._tails.items():
            pending = len(t.text.rest) + len(t.text.rest_text.encode(t.text.codec or "utf-8", "replace"))
            files[rel] = {"inode": t.inode, "offset": max(0, t.offset - pending), "head": t.head.hex(),
                          "head_n": t.head_n, "line_no": t.line_no}
        return {"files": files}

    def _resume(self, saved: dict[str, Any]) -> None:
        """Continue each file from the offset in ``saved`` (:meth:`state`) when it is the same file (same inode,
        at least as long, the same start; under its name or renamed); a file that is not (new, recreated) is read
        from its start. What was written since the stop is replayed."""
        files = {k: v for k, v in (saved.get("files") or {}).items() if isinstance(v, dict)}
        by_inode = {v.get("inode"): v for v in files.values()}
        for path, rel in self._walk():
            try:
                st = path.stat()
            except OSError:
                continue
            old: Any = files.get(rel)
            if old is None or old.get("inode") != st.st_ino:
                old = by_inode.get(st.st_ino)
            try:
                offset, head_n, head = int(old["offset"]), int(old["head_n"]), bytes.fromhex(old["head"])
            except (TypeError, KeyError, ValueError):
                offset, head_n, head = -1, 0, b""
            if 0 <= offset <= st.st_size and (head_n == 0 or _digest(path, head_n) == head):
                tail = self._tails[rel] = _Tail(st.st_ino, offset, replay_to=st.st_size, mtime_ns=st.st_mtime_ns)
                line_no = old.get("line_no")
                tail.line_no = line_no if isinstance(line_no, int) and line_no >= 0 else 0
                _fingerprint(path, tail)
                self.resumed += 1
            else:  # new since the stop, or not the file that was followed: from its start
                self._tails[rel] = _Tail(st.st_ino, 0, appeared=True, replay_to=st.st_size)

    def poll(self, now: float) -> list[Signal]:
        """Signals of the new complete lines, time ``now``."""
        return [a.sig for a in self.poll_timed(now, now)]

    def poll_timed(self, now: float, wall: float) -> list[Arrival]:
        """The signals of the new complete lines, each at ``wall`` (when it was read), with its line's stamp."""
        out: list[Arrival] = []
        if not self.root.is_dir():
            gone = f"{self.root}: the directory is gone (removed while watched); its files are read if it comes back"
            if gone not in self.stats.not_read:
                self.stats.not_read.append(gone)
            return out
        self._by_inode = {t.inode: (rel, t) for rel, t in self._tails.items()}  # before any is replaced below
        seen: set[str] = set()
        for path, rel in self._walk():
            try:
                st = path.stat()
            except OSError:
                continue
            seen.add(rel)
            tail = self._tails.get(rel)
            if tail is not None and tail.rotated_copy:
                tail.offset, tail.mtime_ns = st.st_size, st.st_mtime_ns  # a rotated copy still being written
                continue
            if tail is None and (moved := self._renamed(path, rel, st)) is not None:
                tail = self._tails[rel] = moved  # logrotate's rename (``messages`` -> ``messages.1``): read on
            elif (tail is None or tail.inode != st.st_ino or st.st_size < tail.offset or self._rewritten(path, tail, st)
                  or (tail.text.page_file and st.st_mtime_ns != tail.mtime_ns)):
                # a metrics page changed: written anew (a page's scrape, or log text in its place; session 42)
                tail = self._tails[rel] = _Tail(st.st_ino, 0, appeared=self._polled,
                                                replay_to=0 if self._polled else st.st_size)
            if st.st_size == tail.offset:
                tail.mtime_ns = st.st_mtime_ns
                continue
            if tail.appeared and tail.offset == 0 and tail.packed is not True and (of := self._rotation_of(rel)):
                tail.offset, tail.mtime_ns = st.st_size, st.st_mtime_ns  # copytruncate's copy: lines read already
                tail.rotated_copy = True  # and it may still be growing: never read
                self.stats.not_read.append(f"{rel}: a rotated copy of {of}, whose lines were read as they were "
                                           "written: not read again")
                continue
            if tail.packed is None:
                tail.packed = _packed(path)
            if tail.packed:
                out += self._read_packed(path, rel, tail, st.st_size, wall)
                continue
            out += self._read_appended(path, rel, tail, st.st_size, wall)
            tail.mtime_ns = st.st_mtime_ns
            _fingerprint(path, tail)
        for gone in self._tails.keys() - seen:  # deleted (or renamed, adopted above): a later file that reuses its
            del self._tails[gone]  # inode is a new file
        self._polled = True
        self.stats.lines = self.lines
        return out

    def _read_appended(self, path: Path, rel: str, tail: _Tail, size: int, wall: float) -> list[Arrival]:
        """The complete lines appended to a plain file since the last poll (those written before the watch, or
        while it was stopped, in reads of their own: replayed)."""
        out: list[Arrival] = []
        replayed = tail.offset < tail.replay_to
        end = min(size, tail.replay_to) if replayed else size
        text = tail.text
        try:
            with path.open("rb") as fh:
                head = fh.read(SAMPLE) if text.codec is None and tail.offset else b""
                fh.seek(tail.offset)
                data = fh.read(min(READ_BUDGET, end - tail.offset))
        except OSError as exc:
            note = f"{rel}: {exc.strerror or exc}"
            if note not in self.stats.not_read:  # retried each poll; named once
                self.stats.not_read.append(note)
            return out
        if text.codec is None:
            tell_codec(text, head or data, rel, self.stats)
        tail.offset += len(data)
        self.stats.bytes += len(data)
        host, device = host_dir(rel), device_dir(rel)
        lines = split_lines(text, data, rel, self.stats)
        tail.line_no += text.page_lines  # a metrics page's lines, passed over
        if not tail.column_told:
            # a collector's head on every line (ingest.wrappers), told once from its first lines, gathered over the
            # polls until there are LOOK of them (a file written a line or two a poll: review60)
            tail.first_rows += [x for x in lines if x is not None and x.strip()][:LOOK - len(tail.first_rows)]
            if len(tail.first_rows) >= LOOK:
                tail.column, tail.column_told, tail.first_rows = shared_head(tail.first_rows), True, []
        for raw in lines:
            tail.line_no += 1
            self.lines += 1
            if raw is None:  # binary content: counted
                continue
            line, prefix = plain_under(raw, tail.column)
            stamp = line_stamp(text, line, prefix, wall)
            for s in parse_line(line, wall, head=prefix, file_device=device):
                if (placed := tail.place(s)) is not None:
                    out.append(Arrival(_placed(placed, host, rel, tail.line_no), stamp, replayed))
        return out

    def _read_packed(self, path: Path, rel: str, tail: _Tail, size: int, wall: float) -> list[Arrival]:
        """A compressed file or archive, whole, once its size held since the last poll; its signals at ``wall``."""
        if size != tail.size:  # new or still growing: wait a poll
            tail.size = size
            return []
        tail.offset = size
        if tail.appeared and (of := self._rotation_of(rel)) is not None:
            self.stats.not_read.append(f"{rel}: a rotated copy of {of}, whose lines were read as they were written: "
                                       "not read again")
            return []
        reader = LineReader()
        try:
            reader.feed_path(path, rel, level=2)
        except (ArchiveError, *READ_ERRORS) as exc:
            self.stats.not_read.append(f"{rel}: {exc}: not read")
            return []
        st = reader.stats
        self.lines += st.lines
        for key in ("bytes", "decompressed", "lines_cut", "binary_lines"):
            setattr(self.stats, key, getattr(self.stats, key) + getattr(st, key))
        self.stats.not_read += st.not_read
        self.stats.notes += st.notes
        host = host_dir(rel)
        replayed = tail.replay_to >= size
        t0 = _reader_t0(reader, wall)
        return [Arrival(_placed(replace(s, t=wall), host, s.file or rel, s.line_no or 0),
                        t0 + s.t if t0 is not None else None, replayed) for s in reader.signals]

    def _renamed(self, path: Path, rel: str, st: os.stat_result) -> _Tail | None:
        """The tail of a followed file now found under the new name ``rel`` (same inode, its old name gone or
        holding another file, and the same start: a new file that reuses a deleted one's inode is none), else
        None."""
        inode = st.st_ino
        old, t = self._by_inode.get(inode, (rel, None))
        if t is None or old == rel or st.st_size < t.offset:
            return None
        if t.head_n and _digest(path, t.head_n) != t.head:
            return None
        try:
            if (self.root / old).stat().st_ino == inode:
                return None  # a hard link: both names are followed
        except OSError:
            pass
        return replace(t, appeared=False)

    @staticmethod
    def _rewritten(path: Path, tail: _Tail, st: os.stat_result) -> bool:
        """Whether a file whose inode and size allow appending was written anew since the last poll: changed
        (its modification time moved) and its start differs (recreated under a reused inode), or, a small one at
        the same size, its content differs (rewritten in place)."""
        if tail.mtime_ns < 0 or st.st_mtime_ns == tail.mtime_ns:
            return False
        if st.st_size == tail.offset and tail.whole is not None:
            return _digest(path, tail.offset) != tail.whole
        return tail.head_n > 0 and _digest(path, tail.head_n) != tail.head

    def _rotation_of(self, rel: str) -> str | None:
        """The followed plain file ``rel`` is a rotated copy of (same directory, the name without its compression
        suffix and rotation mark: ``-20250301``, ``.1``), else None."""
        base = ROTATION.sub("", plain_name(rel))
        t = self._tails.get(base)
        return base if base != rel and t is not None and t.packed is not True else None


NOT_HOSTS = NODE_LOG_DIRS
"""Directories of a node's own log tree (:data:`opsbrain.ingest.workers.NODE_LOG_DIRS`): a watch pointed at one node's
tree finds them first, and they name no host."""


def host_dir(rel: str) -> str | None:
    """The host a followed file's directory names: ``DIR/<host>/...``; None for a file directly in ``DIR`` or under a
    directory of a node's own log tree (:data:`NOT_HOSTS`, and the wrappers of :func:`is_wrapper`)."""
    head, sep, _ = rel.partition(os.sep)
    return head if sep and head.lower() not in NOT_HOSTS and not is_wrapper(head) else None


def _digest(path: Path, n: int) -> bytes | None:
    """A digest of the first ``n`` bytes of ``path`` (None when it cannot be read)."""
    try:
        with path.open("rb") as fh:
            return hashlib.blake2b(fh.read(n), digest_size=16).digest()
    except OSError:
        return None


def _fingerprint(path: Path, tail: _Tail) -> None:
    """Keep the digests :meth:`LogFollower._rewritten` compares, of what was read (up to ``tail.offset``): its first
    HEAD_BYTES (taken again only while the file is shorter), and the whole file while it is at most SMALL_BYTES."""
    n = min(tail.offset, HEAD_BYTES)
    if n != tail.head_n:
        tail.head, tail.head_n = _digest(path, n) or b"", n
    tail.whole = _digest(path, tail.offset) if tail.offset <= SMALL_BYTES else None


def _packed(path: Path) -> bool | None:
    """Whether the file is compressed or an archive, by its first bytes (None: empty yet, unreadable, or shorter
    than a tar header and holding a NUL: asked again at the next poll that finds it grown, its bytes read as text
    meanwhile)."""
    try:
        size = path.stat().st_size
        if size == 0:
            return None
        s = sniff_path(path)
        if s.kind is None and s.compression is None and size < tarfile.BLOCKSIZE:
            # a tar header is one 512-byte block (its ustar magic at offset 257): a shorter file holding a NUL (a
            # header being written: a name, then NUL padding) is told at a later poll; text holds none and is
            # followed at once
            with path.open("rb") as fh:
                if b"\0" in fh.read(size):
                    return None
    except ArchiveError:  # a format without a reader: the reader names it
        return True
    except OSError:
        return None
    return s.kind is not None or s.compression is not None


def _reader_t0(reader: LineReader, wall: float) -> float | None:
    """The time stamp a reader's signal times count from (its first stamp), None without one; yearless stamps
    (the reader's year 2000) moved to the year that puts them closest to ``wall``, not after tomorrow."""
    t0 = reader._t0  # noqa: SLF001 - the reader's own origin
    if t0 is None or reader._dated:  # noqa: SLF001
        return t0
    from datetime import datetime

    at, now = datetime.fromtimestamp(t0), datetime.fromtimestamp(wall)
    for year in (now.year, now.year - 1):
        try:
            moved = at.replace(year=year).timestamp()
        except ValueError:  # 29 February
            continue
        if moved <= wall + 86400:
            return moved
    return t0


def _placed(s: Signal, host: str | None, file: str, line_no: int) -> Signal:
    """The signal with its file and line, and the directory's host for a component that names no node."""
    if host:  # the component below the directory's host; the host the line names, where it names one
        placed = with_host(s, host)
        s = placed if s.host is None else replace(s, component=placed.component)
    return replace(s, file=file, line_no=line_no)
