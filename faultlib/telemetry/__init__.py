"""Telemetry: metrics (piecewise state read on demand), log lines in real formats, job events."""

from faultlib.telemetry.hub import TelemetryHub
from faultlib.telemetry.records import JobEvent, LogLine

__all__ = ["JobEvent", "LogLine", "TelemetryHub"]
