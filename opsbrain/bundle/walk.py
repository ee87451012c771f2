"""The walk of a bundle (a directory or an archive, :mod:`opsbrain.ingest.archive`'s trees: one code path): files
recognised by name (a compressed file by the name of its content, ``messages-20250301.gz`` as ``messages``) and
decompressed, refused ones listed with a reason, and each file's lines cleaned of junk (control bytes, undecodable
characters) before the reader sees them.

What a collection put around a program's own lines (ANSI colours, CRI container heads, ``kubectl logs --prefix``, a
collector's stamp or ``host:``) is taken off each line as from pasted text (:func:`opsbrain.ingest.surface.plain`),
in the files where one scan (:func:`~opsbrain.ingest.surface.may_carry`) says a line can carry one; the prefix taken
off is kept, for its time stamp to stand in for a line without one."""

from __future__ import annotations

import codecs
import os
import re
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from itertools import chain
from typing import NamedTuple

from opsbrain.bundle import layout as L
from opsbrain.bundle.junkbytes import junk_free as _junk_free
from opsbrain.bundle.regroup import fold_nested_workers, root_consoles, split_env_checks
from opsbrain.ingest import MAX_LINE, asys
from opsbrain.ingest.archive import (
    CHUNK,
    FILE,
    NEST,
    READ_ERRORS,
    Entry,
    TarTree,
    Tree,
    Unpacked,
    ZipTree,
    common_top,
    group_parts,
    with_nested,
)
from opsbrain.ingest.encoding import SAMPLE, decode, sniff
from opsbrain.ingest.plainscan import plain_all
from opsbrain.ingest.recovered import may_quiet
from opsbrain.ingest.repeats import Folds, fold_bytes
from opsbrain.ingest.streams import log_name
from opsbrain.ingest.surface import fill_holes, junk_count, may_carry
from opsbrain.ingest.transceivers import may_hold
from opsbrain.ingest.workers import archive_name
from opsbrain.ingest.wrappers import SAMPLE as HEAD_SAMPLE
from opsbrain.ingest.wrappers import may_have_head, plain_lines, shared_head


@dataclass
class _File:
    """A file of the bundle as read: its lines, held as a list or (past the read's ``hold_text_bytes``) packed,
    ``"\\n"``-joined and zlib-compressed, until the reader takes them (:attr:`lines`) and lets them go
    (:meth:`release`): one packed file's lines in memory at a time."""

    rel: str
    kind: L.FileKind
    held: list[str] | None = None
    packed: bytes | None = None
    plain: bool = False  # no junk character and no line over MAX_LINE: every non-blank line is read as it is
    prefixes: list[str] | None = None  # per line, what plain() took off its head ("": nothing); None: nothing at all
    folds: Folds | None = None  # the runs of repeated lines folded at reading (repeats.fold_bytes); None: none
    index: int = -1  # its place among the bundle's files (the reader's: records of the lines it keeps no record of)
    ascii: bool = False  # packed, and every byte of it ASCII (known as it was packed)
    optical: bool = False  # its bytes may hold an optical module's answer (ingest.transceivers.may_hold)
    recovers: bool = False  # its bytes may hold lines read as no failure of their own: a failure its program recovered
    # from, a traceback carrying a kill's report (ingest.recovered.may_quiet)

    def line_no(self, k: int) -> int:
        """Line ``k`` of :attr:`lines` (1-based): its number in the file as written."""
        return self.folds.line_no(k) if self.folds else k

    def copies(self, k: int) -> int:
        """How many lines of the file as written line ``k`` of :attr:`lines` stands for (a folded run's length)."""
        return self.folds.copies(k) if self.folds else 1

    def numbers(self) -> Iterator[int] | None:
        """The numbers in the file as written of :attr:`lines`, in order; None when they are 1, 2, ... (no fold)."""
        if not self.folds:
            return None
        return map(self.folds.line_no, range(1, self._count() + 1))

    def _count(self) -> int:
        """How many lines :attr:`lines` holds (a packed file's counted from its text, a chunk at a time)."""
        if self.held is not None or self.packed is None:
            return len(self.lines)
        return sum(1 for _ in self._unpacked())

    @property
    def lines(self) -> list[str]:
        if self.held is None:
            self.held = list(self._unpacked()) if self.packed is not None else [""]
        return self.held

    def _unpacked(self) -> Iterator[str]:
        """The packed text's lines, as ``zlib.decompress(packed).decode("utf-8", "replace").split("\\n")`` gives
        them, a chunk at a time: neither the whole text nor its bytes are ever held beside the lines (session 37: a
        50 MB plog's 50 MB of text and 67 MB of lines at once)."""
        z, text = zlib.decompressobj(), codecs.getincrementaldecoder("utf-8")("replace")
        left, rest = self.packed or b"", []  # rest: the pieces of a line not ended yet (a long one: many)
        while True:
            out = z.decompress(left, UNPACK_STEP)  # (at most UNPACK_STEP bytes of text: logs pack 7-20:1)
            left = z.unconsumed_tail
            if not out and not left:
                break
            parts = text.decode(out).split("\n")
            if len(parts) == 1:  # no line ends here: the piece is kept, not joined to the rest (review40: a 200 MB
                rest.append(parts[0])  # line was copied at each chunk, time quadratic in its length)
                continue
            rest.append(parts[0])
            parts[0] = "".join(rest)
            rest = [parts.pop()]
            yield from parts
        rest.append(text.decode(z.flush(), final=True))
        yield from "".join(rest).split("\n")

    def stream(self) -> Iterator[str]:
        """:attr:`lines` one at a time: a packed file's never all held (unpacked a chunk at a time)."""
        return self._unpacked() if self.held is None and self.packed is not None else iter(self.lines)

    def all_ascii(self) -> bool:
        """Whether every line is ASCII (a packed file: known from its bytes, its lines not made)."""
        return self.ascii or all(map(str.isascii, self.stream()))

    def block_readable(self) -> bool:
        """Whether no line holds a decimal digit beyond ASCII (:data:`opsbrain.bundle.stamps.WIDE_DIGIT`: its stamps
        can be read a block at a time, :func:`~opsbrain.bundle.stamps.block_scan`); one scan of the text, in C."""
        from itertools import islice

        from opsbrain.bundle.stamps import WIDE_DIGIT

        if self.ascii or self.all_ascii():
            return True
        lines = self.stream()  # a block of lines at a time: a packed file's lines are never all held (session 37)
        while block := list(islice(lines, READABLE_BLOCK)):
            if WIDE_DIGIT.search("\n".join(block)) is not None:
                return False
        return True

    def pick(self, wanted: Iterable[int]) -> dict[int, str]:
        """Lines ``k`` (1-based) of :attr:`lines`, by number, without making the list of a packed file's lines."""
        want = set(wanted)
        if self.held is not None or self.packed is None:
            return {k: self.lines[k - 1] for k in want}
        out: dict[int, str] = {}
        last = max(want, default=0)
        for k, line in enumerate(self._unpacked(), 1):
            if k in want:
                out[k] = line
            if k >= last:
                break
        return out

    def release(self) -> None:
        """Let the lines go when they can be had again (a packed file); a held file keeps them."""
        if self.packed is not None:
            self.held = None


class _Content(NamedTuple):
    """A file's text as the walk prepared it (:meth:`_Scan.prepare`); ``lines`` None: packed."""

    lines: list[str] | None
    packed: bytes | None
    plain: bool
    prefixes: list[str] | None
    folds: Folds | None = None
    ascii: bool = False  # packed, every byte ASCII
    optical: bool = False  # ingest.transceivers.may_hold of its bytes
    recovers: bool = False  # ingest.recovered.may_quiet of its bytes


PACK_LEVEL = 1
"""zlib's fastest level: ~7:1 on the padded bundle's logs (bench_bundle_memory.py), ~160 MB/s on this machine."""
UNPACK_STEP = 1 << 20
"""Bytes of text unpacked at a time: a chunk's text and lines beside those the reader keeps."""
READABLE_BLOCK = 4096
"""Lines scanned at once for a wide digit (:meth:`_File.block_readable`; review40b: all of a packed file's lines and
their joined text at once took 70 MB on a 400,000-line file, a block at a time ~9 MB)."""

_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 10, 13))
"""Bytes that make a file's head look binary (NUL and the C0 controls other than tab and line ends)."""
_JUNK = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ufffd]")
_LONG = re.compile(rf"^[^\n]{{{MAX_LINE + 1}}}", re.MULTILINE)
"""A line longer than MAX_LINE characters (as ``max(map(len, lines)) > MAX_LINE``, without the lines)."""
_HEAD_BYTES = 1 << 16


def _first_lines(data: bytes | bytearray) -> list[str]:
    """A file's first lines (of its first 64 KiB), as :func:`opsbrain.ingest.wrappers.shared_head` reads them; none
    where its first 2 KiB hold no head on a line (:func:`opsbrain.ingest.wrappers.may_have_head`: most files, whose
    64 KiB are then not decoded)."""
    if not may_have_head(bytes(data[:2048]).decode("utf-8", errors="replace").split("\n")):
        return []
    return bytes(data[:_HEAD_BYTES]).decode("utf-8", errors="replace").split("\n")[:HEAD_SAMPLE * 2]


_LONG_BYTES = re.compile(rb"^[^\n]{%d}" % (MAX_LINE + 1), re.MULTILINE)

UNKNOWN_CHECK_FILE = ("a file of environment_check the reader does not know (it reads the hccn_tool and npu-smi "
                      "answers of npu_info_*.txt): not read")
"""The note for such a file: a collection's check output is facts about the host, and one not read is said so in
the answer, not only among the skipped files (which the text answer cuts after ten, the performance tables first)."""


def _top(rels: list[str]) -> str:
    """An archive's one top-level folder to take off (``""``: none, or one the layout reads, an asys collection's
    folder among them)."""
    top = common_top(rels)
    return "" if top[:-1] in L.LAYOUT_DIRS or asys.OUTPUT_DIR.fullmatch(top[:-1]) else top


def _wrappers(rels: list[str]) -> int:
    """The directories every entry is under (``data/collect/.../nodes/`` around a collection): not counted in the
    depth limit, which is the collection's own (as :class:`opsbrain.ingest.trees.DirTree` walks a directory)."""
    dirs = [r.split("/")[:-1] for r in rels]
    n = 0
    while dirs and all(len(x) > n for x in dirs) and len({x[n] for x in dirs}) == 1:
        n += 1
    return n


def _name(names: dict[str, list[str]], group: str, rel: str) -> None:
    """``rel`` among the names of its archive (``group``), and that archive's stem among the names of the one
    holding it, up to the tree itself (``""``): each archive's top folder is found among its own names."""
    names.setdefault(group, []).append(rel)
    while group:
        outer, nest, stem = group.rpartition(NEST)
        names.setdefault(outer, []).append(stem if nest else group)
        group = outer


def _folded(u: Unpacked) -> tuple[bytes | bytearray, Folds | None]:
    """A file's bytes, its runs of repeated lines folded as they are read (:func:`~opsbrain.ingest.repeats.
    fold_bytes`, the rule ``--logs`` reads by: a plog of a million identical retries never held whole); a file whose
    first bytes are not UTF-8 (UTF-16, GB18030: its line ends are other bytes) is read whole, as it is, and folded
    once it is UTF-8 (:meth:`_Scan._read`)."""
    head = b""
    while len(head) < SAMPLE and (more := u.read(SAMPLE)):
        head += more
    if sniff(head[:SAMPLE]) != "utf-8":
        return head + u.read(), None
    return fold_bytes(chain([head], iter(partial(u.read, CHUNK), b"")))


class _Got(NamedTuple):
    """An entry walked: its raw name, why it is not read (None: it is, or it is unknown), its bytes, a note."""

    rel: str
    problem: str | None = None
    data: _Content | None = None  # None: not read (unknown, or refused); its lines None and packed None: binary
    note: str | None = None
    unsafe: bool = False  # an absolute or ``..`` name: listed as it is
    group: str = ""  # the archive inside the tree it comes from (Entry.group)


class _Scan:
    """Walking and reading a tree (a directory or an archive): files by kind, and what was skipped or refused."""

    def __init__(self, tree: Tree, p: L.BundleParams) -> None:
        self.tree = tree
        self.root = tree.path if isinstance(tree, TarTree | ZipTree) else tree.root
        self.name = tree.name  # the bundle's own name (the directory's, or the archive's top folder or stem)
        self.p = p
        self.files: list[_File] = []
        self.skipped: list[dict[str, str]] = []
        self.refused: list[dict[str, str]] = []
        self.limits: list[str] = []  # what a limit or a broken archive left out, in words
        self.malformed: Counter[str] = Counter()
        self.untimed: Counter[str] = Counter()
        self.consoles: list[str] = []  # files read as a console for want of a name the layout knows
        self.empty: list[str] = []  # files read with no text in them (0 bytes, or blank lines only; session 41)
        self.placed: Counter[str] = Counter()  # lines timed by the file's first stamp or placed (no stamp in it)
        self.cut: Counter[str] = Counter()
        self.bytes_read = 0
        self.decompressed = 0
        self.held = 0  # bytes of text held as lines (the rest packed: BundleParams.hold_text_bytes)

    def refuse(self, rel: str, reason: str) -> None:
        self.refused.append({"path": rel, "reason": reason})

    def walk(self) -> None:
        """Every entry of the tree: regular files whose name a kind of :func:`~opsbrain.bundle.layout.classify`
        knows are read (decompressed when compressed); an archive inside (``worker-0.tar.gz``) is read in its place,
        up to two levels deep (``repack.tar.gz`` holding ``worker-0.tar.gz``), as the folder ``worker-0/``. An
        archive's members are classified once every name is known: its one top-level folder is taken off first (as
        the directory reader would see that folder), unless the layout reads its name
        (:data:`~opsbrain.bundle.layout.LAYOUT_DIRS`)."""
        p = self.p
        got: list[_Got] = []
        names: dict[str, list[str]] = {"": []}  # per archive inside ("": the tree itself), for its top folder
        seen = 0
        notes: list[_Got] = []  # an archive read two levels down, with the limits it was read within
        for e in with_nested(self.tree, p.max_archive_bytes, p.max_members, p.max_file_bytes):
            if not e.unsafe:
                _name(names, e.group, e.rel)
            if e.what != FILE and e.note is not None:
                notes.append(_Got(e.rel, note=e.note, group=e.group))
            if e.problem is not None:
                got.append(_Got(e.rel, e.problem, unsafe=e.unsafe, group=e.group))
            elif e.what == FILE:
                seen += 1
                strip = self.tree.archive or e.group
                if seen > p.max_files:
                    got.append(_Got(e.rel, f"more than {p.max_files} files in the bundle: not read", group=e.group))
                elif not any(L.classify(self._as_named(log_name(r)))
                             for r in ((e.rel, e.rel.partition("/")[2]) if strip else (e.rel,))):
                    got.append(_Got(e.rel, group=e.group))
                else:
                    got.append(self._read(e))
        tops = {g: _top(rels) for g, rels in names.items() if g or self.tree.archive}
        if tops.get(""):  # (the archive's one top folder names it, unless a wrapper: workers.archive_name)
            self.name = archive_name(self.name, tops[""][:-1])
        self.limits.extend(f"{self._final(g, tops)}: {g.note}" for g in notes)
        wrappers = _wrappers([self._final(g, tops) for g in got if not g.unsafe])
        for g in got:
            rel = self._final(g, tops)
            if g.note:
                self.limits.append(f"{rel}: {g.note}")
            if g.problem is not None:
                self.refuse(rel, g.problem)
                continue
            kind = L.classify(self._as_named(log_name(rel)))
            if kind is None or g.data is None:
                self.skipped.append({"path": rel, "reason": "unknown file (not a source of facts.md §7)"})
                if "environment_check" in rel.split("/")[:-1] and g.problem is None:
                    self.limits.append(f"{rel}: {UNKNOWN_CHECK_FILE}")
            elif rel.count("/") - wrappers > p.max_depth:
                self.refuse(rel, f"deeper than {p.max_depth} directory levels: not read")
            else:
                self._add(rel, kind, g.data)
        root_consoles(self.files, self.consoles, self.skipped)
        fold_nested_workers(self.files)
        split_env_checks(self.files)
        self.limits.extend(self.tree.problems)
        if len(tops) > 0:  # the directory walk's order (level by level, names sorted), whatever the archives' order
            self.files.sort(key=lambda f: (f.rel.count("/"), f.rel.split("/")))

    def no_text(self) -> bool:
        """Whether the walk found files and nothing else, every one of them empty or white space only (session 34:
        such a bundle answered "no fault found in 0 lines", exit 0). Stops at the first line of text."""
        if not self.files or self.skipped or self.refused or self.limits:
            return False
        for f in self.files:
            blank = not any(ln.strip() for ln in f.stream())
            if not blank:
                return False
        return True

    def _as_named(self, rel: str) -> str:
        """``rel`` as the layout classifies it: below the root's own name when the root given is an asys collection's
        folder (``--bundle asys_output_<stamp>``: its ``health_result.txt`` is the collection's, not any file's)."""
        return f"{self.tree.name}/{rel}" if not self.tree.archive and asys.OUTPUT_DIR.fullmatch(self.tree.name) \
            else rel

    @staticmethod
    def _final(g: _Got, tops: dict[str, str]) -> str:
        """An entry's path in the bundle: inside an archive inside, its top folder off and the archive's path
        (without suffix) before it, that path taken the same way in the archive holding it (two levels down); then
        the tree's own top folder off. An unsafe name is shown as it is."""
        if g.unsafe:
            return ":".join([*group_parts(g.group), g.rel])
        rel, group = g.rel, g.group
        while group:
            inner = tops.get(group, "")
            rel = rel[len(inner):] if inner and rel.startswith(inner) else rel
            outer, nest, stem = group.rpartition(NEST)
            rel, group = f"{stem if nest else group}/{rel}", outer
        top = tops.get("", "")
        return rel[len(top):] if top and rel.startswith(top) else rel

    def _read(self, e: Entry) -> _Got:
        """A regular file's bytes, decompressed, within the per-file and the whole read's limits."""
        p = self.p
        if e.size is not None and e.size > p.max_file_bytes:
            return _Got(e.rel, f"{e.size} bytes, over the {p.max_file_bytes}-byte limit: not read", group=e.group)
        budget = p.max_total_bytes - self.bytes_read
        if budget <= 0:
            return _Got(e.rel, f"the read's {p.max_total_bytes} bytes of text are spent: not read", group=e.group)
        try:
            assert e.open is not None
            with e.open() as fh:
                size = e.size if e.size is not None else os.fstat(fh.fileno()).st_size
                if size > p.max_file_bytes:
                    return _Got(e.rel, f"{size} bytes, over the {p.max_file_bytes}-byte limit: not read",
                                group=e.group)
                u = Unpacked(fh, min(p.max_file_bytes, budget))
                data, folds = _folded(u)
        except READ_ERRORS as exc:
            return _Got(e.rel, f"cannot read: {getattr(exc, 'strerror', None) or exc}", group=e.group)
        if u.capped:
            why = (f"over the {p.max_file_bytes}-byte limit once decompressed: not read" if budget > p.max_file_bytes
                   else f"the read's {p.max_total_bytes} bytes of text are spent (decompressed): not read")
            return _Got(e.rel, why, group=e.group)
        if u.error and not data:
            return _Got(e.rel, f"{u.kind or 'the'} stream {u.error}: not read", group=e.group)
        self.bytes_read += u.produced  # (as written: the copies of a folded run too)
        self.decompressed += u.kind is not None
        note = f"{u.kind} stream {u.error} after {u.produced} bytes: the lines before were read" if u.error else None
        if (codec := sniff(bytes(data[:SAMPLE]))) != "utf-8":  # UTF-16 with its BOM, GB18030: read as that text
            # and its runs folded by the UTF-8 files' rule (session 37: before, a GB18030 plog's copies were each read)
            data, folds = fold_bytes([decode(data, codec).encode("utf-8", "replace")])
            note = "; ".join(x for x in (note, f"read as {codec} text") if x)
        elif b"\x00" in data:
            data, holes = fill_holes(bytes(data), self.p.binary_share)  # (a copy: rare)
            if holes:
                note = "; ".join(x for x in (note, f"{holes} run(s) of NUL bytes (the writes a crash lost) read as "
                                             "line breaks") if x)
        note = "; ".join(x for x in (e.note, note) if x) or None  # e.note: a .tgz read as the one text it holds
        return _Got(e.rel, None, self.prepare(data)._replace(folds=folds or None, optical=may_hold(data),
                                                              recovers=may_quiet(data)), note,
                    group=e.group)

    def prepare(self, data: bytes | bytearray) -> _Content:
        """A file's bytes as lines (colour codes, container or collector heads taken off, as from pasted text), and
        whether they are plain; held as a list while the read's held text is under ``hold_text_bytes``, else packed.
        Binary content (more than ``binary_share`` control bytes in its first 4 KiB, or of its characters no text
        log writes: bytes that are not UTF-8 too, judged as ``--logs`` judges a line, session 36): no lines, nothing
        packed."""
        head = data[:4096]
        control = len(head) - len(head.translate(None, _CONTROL_BYTES))
        if head and control > self.p.binary_share * len(head):
            return _Content(None, None, False, None)
        if head and not head.isascii() and (chars := head.decode("utf-8", errors="replace")) and (
                junk_count(chars) > self.p.binary_share * len(chars)):  # random bytes: ~12% control, half U+FFFD
            return _Content(None, None, False, None)
        column = shared_head(_first_lines(data))  # a collector's head on every line (wrappers: session 60)
        if column is None and b"\r" not in data and self.held + len(data) > self.p.hold_text_bytes and \
                not may_carry(data):
            # packed as read (its lines are the bytes decoded and split again): no list of lines made here, nor its
            # text (ASCII, as may_carry says: a line of over MAX_LINE bytes is one of as many characters)
            plain_ = not _LONG_BYTES.search(data)
            junk_free = _junk_free(data)
            return _Content(None, zlib.compress(data, PACK_LEVEL), plain_ and junk_free, None, ascii=True)
        text = data.decode("utf-8", errors="replace")
        lines = text.split("\n")
        if "\r" in text:
            lines = [ln.rstrip("\r") for ln in lines]
        prefixes = None
        # colour codes, container or collector heads: taken off, as from pasted text (plain() of each line, by one
        # scan for a text that is not ASCII: session 42)
        if column is not None:
            lines, prefixes = plain_lines(lines, column)
            data = "\n".join(lines).encode("utf-8", errors="replace")
        elif may_carry(data) and (got := plain_all(text, lines)) is not None:
            lines, prefixes = got
            data = "\n".join(lines).encode("utf-8", errors="replace")  # for the junk test below
        # no junk character (the control bytes of _JUNK, or U+FFFD: a byte that is not UTF-8) and no long line
        junk_free = _junk_free(data) and "\ufffd" not in text
        is_plain = junk_free and max(map(len, lines)) <= MAX_LINE
        if self.held + len(data) <= self.p.hold_text_bytes:
            self.held += len(data)
            return _Content(lines, None, is_plain, prefixes)
        packed = "\n".join(lines).encode("utf-8")
        return _Content(None, zlib.compress(packed, PACK_LEVEL), is_plain, prefixes, ascii=packed.isascii())

    def _add(self, rel: str, kind: L.FileKind, c: _Content) -> None:
        if c.lines is None and c.packed is None:
            self.refuse(rel, "binary content, not a text log: not read")
            return
        self.files.append(_File(rel, kind, c.lines, c.packed, c.plain, c.prefixes, c.folds, ascii=c.ascii,
                                optical=c.optical, recovers=c.recovers))
        if c.lines is not None and not any(ln.strip() for ln in c.lines):  # (a packed file is large: never empty)
            self.empty.append(rel)
        if kind.tag == L.UNNAMED_CONSOLE:
            self.consoles.append(rel)

    def clean(self, f: _File, raw: str) -> str | None:
        """The line to parse, or None for an empty or junk line (junk is counted as malformed)."""
        if not raw or raw.isspace():
            return None
        if f.plain:
            return raw
        cut = len(raw) > MAX_LINE
        if cut:  # judged on the part scanned, as --logs judges a line (review40: a 200 MB line searched whole, twice)
            raw = raw[:MAX_LINE]
        if _JUNK.search(raw):
            bad = len(_JUNK.findall(raw))
            if "\x00" in raw or bad > 0.1 * len(raw):
                self.malformed[f.rel] += 1
                return None
        if cut:
            self.cut[f.rel] += 1
        return raw
