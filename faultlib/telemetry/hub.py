"""The telemetry hub: where the plant publishes what an operator sees, and where opsbrain subscribes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from faultlib.telemetry.metrics import MetricStore
from faultlib.telemetry.records import JobEvent, LogLine
from faultlib.telemetry.scrape import ScrapeView

Record = LogLine | JobEvent
Subscriber = Callable[[Record], None]


class TelemetryHub:
    """Holds the metric store, keeps every log line and job event, and pushes them to subscribers."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self.metrics = MetricStore()
        self.scraped = ScrapeView(self.metrics)
        """The metrics as the pod's exporters serve them (a stopped host's series absent): what opsbrain reads."""
        self.logs: list[LogLine] = []
        self.events: list[JobEvent] = []
        self._subs: list[tuple[Subscriber, frozenset[str] | None]] = []
        self.delivery: Any = None  # a faultlib.telemetry.delivery.Delivery: path delays to subscribers (None: at once)
        self._serials: dict[str, tuple[float, int]] = {}
        self.silent: Callable[[str], bool] | None = None
        """Origins that cannot write a line now (the parts of a stopped host): their lines are never written."""

    def subscribe(self, fn: Subscriber, sources: set[str] | None = None) -> None:
        """Call ``fn`` for each new record; ``sources`` filters log sources (``"job"`` selects job events)."""
        self._subs.append((fn, frozenset(sources) if sources else None))

    def _publish(self, rec: Record, source: str) -> None:
        if self.delivery is not None and self._subs:
            origin = rec.origin if isinstance(rec, LogLine) else rec.job
            at = self.delivery.arrival(rec.t, origin, source)
            if at > self._clock():
                self.delivery.defer(at, lambda r: self._deliver(r, source), rec)
                return
        self._deliver(rec, source)

    def _deliver(self, rec: Record, source: str) -> None:
        for fn, filt in self._subs:
            if filt is None or source in filt:
                fn(rec)

    def log(self, origin: str, source: str, level: str, text: str) -> LogLine | None:
        """Write one line of ``origin``'s log (None: the origin cannot write now, :attr:`silent`)."""
        if self.silent is not None and self.silent(origin):
            return None
        line = LogLine(self._clock(), origin, source, level, text)
        self.logs.append(line)
        self._publish(line, source)
        return line

    def next_serial(self, key: str, since: float = 0.0) -> int:
        """The next event serial number of ``key`` (a device numbers its fault events 1, 2, ... from its boot at
        ``since``: a later boot starts again at 1)."""
        at, n = self._serials.get(key, (since, 0))
        n = n + 1 if at == since else 1
        self._serials[key] = (since, n)
        return n

    def job_event(self, job: str, kind: str, **detail: Any) -> JobEvent:
        ev = JobEvent(self._clock(), job, kind, detail)
        self.events.append(ev)
        self._publish(ev, "job")
        return ev

    def metric(self, metric: str, component: str, value: float, slope: float = 0.0) -> None:
        self.metrics.set(metric, component, self._clock(), value, slope)

    def count(self, metric: str, component: str, delta: float = 1.0) -> None:
        self.metrics.add(metric, component, self._clock(), delta)

    def read(self, metric: str, component: str, t: float | None = None, default: float | None = None
             ) -> float | None:
        """The plant's value (fault models, noise); a reader outside the plant reads :meth:`scrape`."""
        return self.metrics.read(metric, component, self._clock() if t is None else t, default)

    def scrape(self, metric: str, component: str, t: float | None = None, default: float | None = None
               ) -> float | None:
        """``metric`` of ``component`` as a scrape sees it (None while its host serves nothing, :attr:`scraped`)."""
        return self.scraped.read(metric, component, self._clock() if t is None else t, default)
