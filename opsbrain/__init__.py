"""opsbrain: the controller and harness (detection, diagnosis, runbooks, sweeps, reports, CLI) around faultlib."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("opsbrain")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0+unknown"

__all__ = ["__version__"]
