"""Load and validate runbook files; every error names the file, the YAML path and the reason.

Functions for the CLI (``opsbrain runbooks list|show|validate``) return plain dicts and raise
:class:`~opsbrain.errors.RunbookError` (exit 2). ``paths`` may name files or folders; ``None`` means the
built-in runbooks of the ``runbooks`` data package.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

import runbooks as runbook_data
from faultlib.faults.catalog import CATALOG
from opsbrain.errors import RunbookError
from opsbrain.recovery.schema import UNKNOWN_CLASS, Runbook, problems
from opsbrain.yamlio import read_yaml, yaml_path

MAX_FILE_BYTES = 1 << 20


@dataclass
class RunbookSet:
    """Validated runbooks by id, with the file each came from."""

    runbooks: dict[str, Runbook] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)

    def get(self, rb_id: str) -> Runbook | None:
        return self.runbooks.get(rb_id)

    def for_class(self, fault_class: str) -> list[Runbook]:
        """Runbooks that apply to ``fault_class``, lowest priority value first (then by id)."""
        found = [rb for rb in self.runbooks.values() if fault_class in rb.applies_to]
        return sorted(found, key=lambda rb: (rb.priority, rb.id))

    def classes_without_runbook(self) -> list[str]:
        covered = {c for rb in self.runbooks.values() for c in rb.applies_to}
        return sorted(set(CATALOG) - covered)

    def __len__(self) -> int:
        return len(self.runbooks)


# ---- reading -------------------------------------------------------------------------------------------------
def _message(err: Any) -> str:
    if err["type"] == "extra_forbidden":
        return "unknown field"
    msg = str(err["msg"]).removeprefix("Value error, ")
    if err["type"] in ("literal_error", "string_pattern_mismatch"):
        msg += f" (got {err.get('input')!r})"
    return msg


def file_errors(path: Path) -> tuple[Runbook | None, list[RunbookError]]:
    """The runbook of one file, or every error in it."""
    try:
        data = read_yaml(path, RunbookError, MAX_FILE_BYTES)
    except RunbookError as exc:
        return None, [exc]
    file = str(path)
    if not isinstance(data, dict):
        return None, [RunbookError("a runbook must be a YAML mapping", file=file)]
    try:
        rb = Runbook.model_validate(data)
    except ValidationError as exc:
        return None, [RunbookError(_message(e), file=file, path=yaml_path(e["loc"])) for e in exc.errors()]
    errors = [RunbookError(reason, file=file, path=p) for p, reason in problems(rb)]
    if rb.id != path.stem:
        errors.append(RunbookError(f"id {rb.id!r} must match the file name {path.stem!r}", file=file, path="id"))
    return (None if errors else rb), errors


def _expand(paths: Iterable[str | Path] | None) -> list[Path]:
    if paths is None:
        return runbook_data.files()
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(sorted(p.glob("*.yaml")) + sorted(p.glob("*.yml")))
        else:
            out.append(p)
    return out


def runbook_errors(paths: Iterable[str | Path] | None = None) -> tuple[RunbookSet, list[RunbookError]]:
    """Load every file; return the valid runbooks and all errors (files, then cross-references)."""
    rbs = RunbookSet()
    errors: list[RunbookError] = []
    files = _expand(paths)
    if not files:
        errors.append(RunbookError("no runbook files found", file=", ".join(map(str, paths or [])) or None))
    for path in files:
        rb, errs = file_errors(path)
        errors.extend(errs)
        if rb is None:
            continue
        if rb.id in rbs.runbooks:
            errors.append(RunbookError(f"duplicate runbook id {rb.id!r} (also in {rbs.files[rb.id]})",
                                       file=str(path), path="id"))
            continue
        rbs.runbooks[rb.id] = rb
        rbs.files[rb.id] = str(path)
    for rb in rbs.runbooks.values():
        if rb.repeat is not None and rb.repeat.then not in rbs.runbooks:
            errors.append(RunbookError(f"runbook {rb.repeat.then!r} does not exist", file=rbs.files[rb.id],
                                       path="repeat.then"))
    return rbs, errors


def load_runbooks(paths: Iterable[str | Path] | None = None) -> RunbookSet:
    """Validated runbooks; raises the first :class:`RunbookError`."""
    rbs, errors = runbook_errors(paths)
    if errors:
        raise errors[0]
    return rbs


# ---- CLI-facing views ------------------------------------------------------------------------------------------
def _summary(rb: Runbook, file: str) -> dict[str, Any]:
    return {"id": rb.id, "title": rb.title, "applies_to": list(rb.applies_to), "level": rb.level,
            "rungs": [r for r, _s, _rb in rb.ladder()], "steps": [s.action for s in rb.steps],
            "approval_steps": sum(s.approval == "required" for _r, steps, _b in rb.ladder() for s in steps),
            "repeat": rb.repeat.model_dump() if rb.repeat else None, "file": file}


def list_runbooks(paths: Iterable[str | Path] | None = None) -> dict[str, Any]:
    """``{"runbooks": [summary, ...], "classes_without_runbook": [...]}``."""
    rbs = load_runbooks(paths)
    return {"runbooks": [_summary(rbs.runbooks[k], rbs.files[k]) for k in sorted(rbs.runbooks)],
            "classes_without_runbook": rbs.classes_without_runbook()}


def show_runbook(rb_id: str, paths: Iterable[str | Path] | None = None) -> dict[str, Any]:
    """The full runbook (defaults filled in) plus its file; a fault class name shows its first runbook."""
    rbs = load_runbooks(paths)
    rb = rbs.get(rb_id) or next(iter(rbs.for_class(rb_id)), None)
    if rb is None:
        raise RunbookError(f"no runbook {rb_id!r} (see 'opsbrain runbooks list')", file=None)
    return {**rb.model_dump(mode="json"), "file": rbs.files[rb.id]}


def validate_runbooks(paths: Iterable[str | Path] | None = None) -> dict[str, Any]:
    """Validate files; raises the first :class:`RunbookError`, else a summary dict.

    Use :func:`runbook_errors` to get every error at once.
    """
    rbs = load_runbooks(paths)
    covered = sorted({c for rb in rbs.runbooks.values() for c in rb.applies_to if c != UNKNOWN_CLASS})
    return {"valid": True, "files": sorted(set(rbs.files.values())), "runbooks": sorted(rbs.runbooks),
            "classes_covered": covered, "classes_without_runbook": rbs.classes_without_runbook()}
