"""Load and validate scenario files; every error names the file, the YAML path and the reason."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from opsbrain.errors import ScenarioError
from opsbrain.scenario.builtin import builtin_dir, read_yaml
from opsbrain.scenario.schema import Scenario
from opsbrain.yamlio import yaml_path


def parse_scenario(data: Any, file: str) -> Scenario:
    """Validate parsed YAML into a :class:`Scenario`; raises the first of :func:`scenario_errors`."""
    errors = scenario_errors(data, file)
    if errors:
        raise errors[0]
    return Scenario.model_validate(data)


def scenario_errors(data: Any, file: str) -> list[ScenarioError]:
    if not isinstance(data, dict):
        return [ScenarioError("a scenario must be a YAML mapping", file=file)]
    try:
        Scenario.model_validate(data)
    except ValidationError as exc:
        return [ScenarioError(_message(e), file=file, path=yaml_path(tuple(e["loc"]))) for e in exc.errors()]
    return []


def _message(err: Any) -> str:
    msg = str(err["msg"]).removeprefix("Value error, ")
    if err["type"] in ("literal_error", "enum") and "kind" in [str(x) for x in err["loc"]][-1:]:
        return f"{msg} (got {str(repr(err.get('input')))[:80]})"
    if err["type"] == "extra_forbidden":
        return "unknown field"
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
    """All errors of all files (schema and topology references); empty when every file is valid."""
    from opsbrain.scenario.plan import plan_errors

    errors: list[ScenarioError] = []
    for name in paths:
        try:
            path = resolve(name)
            data = read_yaml(path)
        except ScenarioError as exc:
            errors.append(exc)
            continue
        found = scenario_errors(data, str(path))
        if not found:
            found = plan_errors(Scenario.model_validate(data), str(path))
        errors.extend(found)
    return errors
