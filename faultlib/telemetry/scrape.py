"""The metric store as a scrape of the pod's exporters sees it: a stopped host serves nothing.

npu-exporter and the node exporter run on the host: while the host is stopped (a kernel panic, a power-off;
:meth:`faultlib.state.PlantState.stopped_since`) they answer no scrape, so the series of its chips and HBM stacks
have no sample at those times. Prometheus then returns nothing for them (npu-exporter stamps its own samples, so an
instant query keeps such a series only for its look-back, then drops it; opsbrain.sources.readings.vanished), and
this view reads them as absent: ``None`` / NaN, whatever default a never-written series would get. A counter's
increase over a window counts its samples up to the stop. The plant's own store (:class:`MetricStore`) keeps
running underneath; fault models and noise write and read it, never this view.

Age metrics (:data:`AGE_METRICS`) are not a served series but the reader's age of a chip's last sample: a chip
of a stopped host ages from its last sample before the stop (its last heartbeat then), whatever the plant does to
the chip's health meanwhile (an isolated crashed host does not beat). Links are read from both ends' switch chips
and are never absent here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from faultlib.telemetry.metrics import MetricStore

StoppedSince = Callable[[str, float], "float | None"]
StoppedNodes = Callable[[float], "dict[str, float]"]

AGE_METRICS = frozenset({"npu_heartbeat_age_s"})
"""Metrics that are the age of a chip's last sample (they keep counting while its host serves nothing)."""


def _node(component: str) -> str:
    """``pod0/node3`` of ``pod0/node3/npu1/hbm`` (the component itself when it is no deeper than a node)."""
    i = component.find("/")
    j = component.find("/", i + 1) if i >= 0 else -1
    return component if j < 0 else component[:j]


class ScrapeView:
    """Read-only view of a :class:`MetricStore` with the series of stopped hosts absent (module docstring)."""

    def __init__(self, store: MetricStore) -> None:
        self.store = store
        self.stopped_since: StoppedSince | None = None
        self.stopped_nodes: StoppedNodes | None = None

    def _stops(self, t: float) -> dict[str, float]:
        return self.stopped_nodes(t) if self.stopped_nodes is not None else {}

    def _since(self, component: str, t: float) -> float | None:
        return self.stopped_since(component, t) if self.stopped_since is not None else None

    def _age(self, metric: str, component: str, since: float, t: float) -> float:
        """An age metric of a component whose host stopped at ``since``: aged from its last sample then (the
        plant's own age when it is older: the chip had stopped beating before, or beats on a phase)."""
        at_stop = self.store.read(metric, component, since)
        now = self.store.read(metric, component, t)
        return max((at_stop if at_stop is not None else 0.0) + (t - since), now if now is not None else 0.0)

    def read(self, metric: str, component: str, t: float, default: float | None = None) -> float | None:
        since = self._since(component, t)
        if since is None:
            return self.store.read(metric, component, t, default)
        return self._age(metric, component, since, t) if metric in AGE_METRICS else None

    def read_many(self, metric: str, components: Iterable[str], t: float, default: float = math.nan
                  ) -> list[float]:
        comps = list(components)
        out = self.store.read_many(metric, comps, t, default)
        stops = self._stops(t)
        if stops:
            for i, c in enumerate(comps):
                since = stops.get(_node(c)) if "~" not in c else None
                if since is not None:
                    out[i] = self._age(metric, c, since, t) if metric in AGE_METRICS else math.nan
        return out

    def absent(self, components: Iterable[str], t: float) -> list[tuple[int, float]]:
        """(index, stopped at) of the components whose host serves nothing at ``t``."""
        stops = self._stops(t)
        if not stops:
            return []
        return [(i, stops[n]) for i, c in enumerate(components) if "~" not in c and (n := _node(c)) in stops]

    def increase_many(self, metric: str, components: Iterable[str], t0: float, t1: float) -> list[float]:
        """Counter increase over ``[t0, t1]``; a component whose host is stopped at ``t1`` counts its samples up to
        the stop (0 when it stopped before ``t0``)."""
        comps = list(components)
        out = self.store.increase_many(metric, comps, t0, t1)
        for i, since in self.absent(comps, t1):
            out[i] = self.store.increase_many(metric, [comps[i]], t0, since)[0] if since > t0 else 0.0
        return out

    def last_segments(self, metric: str, components: Iterable[str]
                      ) -> tuple[list[float], list[float], list[float]]:
        """The store's last segments (callers re-read :meth:`absent` components at their time)."""
        return self.store.last_segments(metric, components)

    def slope(self, metric: str, component: str, t: float) -> float:
        return 0.0 if self._since(component, t) is not None else self.store.slope(metric, component, t)

    def series(self, metric: str, component: str) -> list[tuple[float, float, float]]:
        """The whole stored series (job-level series such as ``step_time_s`` are on no host)."""
        return self.store.series(metric, component)

    def version(self, metric: str) -> int:
        return self.store.version(metric)
