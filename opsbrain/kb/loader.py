"""Load and validate the knowledge base: every error names the file, the YAML path inside it and the reason.

Beyond the schema, a class whose id is a faultlib fault kind must agree with the fault catalogue (family,
handling level, Llama 3 category, self-healing), each file holds the class named like it, and every catalogue
kind has a class (coverage).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

import knowledge_base
from faultlib.faults.catalog import CATALOG
from opsbrain.errors import KnowledgeBaseError
from opsbrain.kb.schema import FaultClass, runbook_id
from opsbrain.kb.tables import table_errors
from opsbrain.yamlio import read_yaml, yaml_path

MAX_FILE_BYTES = 1 << 20
"""A class file is a page of YAML; anything near a megabyte is not one (and is refused before parsing)."""



class KnowledgeBase:
    """The validated fault classes, by id (sorted)."""

    def __init__(self, classes: Mapping[str, FaultClass], files: Mapping[str, Path] | None = None,
                 root: Path | None = None) -> None:
        self.classes: dict[str, FaultClass] = {k: classes[k] for k in sorted(classes)}
        self.files: dict[str, Path] = dict(files or {})
        self.root = root

    def get(self, class_id: str) -> FaultClass:
        try:
            return self.classes[class_id]
        except KeyError:
            raise KnowledgeBaseError(f"no class named {class_id!r} (known: {', '.join(self.classes)})",
                                     file=str(self.root) if self.root else None) from None

    def ids(self) -> list[str]:
        return list(self.classes)

    def __contains__(self, class_id: object) -> bool:
        return class_id in self.classes

    def __iter__(self) -> Iterator[FaultClass]:
        return iter(self.classes.values())

    def __len__(self) -> int:
        return len(self.classes)

    def hash(self) -> str:
        """sha256 of the classes' validated content (canonical JSON): formatting and comments do not count."""
        blob = json.dumps([c.model_dump(mode="json") for c in self.classes.values()], sort_keys=True,
                          separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(blob.encode()).hexdigest()

    def missing_kinds(self) -> list[str]:
        """Catalogue fault kinds that have no class."""
        return sorted(set(CATALOG) - set(self.classes))


# ---- reading --------------------------------------------------------------------------------------------------
def _message(err: Mapping[str, Any]) -> str:
    msg = str(err["msg"]).removeprefix("Value error, ").removeprefix("Assertion failed, ")
    if err["type"] == "extra_forbidden":
        return "unknown field"
    if err["type"] in ("literal_error", "enum"):
        return f"{msg} (got {err.get('input')!r})"
    return msg


def _class_errors(data: Any, path: Path) -> tuple[FaultClass | None, list[KnowledgeBaseError]]:
    file = str(path)
    if not isinstance(data, dict):
        return None, [KnowledgeBaseError("a fault class file must be a YAML mapping", file=file)]
    errors: list[KnowledgeBaseError] = []
    cid, rb = data.get("id"), data.get("runbook")
    if isinstance(cid, str) and cid != path.stem:
        errors.append(KnowledgeBaseError(f"class id {cid!r} differs from the file name {path.stem!r}",
                                         file=file, path="id"))
    if isinstance(cid, str) and isinstance(rb, str) and rb != runbook_id(cid):
        errors.append(KnowledgeBaseError(f"must be {runbook_id(cid)!r} (rb-<class id with dashes>), got {rb!r}",
                                         file=file, path="runbook"))
    try:
        fc = FaultClass.model_validate(data)
    except ValidationError as exc:
        return None, errors + [KnowledgeBaseError(_message(e), file=file, path=yaml_path(tuple(e["loc"])))
                               for e in exc.errors()]
    kind = CATALOG.get(fc.id)
    if kind is not None:
        for field, ours, theirs in (("family", fc.family, kind.family), ("handling", fc.handling, kind.level),
                                    ("llama3_category", fc.llama3_category, kind.category),
                                    ("self_heals", fc.self_heals, kind.self_heals)):
            if ours != theirs:
                errors.append(KnowledgeBaseError(f"{ours!r} disagrees with the fault catalogue ({theirs!r})",
                                                 file=file, path=field))
    return (fc if not errors else None), errors


def _files(path: Path | None) -> tuple[Path, list[Path], bool]:
    """(root, class files, whole knowledge base?) for a classes directory, its parent, or one file."""
    p = Path(path) if path is not None else knowledge_base.classes_dir()
    if p.is_file() or p.suffix in (".yaml", ".yml"):
        return p, [p], False
    if (p / "classes").is_dir():
        p = p / "classes"
    if not p.is_dir():
        raise KnowledgeBaseError("no such knowledge-base directory", file=str(p))
    return p, knowledge_base.class_files(p), True


def _validate(path: str | Path | None) -> tuple[list[KnowledgeBaseError], KnowledgeBase]:
    try:
        root, files, whole = _files(Path(path) if path is not None else None)
    except KnowledgeBaseError as exc:
        return [exc], KnowledgeBase({})
    errors, classes, by_id = _collect(files)
    if whole:
        if not files:
            errors.append(KnowledgeBaseError("no class files (*.yaml)", file=str(root)))
        errors.extend(KnowledgeBaseError(f"no class for fault kind {k!r} (expected {k}.yaml)", file=str(root))
                      for k in sorted(set(CATALOG) - set(by_id)))
        errors.extend(table_errors(root.parent, set(by_id)))
    return errors, KnowledgeBase(classes, by_id, root)


def _collect(files: list[Path]) -> tuple[list[KnowledgeBaseError], dict[str, FaultClass], dict[str, Path]]:
    errors: list[KnowledgeBaseError] = []
    classes: dict[str, FaultClass] = {}
    by_id: dict[str, Path] = {}
    for f in files:
        try:
            data = read_yaml(f, KnowledgeBaseError, MAX_FILE_BYTES)
        except KnowledgeBaseError as exc:
            errors.append(exc)
            continue
        fc, errs = _class_errors(data, f)
        errors.extend(errs)
        cid = data.get("id") if isinstance(data, dict) else None
        if isinstance(cid, str) and cid in by_id:
            errors.append(KnowledgeBaseError(f"class {cid!r} is also defined in {by_id[cid]}", file=str(f),
                                             path="id"))
            continue
        if isinstance(cid, str):
            by_id[cid] = f
        if fc is not None:
            classes[fc.id] = fc
    return errors, classes, by_id


def validate_kb(path: str | Path | None = None) -> list[KnowledgeBaseError]:
    """Every error of the knowledge base at ``path`` (default: the shipped one); empty when it is valid.

    ``path`` is a classes directory, the directory holding ``classes/``, or one class file (then the coverage
    of the fault catalogue is not checked)."""
    return _validate(path)[0]


def load_kb(path: str | Path | None = None) -> KnowledgeBase:
    """The validated knowledge base (default: the shipped classes); raises the first error found. The shipped one
    is read once per process while its files are unchanged (name, size, modification time)."""
    global _SHIPPED
    key = _shipped_fingerprint() if path is None else None
    if key is not None and _SHIPPED is not None and _SHIPPED[0] == key:
        return _SHIPPED[1]
    errors, kb = _validate(path)
    if errors:
        raise errors[0]
    if key is not None:
        _SHIPPED = (key, kb)
    return kb


_SHIPPED: tuple[tuple[tuple[str, int, int], ...], KnowledgeBase] | None = None


def _shipped_fingerprint() -> tuple[tuple[str, int, int], ...] | None:
    try:
        return tuple((f.name, (st := f.stat()).st_size, st.st_mtime_ns) for f in knowledge_base.class_files())
    except OSError:
        return None


# ---- what the CLI shows ---------------------------------------------------------------------------------------
def kb_list(path: str | Path | None = None) -> list[dict[str, Any]]:
    """One row per class: id, title, family, handling level, Llama 3 category, runbook, localization, counts."""
    kb = load_kb(path)
    return [{"id": c.id, "title": c.title, "family": c.family, "handling": c.handling,
             "llama3_category": c.llama3_category, "runbook": c.runbook, "localization": c.localization,
             "self_heals": c.self_heals, "codes": len(c.signatures.codes()),
             "log_patterns": len(c.signatures.log_patterns), "metric_rules": len(c.signatures.metric_rules)}
            for c in kb]


def kb_show(class_id: str, path: str | Path | None = None) -> dict[str, Any]:
    """The whole class as plain data, with the file it comes from."""
    kb = load_kb(path)
    out = kb.get(class_id).model_dump(mode="json")
    out["file"] = str(kb.files.get(class_id, ""))
    return out
