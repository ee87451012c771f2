"""Summary statistics, one definition for every summary opsbrain prints (CLI, Markdown, HTML, campaigns, benchmarks).

Quantiles are numpy's ``method="linear"`` (Hyndman & Fan's definition 7, numpy's and pandas' default): the value at
position ``q * (n - 1)`` of the sorted sample, interpolated linearly between its neighbours. The median is the
0.5 quantile (for an even count, the mean of the two middle values). The standard deviation is the sample one
(``ddof=1``; 0 for one value). An empty sample gives None, never NaN.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

METHOD: Literal["linear"] = "linear"


def _values(xs: Iterable[float | None]) -> npt.NDArray[np.float64]:
    return np.asarray([float(x) for x in xs if x is not None], dtype=float)


def quantile(xs: Iterable[float | None], q: float) -> float | None:
    """The ``q`` quantile (0..1) of the values that are not None; None for no values."""
    v = _values(xs)
    return float(np.quantile(v, q, method=METHOD)) if v.size else None


def median(xs: Iterable[float | None]) -> float | None:
    return quantile(xs, 0.5)


def summary(xs: Iterable[float | None], quantiles: tuple[float, ...] = (0.5, 0.9)) -> dict[str, Any]:
    """n, mean, sd, min, the quantiles (keys ``p50``, ``p90``, ...) and max of the values that are not None."""
    v = _values(xs)
    keys = [f"p{round(q * 100):d}" for q in quantiles]
    if not v.size:
        return {"n": 0, "mean": None, "sd": None, "min": None, **dict.fromkeys(keys), "max": None}
    qs = np.quantile(v, quantiles, method=METHOD)
    return {"n": int(v.size), "mean": float(v.mean()), "sd": float(v.std(ddof=1)) if v.size > 1 else 0.0,
            "min": float(v.min()), **{k: float(x) for k, x in zip(keys, qs, strict=True)}, "max": float(v.max())}


__all__ = ["METHOD", "median", "quantile", "summary"]
