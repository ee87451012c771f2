"""Chaos scenario files: schema, loading with path-qualified errors, the built-in library."""

from opsbrain.scenario.loader import load_scenario, validate_files
from opsbrain.scenario.schema import Scenario

__all__ = ["Scenario", "load_scenario", "validate_files"]
