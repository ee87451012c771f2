"""The one input reader for files users give: YAML and JSON with one clear error (file, line, reason).

Every read refuses a symbolic link and anything but a regular file (a FIFO would block, ``/dev/zero`` never
ends), caps the size, decodes UTF-8 with a named error (byte offset), and refuses documents nested deeper than
:data:`MAX_DEPTH`, YAML with more than :data:`MAX_ALIASES` aliases, and documents whose aliases expand to more
than :data:`MAX_NODES` nodes (a "billion laughs" bomb is a few hundred bytes that expand to 10^9 nodes).
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from opsbrain.errors import InputError
from opsbrain.lazyre import lazy_compile

MAX_FILE_BYTES = 1 << 20
MAX_DEPTH = 64  # reason: our deepest schema (scenario faults[].params) nests < 10; the C parser crashes at ~1e5
MAX_ALIASES = 100  # reason: no shipped file uses anchors; a hand-written file might reuse a block a few times
MAX_NODES = 1_000_000  # reason: 1 MB of YAML holds at most ~0.5 M scalars; more can only come from aliases
_LEAD = lazy_compile(r"^[ \t\-?:]*", re.M)
_BRACKETS = lazy_compile(r"[^\[\]{}]+")


def yaml_path(loc: Iterable[Any]) -> str:
    """A pydantic error location as a YAML path: ``('steps', 2, 'action')`` -> ``steps[2].action``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif str(part).startswith(("function-", "literal[", "union[")):
            continue
        elif part == "":  # an empty key: said, not lost (``spec.`` named no key)
            out += '[""]'
        else:
            out += ("." if out else "") + str(part)
    return out or "(top)"


def read_bytes(path: Path | str, error: type[InputError] = InputError, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """A regular file's bytes (at most ``max_bytes``); links, FIFOs, devices, directories, missing, unreadable
    and oversized files raise ``error`` naming the file."""
    p = Path(path)
    name = str(p)[:300]
    try:
        if p.is_symlink():
            raise error("refusing to follow a symbolic link", file=name)
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        raise error("no such file", file=name) from None
    except IsADirectoryError:
        raise error("is a directory, not a regular file", file=name) from None
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror or exc}", file=name) from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise error("is a directory, not a regular file", file=name)
        if not stat.S_ISREG(st.st_mode):
            raise error("not a regular file (a device, FIFO or socket)", file=name)
        if st.st_size > max_bytes:
            raise error(f"file is {st.st_size} bytes, more than the {max_bytes} allowed", file=name)
        with os.fdopen(fd, "rb", closefd=True) as fh:
            fd = -1
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror or exc}", file=name) from None
    finally:
        if fd >= 0:
            os.close(fd)
    if len(data) > max_bytes:
        raise error(f"file is more than the {max_bytes} bytes allowed", file=name)
    return data


def decode(data: bytes, file: str, error: type[InputError] = InputError) -> str:
    """UTF-8 text, or ``error`` naming the byte offset of the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"cannot read: not UTF-8 text (byte {exc.start}: {exc.reason})", file=file[:300]) from None


def read_text(path: Path | str, error: type[InputError] = InputError, max_bytes: int = MAX_FILE_BYTES) -> str:
    return decode(read_bytes(path, error, max_bytes), str(path), error)


def _risky(text: str) -> bool:
    """Could the text hold aliases or nest deeper than MAX_DEPTH? (cheap; the event scan then decides)."""
    if "&" in text:  # no anchor, no alias
        return True
    if max((len(m) for m in _LEAD.findall(text)), default=0) > MAX_DEPTH:
        return True
    depth = top = 0
    for ch in _BRACKETS.sub("", text):
        depth = depth + 1 if ch in "[{" else max(0, depth - 1)
        top = max(top, depth)
    return top > MAX_DEPTH


_LOADER: Any = None


def _yaml() -> tuple[Any, Any]:
    """The yaml module and its safe loader (the C parser when libyaml is there: ~7x faster) that refuses a key given
    twice in one mapping (:class:`DuplicateKey`), imported on first use: reading JSON (the imported vendor knowledge
    of a diagnosis) does not need it."""
    global _LOADER
    import yaml

    if _LOADER is None:
        base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

        class UniqueKeyLoader(base):  # type: ignore[misc, valid-type]
            def construct_mapping(self, node: Any, deep: bool = False) -> Any:
                if not isinstance(node, yaml.MappingNode):
                    return super().construct_mapping(node, deep)  # its own error: "expected a mapping node"
                seen: set[Any] = set()
                for key_node, _value in node.value:
                    if key_node.tag == "tag:yaml.org,2002:merge" or not isinstance(key_node, yaml.ScalarNode):
                        continue
                    key = self.construct_object(key_node, deep=False)
                    if key in seen:
                        mark = key_node.start_mark
                        raise DuplicateKey(f"key {str(key)[:80]!r} given twice in one mapping (the second would "
                                           f"silently replace the first)", f"line {mark.line + 1}, column "
                                           f"{mark.column + 1}")
                    seen.add(key)
                return super().construct_mapping(node, deep)

        _core_scalars(UniqueKeyLoader, base)
        _LOADER = UniqueKeyLoader
    return yaml, _LOADER


_TAG = "tag:yaml.org,2002:"
_CORE = (
    ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    ("int", r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$", "-+0123456789"),
    ("float", r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
              r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$", "-+0123456789."),
)
"""PyYAML's YAML 1.1 booleans and numbers without their traps: base 60 (``at: 10:00`` was the number 600) and the
word booleans (``enabled: no``, a key ``on:``), as YAML 1.2 dropped them. ``10:00`` is now a string the schema
refuses by name, ``no`` and ``on`` are words. The number forms are otherwise 1.1's: a fault code written bare
(``80E01801``) stays a string, where 1.2's core schema would read a float."""


def _core_scalars(loader: Any, base: Any) -> None:
    drop = {_TAG + name for name, _rx, _first in _CORE}
    loader.yaml_implicit_resolvers = {k: [(t, rx) for t, rx in v if t not in drop]
                                      for k, v in base.yaml_implicit_resolvers.items()}
    for name, rx, first in _CORE:  # int before float: a plain 5 is an int
        loader.add_implicit_resolver(_TAG + name, re.compile(rx), list(first))


class DuplicateKey(ValueError):
    """A mapping names one key twice: YAML and JSON parsers keep the last silently (a repeated ``spec:`` replaced a
    whole scenario by defaults); refused, with where the second one is."""

    def __init__(self, message: str, where: str | None = None) -> None:
        super().__init__(message)
        self.where = where


def _scan_events(text: str, file: str, error: type[InputError]) -> int:
    """Depth and alias count from the parser's events (no tree built); returns the alias count."""
    yaml, loader = _yaml()
    depth = aliases = 0
    for ev in yaml.parse(text, Loader=loader):
        if isinstance(ev, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise error(f"nested too deeply (more than {MAX_DEPTH} levels)", file=file, path=_where(ev))
        elif isinstance(ev, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1
        elif isinstance(ev, yaml.AliasEvent):
            aliases += 1
            if aliases > MAX_ALIASES:
                raise error(f"more than {MAX_ALIASES} YAML aliases (*name); refusing a possible alias bomb",
                            file=file, path=_where(ev))
    return aliases


def _where(ev: Any) -> str | None:
    mark = getattr(ev, "start_mark", None)
    return f"line {mark.line + 1}, column {mark.column + 1}" if mark else None


def expanded_nodes(data: Any, limit: int = MAX_NODES) -> int:
    """How many nodes ``data`` has with every shared (aliased) part counted each time it appears; stops counting
    past ``limit``. Linear in the distinct nodes (sizes are memoised by identity)."""
    memo: dict[int, int] = {}

    def size(x: Any, depth: int) -> int:
        if not isinstance(x, (dict, list)):
            return 1
        key = id(x)
        if key in memo:
            return memo[key]
        if depth > MAX_DEPTH:
            return limit + 1
        memo[key] = limit + 1  # a cycle (a YAML alias to its own ancestor) counts as too large
        items = x.items() if isinstance(x, dict) else enumerate(x)
        total = 1
        for k, v in items:
            total += size(k, depth + 1) + size(v, depth + 1)
            if total > limit:
                break
        memo[key] = total
        return total

    return size(data, 0)


def too_deep(data: Any, max_depth: int = MAX_DEPTH) -> bool:
    """Does ``data`` nest lists/dicts more than ``max_depth`` levels deep? (iterative: no recursion limit)"""
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        x, d = stack.pop()
        if isinstance(x, (dict, list)):
            if d >= max_depth:
                return True
            stack.extend((v, d + 1) for v in (x.values() if isinstance(x, dict) else x))
    return False


def _python_limit(exc: ValueError) -> str:
    """A conversion error's message without Python's advice to raise its limit (meant for programmers)."""
    return str(exc).split("; use sys.", 1)[0][:200]


def parse_yaml(text: str, file: str, error: type[InputError] = InputError) -> Any:
    """Parse YAML text under the depth and alias limits; errors name ``file`` and the line."""
    file = file[:300]
    yaml, loader = _yaml()
    try:
        aliases = _scan_events(text, file, error) if _risky(text) else 0
        data = yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else None
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise error(f"not valid YAML: {str(problem)[:200]}", file=file, path=where) from None
    except RecursionError:
        raise error(f"nested too deeply (more than {MAX_DEPTH} levels)", file=file) from None
    except DuplicateKey as exc:
        raise error(f"not valid YAML: {exc}", file=file, path=exc.where) from None
    except ValueError as exc:  # a scalar Python cannot convert: an integer of more than 4300 digits
        raise error(f"not valid YAML: {_python_limit(exc)}", file=file) from None
    if aliases and expanded_nodes(data) > MAX_NODES:
        raise error(f"its aliases expand to more than {MAX_NODES} nodes; refusing an alias bomb", file=file)
    return data


def read_yaml(path: Path, error: type[InputError] = InputError, max_bytes: int = MAX_FILE_BYTES) -> Any:
    """Parse one YAML file; a link, a non-regular, oversized, unreadable, too deep or malformed file raises
    ``error`` naming the file (and the line and column of a syntax error)."""
    return parse_yaml(read_text(path, error, max_bytes), str(path), error)


def parse_json(text: str | bytes, file: str, error: type[InputError] = InputError) -> Any:
    """Parse JSON text under the depth limit; NaN and Infinity (not JSON), numbers beyond a float and integers
    beyond 64 bits are refused; errors name ``file``."""
    file = file[:300]

    def no_constant(name: str) -> Any:
        raise ValueError(f"{name} is not JSON")

    def bounded_int(digits: str) -> int:
        v = int(digits)
        if not -(2**63) <= v < 2**63:
            raise ValueError(f"integer {digits[:30]}{'...' if len(digits) > 30 else ''} is out of range (64 bits)")
        return v

    def finite_float(digits: str) -> float:
        v = float(digits)
        if not math.isfinite(v):
            raise ValueError(f"number {digits[:30]} is out of range")
        return v

    def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in pairs:
            if k in out:
                raise DuplicateKey(f"key {k[:80]!r} given twice in one object (the second would silently replace "
                                   "the first)")
            out[k] = v
        return out

    if not text.strip():
        raise error("empty file: no JSON document in it", file=file)
    try:
        data = json.loads(text, parse_constant=no_constant, parse_int=bounded_int, parse_float=finite_float,
                          object_pairs_hook=unique_keys)
    except json.JSONDecodeError as exc:
        raise error(f"not valid JSON: {exc.msg}", file=file, path=f"line {exc.lineno}, column {exc.colno}") from None
    except UnicodeDecodeError as exc:
        raise error(f"not UTF-8 text (byte {exc.start}: {exc.reason})", file=file) from None
    except RecursionError:
        raise error(f"not valid JSON: nested too deeply (more than {MAX_DEPTH} levels)", file=file) from None
    except DuplicateKey as exc:
        raise error(f"not valid JSON: {exc}", file=file) from None
    except ValueError as exc:
        raise error(f"not valid JSON: {_python_limit(exc)}", file=file) from None
    if too_deep(data):
        raise error(f"not valid JSON: nested too deeply (more than {MAX_DEPTH} levels)", file=file)
    return data


def json_or_none(text: str | bytes) -> tuple[bool, Any]:
    """``(True, value)`` for JSON text nested at most :data:`MAX_DEPTH` levels, else ``(False, None)``: for JSON
    found inside other input (a rank table in a bundle, a log line's detail, a cache file, a server's answer),
    where bad JSON is counted or ignored, not refused. Catches what :func:`json.loads` raises besides a syntax error:
    RecursionError (deep nesting) and ValueError (an integer beyond Python's 4300-digit limit)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        return False, None
    return (False, None) if too_deep(data) else (True, data)


def read_json(path: Path | str, error: type[InputError] = InputError, max_bytes: int = MAX_FILE_BYTES) -> Any:
    """Parse one JSON file through :func:`read_bytes` and :func:`parse_json`."""
    return parse_json(read_bytes(path, error, max_bytes), str(path), error)


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
