"""Offered load of an inference service over a day: a diurnal cycle with Poisson bursts, piecewise constant.

``demand(t) = peak x shape(t) x burst(t)``: ``shape`` is a raised cosine between ``trough_ratio`` (at
``peak_hour - 12 h``) and 1 (at ``peak_hour``); bursts arrive as a Poisson process (``bursts_per_day``), each
multiplying demand by ``burst_factor`` for a lognormal ``burst_s``. The curve is sampled every ``step_s`` (the
router's rate window) and replayed into the service by :func:`drive_demand`, which sets the service's request
rate (a fluid model: no per-request events). One seed fixes the bursts (random stream ``demand``).
"""

from __future__ import annotations

import math
from collections.abc import Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from faultlib.durations import D, Dist
from faultlib.params import P, ParamGroup

if TYPE_CHECKING:
    from faultlib.engine import Simulation
    from faultlib.workloads.inference import InferenceService

DAY_S = 86400.0
TRACES = ("public LLM-serving traces (Azure LLM inference trace 2023, Splitwise arXiv 2311.18677; BurstGPT "
          "arXiv 2401.17644) show a daily cycle and short bursts")


class DemandParams(ParamGroup):
    """Shape of an inference service's offered load over a day (diurnal cycle and bursts)."""

    trough_ratio: float = P(
        0.35, "fraction", "assumed: night demand = 35% of the daily peak; " + TRACES + "; the ratio is not fitted "
        "to them", gt=0, le=1)
    peak_hour: float = P(14.0, "h", "assumed: the daily peak in the early afternoon (office-hours use)", ge=0, lt=24)
    bursts_per_day: float = P(
        6.0, "1/day", "assumed: a few bursts a day (product launches, batch jobs hitting the API); " + TRACES,
        ge=0)
    burst_factor: float = P(
        1.25, "x", "assumed: a burst adds 25% to the demand of the moment (BurstGPT reports bursty arrivals; the "
        "size is not fitted)", ge=1)
    burst_s: Dist = D(300.0, 900.0, "s", "assumed: a burst lasts minutes (median 5 min, p90 15 min)")
    step_s: float = P(
        60.0, "s", "reason: the router reports its request rate over one-minute windows; demand is held constant "
        "within one", gt=0)


@dataclass(frozen=True)
class DemandCurve:
    """Piecewise-constant offered load: ``tokens_s[i]`` (decode tokens/s) from ``times[i]`` to ``times[i+1]``."""

    times: np.ndarray
    tokens_s: np.ndarray
    bursts: tuple[tuple[float, float], ...]  # (start s, duration s)

    def at(self, t: float) -> float:
        i = int(np.searchsorted(self.times, t, side="right")) - 1
        return float(self.tokens_s[max(0, i)])

    @property
    def peak(self) -> float:
        return float(self.tokens_s.max()) if len(self.tokens_s) else 0.0


def diurnal_shape(t: np.ndarray, p: DemandParams) -> np.ndarray:
    """Raised cosine: 1 at ``peak_hour``, ``trough_ratio`` twelve hours away."""
    phase = 2 * math.pi * (t / 3600.0 - p.peak_hour) / 24.0
    return p.trough_ratio + (1 - p.trough_ratio) * (1 + np.cos(phase)) / 2


def demand_curve(peak_tokens_s: float, duration_s: float, params: DemandParams, rng: np.random.Generator,
                 start_hour: float = 0.0, draw_burst: Any = None) -> DemandCurve:
    """The offered load over ``duration_s`` starting at ``start_hour`` of the day. ``draw_burst()`` returns one
    burst duration (default: the lognormal ``burst_s`` drawn from ``rng``)."""
    p = params
    steps = max(1, math.ceil(duration_s / p.step_s))
    times = np.arange(steps) * p.step_s
    mid = times + p.step_s / 2 + start_hour * 3600.0
    level = peak_tokens_s * diurnal_shape(mid, p)
    n = int(rng.poisson(p.bursts_per_day * duration_s / DAY_S))
    starts = np.sort(rng.uniform(0.0, duration_s, n))
    bursts = []
    for s in starts:
        dur = draw_burst() if draw_burst else p.burst_s.quantile(float(rng.standard_normal()))
        bursts.append((float(s), float(dur)))
        hit = (times + p.step_s > s) & (times < s + dur)
        level[hit] *= p.burst_factor
    return DemandCurve(times, level, tuple(bursts))


def curve_for(sim: Simulation, peak_tokens_s: float, duration_s: float, start_hour: float = 0.0,
              params: DemandParams | None = None) -> DemandCurve:
    """The seeded curve of a run (random stream ``demand``; burst durations from the ``demand.burst_s`` stream)."""
    p = params or sim.params.demand
    return demand_curve(peak_tokens_s, duration_s, p, sim.rng("demand"), start_hour,
                        lambda: sim.durations.draw("demand.burst_s", p.burst_s))


def drive_demand(sim: Simulation, service: InferenceService, curve: DemandCurve) -> Generator[Any, Any, None]:
    """A simpy process: set the service's request rate at every step of ``curve`` and publish the router's rate."""
    out_tokens = service.p.output_tokens
    for i, t in enumerate(curve.times):
        if t > sim.now:
            yield sim.env.timeout(float(t) - sim.now)
        tok = float(curve.tokens_s[i])
        if i and tok == float(curve.tokens_s[i - 1]):
            continue
        service.demand_req_s = tok / out_tokens
        sim.telemetry.metric("router_request_rate", service.name, service.demand_req_s)
        service._update()  # the fluid rates follow the new demand
