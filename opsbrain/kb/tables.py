"""Checks of the knowledge base's tables beside ``classes/``: ``codes.yaml`` (documented codes and messages,
each with a category), ``categories.yaml`` (which classes a category speaks for, and how strongly) and
``fd_categories.yaml`` (the same for a FaultDiag report's fault categories).

The ingestion layer reads both at run time and, by design, treats an unreadable table as empty; so a broken table
would silently take every documented code out of diagnosis. ``opsbrain kb validate`` runs these checks so that a
broken table is one clear error instead."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opsbrain.errors import KnowledgeBaseError
from opsbrain.yamlio import read_yaml

MAX_TABLE_BYTES = 8 << 20
ROLES = frozenset({"primary", "secondary", "ambiguous"})
KEYS = {"messages": "text", "cann_message_parts": "text", "runtime_reasons": "text", "runtime_reason_texts": "text"}
"""Sections whose rows are keyed by a text; every other section's rows are keyed by a code."""
INNER_SECTION, REASON_SECTION = "runtime_inner_codes", "runtime_reasons"
"""The runtime's inner numbers and reason strings: their rows are the parser's maps
(:mod:`opsbrain.ingest.parsers.rt_internal`), so each needs a number the parser can read."""


def table_errors(root: Path, class_ids: set[str]) -> list[KnowledgeBaseError]:
    """Every error of ``root``/codes.yaml and ``root``/categories.yaml (absent tables are not errors: a knowledge
    base may hold classes only)."""
    errors: list[KnowledgeBaseError] = []
    categories = _categories(root / "categories.yaml", class_ids, errors)
    codes = root / "codes.yaml"
    if codes.exists():
        _codes(codes, categories, errors)
    if (fd := root / FD_CATEGORIES).exists():
        _fd_categories(fd, class_ids, errors)
    return errors


FD_CATEGORIES = "fd_categories.yaml"
"""Which classes a FaultDiag report's fault category speaks for (:mod:`opsbrain.ingest.parsers.fdreport`)."""


def _fd_categories(path: Path, class_ids: set[str], errors: list[KnowledgeBaseError]) -> None:
    """Rows of ``kind`` (``network/switch/chip`` or a party, ``software``), ``classes`` {class: role}, ``reason``."""
    doc = _read(path, errors)
    rows = doc.get("rows") if isinstance(doc, dict) else None
    if doc is not None and not isinstance(rows, list):
        errors.append(KnowledgeBaseError("expected 'rows': a list", file=str(path)))
        return
    for i, row in enumerate(rows or []):
        where = f"rows[{i}]"
        if not isinstance(row, dict) or not isinstance(row.get("kind"), str) or not row["kind"].strip():
            errors.append(KnowledgeBaseError("each row needs a 'kind'", file=str(path), path=where))
            continue
        if row["kind"] != row["kind"].lower() or " " in row["kind"]:
            errors.append(KnowledgeBaseError("a kind is lower case, '_' for spaces", file=str(path), path=where))
        if not str(row.get("reason") or "").strip():
            errors.append(KnowledgeBaseError("each row needs a 'reason'", file=str(path), path=where))
        classes = row.get("classes")
        if not isinstance(classes, dict) or not classes:
            errors.append(KnowledgeBaseError("expected 'classes': class -> role", file=str(path), path=where))
            continue
        for cls, role in classes.items():
            if class_ids and cls not in class_ids:
                errors.append(KnowledgeBaseError("no such class", file=str(path), path=f"{where}.{cls}"))
            if role not in ROLES:
                errors.append(KnowledgeBaseError(f"role must be one of {sorted(ROLES)}", file=str(path),
                                                 path=f"{where}.{cls}"))


def _read(path: Path, errors: list[KnowledgeBaseError]) -> Any:
    try:
        return read_yaml(path, KnowledgeBaseError, MAX_TABLE_BYTES)
    except KnowledgeBaseError as exc:
        errors.append(exc)
        return None


def _categories(path: Path, class_ids: set[str], errors: list[KnowledgeBaseError]) -> set[str] | None:
    if not path.exists():
        return None
    doc = _read(path, errors)
    if doc is None:
        return set()
    if not isinstance(doc, dict):
        errors.append(KnowledgeBaseError("expected a mapping of category -> {class: role}", file=str(path)))
        return set()
    for name, roles in doc.items():
        if not isinstance(roles, dict):
            errors.append(KnowledgeBaseError("expected a mapping of class -> role", file=str(path), path=str(name)))
            continue
        for cls, role in roles.items():
            where = f"{name}.{cls}"
            if class_ids and cls not in class_ids:
                errors.append(KnowledgeBaseError("no such class", file=str(path), path=where))
            if role not in ROLES:
                errors.append(KnowledgeBaseError(f"role {role!r} is not one of {sorted(ROLES)}", file=str(path),
                                                 path=where))
    return {str(k) for k in doc}


def _codes(path: Path, categories: set[str] | None, errors: list[KnowledgeBaseError]) -> None:
    doc = _read(path, errors)
    if doc is None:
        return
    if not isinstance(doc, dict):
        errors.append(KnowledgeBaseError("expected a mapping of section -> list of rows", file=str(path)))
        return
    for section, rows in doc.items():
        if not isinstance(rows, list):
            errors.append(KnowledgeBaseError("expected a list of rows", file=str(path), path=str(section)))
            continue
        key = KEYS.get(str(section), "code")
        for i, row in enumerate(rows):
            where = f"{section}[{i}]"
            if not isinstance(row, dict):
                errors.append(KnowledgeBaseError("expected a mapping", file=str(path), path=where))
                continue
            if row.get(key) in (None, ""):
                errors.append(KnowledgeBaseError(f"missing {key!r}", file=str(path), path=where))
            cat = row.get("category")
            if not isinstance(cat, str) or not cat:
                errors.append(KnowledgeBaseError("missing 'category'", file=str(path), path=where))
            elif categories is not None and cat not in categories:
                errors.append(KnowledgeBaseError(f"category {cat!r} is not in categories.yaml", file=str(path),
                                                 path=f"{where}.category"))
            if not row.get("source"):
                errors.append(KnowledgeBaseError("missing 'source' (every documented row names its source)",
                                                 file=str(path), path=where))
            if section in (INNER_SECTION, REASON_SECTION):
                errors.extend(_runtime_row_errors(str(section), row, str(path), where))


def _runtime_row_errors(section: str, row: dict[str, Any], file: str, where: str) -> list[KnowledgeBaseError]:
    """The runtime's inner-number and reason rows are the parser's maps (:mod:`opsbrain.ingest.parsers.rt_internal`):
    an integer AscendCL code (``acl``) each, and an inner number in hex."""
    errors = []
    checks = [("acl", 10, "an integer AscendCL code")] + ([("code", 16, "a hex number (0x7010003)")]
                                                          if section == INNER_SECTION else [])
    for field, base, what in checks:
        try:
            int(str(row.get(field)), base)
        except ValueError:
            errors.append(KnowledgeBaseError(f"{field!r} must be {what}", file=file, path=f"{where}.{field}"))
    return errors
