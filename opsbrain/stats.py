"""Summary statistics, one definition for every summary opsbrain prints (CLI, Markdown, HTML, campaigns, benchmarks).

Quantiles are numpy's ``method="linear"`` (Hyndman & Fan's definition 7, numpy's and pandas' default): the value at
position ``q * (n - 1)`` of the sorted sample, interpolated linearly between its neighbours. The median is the
0.5 quantile (for an even count, the mean of the two middle values). The standard deviation is the sample one
(``ddof=1``; 0 for one value). An empty sample gives None, never NaN.

A sample supports an upper quantile only when it has enough values for one in ``1 - q`` of them to lie above it:
``n >= 1 / (1 - q)`` (:func:`min_n`: p90 needs 10 values, p99 100; the median any). Below that, numpy's linear
quantile is an interpolation between the largest values, close to the sample's maximum, not an estimate of the
tail: printed tables mark such a quantile (:func:`mark`, ``*``) and print ``n`` beside it.
"""

from __future__ import annotations

import math
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


def min_n(q: float) -> int:
    """The fewest values that support the ``q`` quantile (module docstring): ``ceil(1 / (1 - q))`` above the
    median, 1 for the median and below."""
    return 1 if q <= 0.5 else math.ceil(round(1.0 / (1.0 - q), 9))


def supported(q: float, n: int) -> bool:
    return n >= min_n(q)


def unsupported(d: dict[str, Any], quantiles: Iterable[float]) -> list[str]:
    """The keys (``p90``, ``p99``) of a :func:`summary` whose quantile its ``n`` does not support (none when empty)."""
    n = int(d.get("n") or 0)
    return [f"p{round(q * 100):d}" for q in quantiles if n and not supported(q, n)]


def mark(text: str, q: float, n: int) -> str:
    """A printed quantile, followed by ``*`` when ``n`` values do not support it."""
    return text if text in ("-", "") or supported(q, n) else f"{text}*"


UNSUPPORTED_NOTE = ("* fewer values than the quantile needs (p90: n >= 10, p99: n >= 100): the figure sits between the "
                    "largest values, near the maximum, and is no estimate of the tail")


__all__ = ["METHOD", "UNSUPPORTED_NOTE", "mark", "median", "min_n", "quantile", "summary", "supported",
           "unsupported"]
