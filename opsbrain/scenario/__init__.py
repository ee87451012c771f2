"""Chaos scenario files: schema, loading with path-qualified errors, the built-in library.

The names below are loaded on first use (PEP 562): importing a submodule such as ``opsbrain.scenario.loader``
for the built-in names does not build the pydantic schema and the simulator it validates against.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Scenario", "load_scenario", "validate_files"]


def __getattr__(name: str) -> Any:
    if name == "Scenario":
        from opsbrain.scenario.schema import Scenario

        return Scenario
    if name in ("load_scenario", "validate_files"):
        from opsbrain.scenario import loader

        return getattr(loader, name)
    raise AttributeError(f"module 'opsbrain.scenario' has no attribute {name!r}")
