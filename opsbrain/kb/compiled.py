"""The knowledge base compiled once into plain data, so that diagnosis starts without pydantic or YAML.

Everything diagnosis takes from ``knowledge_base/`` -- the validated classes (as plain dicts), the kind table of
features, the knowledge-base hash a model is checked against, the documented messages, the runtime's inner-number
and reason tables, the vendor map's rules -- and the diagnosis parameters' defaults are computed from the validated
knowledge base (:mod:`opsbrain.kb.loader`, pydantic) and written as one JSON file,
``$OPSBRAIN_HOME/cache/kb-compiled.json``. The file is keyed by a content hash of every file of ``knowledge_base/``
(the model excepted) and of the source files that shape its content (:data:`SOURCES`): any edit of the knowledge
base or of that code makes the key differ, and the next process compiles again and replaces the file atomically. A
cache that cannot be read or written is no error: the knowledge base is then compiled in memory (and an invalid
knowledge base raises its usual one-line error). The plans of the line screens (which regex RE2 screens how) are
kept beside it (:func:`screen_memo`).

A parity test checks that the compiled form equals what the pydantic-loaded knowledge base gives.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
from functools import lru_cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

log = logging.getLogger(__name__)

FORMAT = 8  # 7: timeout_kinds; 8: kind_words, code_names (the words of evidence lines)
CACHE_NAME = "kb-compiled.json"
_PKG = Path(__file__).resolve().parents[1]  # opsbrain/
SOURCES = ("kb/compiled.py", "kb/loader.py", "kb/schema.py", "kb/codenorm.py", "kb/training.py",
           "diagnosis/knowledge.py", "diagnosis/params.py", "ingest/parsers/messages.py", "ingest/parsers/templates.py",
           "ingest/parsers/rt_internal.py", "detection/params.py")
"""Source files (under opsbrain/) whose code decides the compiled content; faultlib's fault catalogue too (the
loader checks the classes against it)."""


def _kb_dir() -> Path:
    import knowledge_base

    return knowledge_base.package_dir()


def _catalog_source() -> Path:
    import faultlib

    return Path(faultlib.__file__).resolve().parent / "faults" / "catalog.py"


@lru_cache(maxsize=1)
def content_key() -> str:
    """Once per process (the knowledge base is package data): sha256 over the knowledge base's files (names and
    bytes, the model directory excepted) and :data:`SOURCES`."""
    h = hashlib.sha256(f"format {FORMAT}\n".encode())
    base = _kb_dir()
    files: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d not in ("model", "__pycache__"))
        files.extend(Path(dirpath) / f for f in sorted(filenames) if not f.endswith((".pyc", ".pyo")))
    files += [_PKG / s for s in SOURCES] + [_catalog_source()]
    for f in files:
        h.update(str(f.relative_to(base) if f.is_relative_to(base) else f.name).encode() + b"\0")
        try:
            h.update(f.read_bytes())
        except OSError:
            h.update(b"<missing>")
        h.update(b"\0")
    return h.hexdigest()


def compile_kb() -> dict[str, Any]:
    """The plain form, computed from the validated (pydantic) knowledge base: the slow path, run once per key."""
    from opsbrain.detection.params import DetectorParams
    from opsbrain.diagnosis.knowledge import KindTable, documented_timeouts, raw_vendor_rules
    from opsbrain.diagnosis.params import DiagnosisParams
    from opsbrain.ingest.parsers.messages import message_parts_of, messages_of
    from opsbrain.ingest.parsers.rt_internal import driver_codes_of, inner_codes_of, reasons_of
    from opsbrain.ingest.parsers.templates import templates_of
    from opsbrain.kb.loader import load_kb
    from opsbrain.kb.training import kb_hash
    from opsbrain.yamlio import read_package_yaml

    kb = load_kb()
    codes = _kb_dir() / "codes.yaml"
    codes_doc = read_package_yaml(codes) if codes.exists() else {}
    # the message templates of every code table that lists them (cann_error_codes.yaml, ge_error_codes.yaml), in
    # file order: where two codes share a template's parts, the first stands for both (templates.templates_of)
    tables = [read_package_yaml(t) for t in sorted((_kb_dir() / "code_tables").glob("*.yaml"))]
    table_doc = {"rows": [r for t in tables if isinstance(t, dict) for r in (t.get("rows") or [])]}
    return {
        "format": FORMAT,
        "kb_hash": kb_hash(),
        "classes": [c.model_dump(mode="json") for c in kb],
        "kind_roles": {k: [list(x) for x in v] for k, v in KindTable.from_kb(kb).roles.items()},
        "timeout_kinds": documented_timeouts(),
        "kind_words": kind_words(kb),
        "code_names": code_names(),
        "messages": messages_of(codes_doc),
        "message_parts": message_parts_of(codes_doc),
        "message_templates": templates_of(codes_doc, table_doc),
        "runtime_inner_codes": inner_codes_of(codes_doc),
        "runtime_reasons": reasons_of(codes_doc),
        "driver_return_codes": driver_codes_of(codes_doc),
        "device_levels": {str(r["code"]).upper().removeprefix("0X"): str(r["level"])
                          for r in codes_doc.get("device_event_codes", []) or [] if r.get("level")},
        "vendor_rules": raw_vendor_rules(),
        "diagnosis_params": DiagnosisParams().model_dump(mode="json"),
        "detector_params": DetectorParams().model_dump(mode="json"),
    }


def kind_words(kb: Any) -> dict[str, str]:
    """Each signal kind's words from the classes' signal signatures (``rt:sync_failed``: "stream synchronize
    failed"): a primary role's meaning before another's, then the first class in id order."""
    rank = {"primary": 0, "secondary": 1, "ambiguous": 2}
    best: dict[str, tuple[int, str]] = {}
    for c in sorted(kb, key=lambda c: c.id):
        for sig in c.signatures.signals:
            r = (rank.get(sig.role, 3), " ".join(sig.meaning.split()))
            if sig.kind not in best or r[0] < best[sig.kind][0]:
                best[sig.kind] = r
    return {k: m for k, (_, m) in sorted(best.items())}


def code_names() -> dict[str, str]:
    """Each documented code's name by its signal kind (codes.yaml: ``rt:207001`` -> ACL_ERROR_RT_MEMORY_ALLOCATION),
    the first row's where several give one kind."""
    from opsbrain.diagnosis.knowledge import documented_rows

    out: dict[str, str] = {}
    for kinds, row in documented_rows():
        if row.get("name"):
            for k in kinds:
                out.setdefault(k, str(row["name"]))
    return out


def cache_path(home: Path | None = None) -> Path:
    from opsbrain.store import default_home

    return (home or default_home()) / "cache" / CACHE_NAME


def _read(path: Path, key: str) -> dict[str, Any] | None:
    try:
        doc = json.loads(path.read_bytes())
    except (OSError, ValueError, RecursionError):  # unreadable, not JSON, nested too deep
        return None
    return doc if isinstance(doc, dict) and doc.get("key") == key and doc.get("format") == FORMAT else None


_UNWRITABLE: set[str] = set()
"""Cache directories a write already failed in (this process): said once, not once per cache file (session 42: a
read-only data directory gave five warnings to every `diagnose`)."""


def _write(path: Path, doc: dict[str, Any]) -> None:
    from opsbrain.errors import InputError
    from opsbrain.fsio import write_atomic

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps(doc, sort_keys=True, separators=(",", ":")).encode(), option="cache")
    except (OSError, InputError) as exc:  # a read-only data directory: compiled in memory each time
        where = str(path.parent)
        said = where in _UNWRITABLE
        _UNWRITABLE.add(where)
        (log.debug if said else log.warning)(
            "knowledge-base cache not written (the knowledge base is compiled in memory; later cache files in this "
            "directory are not said)", extra={"path": str(path), "reason": str(exc)})


class CompiledKB:
    """The compiled knowledge base: iterable of plain classes (the attributes the matcher reads), the kind roles,
    the knowledge-base hash, the documented messages, the runtime's inner-number and reason tables, the vendor rules
    and the diagnosis parameters' defaults."""

    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        self.kb_hash: str = doc["kb_hash"]
        self.classes = {c["id"]: plain(c) for c in doc["classes"]}
        self.kind_roles: dict[str, list[tuple[str, str]]] = {k: [(a, b) for a, b in v]
                                                             for k, v in doc["kind_roles"].items()}
        self.timeout_kinds: dict[str, str] = dict(doc["timeout_kinds"])  # "rt:507048" -> its name and meaning
        self.kind_words: dict[str, str] = dict(doc["kind_words"])  # "rt:sync_failed" -> "stream synchronize failed"
        self.code_names: dict[str, str] = dict(doc["code_names"])  # "rt:207001" -> "ACL_ERROR_RT_MEMORY_ALLOCATION"
        self.messages: dict[str, str] = dict(doc["messages"])
        self.message_parts: list[str] = list(doc["message_parts"])
        self.message_templates: list[list[Any]] = list(doc["message_templates"])
        self.runtime_inner_codes: dict[str, int] = dict(doc["runtime_inner_codes"])  # "0x7010003" -> 107001
        self.runtime_reasons: dict[str, int] = dict(doc["runtime_reasons"])
        self.driver_return_codes: dict[str, int] = dict(doc["driver_return_codes"])  # "6" -> 207001
        self.device_levels: dict[str, str] = dict(doc["device_levels"])  # "80E01801" -> "RestartBusinessCodes"
        self.vendor_rules: list[dict[str, Any]] = list(doc["vendor_rules"])
        self.diagnosis_params = _namespace(doc["diagnosis_params"])
        self.detector_params = _namespace(doc["detector_params"])  # the replay of a bundle (no pydantic import)

    def __iter__(self) -> Any:
        return iter(self.classes.values())

    def __len__(self) -> int:
        return len(self.classes)

    def __contains__(self, class_id: object) -> bool:
        return class_id in self.classes

    def ids(self) -> list[str]:
        return list(self.classes)


_CODE_FAMILIES = (("device", "device_codes"), ("switch", "switch_alarms"), ("hccl", "hccl_codes"),
                  ("runtime", "runtime_codes"))


class PlainSignatures(SimpleNamespace):
    def codes(self) -> list[tuple[str, Any]]:
        """(code family, signature) for every code, as :meth:`opsbrain.kb.schema.Signatures.codes` orders them."""
        return [(family, s) for family, name in _CODE_FAMILIES for s in getattr(self, name)]


def plain(cls_doc: dict[str, Any]) -> SimpleNamespace:
    """A class's dumped dict as attributes (``fc.signatures.log_patterns[0].pattern``)."""
    out = _namespace({k: v for k, v in cls_doc.items() if k != "signatures"})
    sig = {k: [_namespace(x) for x in v] for k, v in cls_doc["signatures"].items()}
    out.signatures = PlainSignatures(**sig)
    return out


def _namespace(d: dict[str, Any]) -> SimpleNamespace:
    return SimpleNamespace(**{k: _namespace(v) if isinstance(v, dict) else v for k, v in d.items()})


@lru_cache(maxsize=4)
def _load(key: str, path: Path) -> CompiledKB:
    doc = _read(path, key)
    if doc is None:
        doc = compile_kb() | {"key": key}
        _write(path, doc)
    return CompiledKB(doc)


def compiled_kb(home: Path | None = None) -> CompiledKB:
    """The compiled knowledge base of this install (from the cache when its key matches, else compiled now)."""
    return _load(content_key(), cache_path(home))


def screen_memo(key: str, compute: Any, home: Path | None = None) -> dict[str, Any]:
    """A line screen's plan (:class:`opsbrain.multiscan.Screen`) from ``$OPSBRAIN_HOME/cache/screen-<key>.json``,
    else computed and written there (atomically; an unwritable cache is no error). The key names everything the
    plan depends on, so a stale file is never read."""
    path = cache_path(home).with_name(f"screen-{key[:32]}.json")
    doc = _read(path, key)
    if doc is not None and isinstance(doc.get("plan"), dict):
        with contextlib.suppress(OSError):
            os.utime(path)  # used now: the pruning below keeps the plans used last
        return dict(doc["plan"])
    plan = compute()
    _write(path, {"format": FORMAT, "key": key, "plan": plan})
    prune_screen_plans(path.parent, keep=path)
    return plan


SCREEN_PLANS_KEPT = 8
"""Screen plans kept in the cache directory, the ones used last: a diagnosis uses two (the parsers' screen and the
knowledge matcher's, which depends on the imported vendor knowledge), a few more serve other data directories'
imports; every change of the code or the knowledge base makes new ones, and the old ones would pile up."""


def prune_screen_plans(cache_dir: Path, keep: Path | None = None, kept: int = SCREEN_PLANS_KEPT) -> list[Path]:
    """Remove all but the ``kept`` screen plans used last (by modification time) from ``cache_dir``, never ``keep``;
    the paths removed. A plan that cannot be listed or removed stays (a cache is no error)."""
    def used(p: Path) -> int:
        try:
            return p.stat().st_mtime_ns
        except OSError:
            return 0

    try:
        plans = sorted(cache_dir.glob("screen-*.json"), key=used, reverse=True)
    except OSError:
        return []
    gone = []
    for p in plans[kept:]:
        if p == keep:
            continue
        try:
            p.unlink()
            gone.append(p)
        except OSError:
            pass
    return gone


__all__ = ["SCREEN_PLANS_KEPT", "CompiledKB", "cache_path", "compile_kb", "compiled_kb", "content_key",
           "prune_screen_plans", "screen_memo"]
