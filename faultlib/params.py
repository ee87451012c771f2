"""Named simulator parameters: every number carries a unit and a source (or a stated reason).

Parameter groups are frozen pydantic models built with :func:`P`. ``docs/parameters.md`` is generated
from them (``python -m faultlib.paramdoc``) and a test keeps the file in step with the code.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from faultlib.numbers import NoBoolNumbers


class ParamError(ValueError):
    """A parameter override is unknown or out of range; ``path`` names it (``fabric.ub_link_gbps``)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def P(default: Any, unit: str, source: str, **constraints: Any) -> Any:
    """A parameter field: default value, unit and source (or reason), plus pydantic constraints."""
    return Field(default, json_schema_extra={"unit": unit, "source": source}, **constraints)


class ParamGroup(NoBoolNumbers):
    """Base of every parameter group: frozen, no unknown keys."""

    model_config = ConfigDict(frozen=True, extra="forbid")


def apply_overrides(model: ParamGroup, overrides: dict[str, Any]) -> Any:
    """Return a copy of ``model`` with dotted-path overrides (``{"fabric.ub_link_gbps": 200}``) validated."""
    data = model.model_dump()
    for path, value in overrides.items():
        node: Any = data
        parts = path.split(".")
        for part in parts[:-1]:
            if not isinstance(node, dict) or part not in node:
                raise ParamError(path, "no such parameter group")
            node = node[part]
        if not isinstance(node, dict) or parts[-1] not in node:
            raise ParamError(path, "no such parameter")
        ann = _annotation(type(model), parts)
        if isinstance(ann, type) and issubclass(ann, BaseModel) and not isinstance(value, dict):
            if not _is_leaf(ann):
                raise ParamError(path, f"a group of parameters, not one value (its parameters: 'opsbrain params "
                                       f"{path}.')")
            raise ParamError(path, f"a distribution, given as JSON like its default: "
                                   f"{json.dumps(node[parts[-1]], separators=(',', ':'))} (got {value!r})")
        node[parts[-1]] = value
    try:
        return type(model).model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err["loc"])
        got = err.get("input")
        detail = "" if isinstance(got, dict) else f" (got {got!r})"  # a whole group's dump is noise
        raise ParamError(loc, f"{err['msg'].removeprefix('Value error, ')}{detail}") from None


def _annotation(model: type[BaseModel], parts: list[str]) -> Any:
    """The declared type at a dotted path of a parameter model (a group's model, a distribution's, a number's);
    None where the path leaves the models."""
    ann: Any = model
    for part in parts:
        field = ann.model_fields.get(part) if isinstance(ann, type) and issubclass(ann, BaseModel) else None
        if field is None:
            return None
        ann = field.annotation
    return ann


def _is_leaf(model: type[BaseModel]) -> bool:
    """A model rendered as one value (a duration distribution), not as a group of parameters."""
    from faultlib.durations import Dist

    return issubclass(model, Dist)


def iter_params(model: type[BaseModel], prefix: str = "") -> list[tuple[str, Any, str, str, str]]:
    """Flatten a parameter model into rows (path, default, unit, source, description)."""
    rows: list[tuple[str, Any, str, str, str]] = []
    for name, field in model.model_fields.items():
        path = f"{prefix}{name}"
        ann = field.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel) and not _is_leaf(ann):
            rows.extend(iter_params(ann, path + "."))
            continue
        extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
        rows.append((path, field.default, str(extra.get("unit", "")), str(extra.get("source", "")),
                     field.description or ""))
    return rows
