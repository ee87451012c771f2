"""Metrics as piecewise-linear state, read on demand.

A series is a list of segments ``(t0, v0, slope)``: the value at ``t`` is ``v0 + slope * (t - t0)`` for the last
segment that starts at or before ``t``. A counter with a background rate is a segment with that slope; a gauge
that drifts is one too. Writing costs one segment per change, reading one bisect: cost grows with events, not
with simulated seconds (DESIGN principle 3).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Iterable


class MetricStore:
    def __init__(self) -> None:
        self._t0: dict[tuple[str, str], list[float]] = defaultdict(list)
        self._seg: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
        self._writes: dict[str, int] = defaultdict(int)

    def set(self, metric: str, component: str, t: float, value: float, slope: float = 0.0) -> None:
        """From time ``t`` on, the series is ``value + slope * (now - t)``."""
        key = (metric, component)
        ts = self._t0[key]
        if ts and t < ts[-1]:
            raise ValueError(f"{metric}@{component}: write at t={t} before last write t={ts[-1]}")
        self._writes[metric] += 1
        if ts and t == ts[-1]:
            self._seg[key][-1] = (value, slope)
            return
        ts.append(t)
        self._seg[key].append((value, slope))

    def add(self, metric: str, component: str, t: float, delta: float, slope: float | None = None) -> None:
        """Add ``delta`` at ``t`` (a counter increment), keeping the current slope unless one is given."""
        cur = self.read(metric, component, t)
        old_slope = self.slope(metric, component, t)
        self.set(metric, component, t, (cur or 0.0) + delta, old_slope if slope is None else slope)

    def read(self, metric: str, component: str, t: float, default: float | None = None) -> float | None:
        key = (metric, component)
        ts = self._t0.get(key)
        if not ts:
            return default
        i = bisect_right(ts, t) - 1
        if i < 0:
            return default
        v0, slope = self._seg[key][i]
        return v0 + slope * (t - ts[i])

    def slope(self, metric: str, component: str, t: float) -> float:
        key = (metric, component)
        ts = self._t0.get(key)
        if not ts:
            return 0.0
        i = bisect_right(ts, t) - 1
        return self._seg[key][i][1] if i >= 0 else 0.0

    def read_many(self, metric: str, components: Iterable[str], t: float, default: float = math.nan
                  ) -> list[float]:
        """:meth:`read` of many components at ``t`` in one call (``default`` where there is no value)."""
        t0s, segs = self._t0, self._seg
        out: list[float] = []
        app = out.append
        for c in components:
            key = (metric, c)
            ts = t0s.get(key)
            if ts:
                i = bisect_right(ts, t) - 1
                if i >= 0:
                    v0, slope = segs[key][i]
                    app(v0 + slope * (t - ts[i]))
                    continue
            app(default)
        return out

    def version(self, metric: str) -> int:
        """Writes so far to any series of ``metric``: readers cache derived values until it changes."""
        return self._writes.get(metric, 0)

    def last_segments(self, metric: str, components: Iterable[str]
                      ) -> tuple[list[float], list[float], list[float]]:
        """(start, value, slope) of each component's last segment; (nan, 0, 0) where there is no series."""
        t0s, segs = self._t0, self._seg
        start: list[float] = []
        value: list[float] = []
        slope: list[float] = []
        for c in components:
            key = (metric, c)
            ts = t0s.get(key)
            if ts:
                v0, s0 = segs[key][-1]
                start.append(ts[-1])
                value.append(v0)
                slope.append(s0)
            else:
                start.append(math.nan)
                value.append(0.0)
                slope.append(0.0)
        return start, value, slope

    def increase_many(self, metric: str, components: Iterable[str], t0: float, t1: float) -> list[float]:
        """Counter increase ``value(t1) - value(t0)`` per component (0 where the series does not exist; a series
        that starts after ``t0`` counts from 0). One lookup when no write fell inside the window. A write that sets
        the counter lower is a reset (a replaced part's counter starts again, session 35): it counts the value after
        it, as Prometheus's ``increase()`` and the real cluster's reader
        (``opsbrain.sources.readings.counter_increase``) do, never a drop."""
        t0s, segs = self._t0, self._seg
        out: list[float] = []
        app = out.append
        for c in components:
            key = (metric, c)
            ts = t0s.get(key)
            if not ts:
                app(0.0)
                continue
            i = bisect_right(ts, t1) - 1
            if i < 0:
                app(0.0)
                continue
            v0, slope = segs[key][i]
            v1 = v0 + slope * (t1 - ts[i])
            if ts[i] <= t0:
                app(v1 - (v0 + slope * (t0 - ts[i])))
                continue
            j = bisect_right(ts, t0, 0, i) - 1
            back = _reset_losses(ts, segs[key], max(j + 1, 1), i)
            if j < 0:
                app(v1 + back)
            else:
                w0, s0 = segs[key][j]
                app(v1 - (w0 + s0 * (t0 - ts[j])) + back)
        return out

    def components(self, metric: str) -> list[str]:
        return [c for (m, c) in self._t0 if m == metric]

    def metrics(self) -> list[str]:
        return sorted({m for (m, _c) in self._t0})

    def series(self, metric: str, component: str) -> list[tuple[float, float, float]]:
        key = (metric, component)
        return [(t, v, s) for t, (v, s) in zip(self._t0.get(key, []), self._seg.get(key, []), strict=True)]


def _reset_losses(ts: list[float], segs: list[tuple[float, float]], first: int, last: int) -> float:
    """What the counter held just before each reset among its writes ``first..last`` (a write that sets it lower):
    the increase over them is their plain difference plus these."""
    lost = 0.0
    for k in range(first, last + 1):
        v, s = segs[k - 1]
        before = v + s * (ts[k] - ts[k - 1])
        if segs[k][0] < before - 1e-9 * max(1.0, abs(before)):
            lost += before
    return lost
