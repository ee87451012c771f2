"""Plain arrays kept raw in the data directory's cache, so that a new process reads them instead of decoding them.

A file holds a magic line, one JSON header line (what the caller names -- the digest of the file the arrays come
from, shapes, tokens -- plus each array's type code, offset and size, and the Adler-32 of all the bytes) and the
arrays' bytes. :func:`read` gives the header and the arrays only when the file is whole and names the digest asked
for, and marks it used (its modification time set to now: session 37); :func:`store` writes a file atomically and
keeps the few of its kind used last (before session 37: written last, so a copy read by every run but written
before others was the one dropped). A cache that cannot be read or written is no error: the caller decodes its
source as before (session 36: the diagnosis model's inflated arrays, :mod:`opsbrain.diagnosis.npzplain`; the text
model's parsed weights, :mod:`opsbrain.diagnosis.realtext`).
"""

from __future__ import annotations

import contextlib
import json
import os
import zlib
from array import array
from pathlib import Path
from typing import Any

MAGIC = b"opsbrain raw arrays 1\n"
KEPT = 2
"""Files of one kind (prefix) kept in the cache directory: the two used last (read or written)."""


def path_for(cache_dir: Path, prefix: str, digest: str) -> Path:
    return cache_dir / f"{prefix}{digest[:32]}.bin"


def read(path: Path, digest: str) -> tuple[dict[str, Any], dict[str, array[Any]]] | None:
    """(header, arrays by name) of the file at ``path`` if it is whole and made from ``digest``, else None."""
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        raw = path.read_bytes()
        if not raw.startswith(MAGIC):
            return None
        end = raw.index(b"\n", len(MAGIC))
        head = json.loads(raw[len(MAGIC):end])
        body = memoryview(raw)[end + 1:]
        if head["digest"] != digest or head["bytes"] != len(body) or head["adler32"] != zlib.adler32(body):
            return None
        out: dict[str, array[Any]] = {}
        for name, code, start, size in head["arrays"]:
            data = array(code)
            data.frombytes(body[start:start + size])
            out[name] = data
        with contextlib.suppress(OSError):  # used now: the pruning in store keeps the files used last
            os.utime(path)
        return head, out
    return None


def store(path: Path, digest: str, head: dict[str, Any], arrays: dict[str, array[Any]]) -> None:
    """Write ``arrays`` with ``head`` (JSON-able) at ``path``, made from ``digest``; then drop all but the
    :data:`KEPT` files of the same prefix (the name up to the digest) used last (read or written: their modification
    time, which :func:`read` sets)."""
    from opsbrain.errors import InputError
    from opsbrain.fsio import write_atomic

    blobs = [a.tobytes() for a in arrays.values()]
    rows, at = [], 0
    for (name, a), blob in zip(arrays.items(), blobs, strict=True):
        rows.append([name, a.typecode, at, len(blob)])
        at += len(blob)
    body = b"".join(blobs)
    doc = {**head, "digest": digest, "bytes": len(body), "adler32": zlib.adler32(body), "arrays": rows}
    prefix = path.name[:-len(f"{digest[:32]}.bin")]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, MAGIC + json.dumps(doc, ensure_ascii=True).encode() + b"\n" + body, option="cache")
        old = sorted(path.parent.glob(f"{prefix}*.bin"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
    except (OSError, InputError):  # a read-only data directory: the source is decoded each time
        return
    for p in old[KEPT:]:
        if p != path:
            with contextlib.suppress(OSError):
                p.unlink()


__all__ = ["KEPT", "MAGIC", "path_for", "read", "store"]
