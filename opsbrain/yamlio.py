"""Reading YAML files that users write: one clear error (file, line, reason) instead of a traceback."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import yaml

from opsbrain.errors import InputError

MAX_FILE_BYTES = 1 << 20
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the C parser when libyaml is there: ~7x faster


def yaml_path(loc: Iterable[Any]) -> str:
    """A pydantic error location as a YAML path: ``('steps', 2, 'action')`` -> ``steps[2].action``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif str(part).startswith(("function-", "literal[", "union[")):
            continue
        else:
            out += ("." if out else "") + str(part)
    return out or "(top)"


def read_yaml(path: Path, error: type[InputError] = InputError, max_bytes: int = MAX_FILE_BYTES) -> Any:
    """Parse one YAML file; a link, an oversized, unreadable or malformed file raises ``error`` naming the file
    (and the line and column of a syntax error)."""
    try:
        if path.is_symlink():
            raise error("refusing to follow a symbolic link", file=str(path))
        size = path.stat().st_size
        if size > max_bytes:
            raise error(f"file is {size} bytes, more than the {max_bytes} allowed", file=str(path))
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error("no such file", file=str(path)) from None
    except IsADirectoryError:
        raise error("is a directory, not a YAML file", file=str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"cannot read: {exc}", file=str(path)) from None
    try:
        return yaml.load(text, Loader=_LOADER)  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else None
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise error(f"not valid YAML: {problem}", file=str(path), path=where) from None


_PACKAGE_DATA: dict[Path, tuple[tuple[int, int], Any]] = {}


def read_package_yaml(path: Path) -> Any:
    """:func:`read_yaml` of a package data file, parsed once per process while the file is unchanged (size and
    modification time). Several modules read the same tables (knowledge_base/codes.yaml): the parsed document is
    shared, so callers must not modify it."""
    try:
        st = path.stat()
    except OSError:
        return read_yaml(path)  # raises the usual one-line error
    key = (st.st_size, st.st_mtime_ns)
    hit = _PACKAGE_DATA.get(path)
    if hit is not None and hit[0] == key:
        return hit[1]
    doc = read_yaml(path)
    _PACKAGE_DATA[path] = (key, doc)
    return doc
