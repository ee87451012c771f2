"""``opsbrain watch``: follow log directories, group signals into incidents, diagnose each with the shipped
engine and report it with the runbook it would run, as a dry run.

Grouping is a small arrival-time window (the detector's own parameters: ``detection.collect_s`` before the first
diagnosis, ``group_window_s`` for joining, ``rediagnose_settle_s`` after new signal kinds): a signal joins the
open incident of the same node that had a signal within the window; an error (or an actionable warning, as the
detector defines them) opens a new one. Each incident is reported when first diagnosed and again when its
diagnosis changes. Reports go to a callback (the CLI prints them) and, with a webhook URL, are POSTed as JSON.
Nothing is executed unless an actuator is given (:mod:`opsbrain.sources.advice`).

With a telemetry source (``--url``), the watch also sweeps it every ``sweep_every_s`` and reports each new
Alarm-or-worse finding (one report per component, check and severity) with its suggested action; a collection
that fails is counted, and the next one is tried.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from opsbrain.detection.detector import ACTIONABLE_WARNINGS, IGNORED, DetectorParams
from opsbrain.errors import InputError
from opsbrain.ingest import Signal
from opsbrain.ingest.dirwalk import check_listable
from opsbrain.ingest.where import node_of
from opsbrain.sources.advice import Actuator, advise, execute
from opsbrain.sources.base import ReadingsSource
from opsbrain.sources.follow import LogFollower

if TYPE_CHECKING:
    from opsbrain.service.metrics import DiagnosisMetrics

Report = Callable[[dict[str, Any]], None]


MAX_SOURCE_ERRORS = 100
"""Distinct collection errors kept for the summary (a week of failed sweeps at 5 min is ~2,000; their count is kept
apart): the list no longer grows for ever."""


@dataclass
class WatchIncident:
    id: str
    opened: float
    last: float
    key: str | None
    signals: list[Signal] = field(default_factory=list)
    kinds: set[str] = field(default_factory=set)
    diagnosed_kinds: frozenset[str] = frozenset()
    reported: tuple[str, str | None] | None = None
    due: float = 0.0


def _key(sig: Signal) -> str | None:
    return node_of(sig.component) or sig.host or sig.component


class IncidentGrouper:
    """Signals -> incidents by node and arrival time (see module docstring)."""

    def __init__(self, params: DetectorParams | None = None) -> None:
        self.p = params or DetectorParams()
        self.incidents: list[WatchIncident] = []

    def feed(self, sig: Signal, now: float) -> None:
        key = _key(sig)
        quiet = any(tag in sig.kind for tag in IGNORED)
        for inc in reversed(self.incidents):
            if inc.key == key and now - inc.last <= self.p.group_window_s:
                inc.signals.append(sig)
                inc.last = now
                if sig.kind not in inc.kinds and not sig.kind.startswith("level:"):
                    inc.kinds.add(sig.kind)
                    if inc.reported is not None:
                        inc.due = max(inc.due, now + self.p.rediagnose_settle_s)
                return
        if quiet or not (sig.severity >= 2 or sig.kind in ACTIONABLE_WARNINGS):
            return
        inc = WatchIncident(f"w{len(self.incidents) + 1:04d}", now, now, key, [sig], {sig.kind},
                            due=now + self.p.collect_s)
        self.incidents.append(inc)

    def due(self, now: float) -> list[WatchIncident]:
        """Incidents to diagnose now: collected long enough, or grown new kinds since their last diagnosis."""
        return [i for i in self.incidents if i.due and now >= i.due and i.kinds != i.diagnosed_kinds]


class Watcher:
    """Follows ``logs`` and reports incidents (see module docstring)."""

    def __init__(self, logs: str | Path, engine: Any, report: Report, webhook: str | None = None,
                 actuator: Actuator | None = None, poll_s: float = 0.25, from_start: bool = False,
                 params: DetectorParams | None = None, clock: Callable[[], float] = time.monotonic,
                 source: ReadingsSource | None = None, sweep_every_s: float = 300.0,
                 webhook_format: str = "opsbrain", metrics: DiagnosisMetrics | None = None) -> None:
        from opsbrain.service.alerts import FORMATS, check_url

        root = Path(logs)
        if root.is_symlink() or not root.is_dir():
            raise InputError("not a directory (watch follows a directory of logs)", file=str(logs), path="--logs")
        check_listable(root, "--logs")
        check_url(webhook)
        if webhook_format not in FORMATS:
            raise InputError(f"unknown webhook format {webhook_format!r}", path="--webhook-format")
        self.webhook_format = webhook_format
        self.metrics = metrics
        if not poll_s > 0:
            raise InputError(f"must be > 0, got {poll_s}", path="--poll")
        self.follower = LogFollower(root, from_start)
        self.grouper = IncidentGrouper(params)
        self.engine = engine
        self.report = report
        self.webhook = webhook
        self.actuator = actuator
        self.poll_s = poll_s
        self.clock = clock
        self.reports = 0
        self.webhook_errors: list[str] = []
        if source is not None and not sweep_every_s > 0:
            raise InputError(f"must be > 0, got {sweep_every_s}", path="--sweep-interval")
        self.source = source
        self.sweep_every_s = sweep_every_s
        self._next_sweep = -float("inf")
        self._seen_findings: set[tuple[str, str, str]] = set()
        self.sweeps = 0
        self.source_errors: list[str] = []
        self.source_error_count = 0

    def step(self) -> None:
        """One poll: new lines -> grouping -> diagnoses due -> reports."""
        now = self.clock()
        for sig in self.follower.poll(now):
            self.grouper.feed(sig, now)
        for inc in self.grouper.due(now):
            self._diagnose(inc, now)
        if self.source is not None and now >= self._next_sweep:
            self._next_sweep = now + self.sweep_every_s
            self._sweep(now)

    def _sweep(self, now: float) -> None:
        from opsbrain.sources.base import sweep_source

        assert self.source is not None
        try:
            report = sweep_source(self.source)
        except InputError as exc:
            if len(self.source_errors) < MAX_SOURCE_ERRORS:
                self.source_errors.append(str(exc))
            self.source_error_count += 1
            return
        self.sweeps += 1
        for x in getattr(self.source, "not_read", ()):  # one URL of several down: the others were swept
            if len(self.source_errors) < MAX_SOURCE_ERRORS and x not in self.source_errors:
                self.source_errors.append(x)
        for f in report.at_least("Alarm"):
            key = (f.component, f.check, f.severity)
            if key in self._seen_findings:
                continue
            self._seen_findings.add(key)
            data = {"finding": f.as_dict(), "source": self.source.name, "reported_s": round(now - self._t0, 3),
                    "advisory": True}
            self.reports += 1
            self.report(data)
            if self.webhook:
                self._post(data)

    def _diagnose(self, inc: WatchIncident, now: float) -> None:
        from opsbrain.diagnosis.oneclick import diagnose_signals

        inc.diagnosed_kinds = frozenset(inc.kinds)
        t0 = time.perf_counter()
        res = diagnose_signals(self.engine, list(inc.signals), {"lines": len(inc.signals)}, None)
        d = res["diagnosis"]
        if self.metrics is not None:
            self.metrics.observe(d["fault_class"], float(d["confidence"]), time.perf_counter() - t0, "watch")
        verdict = (d["fault_class"], d.get("component"))
        if verdict == inc.reported:
            return
        first = inc.reported is None
        inc.reported = verdict
        advice = advise(d.get("runbook"), d.get("component"))
        data = {"incident": inc.id, "update": not first, "opened_s": round(inc.opened - self._t0, 3),
                "reported_s": round(now - self._t0, 3), "node": inc.key, "signals": len(inc.signals),
                "fault_class": d["fault_class"], "component": d.get("component"), "root": d.get("root"),
                "confidence": round(float(d["confidence"]), 4), "evidence": d["evidence"],
                "evidence_lines": d.get("evidence_lines", [])[:6], "advice": advice,
                "actuator": self.actuator.name if self.actuator is not None else None,
                "executed": execute(self.actuator, advice)}
        self.reports += 1
        self.report(data)
        if self.webhook:
            self._post(data)

    def _post(self, data: dict[str, Any]) -> None:
        """POST one report (as itself, or as an Alertmanager notification: :mod:`opsbrain.service.alerts`)."""
        from opsbrain.service.alerts import body_for, post_json

        failed = post_json(self.webhook or "", body_for(data, self.webhook_format))
        if self.metrics is not None:
            self.metrics.webhook(self.webhook_format, failed is None)
        if failed is not None:
            what = data.get("incident") or data["finding"]["component"]
            self.webhook_errors.append(f"{what}: {failed}")

    def run(self, stop: threading.Event, max_runtime_s: float | None = None) -> dict[str, Any]:
        """Poll until ``stop`` is set or ``max_runtime_s`` wall seconds passed; a summary."""
        self._t0 = self.clock()
        while not stop.is_set():
            self.step()
            if max_runtime_s is not None and self.clock() - self._t0 >= max_runtime_s:
                break
            stop.wait(self.poll_s)
        return {"incidents": len(self.grouper.incidents), "reports": self.reports, "lines": self.follower.lines,
                "files": len(self.follower._tails), "wall_s": round(self.clock() - self._t0, 3),
                "webhook_errors": self.webhook_errors[:20], "not_read": self.follower.stats.not_read[:20],
                "not_read_n": len(self.follower.stats.not_read),
                "sweeps": self.sweeps, "source_errors": self.source_errors[:20],
                "failed_collections": self.source_error_count}

    _t0 = 0.0
