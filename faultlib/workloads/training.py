"""Training job parameters (model, parallelism, checkpoints)."""

from __future__ import annotations

from faultlib.params import ParamGroup


class TrainingParams(ParamGroup):
    """Training job parameters (model, parallelism, checkpoints)."""
