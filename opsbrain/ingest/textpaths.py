"""Reading what an operator gives ``diagnose --logs``: paths (files, folders, archives), standard input (lines, or an
archive piped in) and small documents, through one :class:`opsbrain.ingest.text.LineReader` (split from
:mod:`opsbrain.ingest.text`, which reads lines and bytes)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import IO, cast

from opsbrain.ingest.archive import (
    ArchiveError,
    Replay,
)
from opsbrain.ingest.archive import sniff as sniff_archive
from opsbrain.ingest.dirwalk import check_listable, log_files
from opsbrain.ingest.encoding import decode
from opsbrain.ingest.signal import Signal
from opsbrain.ingest.text import MAX_TOTAL_BYTES, LineReader, TextStats

STDIN_SPOOL_CHUNK = 1 << 20


def _feed_stdin(stream: IO[bytes], r: LineReader) -> None:
    """Standard input: its lines, or, when it is a tar or zip archive (``ssh node 'tar czf - logs' | opsbrain
    diagnose --logs -``), its members as the archive's path would give them, from a temporary copy (a zip cannot be
    read as a stream, a tar's members need their names), at most :data:`MAX_TOTAL_BYTES` of it."""
    import tempfile

    replay = Replay(stream)
    s = sniff_archive(cast(IO[bytes], replay))
    if s.kind is None:
        r.feed_stream(replay.again(), "<stdin>")
        return
    name = "stdin." + ("zip" if s.kind == "zip" else "tar" + {"gzip": ".gz", "bzip2": ".bz2", "xz": ".xz"}.get(
        s.compression or "", ""))
    size = 0
    try:
        tmp_dir = tempfile.TemporaryDirectory(prefix="opsbrain-stdin-")
    except OSError as exc:
        raise _unspooled(s.kind, tempfile.gettempdir(), size, exc) from None
    with tmp_dir as tmp:
        copy = Path(tmp) / name
        with replay.again() as src:
            try:
                with copy.open("wb") as out:
                    while size < MAX_TOTAL_BYTES and (
                            chunk := src.read(min(STDIN_SPOOL_CHUNK, MAX_TOTAL_BYTES - size))):
                        out.write(chunk)
                        size += len(chunk)
            except OSError as exc:  # a full temporary directory: say where, and what to do instead
                raise _unspooled(s.kind, tmp, size, exc) from None
            if size >= MAX_TOTAL_BYTES and src.read(1):
                r.stats.not_read.append(f"<stdin>: the archive past its first {MAX_TOTAL_BYTES >> 30} GiB")
        try:
            r.feed_path(copy, name)
        except ArchiveError as exc:  # it only starts like one (``PK\x03\x04`` and no central directory)
            r.stats.notes.append(f"<stdin>: starts like a {s.kind} archive but is none ({exc}): read as text")
            with copy.open("rb") as fh:
                r.feed_stream(fh, "<stdin>")
            return
        r.stats.notes.append(f"<stdin>: a {s.kind} archive{' (' + s.compression + ')' if s.compression else ''}, "
                             f"read member by member as {name}")


def _unspooled(kind: str | None, where: str, size: int, exc: OSError) -> Exception:
    from opsbrain.errors import InputError

    return InputError(f"cannot copy the {kind} archive on standard input to a temporary file in {where} (after "
                      f"{size >> 20} MiB): {exc.strerror or exc}; save it to a file and give its path, or set TMPDIR",
                      file="-", path="--logs")


def ingest_paths(specs: list[str], stdin: IO[bytes] | None = None, reader: LineReader | None = None
                 ) -> tuple[list[Signal], TextStats, str]:
    """Signals of several files and directories given at once (a shell's glob: ``--logs worker-*/plog/*.log``), each
    named by its path from the directory they share (so ``worker-0/...`` names its worker as in a directory given
    whole); one given is :func:`ingest_path`'s. Also the directory given or shared (``""`` for stdin or one file)."""
    from opsbrain.errors import InputError

    r = reader or LineReader()
    if len(specs) == 1:
        p = Path(specs[0])
        ingest_path(specs[0], stdin, r)
        r.close_states()
        return r.signals, r.stats, (specs[0] if specs[0] != "-" and p.is_dir() else "")
    if "-" in specs:
        raise InputError("- (standard input) cannot be given with other paths", file="-", path="--logs")
    seen: dict[str, str] = {}
    for spec in specs:
        seen.setdefault(os.path.abspath(spec), spec)  # a path given twice is read once
    dirs = [a for a in seen if os.path.isdir(a)]
    for a in [a for a in seen if any(a != d and a.startswith(d.rstrip(os.sep) + os.sep) for d in dirs)]:
        del seen[a]  # inside a directory given too: read with it, once
    base = os.path.commonpath([os.path.dirname(a) for a in seen])
    for full, spec in seen.items():
        ingest_path(spec, None, r, label=Path(os.path.relpath(full, base)).as_posix())
    r.close_states()  # (a glob's npu_info_before.txt and npu_info_after.txt are one node's pair)
    return r.signals, r.stats, base


def ingest_path(spec: str, stdin: IO[bytes] | None = None, reader: LineReader | None = None,
                label: str | None = None) -> tuple[list[Signal], TextStats]:
    """Signals of ``-`` (stdin), a file, or every file of a directory. Raises InputError for what cannot be read.
    A ``reader`` (with a line hook, say) is fed instead of a new one. ``label``: the name the file (or the
    directory, before its files' paths) is read under, by default the file's own name (a directory's files: their
    paths below it)."""
    from opsbrain.errors import InputError

    r = reader or LineReader()
    if spec == "-":
        stream = stdin if stdin is not None else getattr(sys.stdin, "buffer", None)
        if stream is None:  # the process was started with its standard input closed (``<&-``)
            raise InputError("standard input is closed; give a file or pipe the logs in", file="-", path="--logs")
        _feed_stdin(stream, r)
        return r.signals, r.stats
    p = Path(spec)
    if p.is_symlink() and not r.follow_links:
        raise InputError("refusing to follow a symbolic link (--follow-links reads it)", file=spec)
    if Path(os.path.abspath(spec)).parts[1:2] in (("proc",), ("sys",)):
        raise InputError("a kernel pseudo-file system (/proc, /sys), whose reads may block for ever (/proc/kmsg) or "
                         "never end: save what you need first (dmesg > dmesg.txt)", file=spec)
    try:
        if p.is_dir():
            check_listable(p, "--logs")
            files = list(log_files(p, r.stats, r.follow_links))
            r.read_numbering(f for f, _rel in files)  # (each real host's npu-smi tables, before its lines)
            for f, rel in files:
                rel = f"{label}/{rel}" if label else rel
                try:
                    r.feed_path(f, rel, level=2)
                except OSError as exc:
                    r.stats.not_read.append(f"{rel}: {exc.strerror or exc}")
                except ArchiveError as exc:
                    r.stats.not_read.append(f"{rel}: {exc}: not read")
        elif p.exists() and not p.is_file():
            raise InputError("not a regular file", file=spec)
        else:
            r.feed_path(p, label or p.name)
    except ArchiveError as exc:
        raise InputError(str(exc), file=spec) from None
    except FileNotFoundError:
        raise InputError(missing_said(spec), file=spec) from None
    except PermissionError:
        raise InputError("permission denied", file=spec) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=spec) from None
    if reader is None:
        r.close_states()
    return r.signals, r.stats


MAX_DOCUMENT_BYTES = 64 << 20
"""An incident file is one JSON document, parsed whole: bigger than this is not one."""


def read_small(path: str | Path) -> str:
    """A small document's text (an exported incident), whatever its bytes; refuses links, non-regular files
    (FIFOs, devices) and huge files (through the one input reader, :func:`opsbrain.yamlio.read_bytes`)."""
    from opsbrain.errors import InputError
    from opsbrain.yamlio import read_bytes

    if Path(path).is_dir():
        raise InputError("is a directory (use --bundle for a log bundle, --logs for a folder of logs)",
                         file=str(path))
    return decode(read_bytes(path, InputError, MAX_DOCUMENT_BYTES))


def missing_said(spec: str) -> str:
    """"no such file", and for a path holding glob characters that names nothing, that a shell passes a pattern no
    file matched on as it is (README's `--logs worker-*/process_log/run/plog/*.log` run in the wrong directory;
    session 42)."""
    if any(c in spec for c in "*?[") and not os.path.lexists(spec):
        return "no such file (a pattern no file matched: the shell passes it on unexpanded; check the directory)"
    return "no such file"
