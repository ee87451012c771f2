"""Writes that matter are atomic, and go through one output policy.

:func:`check_target` is the policy: a target with a NUL byte or a ``..`` segment, a symbolic link, anything
but a regular file (directory, device, FIFO, socket), a target in a missing directory, and -- unless ``force`` --
an SQLite database (the run store), its ``-wal``/``-shm`` files, or a file inside the installed packages' own
data (opsbrain, faultlib, knowledge_base, runbooks, scenarios) is refused with an
:class:`~opsbrain.errors.InputError` naming the option. :func:`write_atomic` applies it, then writes a temporary
file in the same directory, flushed, and moves it into place with ``os.replace``.
"""

from __future__ import annotations

import json
import math
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

from opsbrain.errors import InputError

SQLITE_MAGIC = b"SQLite format 3\x00"
PACKAGES = ("opsbrain", "faultlib", "knowledge_base", "runbooks", "scenarios")


def package_roots() -> list[Path]:
    """The directories of the installed packages whose data a user output must not replace."""
    import importlib.util

    roots = []
    for name in PACKAGES:
        spec = importlib.util.find_spec(name)
        for loc in (spec.submodule_search_locations or []) if spec else []:
            roots.append(Path(loc).resolve())
    return roots


def _is_sqlite(path: Path) -> bool:
    try:
        with path.open("rb") as fh:
            return fh.read(len(SQLITE_MAGIC)) == SQLITE_MAGIC
    except OSError:
        return False


def _is_store(path: Path) -> bool:
    if _is_sqlite(path):
        return True
    for suffix in ("-wal", "-shm", "-journal"):
        if path.name.endswith(suffix) and _is_sqlite(path.with_name(path.name[: -len(suffix)])):
            return True
    return False


def check_target(path: Path | str, option: str | None = None, force: bool = False) -> Path:
    """``path`` if the output policy (module docstring) lets a write replace it; else InputError naming
    ``option``. ``force`` allows replacing a database or package data, never a link or a non-regular file."""
    text = str(path)
    shown = text if len(text) <= 200 else text[:200] + "..."
    if not text.strip():
        raise InputError("empty output path", path=option)
    if "\x00" in text:
        raise InputError("output path contains a NUL byte", path=option)
    p = Path(text)
    if ".." in p.parts:
        raise InputError(f"refusing {shown!r}: '..' segments are not allowed in an output path", path=option)
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise InputError(f"cannot check {shown!r}: {exc.strerror or exc}", path=option) from None
    if st is not None:
        if stat.S_ISLNK(st.st_mode):
            raise InputError(f"refusing {shown!r}: it is a symlink (write to the real path)", path=option)
        if stat.S_ISDIR(st.st_mode):
            raise InputError(f"{shown!r} is a directory; give a file name", path=option)
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"refusing {shown!r}: not a regular file (a device, FIFO or socket)", path=option)
    if not p.parent.is_dir():
        raise InputError(f"directory {str(p.parent)[:200]!r} does not exist", path=option)
    if force:
        return p
    if st is not None and _is_store(p):
        raise InputError(f"refusing {shown!r}: it is an SQLite database (the run store?); add --force to replace "
                         "it", path=option)
    real = p.parent.resolve() / p.name
    for root in package_roots():
        if real == root or root in real.parents:
            raise InputError(f"refusing {shown!r}: it is inside the installed package {root.name!r}; add --force "
                             "to replace its data", path=option)
    return p


def check_output_dir(path: Path | str, option: str | None = None) -> Path:
    """A directory files will be written into later (``chaos run --out DIR``), checked up front as
    :func:`check_target` will check each file: no ``..`` segment, no NUL, not an existing non-directory or link (it
    is created if missing)."""
    text = str(path)
    if not text.strip() or "\x00" in text:
        check_target(text, option)  # its message
    if ".." in Path(text).parts:
        raise InputError(f"refusing {text[:200]!r}: '..' segments are not allowed in an output path", path=option)
    p = Path(text)
    if p.is_symlink() or (p.exists() and not p.is_dir()):
        raise InputError(f"{text[:200]!r} is not a directory (a file or a link)", path=option)
    parent = p.absolute().parent
    if not p.exists() and not parent.is_dir():  # as report --out: the named thing is made, never its parents
        raise InputError(f"directory {str(parent)[:200]!r} does not exist", path=option)
    check_writable(p if p.exists() else parent, option)
    return p


def check_writable(directory: Path | str, option: str | None = None) -> Path:
    """Refuse (exit 2) a directory no file can be created in, by creating and removing one: ``os.access`` answers
    yes for root everywhere, also where the file system refuses every file (read-only mounts, sysfs, a full quota),
    and a command found that out only when it wrote, after its run or its training."""
    d = Path(directory)
    try:
        fd, probe = tempfile.mkstemp(prefix=".opsbrain-write-check.", dir=d)
    except OSError as exc:
        raise InputError(f"directory {str(d)[:200]!r} is not writable ({exc.strerror or exc})", path=option) from None
    os.close(fd)
    os.unlink(probe)
    return d


def write_atomic(path: Path, data: bytes, mode: int | None = None, *, option: str | None = None,
                 force: bool = False) -> None:
    """Replace ``path`` with ``data`` in one step (readers see the old file or the new one, never half of it),
    after :func:`check_target` (``force``: see there).

    ``mode`` defaults to the usual mode of a new file (0o666 minus the umask); OSError propagates to the caller,
    who knows which option or file to name in the error."""
    check_target(path, option, force)
    tmp: str | None = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name[:100]}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(tmp, mode)  # mkstemp makes 0600
        check_target(path, option, force)  # again, just before the replace: the target may have changed meanwhile
        os.replace(tmp, path)
        tmp = None
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


def strict_json(data: Any, **dump: Any) -> str:
    """JSON text with no NaN or Infinity (not JSON): non-finite floats become ``null``, and ``-0.0`` (a rounded tiny
    negative) is written ``0.0``."""
    return json.dumps(_finite(data), allow_nan=False, **dump)


def _finite(x: Any) -> Any:
    if isinstance(x, float):
        return x + 0.0 if math.isfinite(x) else None  # -0.0 + 0.0 == 0.0
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    return x


def write_json_atomic(path: Path, data: Any, *, force: bool = False, **dump: Any) -> None:
    """``data`` as strict JSON (indent 1, sorted keys unless told otherwise), written atomically; creates the
    folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    opts = {"indent": 1, "sort_keys": True} | dump
    write_atomic(path, strict_json(data, **opts).encode("utf-8"), force=force)
