"""Telemetry sources behind one interface: each gives the sweep checks a
:class:`~opsbrain.sweeps.snapshot.Snapshot` (and says which checks its data can feed).

- :class:`TwinSource`: the simulated pod (``take_snapshot``, as the twin's own sweeps);
- :class:`PrometheusSource`: npu-exporter pages over HTTP (``--source prometheus --url ...``; several URLs: one
  exporter per node, or one Prometheus ``/federate`` page);
- :class:`~opsbrain.sources.commands.CommandDirSource`: a directory of collected ``npu-smi`` / ``hccn_tool``
  outputs (``--source commands --dir ...``).

A source keeps its own collection history, so a scheduled service that sweeps it every few minutes gets windowed
counts and the Rx trend; a one-off sweep of a real source has no history (those checks then find nothing, and
``coverage`` says why).
"""

from __future__ import annotations

import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import urlsplit

from opsbrain.errors import InputError
from opsbrain.sources.exporter import COVERS, PageParser, parse_page
from opsbrain.sources.readings import CollectionHistory, Readings, merge, snapshot_from
from opsbrain.sweeps.params import SweepParams
from opsbrain.sweeps.snapshot import Snapshot, SweepHistory, take_snapshot
from opsbrain.sweeps.sweep import CHECK_NAMES, SweepReport, sweep_snapshot

if TYPE_CHECKING:
    from faultlib.engine import Simulation

MAX_PAGE_BYTES = 64 << 20
"""An exporter page bigger than this is refused (a 384-NPU page is a few MB)."""


class TelemetrySource(Protocol):
    """Anything a sweep can read: a name, the checks it can feed, and a snapshot now."""

    name: str

    def covers(self) -> frozenset[str]:
        """Names of the checks this source has data for."""
        ...

    def snapshot(self, params: SweepParams) -> Snapshot:
        """Collect now and build the snapshot (updates the source's history). Raises InputError when the source
        cannot be read."""
        ...


class TwinSource:
    """The simulated pod, read as its own sweeps read it."""

    def __init__(self, sim: Simulation, history: SweepHistory | None = None, name: str = "twin") -> None:
        self.sim = sim
        self.history = history
        self.name = name

    def covers(self) -> frozenset[str]:
        return frozenset(CHECK_NAMES)

    def snapshot(self, params: SweepParams) -> Snapshot:
        return take_snapshot(self.sim, None, params, self.history)


class ReadingsSource:
    """A real source: collect :class:`Readings`, keep the last ones, build snapshots from them."""

    name = "readings"

    def __init__(self) -> None:
        self.history = CollectionHistory()
        self.collections = 0

    def collect(self) -> Readings:  # pragma: no cover - every subclass defines it
        raise NotImplementedError

    def covers(self) -> frozenset[str]:
        return frozenset(COVERS)

    def snapshot(self, params: SweepParams) -> Snapshot:
        r = self.collect()
        self.collections += 1
        return snapshot_from(r, self.history, params)

    def coverage(self) -> dict[str, Any]:
        """What the kept history lets the windowed checks see (for reports)."""
        n = len(self.history.items)
        span = self.history.items[-1].t - self.history.items[0].t if n > 1 else 0.0
        return {"source": self.name, "collections_kept": n, "history_s": round(span, 3),
                "checks": sorted(self.covers()), "not_covered": sorted(set(CHECK_NAMES) - self.covers()),
                "note": "windowed checks (hbm_ce, link_crc, hbm_rows growth) and dom_trend need earlier collections "
                        "of this source; a first collection feeds the point-in-time checks only" if n < 2 else ""}


class PrometheusSource(ReadingsSource):
    """npu-exporter pages fetched over HTTP (one or more URLs, merged into one collection)."""

    def __init__(self, urls: Sequence[str], timeout_s: float = 10.0) -> None:
        super().__init__()
        if not urls:
            raise InputError("give at least one --url", path="--url")
        for u in urls:
            parts = urlsplit(u)
            if parts.scheme not in ("http", "https") or not parts.hostname:
                raise InputError(f"not an http(s) URL: {u!r}", path="--url")
        self.urls = list(urls)
        self.timeout_s = float(timeout_s)
        self.name = "prometheus " + " ".join(self.urls)
        self.parsers: dict[str, PageParser] = {}
        """One per URL: label sets parsed once, reused by every later collection."""

    def fetch(self, url: str) -> str:
        try:
            with urllib.request.urlopen(url, timeout=self.timeout_s) as resp:  # noqa: S310 (http(s) checked)
                body = resp.read(MAX_PAGE_BYTES + 1)
        except urllib.error.HTTPError as exc:
            raise InputError(f"HTTP {exc.code} {exc.reason}", file=url, path="--url") from None
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            raise InputError(f"cannot fetch: {reason}", file=url, path="--url") from None
        if len(body) > MAX_PAGE_BYTES:
            raise InputError(f"page larger than {MAX_PAGE_BYTES} bytes", file=url, path="--url")
        return body.decode("utf-8", "replace")

    def collect(self) -> Readings:
        parts = []
        for url in self.urls:
            text = self.fetch(url)
            try:
                parser = self.parsers.setdefault(url, PageParser())
                parts.append(parse_page(text, default_host=urlsplit(url).hostname, now=time.time(), parser=parser))
            except ValueError as exc:
                raise InputError(f"not a Prometheus text page: {exc}", file=url, path="--url") from None
        return merge(parts)


def sweep_source(source: TelemetrySource, params: SweepParams | None = None) -> SweepReport:
    """One sweep of ``source`` with the checks it covers (the collection counts into the duration)."""
    p = params or SweepParams()
    start = time.perf_counter()
    snap = source.snapshot(p)
    return sweep_snapshot(snap, p, [c for c in CHECK_NAMES if c in source.covers()], start)
