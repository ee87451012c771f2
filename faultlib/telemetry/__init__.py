"""Telemetry: metrics (piecewise state read on demand), log lines in real formats, job events.

The hub and the record types are imported on first use (PEP 562): a reader of the code tables alone
(``from faultlib.telemetry import formats``, as a diagnosis wording its evidence does) need not build them (~9 ms).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from faultlib.telemetry.hub import TelemetryHub
    from faultlib.telemetry.records import JobEvent, LogLine

__all__ = ["JobEvent", "LogLine", "TelemetryHub"]
_HOMES = {"TelemetryHub": "faultlib.telemetry.hub", "JobEvent": "faultlib.telemetry.records",
          "LogLine": "faultlib.telemetry.records"}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'faultlib.telemetry' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(home), name)
    globals()[name] = value
    return value
