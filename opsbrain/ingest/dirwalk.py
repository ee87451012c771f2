"""The walk of a directory given to ``diagnose --logs``, ``watch`` and ``sweep --source commands``: its regular
files in order, within a depth, without the kernel's pseudo-file systems or files that are by their names no logs,
and one line for each thing not read."""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path
from typing import Protocol

from opsbrain.ingest.streams import NOT_EVIDENCE, ground_truth_sidecar, not_a_log
from opsbrain.ingest.trees import LINK_NOT_FOLLOWED, printable


class HasNotRead(Protocol):
    """What the walk reports into (:class:`opsbrain.ingest.bytelines.TextStats`)."""

    not_read: list[str]


def check_listable(root: Path, option: str) -> None:
    """InputError naming ``root`` and ``option`` when the directory itself cannot be listed (no permission): the
    walk below would find nothing in it and say nothing."""
    from opsbrain.errors import InputError

    try:
        with os.scandir(root):
            pass
    except OSError as exc:
        raise InputError(f"cannot list the directory: {exc.strerror or exc}", file=str(root), path=option) from None


MAX_FILES = 20_000
"""Files read from one directory or archive (the rest are listed as not read)."""
MAX_DIR_DEPTH = 64
"""Directory levels below the root given that ``--logs DIR`` and ``watch`` descend (reason: a collection nests a
worker's logs a dozen levels at most; ``--bundle``'s limit is BundleParams.max_depth)."""


PSEUDO_FS = frozenset({"/proc", "/sys", "/dev"})
"""Kernel pseudo-file systems a walk from ``/`` would enter: their files read as regular ones and may block for ever
(``/proc/kmsg``) or never end (``/dev/zero``). With them, wherever they are mounted (:func:`pseudo_mounts`: a host's
root bind-mounted at ``/host`` in a DaemonSet has its ``/host/proc``)."""
PSEUDO_TYPES = frozenset({"proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2", "debugfs", "tracefs",
                          "securityfs", "pstore", "bpf", "configfs", "fusectl", "mqueue", "binfmt_misc", "efivarfs"})
"""File-system types of the kernel's pseudo-file systems (``/proc/self/mounts``' third field)."""


@functools.cache
def pseudo_mounts() -> frozenset[str]:
    """:data:`PSEUDO_FS` and every mount point of a :data:`PSEUDO_TYPES` file system (``/proc/self/mounts``; its
    octal escapes, ``\\040`` for a space, decoded); just :data:`PSEUDO_FS` where that cannot be read."""
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as fh:
            rows = [line.split() for line in fh]
    except OSError:
        return PSEUDO_FS
    found = {re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), row[1])
             for row in rows if len(row) > 2 and row[2] in PSEUDO_TYPES}
    return PSEUDO_FS | frozenset(found)


def log_files(root: Path, stats: HasNotRead, follow_links: bool = False) -> list[tuple[Path, str]]:
    """Regular files under ``root`` (sorted; symbolic links followed only with ``follow_links``, each directory once,
    and listed as not read otherwise), with names relative to it (control characters shown as ``?``); a directory that
    cannot be listed (no permission) goes to ``stats.not_read``, as do files that are by their names no logs
    (:func:`~opsbrain.ingest.streams.not_a_log`, one line for them all), the twin's ground-truth sidecars
    (:func:`~opsbrain.ingest.streams.ground_truth_sidecar`) and the kernel's pseudo-file systems."""
    out: list[tuple[Path, str]] = []
    skipped: list[str] = []

    def unlisted(exc: OSError) -> None:
        where = Path(exc.filename) if exc.filename is not None else root
        rel = str(where.relative_to(root)) if where.is_relative_to(root) else str(where)
        stats.not_read.append(f"{rel}: cannot list the directory: {exc.strerror or exc}")

    seen: set[str] = set()
    for dirpath, dirnames, filenames in os.walk(root, onerror=unlisted, followlinks=follow_links):
        dirnames.sort()
        seen.add(os.path.realpath(dirpath))
        for d in [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            real = os.path.realpath(os.path.join(dirpath, d))
            if not follow_links or real in seen:
                dirnames.remove(d)
                why = LINK_NOT_FOLLOWED if not follow_links else "a directory already walked (a link to it)"
                stats.not_read.append(f"{printable(str(Path(dirpath, d).relative_to(root)))}: {why}")
            seen.add(real)
        if dirnames and len(Path(dirpath).relative_to(root).parts) >= MAX_DIR_DEPTH:
            stats.not_read.append(f"{Path(dirpath).relative_to(root)}: deeper than {MAX_DIR_DEPTH} directory "
                                  f"levels: its {len(dirnames)} sub-directories not read")
            dirnames.clear()  # os.walk recurses: a tree 1,000 levels deep overflowed Python's stack
        pseudo = pseudo_mounts()
        for d in [d for d in dirnames if os.path.abspath(os.path.join(dirpath, d)) in pseudo]:
            dirnames.remove(d)
            stats.not_read.append(f"{Path(dirpath, d).relative_to(root)}: a kernel pseudo-file system, not read")
        for f in sorted(filenames):
            p = Path(dirpath) / f
            rel = printable(str(p.relative_to(root)))  # a name holding a line end cannot split a line of the answer
            if ground_truth_sidecar(f):
                stats.not_read.append(f"{rel}: {NOT_EVIDENCE}")
                continue
            if not_a_log(f):
                skipped.append(rel)
                continue
            if p.is_symlink() and not follow_links:
                stats.not_read.append(f"{rel}: {LINK_NOT_FOLLOWED}")
                continue
            if not p.is_file():
                stats.not_read.append(f"{rel}: not a regular file")
                continue
            if len(out) >= MAX_FILES:
                stats.not_read.append(f"{rel}: more than {MAX_FILES} files")
                continue
            out.append((p, rel))
    if skipped:
        stats.not_read.append(no_logs(skipped))
    return out


def no_logs(skipped: list[str]) -> str:
    more = f" and {len(skipped) - 1} other file{'s' if len(skipped) > 2 else ''}" if len(skipped) > 1 else ""
    return f"{skipped[0]}{more}: documentation, source code or pictures by their names, not logs"
