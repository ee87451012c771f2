"""Render ``docs/parameters.md`` from the parameter groups of :class:`faultlib.simparams.SimParams`.

``python -m faultlib.paramdoc`` writes the file; ``python -m faultlib.paramdoc --check`` exits 1 when the
file differs from what the code declares (CI runs it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from faultlib.durations import Dist
from faultlib.params import iter_params
from faultlib.simparams import SimParams

DEFAULT_PATH = Path(__file__).resolve().parents[1] / "docs" / "parameters.md"

HEADER = """\
# Simulator parameters

Every number the simulator uses, with its unit and its source (or the engineering reason for it).
Generated from the parameter groups in `faultlib` by `python -m faultlib.paramdoc`; do not edit by hand
(CI runs `python -m faultlib.paramdoc --check`). Override any of them on the command line with
`--param PATH=VALUE` (for example `opsbrain topology --param fabric.ub_link_gbytes_s=25`);
`opsbrain params` lists the values in force.
"""


def _cell(value: Any) -> str:
    """A markdown table cell: one line, pipes escaped."""
    return " ".join(str(value).split()).replace("|", "\\|")


def _fmt_default(value: Any) -> str:
    if isinstance(value, Dist):
        return _cell(str(value))
    if isinstance(value, str):
        return f"`{value}`" if value else '`""`'
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10_000:
        return f"{value:,}"
    return _cell(value)


def _group_doc(model: type[BaseModel], group: str) -> str:
    field = model.model_fields.get(group)
    ann = field.annotation if field is not None else None
    doc = ann.__doc__ if isinstance(ann, type) else None
    return " ".join(doc.split()) if doc else ""


_BOUNDS = (("ge", ">="), ("gt", ">"), ("le", "<="), ("lt", "<"))


def _field_at(model: type[BaseModel], path: str) -> FieldInfo | None:
    parts = path.split(".")
    for part in parts[:-1]:
        field = model.model_fields.get(part)
        ann = field.annotation if field is not None else None
        if not (isinstance(ann, type) and issubclass(ann, BaseModel)):
            return None
        model = ann
    return model.model_fields.get(parts[-1])


def _range(field: FieldInfo | None) -> str:
    """The numeric bounds declared on a field (``>= 0, < 1``), or empty."""
    if field is None:
        return ""
    out = []
    for meta in field.metadata:
        for attr, sym in _BOUNDS:
            bound = getattr(meta, attr, None)
            if bound is not None:
                out.append(f"{sym} {_fmt_default(bound)}")
    return ", ".join(out)


def _value_at(root: BaseModel, path: str) -> Any:
    value: Any = root
    for part in path.split("."):
        value = getattr(value, part)
    return value


def render(model: type[BaseModel] = SimParams) -> str:
    """The markdown text for every parameter of ``model``, one table per top-level group."""
    instance = model()  # defaults, also for fields built by default factories
    groups: dict[str, list[tuple[str, Any, str, str, str]]] = {name: [] for name in model.model_fields}
    for row in iter_params(model):
        groups.setdefault(row[0].split(".", 1)[0], []).append(row)
    total = sum(len(rows) for rows in groups.values())
    out = [HEADER, f"{total} parameters in {len(groups)} groups.\n"]
    for group, rows in groups.items():
        out.append(f"## `{group}`\n")
        doc = _group_doc(model, group)
        if doc:
            out.append(f"{doc}\n")
        if not rows:
            out.append("No parameters yet.\n")
            continue
        out.append("| parameter | default | unit | range | source / reason | description |")
        out.append("| --- | --- | --- | --- | --- | --- |")
        for path, _default, unit, source, description in rows:
            default = _value_at(instance, path)
            bounds = _range(_field_at(model, path))
            out.append(f"| `{path}` | {_fmt_default(default)} | {_cell(unit)} | {bounds} | {_cell(source)} | "
                       f"{_cell(description)} |")
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m faultlib.paramdoc", description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if the file is not up to date")
    ap.add_argument("--path", type=Path, default=DEFAULT_PATH, help=f"output file (default {DEFAULT_PATH})")
    args = ap.parse_args(argv)
    text = render()
    if args.check:
        current = args.path.read_text(encoding="utf-8") if args.path.exists() else None
        if current != text:
            print(f"{args.path} is out of date: run python -m faultlib.paramdoc", file=sys.stderr)
            return 1
        print(f"{args.path} is up to date")
        return 0
    args.path.parent.mkdir(parents=True, exist_ok=True)
    args.path.write_text(text, encoding="utf-8")
    print(f"wrote {args.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
