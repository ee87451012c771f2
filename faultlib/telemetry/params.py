"""Telemetry parameters."""

from __future__ import annotations

from faultlib.params import P, ParamGroup


class TelemetryParams(ParamGroup):
    epoch: str = P("2025-03-01T00:00:00", "ISO time",
                   "reason: simulated t=0 shown in log timestamps; any fixed date keeps logs deterministic")
