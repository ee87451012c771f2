"""Writes that matter are atomic: a temporary file in the same directory, flushed, then ``os.replace``."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_atomic(path: Path, data: bytes, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` in one step (readers see the old file or the new one, never half of it).

    ``mode`` defaults to the usual mode of a new file (0o666 minus the umask); OSError propagates to the caller,
    who knows which option or file to name in the error."""
    tmp: str | None = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)  # mkstemp makes 0600
        os.replace(tmp, path)
        tmp = None
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


def write_json_atomic(path: Path, data: Any, **dump: Any) -> None:
    """``data`` as JSON (indent 1, sorted keys unless told otherwise), written atomically; creates the folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    opts = {"indent": 1, "sort_keys": True} | dump
    write_atomic(path, json.dumps(data, **opts).encode("utf-8"))
