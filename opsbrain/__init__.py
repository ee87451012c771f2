"""opsbrain: the controller and harness (detection, diagnosis, runbooks, sweeps, reports, CLI) around faultlib."""

from __future__ import annotations

from typing import Any

__all__ = ["__version__"]


def __getattr__(name: str) -> Any:
    """``opsbrain.__version__``, read from the installed metadata on first use (importlib.metadata costs tens of
    milliseconds at start-up, which ``opsbrain --help`` need not pay)."""
    if name != "__version__":
        raise AttributeError(f"module 'opsbrain' has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        value = version("opsbrain")
    except PackageNotFoundError:  # running from a source tree that was not installed
        value = "0+unknown"
    globals()["__version__"] = value
    return value
