"""A saved Prometheus range answer as ``--source prometheus-api --url file:///path/answer.json`` (session 33): what
``curl http://PROM:9090/api/v1/query_range ...`` (or ``/api/v1/query`` of a range selector, ``{...}[2h]``) wrote, a
``"resultType": "matrix"`` answer (Prometheus docs, "HTTP API", range vectors: ``{"metric": {...}, "values": [[t,
"v"], ...]}``), swept as the server would have been at the answer's newest point.

:class:`SavedAnswerSource` is :class:`~opsbrain.sources.promapi.PrometheusQuerySource` with its instant queries
answered from the file as Prometheus evaluates them: an instant vector selector at ``t`` is each series' last point
in ``(t - 5 min, t]`` (the default ``--query.lookback-delta``), ``timestamp()`` that point's time, the last-seen
query the last point's time within its window, the link-down count the UP->DOWN changes between consecutive points
with values other than 0 and 1 left out. A ``query_range`` point carries its step's time, not the sample's: a
stopped exporter's age reads up to the 5-min look-back short (an instant query of a range selector keeps each
sample's own time). The answer's newest point older than ``SweepParams.outputs_stale_s`` makes its findings stale,
as a saved page's modification time does (:class:`~opsbrain.sources.pagefile.SavedPages`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from opsbrain.errors import InputError
from opsbrain.ingest.exporterpage import is_exporter_page
from opsbrain.sources.freshness import Collected
from opsbrain.sources.pagefile import SavedPages, read_page_file
from opsbrain.sources.promapi import (
    AGE_QUERY,
    LINK_STATUS,
    MAX_ANSWER_BYTES,
    NAME_LABEL,
    SELECTOR,
    PrometheusQuerySource,
)
from opsbrain.sources.readings import Readings
from opsbrain.sweeps.params import SweepParams
from opsbrain.sweeps.snapshot import Snapshot
from opsbrain.sweeps.sweep import SweepReport
from opsbrain.yamlio import json_or_none

LOOKBACK_S = 300.0
"""Prometheus's default look-back for an instant vector selector (``--query.lookback-delta``, 5 min)."""
_NAMES = re.compile(SELECTOR.split('=~"', 1)[1].rsplit('"', 1)[0])
_LINK = re.compile("|".join(LINK_STATUS))
_WINDOW = re.compile(r"\[(\d+)s:")


@dataclass
class Series:
    name: str
    labels: dict[str, str]
    t: np.ndarray
    v: np.ndarray


def parse_answer(body: bytes, shown: str) -> list[Series]:
    """The npu-exporter series of a saved matrix (or vector) answer, points sorted by time; InputError naming what is
    wrong with the file otherwise."""
    ok, data = json_or_none(body)
    try:
        if not ok:
            if is_exporter_page(body[:4096].decode("utf-8", "replace").splitlines()[:64]):  # session 41
                raise ValueError("an exporter page (Prometheus text format), not a query answer: read it with "
                                 "--source prometheus")
            raise ValueError("not JSON (or nested too deeply)")
        if data.get("status") != "success":
            raise ValueError(data.get("error") or "its status is not success")
        kind, result = data["data"]["resultType"], data["data"]["result"]
        if kind not in ("matrix", "vector"):
            raise ValueError(f"a {kind!r} answer (save a range query: a matrix)")
        out = []
        for item in result:
            labels = {str(k): str(v) for k, v in item["metric"].items()}
            name = labels.pop("__name__", "")
            if not _NAMES.fullmatch(name):
                continue
            points = item["values"] if kind == "matrix" else [item["value"]]
            pairs = sorted((float(p[0]), float(p[1])) for p in points)
            t = np.fromiter((p[0] for p in pairs), float, len(pairs))
            out.append(Series(name, labels, t, np.fromiter((p[1] for p in pairs), float, len(pairs))))
    except (ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
        raise InputError(f"not a saved Prometheus query answer: {str(exc)[:200]}", file=shown, path="--url") from None
    if not out:
        raise InputError("no npu-exporter series in the saved answer (saved with a selector such as "
                         "{__name__=~\"npu_.*\"}?)", file=shown, path="--url")
    return out


def _vector(items: list[tuple[dict[str, str], float]], t: float) -> list[dict[str, Any]]:
    return [{"metric": labels, "value": [t, repr(v)]} for labels, v in items]


class SavedAnswerSource(PrometheusQuerySource):
    """A saved range answer read as the query API (module docstring); the file is read again at each sweep."""

    def __init__(self, url: str) -> None:
        super().__init__("http://saved-answer")  # no server: :meth:`query` answers from the file
        self.url = self.base = url
        self.name = f"prometheus-api {url}"
        self.series: list[Series] = []
        self.saved = SavedPages()

    def load(self) -> None:
        body, _mtime = read_page_file(self.url, MAX_ANSWER_BYTES)
        self.series = parse_answer(body, self.url)

    def now(self) -> float:
        """The answer's newest point: the time the sweep is made at."""
        return max(float(s.t[-1]) for s in self.series if len(s.t)) if any(len(s.t) for s in self.series) else 0.0

    def _last(self, s: Series, t: float, window_s: float) -> int | None:
        i = int(np.searchsorted(s.t, t, side="right")) - 1
        return i if i >= 0 and t - s.t[i] < window_s else None

    def query(self, expr: str, t: float) -> list[dict[str, Any]]:
        """The instant queries of :class:`PrometheusQuerySource`, evaluated over the saved points at ``t``."""
        if expr == SELECTOR:
            return [{"metric": {"__name__": s.name, **s.labels}, "value": [t, repr(float(s.v[i]))]}
                    for s in self.series if (i := self._last(s, t, LOOKBACK_S)) is not None]
        temps = [s for s in self.series if s.name == "npu_chip_info_temperature"]
        if expr == AGE_QUERY:
            return _vector([(s.labels, float(s.t[i])) for s in temps
                            if (i := self._last(s, t, LOOKBACK_S)) is not None], t)
        window = _WINDOW.search(expr)
        if expr.startswith("last_over_time(") and window:
            w = float(window[1])
            return _vector([(s.labels, float(s.t[i])) for s in temps if (i := self._last(s, t, w)) is not None], t)
        if expr.startswith("resets(") and window:
            w = float(window[1])
            out = []
            for s in self.series:
                if not _LINK.fullmatch(s.name):
                    continue
                keep = (s.t > t - w) & (s.t <= t) & (s.v >= 0) & (s.v <= 1)
                v = s.v[keep]
                if len(v):
                    out.append(({**s.labels, NAME_LABEL: s.name}, float(np.sum(v[1:] < v[:-1]))))
            return _vector(out, t)
        raise InputError(f"a query a saved answer cannot answer: {expr[:80]!r}", file=self.url, path="--url")

    def snapshot(self, params: SweepParams) -> Snapshot:
        self.load()
        snap = super().snapshot(params)
        cur = self.history.items[-1] if self.history.items else Readings(t=self.now())
        self.saved = SavedPages()
        self.saved.add(cur, self.now())
        for n, c in self.saved.collected.items():
            self.saved.collected[n] = Collected(c.t, "the saved answer's newest point")
        return snap

    def finish(self, report: SweepReport, params: SweepParams) -> SweepReport:
        """Findings from an answer whose newest point is older than ``params.outputs_stale_s`` marked stale."""
        return self.saved.finish(report, params)

    def coverage(self) -> dict[str, Any]:
        return {**super().coverage(), **self.saved.coverage()}
