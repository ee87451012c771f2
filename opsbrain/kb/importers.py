"""Importers of real vendor knowledge (MindCluster formats, facts.md §3) that extend log diagnosis.

- ``mindcluster-faultcode``: the device plugin's fault-level file, a JSON object of level lists
  (``"RestartBusinessCodes": ["80E01801", ...]``); the UB switch variant (``"SeparateFaultCodes":
  ["[0x08520003,na,npu,na]", ...]``) is read too. Each code gets its handling level; a code listed under
  several levels keeps the most severe (MindCluster: the most severe active level wins).
- ``mindcluster-kg``: the fault knowledge graph of Huawei's ascend-fd tool, ``{"knowledge-repository": {ID:
  {"attribute": {...cause_en, description_en, suggestion_en...}, "rule": [{"dst_code": ..}], "source_file":
  .., "regex": {"in": [...]}}}}``. Supported match rules: ``"in": [s1, s2]`` (all substrings, in that
  order, case-sensitive as a Python substring test), ``"in": [[..], [..]]`` (OR of such groups) and
  ``"regex"`` (a regular-expression search). Entries using the multi-line ``"all"`` / ``"opt"`` rules, or
  having no log signature at all, are refused with the reason. An entry whose id is a device fault code
  (``0x81078603``) also matches any line carrying that code, however it is spelled.

Imported data is saved as JSON (atomic write) under a data directory, one file per (format, source file
name): importing the same file again replaces it. :func:`load_imported` merges them for the matcher. Input
files are never copied: only the codes, levels, substrings and English texts needed to match and explain.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from opsbrain.errors import KnowledgeBaseError
from opsbrain.fsio import write_json_atomic
from opsbrain.kb.codenorm import LEVELS, norm_device_code, norm_switch_code
from opsbrain.kb.saferegex import regex_problem
from opsbrain.lazyre import lazy_compile

MAX_IMPORT_BYTES = 64 << 20
"""Refuse input files above 64 MB: the public knowledge graph is ~1.3 MB, so this is 50x headroom while a
mistaken path (a log archive, a disk image) fails fast instead of filling memory."""

MAX_ANCHOR_CHARS = 48
"""Longest prefix of a substring used to index it (the rest is checked on the candidate line)."""

FORMATS = ("mindcluster-faultcode", "mindcluster-kg")

LEVEL_KEYS: dict[str, str] = {
    "NotHandleFaultCodes": "NotHandle",
    "SubHealthFaultCodes": "SubHealth",
    "RestartRequestCodes": "RestartRequest",
    "RestartRequestFaultCodes": "RestartRequest",  # switch file spelling
    "RestartBusinessCodes": "RestartBusiness",
    "FreeRestartNPUCodes": "FreeRestartNPU",
    "RestartNPUCodes": "RestartNPU",
    "PreSeparateNPUCodes": "PreSeparateNPU",
    "SeparateNPUCodes": "SeparateNPU",
    "ManuallySeparateNPUCodes": "ManuallySeparateNPU",
    "SeparateFaultCodes": "SeparateNPU",  # switch file: assumed to isolate the NPUs behind the port
}
"""Level-list keys of the fault-level files -> MindCluster handling level (facts.md §3)."""

_SEVERITY = {lvl: i for i, lvl in enumerate(LEVELS)}
_DEVICE_ID = lazy_compile(r"^0[xX][0-9a-fA-F]{8,9}$")


def default_data_dir() -> Path:
    from opsbrain.store import default_home

    return default_home() / "kb_imports"


def most_severe(a: str, b: str) -> str:
    return a if _SEVERITY.get(a, -1) >= _SEVERITY.get(b, -1) else b


def canonical_code(code: str) -> str:
    """A device code (``0x80e01801`` -> ``80E01801``) or a switch fault tuple (-> lower-case key)."""
    c = code.strip()
    return norm_switch_code(c) if c.startswith("[") else norm_device_code(c)


# ---- data ------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ImportedEntry:
    """One knowledge-graph entry as the matcher needs it."""

    id: str
    cause: str
    description: str = ""
    suggestion: str = ""
    component: str = ""
    category: str = ""
    source_file: str = ""
    code: str | None = None
    groups: tuple[tuple[str, ...], ...] = ()
    regex: str | None = None
    effects: tuple[str, ...] = ()
    zh_name_key: str = ""  # name_digest of the Chinese name a FaultDiag report prints for it (故障名称), not the text

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["groups"] = [list(g) for g in self.groups]
        d["effects"] = list(self.effects)
        return d

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> ImportedEntry:
        return cls(id=str(d["id"]), cause=str(d.get("cause", "")), description=str(d.get("description", "")),
                   suggestion=str(d.get("suggestion", "")), component=str(d.get("component", "")),
                   category=str(d.get("category", "")), source_file=str(d.get("source_file", "")),
                   code=d.get("code"), groups=tuple(tuple(str(s) for s in g) for g in d.get("groups", [])),
                   regex=d.get("regex"), effects=tuple(str(e) for e in d.get("effects", [])),
                   zh_name_key=str(d.get("zh_name_key", "")))


@dataclass
class ImportReport:
    """What an import did: counts, refusals grouped by reason, the imported entries, where it was saved."""

    format: str
    source: str
    imported: int = 0
    refused: int = 0
    refused_reasons: dict[str, list[str]] = field(default_factory=dict)
    entries: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    saved_to: str | None = None

    def refuse(self, item: str, reason: str) -> None:
        self.refused += 1
        self.refused_reasons.setdefault(reason, []).append(item)

    def as_dict(self, with_entries: bool = True) -> dict[str, Any]:
        d = asdict(self)
        if not with_entries:
            d.pop("entries")
        return d


@dataclass
class ImportedKnowledge:
    """Everything imported so far, merged: code -> handling level, and the knowledge-graph entries."""

    levels: dict[str, str] = field(default_factory=dict)
    entries: dict[str, ImportedEntry] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def by_code(self) -> dict[str, list[ImportedEntry]]:
        out: dict[str, list[ImportedEntry]] = {}
        for e in self.entries.values():
            if e.code:
                out.setdefault(e.code, []).append(e)
        return out

    def __bool__(self) -> bool:
        return bool(self.levels or self.entries)


# ---- reading and saving ----------------------------------------------------------------------------------------
def json_path(parts: tuple[Any, ...]) -> str:
    """``("knowledge-repository", "0x8C1F8608", "regex", "in", 2)`` ->
    ``knowledge-repository.0x8C1F8608.regex.in[2]`` (keys with other characters in ``["..."]``)."""
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        elif re.fullmatch(r"[A-Za-z0-9_\-]+", str(p)):
            out += ("." if out else "") + str(p)
        else:
            out += f"[{json.dumps(str(p), ensure_ascii=False)}]"
    return out or "(top)"


def read_json(path: str | Path, limit: int | None = None) -> Any:
    """Parse a JSON file; symlinks, non-files, oversized (> ``limit``, default MAX_IMPORT_BYTES), undecodable or
    malformed files raise KnowledgeBaseError naming the file (and the line and column of a syntax error)."""
    from opsbrain.yamlio import read_bytes

    limit = MAX_IMPORT_BYTES if limit is None else limit
    return _parse_json_bytes(read_bytes(path, KnowledgeBaseError, limit), str(path))


def _parse_json_bytes(raw: bytes, file: str) -> Any:
    from opsbrain.yamlio import parse_json

    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise KnowledgeBaseError(f"not UTF-8 text (byte {exc.start})", file=file) from None
    return parse_json(text, file, KnowledgeBaseError)


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)[:80] or "file"


def _save(data: dict[str, Any], data_dir: Path, name: str) -> Path:
    """Atomic write: a temporary file in the same directory, then ``os.replace``."""
    target = data_dir / name
    write_json_atomic(target, data, ensure_ascii=False)
    return target


def _finish(report: ImportReport, path: Path, levels: dict[str, str], entries: list[ImportedEntry],
            data_dir: str | Path | None, save: bool) -> ImportReport:
    if not save:
        return report
    d = Path(data_dir) if data_dir is not None else default_data_dir()
    doc = {"format": report.format, "version": 1, "source": str(path),
           "source_sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
           "imported_at": datetime.now(UTC).isoformat(timespec="seconds"),
           "levels": levels, "entries": [e.to_json() for e in entries], "refused": report.refused_reasons}
    try:
        report.saved_to = str(_save(doc, d, f"{report.format}--{_safe_name(path.name)}.json"))
    except OSError as exc:
        raise KnowledgeBaseError(f"cannot save the import: {exc.strerror or exc}", file=str(d)) from None
    return report


# ---- mindcluster-faultcode ------------------------------------------------------------------------------------
def import_faultcode(path: str | Path, data_dir: str | Path | None = None, save: bool = True) -> ImportReport:
    """Import a MindCluster fault-level file (device ``faultCode.json`` or switch ``SwitchFaultCode.json``)."""
    p = Path(path)
    data = read_json(p)
    file = str(p)
    if not isinstance(data, dict):
        raise KnowledgeBaseError("a fault-level file must be a JSON object of level lists", file=file, path="(top)")
    known = [k for k in data if k in LEVEL_KEYS]
    if not known:
        raise KnowledgeBaseError(f"no level list found (expected keys like {', '.join(list(LEVEL_KEYS)[:3])})",
                                 file=file, path="(top)")
    report = ImportReport(format="mindcluster-faultcode", source=file)
    levels: dict[str, str] = {}
    for key, codes in data.items():
        level = LEVEL_KEYS.get(key)
        if not isinstance(codes, list):
            if level is not None:
                raise KnowledgeBaseError("must be a list of fault code strings", file=file, path=json_path((key,)))
            report.notes.append(f"ignored key {key!r} (not a level list)")
            continue
        if level is None:
            if not codes:
                report.notes.append(f"ignored empty list {key!r} (no MindCluster handling level of that name)")
            for i, _c in enumerate(codes):
                report.refuse(json_path((key, i)), f"unknown level list {key!r}")
            continue
        for i, c in enumerate(codes):
            if not isinstance(c, str):
                report.refuse(json_path((key, i)), "not a string")
                continue
            try:
                code = canonical_code(c)
            except ValueError:
                report.refuse(json_path((key, i)), "not a fault code (8-9 hex digits or [0xALARM,fault,peer,port])")
                continue
            if code in levels and levels[code] != level:
                kept = most_severe(levels[code], level)
                report.notes.append(f"{code} listed as {levels[code]} and {level}: kept {kept}")
                level = kept
            levels[code] = level
    report.imported = len(levels)
    report.entries = [{"code": c, "level": lv} for c, lv in sorted(levels.items())]
    return _finish(report, p, levels, [], data_dir, save)


# ---- mindcluster-kg --------------------------------------------------------------------------------------------
_UNSUPPORTED = {
    "all": "unsupported match rule 'all' (groups within a window of lines; one-line matching cannot apply it)",
    "opt": "unsupported match rule 'opt' (option objects with line windows; one-line matching cannot apply it)",
}


def name_digest(name: str) -> str:
    """The key a fault name is compared by (case and runs of white space folded, a closing full stop dropped), as a
    digest: a FaultDiag report's Chinese fault name (故障名称) is matched against an entry's without the saved import
    holding the vendor's Chinese text; "" for no name."""
    key = " ".join(name.casefold().split()).rstrip("。.")
    return hashlib.blake2b(key.encode(), digest_size=12).hexdigest() if key else ""


def _text(v: Any) -> str:
    if isinstance(v, str):
        return " ".join(v.split())
    if isinstance(v, list):
        return " ".join(" ".join(str(x).split()) for x in v if isinstance(x, str | int | float))
    return ""


def _groups(spec: Any) -> tuple[tuple[str, ...], ...]:
    """An ``"in"`` value -> OR of groups of substrings; ValueError with the reason when malformed."""
    if not isinstance(spec, list) or not spec:
        raise ValueError("'in' must be a non-empty list")
    if all(isinstance(s, str) for s in spec):
        raw = [spec]
    elif all(isinstance(g, list) for g in spec):
        raw = spec
    else:
        raise ValueError("'in' mixes substrings and groups")
    out = []
    for g in raw:
        if not g or not all(isinstance(s, str) for s in g):
            raise ValueError("'in' group is empty or holds a non-string")
        if any(s == "" for s in g):
            raise ValueError("'in' holds an empty substring (it would match every line)")
        out.append(tuple(g))
    return tuple(out)


def _check_regex(rx: Any) -> str:
    """The pattern when it is safe to search every log line with (:mod:`opsbrain.kb.saferegex`); else a
    ValueError whose reason groups the refusals."""
    if not isinstance(rx, str) or not rx:
        raise ValueError("'regex' must be a non-empty string")
    problem = regex_problem(rx)
    if problem:
        raise ValueError(f"'regex' {problem}")
    return rx


def _kg_entry(eid: str, e: Any) -> ImportedEntry:
    """One knowledge-graph entry -> ImportedEntry; ValueError with a groupable reason when it cannot be used."""
    if not isinstance(e, dict):
        raise ValueError("entry is not an object")
    attr = e.get("attribute", {})
    if not isinstance(attr, dict):
        raise ValueError("'attribute' is not an object")
    cause, desc = _text(attr.get("cause_en")), _text(attr.get("description_en"))
    if not cause and not desc:
        raise ValueError("no English cause or description")
    spec = e.get("regex", {})
    if spec is None:
        spec = {}
    if not isinstance(spec, dict):
        raise ValueError("'regex' is not an object")
    for key in spec:
        if key not in ("in", "regex"):
            raise ValueError(_UNSUPPORTED.get(key, f"unsupported match rule {key!r}"))
    groups = _groups(spec["in"]) if "in" in spec else ()
    rx = _check_regex(spec["regex"]) if "regex" in spec else None
    code = norm_device_code(eid) if _DEVICE_ID.match(eid) else None
    if not groups and rx is None and code is None:
        raise ValueError("no log signature (raised by ascend-fd's own checks, not by a log line)")
    rules = e.get("rule", [])
    effects = tuple(str(r["dst_code"]) for r in rules if isinstance(r, dict) and isinstance(r.get("dst_code"), str)) \
        if isinstance(rules, list) else ()
    src = e.get("source_file", "")
    return ImportedEntry(id=eid, cause=cause or desc, description=desc, suggestion=_text(attr.get("suggestion_en")),
                         component=_text(attr.get("component")), category=_text(attr.get("class")),
                         source_file=src if isinstance(src, str) else "", code=code, groups=groups, regex=rx,
                         effects=effects, zh_name_key=name_digest(_text(attr.get("cause_zh"))))


def import_kg(path: str | Path, data_dir: str | Path | None = None, save: bool = True) -> ImportReport:
    """Import an ascend-fd fault knowledge graph (``kg-config.json``)."""
    p = Path(path)
    data = read_json(p)
    file = str(p)
    if not isinstance(data, dict):
        raise KnowledgeBaseError("a knowledge graph must be a JSON object", file=file, path="(top)")
    repo = data.get("knowledge-repository")
    if repo is None:
        raise KnowledgeBaseError("missing 'knowledge-repository'", file=file, path="(top)")
    if not isinstance(repo, dict):
        raise KnowledgeBaseError("must be an object of entries by id", file=file, path="knowledge-repository")
    report = ImportReport(format="mindcluster-kg", source=file)
    entries: list[ImportedEntry] = []
    attr_regex = 0
    for eid, e in repo.items():
        try:
            entry = _kg_entry(str(eid), e)
        except ValueError as exc:
            report.refuse(str(eid), str(exc))
            continue
        attr_regex += isinstance(e, dict) and "attr_regex" in e
        entries.append(entry)
    if attr_regex:
        report.notes.append(f"{attr_regex} entries have 'attr_regex' (event attributes); not used for matching")
    report.imported = len(entries)
    report.entries = [{"id": x.id, "code": x.code, "cause": x.cause, "source_file": x.source_file,
                       "groups": len(x.groups), "regex": x.regex is not None} for x in entries]
    return _finish(report, p, {}, entries, data_dir, save)


IMPORTERS: dict[str, Callable[..., ImportReport]] = {"mindcluster-faultcode": import_faultcode,
                                                      "mindcluster-kg": import_kg}


def kb_import(fmt: str, path: str | Path, data_dir: str | Path | None = None) -> dict[str, Any]:
    """``opsbrain kb import FORMAT PATH``: run the importer and return its report as plain data."""
    try:
        importer = IMPORTERS[fmt]
    except KeyError:
        raise KnowledgeBaseError(f"unknown import format {fmt!r} (known: {', '.join(FORMATS)})") from None
    return importer(path, data_dir).as_dict()


# ---- loading what was imported ---------------------------------------------------------------------------------
def _parse_saved(doc: Any, file: str) -> tuple[dict[str, str], list[ImportedEntry], str]:
    if not isinstance(doc, dict) or not isinstance(doc.get("levels", {}), dict) \
            or not isinstance(doc.get("entries", []), list):
        raise KnowledgeBaseError("not an opsbrain import file (re-run 'opsbrain kb import')", file=file)
    levels: dict[str, str] = {}
    for code, level in doc.get("levels", {}).items():
        if level not in _SEVERITY:
            raise KnowledgeBaseError(f"unknown handling level {level!r}", file=file, path=json_path(("levels", code)))
        levels[str(code)] = level
    entries = []
    for i, e in enumerate(doc.get("entries", [])):
        try:
            entry = ImportedEntry.from_json(e)
            problem = regex_problem(entry.regex, probe=False) if entry.regex is not None else None
        except (KeyError, TypeError, AttributeError, ValueError, re.error):
            raise KnowledgeBaseError("malformed entry", file=file, path=json_path(("entries", i))) from None
        if problem:
            raise KnowledgeBaseError(f"regex {problem}", file=file, path=json_path(("entries", i, "regex")))
        entries.append(entry)
    return levels, entries, str(doc.get("source", file))


def _read_saved(f: Path) -> tuple[dict[str, str], list[ImportedEntry], str]:
    """One saved import, from its compact form when that is current (:mod:`opsbrain.kb.imported_cache`)."""
    from opsbrain.kb.imported_cache import cached
    from opsbrain.yamlio import read_bytes

    raw = read_bytes(f, KnowledgeBaseError, MAX_IMPORT_BYTES)
    return cached(f, raw, lambda data: _parse_saved(_parse_json_bytes(data, str(f)), str(f)))


def load_imported(data_dir: str | Path | None = None, strict: bool = True) -> ImportedKnowledge:
    """Merge every saved import under ``data_dir`` (default: ``default_home()/kb_imports``); empty if none.

    A damaged file raises KnowledgeBaseError (``strict``) or is skipped with a line in ``warnings``."""
    d = Path(data_dir) if data_dir is not None else default_data_dir()
    out = ImportedKnowledge()
    if not d.is_dir():
        return out
    for f in sorted(d.glob("*.json")):
        if f.name.startswith(".tmp-"):
            continue
        try:
            levels, entries, source = _read_saved(f)
        except KnowledgeBaseError as exc:
            if strict:
                raise
            out.warnings.append(str(exc))
            continue
        for code, level in levels.items():
            out.levels[code] = most_severe(out.levels[code], level) if code in out.levels else level
        out.entries.update((e.id, e) for e in entries)
        out.sources.append(source)
    return out
