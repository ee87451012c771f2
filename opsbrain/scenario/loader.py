"""Load and validate scenario files; every error names the file, the YAML path and the reason."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from faultlib.faults.catalog import CATALOG
from opsbrain.errors import ScenarioError
from opsbrain.scenario.builtin import builtin_dir, read_yaml
from opsbrain.scenario.checks import SpecParts, reference_problems
from opsbrain.scenario.hints import closest_field
from opsbrain.scenario.schema import PROBLEMS_SEP, AnyKindFault, Scenario
from opsbrain.yamlio import yaml_path


def parse_scenario(data: Any, file: str) -> Scenario:
    """Validate parsed YAML into a :class:`Scenario`; raises the first of :func:`scenario_errors`."""
    errors = scenario_errors(data, file)
    if errors:
        raise errors[0]
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:  # an error scenario_errors left out: still one line naming the file
        msg, loc = _located(exc.errors()[0])
        raise ScenarioError(msg, file=file, path=yaml_path(loc)) from None


def scenario_errors(data: Any, file: str) -> list[ScenarioError]:
    """The schema's errors: each field's, and the checks across the spec on the parts that are valid (not the
    plan's: :func:`file_errors`)."""
    return _errors(data, file)[0]


def file_errors(data: Any, file: str) -> list[ScenarioError]:
    """Every error of a parsed scenario file in one pass: its fields' (in the schema's order), then the checks
    across the spec's, then the plan's (placements, targets, spares, starting states), each check on the parts it
    needs that are valid. Session 46 (validate46): each kind showed only once the kinds before it were fixed (a
    file with four mistakes took three rounds)."""
    from faultlib.simparams import SimParams
    from faultlib.topology import Topology
    from opsbrain.scenario.plan import build_plan, plan_errors

    found, parts = _errors(data, file)
    topo = None if parts is None or parts.pods is None else \
        Topology.build(SimParams().topology, parts.pods)  # once: seconds for 64 pods
    if parts is not None:
        said = {str(e) for e in found}
        found += [e for e in plan_errors(parts, file, topo) if str(e) not in said]
    if found:
        return found
    try:  # a valid file: the stages that take the whole scenario (the random draw) raise what is left
        build_plan(parse_scenario(data, file), file, topo=topo)
    except ScenarioError as exc:
        return [exc]
    return []


def _errors(data: Any, file: str) -> tuple[list[ScenarioError], SpecParts | None]:
    """(field errors and the checks across the valid parts, the valid parts)."""
    if not isinstance(data, dict):  # session 41 (scen41): an empty file or a list said so, not only "mapping"
        got = ("the file has no content (empty, or comments only)" if data is None
               else f"got a {_YAML_TYPES.get(type(data).__name__, 'scalar')}")
        return [ScenarioError(f"a scenario must be a YAML mapping (apiVersion, kind, metadata, spec); {got}",
                              file=file)], None
    try:
        Scenario.model_validate(data)
    except ValidationError as exc:  # the spec's checks across its parts are made below, on the valid parts
        found = [e for e in exc.errors() if not _other_branch(e) and not _across_spec(e)]
    else:
        found = []
    found = [{**e, "msg": part} for e in found  # a check across a block reports each problem it found
             for part in (str(e["msg"]).split(PROBLEMS_SEP) if e["type"] == "value_error" else [e["msg"]])]
    for e in list(found):  # an unknown fault kind: the item's other fields are still checked
        if e["type"] in ("union_tag_invalid", "union_tag_not_found") and isinstance(e.get("input"), dict):
            try:
                AnyKindFault.model_validate(e["input"])
            except ValidationError as inner:
                found += [{**x, "loc": (*e["loc"], *x["loc"])} for x in inner.errors()
                          if not _other_branch(x) and x["loc"][:1] != ("kind",)]
    errors = [ScenarioError(msg, file=file, path=yaml_path(loc)) for msg, loc in map(_located, found)]
    parts = SpecParts.of_data(data.get("spec"), {e.path or "" for e in errors})
    if parts is not None:
        errors += [ScenarioError(msg, file=file, path=yaml_path(loc)) for msg, loc in
                   (_located({"type": "value_error", "loc": ("spec",), "msg": problem, "input": None})
                    for problem in reference_problems(parts))]
    return errors, parts


def _across_spec(err: Any) -> bool:
    """The error of the spec's checks across its parts (its validator's, at ``spec``)."""
    return err["type"] == "value_error" and tuple(err["loc"]) == ("spec",)


_YAML_TYPES = {"list": "list", "str": "string", "int": "number", "float": "number", "bool": "boolean"}


_INNER_PATH = re.compile(r"^((?:faults|workloads|expectations|steady_state\.probes|initial_state\.components)"
                         r"\[\d+\][\w.\[\]]*|dusk|dawn): (.*)$", re.S)


def _located(err: Any) -> tuple[str, tuple[Any, ...]]:
    """(message, YAML location) of one pydantic error: the fault-kind tag pydantic puts in the location of a
    discriminated union is dropped; a spec-level check that names its item (``faults[2].at: ...``) gets that path."""
    loc = list(err["loc"])
    for k in range(len(loc) - 2, -1, -1):  # spec.faults[3].<kind tag>.params -> spec.faults[3].params
        if loc[k] == "faults" and k + 2 < len(loc) and isinstance(loc[k + 1], int) and loc[k + 2] in CATALOG:
            del loc[k + 2]
    for k in range(len(loc) - 1):  # at.float / at.EventTrigger: the union member is no part of the YAML path
        if loc[k + 1] in _UNIONS.get(str(loc[k]), ()):
            del loc[k + 1]
            break
    msg = _message(err)
    if err["type"] == "extra_forbidden" and (near := closest_field(tuple(err["loc"]))) is not None:
        msg += f" (did you mean {near!r}?)"
    if err["type"] == "union_tag_invalid":
        loc.append("kind")
        msg = f"unknown fault kind {err.get('input', {}).get('kind')!r} (known: {', '.join(sorted(CATALOG))})" \
            if isinstance(err.get("input"), dict) else msg
    elif err["type"] == "union_tag_not_found":
        loc.append("kind")
        msg = "missing (the fault kind)"
    m = _INNER_PATH.match(msg)
    if m and loc and loc[-1] in ("spec", "schedule"):  # a check across the block that names its item
        loc += [part for part in re.split(r"\.|\[(\d+)\]", m.group(1)) if part]
        loc = [int(x) if isinstance(x, str) and x.isdigit() else x for x in loc]
        msg = m.group(2)
    return msg, tuple(loc)


_UNIONS = {"at": ("float", "EventTrigger"), "noise": ("bool", "NoiseSpec")}
"""Fields that take a scalar or a mapping: pydantic names the union member in an error's location."""


def _other_branch(err: Any) -> bool:
    """An error of the union member a field's value is not meant as (a number or a trigger, true or a scale)."""
    loc = [str(x) for x in err["loc"]]
    for k in range(len(loc) - 1):
        if loc[k] not in _UNIONS:  # (a key "" is no union member: session 34, an unknown key "" went unsaid)
            continue
        scalar, model = _UNIONS[loc[k]]
        if loc[k + 1] == scalar:
            return isinstance(err.get("input"), dict)
        if model and (loc[k + 1] == model or loc[k + 1].startswith("function-") and loc[k + 1].endswith(f" {model}]")):
            return err["type"] == "model_type"  # a member with a validator: "function-after[check(), EventTrigger]"
    return False


def _message(err: Any) -> str:
    msg = str(err["msg"]).removeprefix("Value error, ")
    if err["type"] in ("literal_error", "enum"):  # a typo is easier to see beside the choices
        return f"{msg} (got {str(repr(err.get('input')))[:80]})"
    if err["type"] == "extra_forbidden":
        return "unknown field"
    if err["type"] in ("greater_than", "greater_than_equal", "less_than", "less_than_equal", "int_from_float",
                       "int_parsing", "float_parsing", "finite_number", "string_pattern_mismatch"):
        return f"{msg} (got {str(repr(err.get('input')))[:40]})"
    return msg


def resolve(name_or_path: str) -> Path:
    """A built-in scenario name or a path to a file."""
    p = Path(name_or_path)
    if p.suffix in (".yaml", ".yml") or p.exists():
        return p
    shown = name_or_path[:100]
    if not re.fullmatch(r"[a-z0-9][a-z0-9-]{0,99}", name_or_path):  # a built-in name: no '/', no '..'
        raise ScenarioError(f"no such file, and {shown!r} is not a built-in scenario name (lower-case letters, "
                            "digits, dashes; see 'opsbrain chaos list')", file=shown)
    candidate = builtin_dir() / f"{name_or_path}.yaml"
    if candidate.exists():
        return candidate
    raise ScenarioError(f"no built-in scenario named {shown!r} and no such file "
                        f"(see 'opsbrain chaos list')", file=shown)


def load_scenario(name_or_path: str) -> tuple[Scenario, Path]:
    path = resolve(name_or_path)
    return parse_scenario(read_yaml(path), str(path)), path


def validate_files(paths: list[str]) -> list[ScenarioError]:
    """All errors of all files (:func:`file_errors`); empty when every file is valid."""
    errors: list[ScenarioError] = []
    for name in paths:
        try:
            path = resolve(name)
            data = read_yaml(path)
        except ScenarioError as exc:
            errors.append(exc)
            continue
        errors.extend(file_errors(data, str(path)))
    return errors
