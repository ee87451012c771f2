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
QUANTILES = (0.5, 0.9, 0.99)
"""The quantiles of every distribution a campaign keeps and prints (keys p50, p90, p99: :func:`key`): ``chaos
campaign``'s summary and tables and the campaign report (which printed median / p90 / max before session 42)."""


def key(q: float) -> str:
    """The key of the ``q`` quantile in a :func:`summary`: ``p50``, ``p90``, ``p99``."""
    return f"p{round(q * 100):d}"


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
    keys = [key(q) for q in quantiles]
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
    return [key(q) for q in quantiles if n and not supported(q, n)]


def mark(text: str, q: float, n: int) -> str:
    """A printed quantile, followed by ``*`` when ``n`` values do not support it."""
    return text if text in ("-", "") or supported(q, n) else f"{text}*"


CONFIDENCE_EDGES = (0.0, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
"""Confidence bins of :func:`reliability`: below the diagnosis' 0.4 answer bar, then tenths (the last bin holds 1.0)."""
WILSON_Z = 1.6449
"""The normal quantile of a two-sided 90% interval (the bootstrap intervals elsewhere are 90% too)."""


def wilson(right: int, n: int, z: float = WILSON_Z) -> tuple[float, float] | None:
    """Wilson's score interval for a proportion ``right / n`` (Wilson 1927; fit for small ``n`` and proportions near
    0 or 1, where the normal approximation is not); None for ``n`` 0."""
    if n <= 0:
        return None
    p, z2 = right / n, z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def reliability(confidences: Iterable[float], right: Iterable[bool],
                edges: tuple[float, ...] = CONFIDENCE_EDGES) -> dict[str, Any]:
    """How far stated confidence can be trusted: per confidence bin the answers, the share right (with its Wilson 90%
    interval) and the mean confidence stated; and the expected calibration error, the answers' weighted mean of
    ``|share right - mean confidence|`` over the bins (Naeini et al. 2015; 0 = a stated 0.8 is right 80% of the
    time). Bins without answers are left out."""
    conf = np.asarray(list(confidences), dtype=float)
    ok = np.asarray(list(right), dtype=bool)
    if conf.shape != ok.shape:
        raise ValueError("one right/wrong per confidence")
    idx = np.clip(np.searchsorted(edges, conf, side="right") - 1, 0, len(edges) - 2)
    bins, gap = [], 0.0
    for b in range(len(edges) - 1):
        sel = idx == b
        n = int(sel.sum())
        if not n:
            continue
        share, mean_conf = float(ok[sel].mean()), float(conf[sel].mean())
        lo_hi = wilson(int(ok[sel].sum()), n)
        bins.append({"from": edges[b], "to": edges[b + 1], "n": n, "right": round(share, 4),
                     "right_90": [round(x, 4) for x in lo_hi] if lo_hi else None,
                     "mean_confidence": round(mean_conf, 4)})
        gap += n * abs(share - mean_conf)
    return {"n": int(conf.size), "ece": round(gap / conf.size, 4) if conf.size else None, "bins": bins}


UNSUPPORTED_NOTE = ("* fewer values than the quantile needs (p90: n >= 10, p99: n >= 100): the figure sits between the "
                    "largest values, near the maximum, and is no estimate of the tail")


__all__ = ["CONFIDENCE_EDGES", "METHOD", "QUANTILES", "UNSUPPORTED_NOTE", "key", "mark", "median", "min_n", "quantile",
           "reliability", "summary", "supported", "unsupported", "wilson"]
