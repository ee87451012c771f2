"""Runbooks: one YAML file per runbook (``rb-<name>.yaml``), shipped as package data.

A data package: it holds the files and says where they are; the schema, loader and orchestrator live in
``opsbrain.recovery``. It imports nothing from opsbrain.
"""

from __future__ import annotations

from pathlib import Path


def directory() -> Path:
    """The folder holding the built-in runbook files."""
    return Path(__file__).resolve().parent


def files() -> list[Path]:
    """The built-in runbook files, sorted by name."""
    return sorted(directory().glob("*.yaml"))
