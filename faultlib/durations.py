"""Durations as distributions: a median and a 90th percentile from a published range, drawn per seed.

A duration parameter is declared with :func:`D` (median, p90, unit, source) and holds a :class:`Dist`. The
simulation draws from it through :class:`Durations` (``sim.durations``), one named random stream per duration
(``duration:<name>``), so a seed fixes every draw and adding a draw elsewhere shifts none of them.

Family: lognormal (the right-skewed shape of service and repair times when nothing better is published), with
``sigma = ln(p90 / median) / z90``. A job-size ``scale`` multiplies the median (the shape is kept). Poll paths
(a device plugin polling every second) are not lognormal: a fault lands at a uniform phase of the poll period
(:meth:`Durations.phase`).
"""

from __future__ import annotations

import math
import zlib
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from faultlib.numbers import NoBoolNumbers

if TYPE_CHECKING:
    from faultlib.engine import Simulation

Z90 = 1.2815515655446004
"""The standard normal's 90th percentile: p90 = median x exp(sigma x Z90) for a lognormal."""


class Dist(NoBoolNumbers):
    """A lognormal duration: ``median`` and ``p90`` in the parameter's unit (p90 >= median; equal = no spread)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    median: float = Field(ge=0)
    p90: float = Field(ge=0)

    @model_validator(mode="before")
    @classmethod
    def _from_number(cls, data: Any) -> Any:
        """A bare number is a degenerate distribution (median = p90): explicit fixed durations in tests."""
        if isinstance(data, int | float) and not isinstance(data, bool):
            return {"median": float(data), "p90": float(data)}
        return data

    @model_validator(mode="after")
    def _ordered(self) -> Dist:
        if self.p90 < self.median:
            raise ValueError(f"p90 ({self.p90}) must be >= median ({self.median})")
        return self

    @property
    def sigma(self) -> float:
        """Log-space standard deviation."""
        return math.log(self.p90 / self.median) / Z90 if self.median > 0 else 0.0

    def quantile(self, q_z: float, scale: float = 1.0) -> float:
        """The value at standard-normal score ``q_z`` (0 = median, Z90 = p90), times ``scale``."""
        return self.median * scale * math.exp(self.sigma * q_z)

    def __str__(self) -> str:
        return f"lognormal(median {self.median:g}, p90 {self.p90:g})"


def D(median: float, p90: float, unit: str, source: str) -> Any:
    """A duration parameter field: a :class:`Dist` default with its unit and source (or reason)."""
    return Field(default=Dist(median=median, p90=p90), json_schema_extra={"unit": unit, "source": source,
                                                                          "distribution": "lognormal"})


def job_scale(npus: int, ref_npus: int, exponent: float) -> float:
    """Median multiplier of a stage that grows as ``(npus / ref_npus) ** exponent`` with the job's rank count."""
    return (max(1, npus) / max(1, ref_npus)) ** exponent


class Durations:
    """Seeded draws of the simulation's durations: one random stream per duration name."""

    def __init__(self, sim: Simulation) -> None:
        self._sim = sim
        self._streams: dict[str, np.random.Generator] = {}

    def _rng(self, name: str) -> np.random.Generator:
        rng = self._streams.get(name)
        if rng is None:
            rng = np.random.default_rng([self._sim.seed, zlib.crc32(f"duration:{name}".encode())])
            self._streams[name] = rng
        return rng

    def draw(self, name: str, dist: Dist, scale: float = 1.0) -> float:
        """One draw of ``dist`` (median times ``scale``) from the stream ``name``."""
        z = float(self._rng(name).standard_normal())
        return dist.quantile(z, scale)

    def draw_max(self, name: str, dist: Dist, n: int) -> float:
        """The largest of ``n`` independent draws (a stage that ends when the slowest of ``n`` parts is done)."""
        z = float(self._rng(name).standard_normal(max(1, n)).max())
        return dist.quantile(z)

    def draw_slowest(self, name: str, dist: Dist, n: int, ref_n: int) -> float:
        """A stage every one of ``n`` parts runs at once and that ends with the slowest (every rank of a job), whose
        ``dist`` gives the stage's median for ``ref_n`` parts and one part's spread: the largest of ``n`` draws of
        one part, one part's median set so that the largest of ``ref_n`` has ``dist.median`` as its median. So the
        stage grows with ``n`` through the tail, and its own spread is narrower than one part's."""
        z = float(self._rng(name).standard_normal(max(1, n)).max())
        return dist.quantile(z - slowest_median_z(ref_n))

    def phase(self, name: str, period_s: float) -> float:
        """The wait from an event to the next poll of a path polled every ``period_s`` (uniform phase)."""
        return float(self._rng(name).uniform(0.0, period_s)) if period_s > 0 else 0.0


def slowest_median_z(n: int) -> float:
    """The median of the largest of ``n`` standard normal draws (P(max <= z) = Phi(z) ** n = 1/2)."""
    return NormalDist().inv_cdf(0.5 ** (1.0 / max(1, n)))


def at_medians(model: Any) -> Any:
    """A copy of a parameter tree with every duration fixed at its median (p90 = median): a no-spread run, for
    tests that check the arithmetic of a recovery path."""
    update: dict[str, Any] = {}
    for name, value in model:
        if isinstance(value, Dist):
            update[name] = Dist(median=value.median, p90=value.median)
        elif isinstance(value, BaseModel):
            update[name] = at_medians(value)
    return model.model_copy(update=update)
