"""The fault knowledge base as package data: one YAML file per fault class in ``classes/``.

This package only locates its files; parsing and validation live in :mod:`opsbrain.kb` (data packages import
nothing from opsbrain).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def package_dir() -> Path:
    """The directory of this data package."""
    return Path(str(resources.files(__name__)))


def classes_dir() -> Path:
    """The directory holding one ``<class id>.yaml`` file per fault class."""
    return package_dir() / "classes"


def class_files(directory: Path | None = None) -> list[Path]:
    """The class files of ``directory`` (default: the shipped classes), sorted by name."""
    d = Path(directory) if directory is not None else classes_dir()
    return sorted(p for p in d.iterdir() if p.suffix in (".yaml", ".yml")) if d.is_dir() else []
