"""Inference service parameters (model, layout, roofline calibration, SLOs)."""

from __future__ import annotations

from faultlib.params import ParamGroup


class InferenceParams(ParamGroup):
    """Inference service parameters (model, layout, roofline calibration, SLOs)."""
