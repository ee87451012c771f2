"""Control API action durations and failure probabilities."""

from __future__ import annotations

from faultlib.params import ParamGroup


class ControlParams(ParamGroup):
    """Control API action durations and failure probabilities."""
