"""Load and validate scenario files; every error names the file, the YAML path and the reason."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from opsbrain.errors import ScenarioError
from opsbrain.scenario.schema import Scenario

MAX_FILE_BYTES = 1 << 20


def yaml_path(loc: tuple[Any, ...]) -> str:
    """``('spec', 'faults', 2, 'kind')`` -> ``spec.faults[2].kind``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif str(part).startswith(("function-after", "literal[", "union[")):
            continue
        else:
            out += ("." if out else "") + str(part)
    return out or "(top)"


def read_yaml(path: Path, error: type[ScenarioError] = ScenarioError) -> Any:
    """Parse one YAML file; unreadable, oversized or malformed files raise ``error`` with the line."""
    try:
        if path.is_symlink():
            raise error("refusing to follow a symbolic link", file=str(path))
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise error(f"file is {size} bytes, more than the {MAX_FILE_BYTES} allowed", file=str(path))
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise error("no such file", file=str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise error(f"cannot read: {exc}", file=str(path)) from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise error(f"not valid YAML: {problem}", file=str(path), path=where or None) from None


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
        return f"{msg} (got {err.get('input')!r})"
    if err["type"] == "extra_forbidden":
        return "unknown field"
    return msg


def builtin_dir() -> Path:
    return Path(str(resources.files("scenarios")))


def builtin_names() -> list[str]:
    return sorted(p.stem for p in builtin_dir().glob("*.yaml"))


def resolve(name_or_path: str) -> Path:
    """A built-in scenario name or a path to a file."""
    p = Path(name_or_path)
    if p.suffix in (".yaml", ".yml") or p.exists():
        return p
    candidate = builtin_dir() / f"{name_or_path}.yaml"
    if candidate.exists():
        return candidate
    raise ScenarioError(f"no built-in scenario named {name_or_path!r} and no such file "
                        f"(see 'opsbrain chaos list')", file=name_or_path)


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
