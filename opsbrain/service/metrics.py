"""Prometheus metrics of the sweep service, in a private registry (one per service: tests can run several).

Exposed series (``opsbrain_`` prefix):

- ``sweep_component_health{component}``: worst severity of the last sweep, 0 OK .. 3 Critical, for components with
  a finding (a component whose findings cleared is dropped: no series = OK);
- ``sweep_last_findings{severity}``: findings of the last sweep by severity (gauge);
- ``sweep_findings_total{severity}``: findings summed over all sweeps (counter);
- ``sweep_duration_seconds``: histogram of the wall time of one sweep (the issue's goal: <= 50 ms per pod);
- ``sweeps_total``, ``sweep_proactive_incidents_total``, ``sweep_errors_total``, ``sweep_skipped_total``: counters;
- ``sweep_last_timestamp_seconds`` (Unix time) and ``sweep_last_sim_time_seconds`` (simulated time) of the last
  sweep.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from threading import Thread
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server

from opsbrain.sweeps.checks import LEVEL, SEVERITIES
from opsbrain.sweeps.sweep import SweepReport

DURATION_BUCKETS = (0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
"""Seconds; 0.05 is the issue's per-pod goal."""


@dataclass
class MetricsServer:
    """A running exposition endpoint."""

    server: WSGIServer
    thread: Thread
    addr: str

    @property
    def port(self) -> int:
        return int(self.server.server_port)

    @property
    def url(self) -> str:
        return f"http://{self.addr}:{self.port}/metrics"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


class SweepMetrics:
    """The service's metrics (see module docstring); :meth:`observe` after every sweep."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        r = self.registry
        self.health = Gauge("opsbrain_sweep_component_health", "Worst severity of the last sweep per component with "
                            "a finding (0 OK, 1 Warning, 2 Alarm, 3 Critical)", ["component"], registry=r)
        self.findings = Gauge("opsbrain_sweep_last_findings", "Findings of the last sweep by severity", ["severity"],
                              registry=r)
        self.findings_total = Counter("opsbrain_sweep_findings", "Findings over all sweeps by severity",
                                      ["severity"], registry=r)
        self.duration = Histogram("opsbrain_sweep_duration_seconds", "Wall time of one sweep",
                                  buckets=DURATION_BUCKETS, registry=r)
        self.sweeps = Counter("opsbrain_sweeps", "Sweeps run", registry=r)
        self.proactive = Counter("opsbrain_sweep_proactive_incidents", "Proactive incidents opened by sweeps",
                                 registry=r)
        self.errors = Counter("opsbrain_sweep_errors", "Sweeps that raised an error", registry=r)
        self.skipped = Counter("opsbrain_sweep_skipped", "Scheduled runs skipped: the previous sweep was still "
                               "running, or the run came later than the misfire grace time", registry=r)
        self.last_ts = Gauge("opsbrain_sweep_last_timestamp_seconds", "Unix time of the last sweep", registry=r)
        self.last_sim = Gauge("opsbrain_sweep_last_sim_time_seconds", "Simulated time of the last sweep",
                              registry=r)
        for sev in SEVERITIES[1:]:  # the series exist (at 0) before the first sweep
            self.findings.labels(sev)
            self.findings_total.labels(sev)
        self._components: set[str] = set()

    def observe(self, report: SweepReport, proactive: int = 0, now: float | None = None) -> None:
        """Record one sweep and ``proactive`` incidents it opened."""
        for comp in self._components - report.worst.keys():
            self.health.remove(comp)
        for comp, sev in report.worst.items():
            self.health.labels(comp).set(LEVEL[sev])
        self._components = set(report.worst)
        for sev in SEVERITIES[1:]:
            n = report.counts.get(sev, 0)
            self.findings.labels(sev).set(n)
            self.findings_total.labels(sev).inc(n)
        self.duration.observe(report.duration_ms / 1e3)
        self.sweeps.inc()
        self.proactive.inc(proactive)
        self.last_ts.set(time.time() if now is None else now)
        self.last_sim.set(report.t_s)

    def serve(self, port: int, addr: str = "127.0.0.1") -> MetricsServer:
        """Expose the registry on ``http://addr:port/metrics`` (port 0: any free port, see ``.port``)."""
        server, thread = start_http_server(port, addr=addr, registry=self.registry)
        return MetricsServer(server, thread, addr)
