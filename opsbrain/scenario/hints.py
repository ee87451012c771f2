"""'Did you mean' for a scenario key the schema does not have: the closest field name at the same place.

The place is found by walking the scenario's JSON Schema along the error's location (a list index goes to its items,
a fault kind tag follows the discriminator's mapping, a union tries each member), so a fault's ``params`` are
matched against its own kind's parameters only.
"""

from __future__ import annotations

import difflib
from functools import cache
from typing import Any

CUTOFF = 0.75  # reason: difflib's ratio; one wrong, missing or swapped letter in a name of 5+ letters passes


@cache
def _schema() -> dict[str, Any]:
    from opsbrain.scenario.schema import Scenario

    return Scenario.model_json_schema()


def _deref(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = _schema()["$defs"][node["$ref"].rsplit("/", 1)[-1]]
    return node


def _places(node: dict[str, Any], part: Any) -> list[dict[str, Any]]:
    """The schema nodes one location step ``part`` leads to from ``node`` (several for a union)."""
    node = _deref(node)
    out: list[dict[str, Any]] = []
    for branch in node.get("anyOf", []) + node.get("oneOf", []):
        out += _places(branch, part)
    if isinstance(part, int):
        if "items" in node:
            out.append(_deref(node["items"]))
    elif part in node.get("properties", {}):
        out.append(_deref(node["properties"][part]))
    elif part in node.get("discriminator", {}).get("mapping", {}):
        out.append(_deref({"$ref": node["discriminator"]["mapping"][part]}))
    return out


def _fields(node: dict[str, Any]) -> set[str]:
    node = _deref(node)
    names = set(node.get("properties", {}))
    for branch in node.get("anyOf", []) + node.get("oneOf", []):
        names |= _fields(branch)
    return names


def closest_field(loc: tuple[Any, ...]) -> str | None:
    """The field name closest to the unknown key at ``loc`` (a pydantic error location, the key last), if any is
    close enough."""
    if not loc or not isinstance(loc[-1], str):
        return None
    nodes = [_schema()]
    for part in loc[:-1]:
        step = [n for node in nodes for n in _places(node, part)]
        if step:
            nodes = step
        elif not (isinstance(part, str) and (part.startswith("function-") or part in _schema().get("$defs", {}))):
            return None  # neither a field nor a union member pydantic names (NoiseSpec): no guess
    names = sorted(set().union(*(_fields(n) for n in nodes)) - {loc[-1]})
    match = difflib.get_close_matches(loc[-1], names, n=1, cutoff=CUTOFF)
    return match[0] if match else None
