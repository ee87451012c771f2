"""Prometheus metrics of the sweep service, ``watch`` and the run store, in private registries (one per service:
tests can run several). A Grafana dashboard over them ships as ``opsbrain/service/grafana/opsbrain.json``.

Sweeps (:class:`SweepMetrics`; ``opsbrain_`` prefix):

- ``sweep_component_health{component}``: worst severity of the last sweep, 0 OK .. 3 Critical, for components with
  a finding (a component whose findings cleared is dropped: no series = OK);
- ``sweep_last_findings{severity}``: findings of the last sweep by severity (gauge);
- ``sweep_findings_total{severity}``: findings summed over all sweeps (counter);
- ``sweep_duration_seconds``: histogram of the wall time of one sweep (the issue's goal: <= 50 ms per pod);
- ``sweeps_total``, ``sweep_proactive_incidents_total``, ``sweep_errors_total``, ``sweep_skipped_total``: counters;
- ``sweep_last_timestamp_seconds`` (Unix time) and ``sweep_last_sim_time_seconds`` (simulated time) of the last
  sweep;
- ``sweep_source_state{opsbrain_sweep_source_state}``: the source's state after the last sweep, 1 for the one it is
  in (``unknown``, ``ok``, ``unauthorized``: its server refused the credentials, ``failed``) and 0 for the others
  (:mod:`opsbrain.service.sourcestate`); ``sweep_source_refused_status``: the HTTP status of the refusal (401, 403;
  0 when not refused).

Diagnoses made while serving (:class:`DiagnosisMetrics`, ``watch``): ``diagnoses_total{fault_class,severity,source}``,
``diagnosis_confidence`` and ``diagnosis_seconds`` (histograms), ``webhook_posts_total{format,result}``.

Runs, read from the run store at each scrape (:class:`RunStoreCollector`): ``runs{status,verdict,policy}``,
``run_faults{outcome}`` (diagnosed correctly, misdiagnosed, missed, censored: injected too late in its run to be
detected, not a miss), ``run_noise_incidents{false_positive}``,
``run_diagnoses{fault_class}``, ``run_ttr_seconds{fault_class}`` (a summary: count and sum of the recovered faults'
time to recover), ``campaigns`` and ``run_last_finished_timestamp_seconds``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from threading import Thread
from typing import TYPE_CHECKING, Any
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, Counter, Enum, Gauge, Histogram, start_http_server
from prometheus_client.core import GaugeMetricFamily, Metric, SummaryMetricFamily
from prometheus_client.registry import Collector

from opsbrain.service.sourcestate import STATES
from opsbrain.sweeps.checks import LEVEL, SEVERITIES
from opsbrain.sweeps.sweep import SweepReport

if TYPE_CHECKING:
    from opsbrain.store import RunStore

DEFAULT_BIND = "127.0.0.1"  # loopback unless the operator binds wider (--bind)

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
        self.source_state = Enum("opsbrain_sweep_source_state", "The swept source's state after the last sweep: "
                                 "ok, unauthorized (its server refused the credentials: HTTP 401/403), failed",
                                 states=list(STATES), registry=r)
        self.source_refused_status = Gauge("opsbrain_sweep_source_refused_status", "HTTP status with which the "
                                           "source's server refused the credentials (0: not refused)", registry=r)
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

    def serve(self, port: int, addr: str = DEFAULT_BIND) -> MetricsServer:
        """Expose the registry on ``http://addr:port/metrics`` (port 0: any free port, see ``.port``)."""
        return serve(self.registry, port, addr)


def serve(registry: CollectorRegistry, port: int, addr: str = DEFAULT_BIND) -> MetricsServer:
    """Expose ``registry`` on ``http://addr:port/metrics`` (port 0: any free port)."""
    server, thread = start_http_server(port, addr=addr, registry=registry)
    return MetricsServer(server, thread, addr)


CONFIDENCE_BUCKETS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99)
"""Probability; 0.4 is the diagnosis' abstention bar (DiagnosisParams.min_confidence)."""
DIAGNOSIS_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)
"""Seconds for one diagnosis (the benchmarks measure milliseconds)."""


class DiagnosisMetrics:
    """Diagnoses made while serving (``watch``) and the webhook posts of their reports."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry()
        r = self.registry
        self.diagnoses = Counter("opsbrain_diagnoses", "Diagnoses made, by class, severity and source",
                                 ["fault_class", "severity", "source"], registry=r)
        self.confidence = Histogram("opsbrain_diagnosis_confidence", "Confidence of the diagnoses made",
                                    buckets=CONFIDENCE_BUCKETS, registry=r)
        self.seconds = Histogram("opsbrain_diagnosis_seconds", "Wall time of one diagnosis",
                                 buckets=DIAGNOSIS_BUCKETS, registry=r)
        self.posts = Counter("opsbrain_webhook_posts", "Webhook posts of reports by format and result",
                             ["format", "result"], registry=r)

    def observe(self, fault_class: str, confidence: float, seconds: float, source: str) -> None:
        from opsbrain.severity import severity

        self.diagnoses.labels(fault_class, severity(fault_class), source).inc()
        self.confidence.observe(confidence)
        self.seconds.observe(seconds)

    def webhook(self, fmt: str, ok: bool) -> None:
        self.posts.labels(fmt, "delivered" if ok else "failed").inc()


class RunStoreCollector(Collector):
    """Run-store figures at scrape time (see module docstring); a store that cannot be read yields nothing."""

    def __init__(self, store: RunStore) -> None:
        self.store = store

    def describe(self) -> list[Metric]:
        return []  # figures come from the store at scrape time; nothing to check at registration

    def collect(self) -> Iterator[Metric]:
        from opsbrain.errors import InputError

        try:
            fig = self.store.run_figures()
        except InputError:
            return
        yield _gauge("opsbrain_runs", "Stored runs by status, verdict and policy", ["status", "verdict", "policy"],
                     fig["runs"])
        yield _gauge("opsbrain_run_faults", "Injected faults of stored runs by diagnosis outcome", ["outcome"],
                     fig["faults"])
        yield _gauge("opsbrain_run_noise_incidents", "Incidents of stored runs with no injected fault behind them "
                     "and no fault's consequence, by whether the response acted on them (a false positive)",
                     ["false_positive"], fig["noise"])
        yield _gauge("opsbrain_run_diagnoses", "Final diagnoses of stored runs' incidents by class", ["fault_class"],
                     fig["diagnoses"])
        ttr = SummaryMetricFamily("opsbrain_run_ttr_seconds", "Time to recover of the stored runs' recovered faults",
                                  labels=["fault_class"])
        for (cls,), (n, total) in sorted(fig["ttr"].items()):
            ttr.add_metric([cls], n, total)
        yield ttr
        yield _gauge("opsbrain_campaigns", "Campaigns in the run store", [], {(): fig["campaigns"]})
        yield _gauge("opsbrain_run_last_finished_timestamp_seconds", "Unix time the last stored run finished", [],
                     {(): fig["last_finished"]} if fig["last_finished"] is not None else {})


def _gauge(name: str, doc: str, labels: list[str], values: dict[tuple[str, ...], Any]) -> GaugeMetricFamily:
    g = GaugeMetricFamily(name, doc, labels=labels)
    for key, v in sorted(values.items()):
        g.add_metric(list(key), float(v))
    return g
