"""The walk of a bundle directory: files recognised by name, refused ones listed with a reason, and each file's
lines cleaned of junk (control bytes, undecodable characters) before the reader sees them.

What a collection put around a program's own lines (ANSI colours, CRI container heads, ``kubectl logs --prefix``, a
collector's stamp or ``host:``) is taken off each line as from pasted text (:func:`opsbrain.ingest.surface.plain`),
in the files where one scan (:func:`~opsbrain.ingest.surface.may_carry`) says a line can carry one; the prefix taken
off is kept, for its time stamp to stand in for a line without one."""

from __future__ import annotations

import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from opsbrain.bundle import layout as L
from opsbrain.ingest import MAX_LINE
from opsbrain.ingest.surface import may_carry, plain


@dataclass
class _File:
    rel: str
    kind: L.FileKind
    lines: list[str] = field(default_factory=list)
    plain: bool = False  # no junk character and no line over MAX_LINE: every non-blank line is read as it is
    prefixes: list[str] | None = None  # per line, what plain() took off its head ("": nothing); None: nothing at all

_CONTROL_BYTES = bytes(b for b in range(32) if b not in (9, 10, 13))
"""Bytes that make a file's head look binary (NUL and the C0 controls other than tab and line ends)."""
_JUNK_BYTES = bytes([*range(0x09), *range(0x0b, 0x20), 0x7f])
"""The bytes of _JUNK's control characters (UTF-8 keeps every byte below 0x80 as that character)."""
_JUNK = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ufffd]")

class _Scan:
    """Walking and reading: files by kind, and what was skipped or refused."""

    def __init__(self, root: Path, p: L.BundleParams) -> None:
        self.root = root
        self.p = p
        self.files: list[_File] = []
        self.skipped: list[dict[str, str]] = []
        self.refused: list[dict[str, str]] = []
        self.malformed: Counter[str] = Counter()
        self.untimed: Counter[str] = Counter()
        self.cut: Counter[str] = Counter()

    def refuse(self, rel: str, reason: str) -> None:
        self.refused.append({"path": rel, "reason": reason})

    def walk(self) -> None:
        level: list[tuple[Path, str]] = [(self.root, "")]
        depth = 0
        seen = 0
        while level:
            nxt: list[tuple[Path, str]] = []
            for d, rel_d in level:
                try:
                    entries = sorted(os.scandir(d), key=lambda e: e.name)
                except OSError as exc:
                    self.refuse(rel_d or ".", f"cannot list the directory: {exc.strerror or exc}")
                    continue
                for e in entries:
                    rel = f"{rel_d}/{e.name}" if rel_d else e.name
                    if e.is_symlink():
                        self.refuse(rel, "symbolic link: not followed")
                    elif e.is_dir(follow_symlinks=False):
                        if depth + 1 > self.p.max_depth:
                            self.refuse(rel, f"deeper than {self.p.max_depth} directory levels: not read")
                        else:
                            nxt.append((Path(e.path), rel))
                    elif e.is_file(follow_symlinks=False):
                        seen += 1
                        if seen > self.p.max_files:
                            self.refuse(rel, f"more than {self.p.max_files} files in the bundle: not read")
                            continue
                        self._add(e, rel)
                    else:
                        self.refuse(rel, "not a regular file")
            level = nxt
            depth += 1

    def _add(self, e: os.DirEntry[str], rel: str) -> None:
        kind = L.classify(rel)
        if kind is None:
            self.skipped.append({"path": rel, "reason": "unknown file (not a source of facts.md §7)"})
            return
        try:
            size = e.stat(follow_symlinks=False).st_size
        except OSError as exc:
            self.refuse(rel, f"cannot stat: {exc.strerror or exc}")
            return
        if size > self.p.max_file_bytes:
            self.refuse(rel, f"{size} bytes, over the {self.p.max_file_bytes}-byte limit: not read")
            return
        try:
            with open(e.path, "rb") as fh:  # noqa: PTH123 - an fd on the entry we stat'ed
                data = fh.read(self.p.max_file_bytes + 1)
        except OSError as exc:
            self.refuse(rel, f"cannot read: {exc.strerror or exc}")
            return
        head = data[:4096]
        control = len(head) - len(head.translate(None, _CONTROL_BYTES))
        if head and control > self.p.binary_share * len(head):
            self.refuse(rel, "binary content, not a text log: not read")
            return
        text = data.decode("utf-8", errors="replace")
        lines = text.split("\n")
        if "\r" in text:
            lines = [ln.rstrip("\r") for ln in lines]
        prefixes = None
        if may_carry(data):  # colour codes, container or collector heads: taken off, as from pasted text
            stripped = [plain(ln) for ln in lines]
            if any(p or s != ln for (s, p), ln in zip(stripped, lines, strict=True)):
                lines = [s for s, _p in stripped]
                prefixes = [p for _s, p in stripped]
                data = "\n".join(lines).encode("utf-8", errors="replace")  # for the junk test below
        # no junk character (the control bytes of _JUNK, or U+FFFD: a byte that is not UTF-8) and no long line
        junk_free = len(data.translate(None, _JUNK_BYTES)) == len(data) and "\ufffd" not in text
        self.files.append(_File(rel, kind, lines, junk_free and max(map(len, lines)) <= MAX_LINE, prefixes))

    def clean(self, f: _File, raw: str) -> str | None:
        """The line to parse, or None for an empty or junk line (junk is counted as malformed)."""
        if not raw or raw.isspace():
            return None
        if f.plain:
            return raw
        if _JUNK.search(raw):
            bad = len(_JUNK.findall(raw))
            if "\x00" in raw or bad > 0.1 * len(raw):
                self.malformed[f.rel] += 1
                return None
        if len(raw) > MAX_LINE:
            self.cut[f.rel] += 1
            raw = raw[:MAX_LINE]
        return raw
