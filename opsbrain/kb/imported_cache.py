"""A compact, already validated form of each saved vendor import, kept beside it so that a diagnosis reads it fast.

A saved import (``kb_imports/<name>.json``, written by ``opsbrain kb import``) is re-read by every diagnosis: its
JSON parsed under the input limits (numbers checked one by one, the depth walked), every entry checked again
(:func:`opsbrain.kb.importers._parse_saved`, its regexes compiled). What that check gives -- the handling levels,
the entries as rows, the source -- is written once to ``kb_imports/.compact/<name>.json``, atomically, keyed by a
sha256 of the import's bytes and of the code that reads it (this module, :mod:`opsbrain.kb.importers`,
:mod:`opsbrain.kb.saferegex`). The next read hashes the import's bytes and takes the compact form when its key
matches: any edit of the import or of that code makes the key differ and the import is read and checked in full
again (a damaged import raises its usual error then). A compact file that cannot be read, or that does not hold what
it should, is no error: the full read serves, and replaces it; an unwritable directory only costs the full read.
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import fields
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from opsbrain.kb.importers import ImportedEntry

log = logging.getLogger(__name__)

FORMAT = 1
DIR_NAME = ".compact"
"""The directory beside the imports (a dot-directory: ``kb_imports/*.json`` never lists it)."""
_CODE = ("imported_cache.py", "importers.py", "saferegex.py")
"""Source files (under opsbrain/kb/) whose code decides what a saved import reads as."""

Saved = tuple[dict[str, str], list["ImportedEntry"], str]
"""What a saved import reads as: code -> handling level, the entries, the source it was imported from."""


@lru_cache(maxsize=1)
def _code_hash() -> bytes:
    here = Path(__file__).resolve().parent
    h = hashlib.sha256(f"compact imports {FORMAT}\n".encode())
    for name in _CODE:
        try:
            h.update((here / name).read_bytes())
        except OSError:
            h.update(b"<missing>")
        h.update(b"\0")
    return h.digest()


def content_key(raw: bytes) -> str:
    """The key of a saved import's compact form: its bytes and the code that reads them."""
    return hashlib.sha256(_code_hash() + raw).hexdigest()


def compact_path(import_file: Path) -> Path:
    return import_file.parent / DIR_NAME / import_file.name


@lru_cache(maxsize=1)
def _field_names() -> tuple[str, ...]:
    from opsbrain.kb.importers import ImportedEntry

    return tuple(f.name for f in fields(ImportedEntry))


def read_compact(import_file: Path, key: str) -> Saved | None:
    """The compact form of ``import_file`` when one with ``key`` is there and holds what it should, else None."""
    from opsbrain.kb.importers import ImportedEntry

    try:
        doc = json.loads(compact_path(import_file).read_bytes())
    except (OSError, ValueError, RecursionError):  # unreadable, not JSON, nested too deep
        return None
    try:
        if not (isinstance(doc, dict) and doc.get("format") == FORMAT and doc.get("key") == key
                and doc.get("fields") == list(_field_names())):
            return None
        levels = {str(k): str(v) for k, v in doc["levels"].items()}
        names = _field_names()
        entries = []
        for row in doc["entries"]:
            e = dict(zip(names, row, strict=True))
            e["groups"] = tuple(tuple(g) for g in e["groups"])
            e["effects"] = tuple(e["effects"])
            entries.append(ImportedEntry(**e))
        return levels, entries, str(doc["source"])
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def write_compact(import_file: Path, key: str, saved: Saved) -> None:
    """Write the compact form of ``import_file`` (atomically); a failure is logged, never raised."""
    from opsbrain.errors import InputError
    from opsbrain.fsio import write_atomic

    levels, entries, source = saved
    names = _field_names()
    rows = [[getattr(e, n) for n in names] for e in entries]
    doc = {"format": FORMAT, "key": key, "fields": list(names), "levels": levels, "source": source, "entries": rows}
    path = compact_path(import_file)
    try:
        path.parent.mkdir(exist_ok=True)
        write_atomic(path, json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode(), option="cache")
    except (OSError, InputError) as exc:
        log.warning("compact import not written", extra={"path": str(path), "reason": str(exc)})
        return
    _prune(path.parent, import_file.parent)


def _prune(compact_dir: Path, imports: Path) -> None:
    """Remove the compact forms whose import is gone (a compact file never outlives its import for long)."""
    try:
        for p in compact_dir.glob("*.json"):
            if not (imports / p.name).is_file():
                p.unlink()
    except OSError:
        pass


def cached(import_file: Path, raw: bytes, read: Any) -> Saved:
    """What ``import_file`` (its bytes ``raw``) reads as: the compact form when its key matches, else ``read(raw)``
    (the full read and check, which raises on a damaged import), then kept as the compact form."""
    key = content_key(raw)
    got = read_compact(import_file, key)
    if got is not None:
        return got
    saved: Saved = read(raw)
    write_compact(import_file, key, saved)
    return saved


__all__ = ["DIR_NAME", "FORMAT", "cached", "compact_path", "content_key", "read_compact", "write_compact"]
