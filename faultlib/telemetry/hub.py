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
        self._serials: dict[str, DeviceSerials] = {}
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

    def event_serials(self, key: str, code: str, since: float = 0.0, resume: bool = False, once: bool = False
                      ) -> tuple[int, int, float] | None:
        """(``event_serial_num``, ``notify_serial_num``) of the next fault event line of device ``key``, whose OS
        booted at ``since`` (a later boot starts both counters again), as the driver numbers them (hicann/driver
        @ef377e95, session 35): a new event takes the next serial of the device's sensor-event counter
        (src/sdk_driver/fms/smf/sensor/dms_sensor.c:822 ``dms_generated_alarm_serial``, :60); an event that persists
        keeps it (:929) and its resume is reported with it (:943, the old event's item); every notification, an
        occurrence or a resume, takes the next serial of the notify counter (smf/event/dms_event_converge.c:1435,
        :52). None: the line is not printed. A resume of ``code`` that has not occurred since the boot is not
        reported (the converge layer refuses it, dms_event_converge.c:1239-1246 and :1294-1298, and a new device OS
        has no old event to resume); nor is a second occurrence of ``code`` raised since the boot and not resumed
        (session 35, events35): the sensor layer does not report an event state it already holds
        (dms_sensor.c:885-889, "Check for recurring events"), the converge layer refuses an occurrence already
        reported (dms_event_converge.c:1206-1212) and the device's event list one whose id it holds (:1353), and
        only an event that passed them is logged and handed on (dms_event.c:1456-1464). The third number is when
        the event was raised (simulated s): a resume reports its occurrence's time, the sensor item's time stamp
        taken when it was reported (dms_sensor.c:1008, kept while it persists :928, the resume's :617 and
        dms_event_converge.c:162 ``alarm_raised_time``). ``once``: a one-time event, reported at each occurrence with
        the next serials and never held as active (:data:`~faultlib.telemetry.devicelines.RESUMED_EVENTS`)."""
        c = self._serials.get(key)
        if c is None or c.since != since:
            c = self._serials[key] = DeviceSerials(since)
        return c.resume(code) if resume else c.occur(code, self._clock(), once)

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


class DeviceSerials:
    """One device OS's two event counters since its boot at ``since``, and the serial of each event code raised and
    not resumed (:meth:`TelemetryHub.event_serials`)."""

    def __init__(self, since: float) -> None:
        self.since = since
        self.event = 0  # the sensor-event counter: one per new event
        self.notify = 0  # the notify counter: one per reported occurrence or resume
        self.active: dict[str, tuple[int, float]] = {}  # code -> (event serial, raised at)

    def occur(self, code: str, at: float, once: bool = False) -> tuple[int, int, float] | None:
        if code in self.active:  # raised and not resumed: the driver reports it once
            return None
        self.event += 1
        self.notify += 1
        if not once:  # a one-time event is never active: the next occurrence is reported too
            self.active[code] = (self.event, at)
        return self.event, self.notify, at

    def resume(self, code: str) -> tuple[int, int, float] | None:
        got = self.active.pop(code, None)
        if got is None:
            return None
        self.notify += 1
        return got[0], self.notify, got[1]
