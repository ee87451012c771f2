"""Background noise rates (benign errors, self-healing flaps, drifts)."""

from __future__ import annotations

from faultlib.params import ParamGroup


class NoiseParams(ParamGroup):
    """Background noise rates (benign errors, self-healing flaps, drifts)."""
