"""The built-in scenario library and the one YAML reader of scenario files (cheap: no schema, no simulator)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

from opsbrain.errors import ScenarioError
from opsbrain.yamlio import read_yaml as _read_yaml

MAX_FILE_BYTES = 1 << 20


def read_yaml(path: Path, error: type[ScenarioError] = ScenarioError) -> Any:
    """Parse one scenario file (errors are :class:`ScenarioError`)."""
    return _read_yaml(path, error, MAX_FILE_BYTES)


def builtin_dir() -> Path:
    return Path(str(resources.files("scenarios")))


def builtin_names() -> list[str]:
    return sorted(p.stem for p in builtin_dir().glob("*.yaml"))
