"""Health sweeps inside a run: a periodic simulation process, and the proactive incidents its alarms open.

:class:`ProactiveResponder` turns the findings of a sweep into *proactive incidents*: an Alarm (or worse) that
predicts an optical failure (a ``dom_trend`` or ``dom_rx`` finding on a module, which names its link in
``data["link"]``) hands the orchestrator an ``optical_degradation`` diagnosis of that link, so the link is drained
(isolated and re-routed, rb-optical-degradation) before it goes down. One proactive incident per link and run: a
link already drained is admin-down and the checks leave it alone. The scheduled service
(:mod:`opsbrain.service`) uses the same responder.

:class:`InrunSweeper` runs :func:`~opsbrain.sweeps.sweep.run_sweep` every ``interval_s`` simulated seconds inside a
chaos run (one event per sweep: the cost grows with sweeps, not with simulated seconds x components) and keeps the
counts the journal reports under ``"sweeps"``.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

import simpy

from faultlib.params import P, ParamGroup
from opsbrain.sweeps.checks import LEVEL, SEVERITIES, Finding
from opsbrain.sweeps.params import SweepParams
from opsbrain.sweeps.snapshot import SweepHistory
from opsbrain.sweeps.sweep import SweepReport, run_sweep
from opsbrain.verdict import Diagnosis

if TYPE_CHECKING:
    from faultlib.engine import Simulation

PREDICTIVE_CHECKS = ("dom_trend", "dom_rx")
"""Checks whose Alarm predicts that an optical link is about to fail."""


class ProactiveParams(ParamGroup):
    """When a sweep finding opens a proactive incident, and how sure its diagnosis is."""

    min_severity: Literal["Alarm", "Critical"] = P(
        "Alarm", "severity", "issue 7: Alarm means 'act now, before it fails'; a Warning only watches (plans a "
        "replacement)")
    trend_confidence: float = P(
        0.9, "probability", "reason: a dom_trend Alarm needs a fall of >= 0.05 dB/h with t <= -8 over >= 1 h of reads "
        "(one-sided P < 1e-9 per fit on read noise alone; sweeps.trend_min_tstat); what remains is the chance that "
        "the fall stops by itself (a connector that settles), taken as 1 in 10", ge=0, le=1)
    rx_confidence: float = P(
        0.8, "probability", "reason: Rx power confirmed below the -10 dBm alarm on dom_confirm_reads collections in a "
        "row is a failing module or a dirty connector; both are drained and the module replaced, so the class is "
        "right for the action more often than not, yet less sure than a measured trend", ge=0, le=1)


Opener = Callable[[str, Diagnosis, str], Any]
"""Opens a proactive incident: ``(incident id, diagnosis, link)``; in a run, :meth:`Controller.adopt
<opsbrain.controller.Controller.adopt>`, which hands it to the orchestrator (``orchestrator.handle``)."""


@dataclass
class ProactiveIncident:
    """One proactive incident opened by a sweep."""

    id: str
    component: str
    """The optical link."""
    at_s: float
    check: str
    severity: str
    predicted_failure_s: float | None
    findings: list[Finding]
    diagnosis: Diagnosis

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "component": self.component, "at_s": self.at_s, "check": self.check,
                "severity": self.severity, "predicted_failure_s": self.predicted_failure_s,
                "modules": sorted({f.component for f in self.findings}),
                "diagnosis": self.diagnosis.as_dict()}


class ProactiveResponder:
    """Opens proactive incidents for sweep findings that predict an optical failure (see module docstring)."""

    def __init__(self, opener: Opener | None, params: ProactiveParams | None = None, prefix: str = "sweep") -> None:
        self.opener = opener
        self.p = params or ProactiveParams()
        self.prefix = prefix
        self.incidents: list[ProactiveIncident] = []
        self._links: set[str] = set()

    def predictive(self, report: SweepReport) -> dict[str, list[Finding]]:
        """Link -> the findings of ``report`` that predict its failure (severity >= ``min_severity``)."""
        out: dict[str, list[Finding]] = {}
        for f in report.at_least(self.p.min_severity):
            link = f.data.get("link")
            if f.check in PREDICTIVE_CHECKS and isinstance(link, str):
                out.setdefault(link, []).append(f)
        return out

    def consider(self, report: SweepReport) -> list[ProactiveIncident]:
        """Open (and hand to the responder) one incident per newly alarmed link; returns the new incidents."""
        new = []
        for link, found in sorted(self.predictive(report).items()):
            if link in self._links:
                continue
            self._links.add(link)
            found = sorted(found, key=lambda f: (PREDICTIVE_CHECKS.index(f.check), -f.level))
            lead = found[0]
            conf = self.p.trend_confidence if lead.check == "dom_trend" else self.p.rx_confidence
            etas = [f.predicted_failure_s for f in found if f.predicted_failure_s is not None]
            diag = Diagnosis("optical_degradation", link, conf,
                             [f"health sweep {f.check} {f.severity} on {f.component}: {f.evidence}" for f in found],
                             at_s=report.t_s)
            inc = ProactiveIncident(f"{self.prefix}-{len(self.incidents) + 1}", link, report.t_s, lead.check,
                                    max((f.severity for f in found), key=LEVEL.__getitem__),
                                    min(etas) if etas else None, found, diag)
            self.incidents.append(inc)
            new.append(inc)
            if self.opener is not None:
                self.opener(inc.id, diag, link)
        return new


@dataclass
class SweepTally:
    """Running totals over the sweeps of one run or service."""

    sweeps: int = 0
    findings: dict[str, int] = field(default_factory=lambda: dict.fromkeys(SEVERITIES[1:], 0))
    alarmed: dict[str, str] = field(default_factory=dict)
    """Component -> the check of its first Alarm-or-worse finding."""
    duration_ms: list[float] = field(default_factory=list)
    last: SweepReport | None = None

    def add(self, report: SweepReport) -> None:
        self.sweeps += 1
        for sev in self.findings:
            self.findings[sev] += report.counts.get(sev, 0)
        for f in report.at_least("Alarm"):
            self.alarmed.setdefault(f.component, f.check)
        self.duration_ms.append(report.duration_ms)
        self.last = report


class InrunSweeper:
    """Sweeps ``sim`` every ``interval_s`` simulated seconds; alarms go to a :class:`ProactiveResponder`."""

    def __init__(self, sim: Simulation, opener: Opener | None, interval_s: float | None = None,
                 params: SweepParams | None = None, proactive: ProactiveParams | None = None) -> None:
        self.sim = sim
        self.params = params or SweepParams()
        self.interval_s = float(interval_s if interval_s is not None else self.params.interval_s)
        if self.interval_s <= 0:
            raise ValueError(f"sweep interval must be > 0 s, got {self.interval_s}")
        self.history = SweepHistory(self.params.trend_window_s)
        self.proactive = ProactiveResponder(opener, proactive)
        self.tally = SweepTally()
        self.process = sim.env.process(self._loop())

    def _loop(self) -> Generator[simpy.Event, Any, None]:
        while True:
            yield self.sim.env.timeout(self.interval_s)
            self.sweep_now()

    def sweep_now(self) -> SweepReport:
        """One sweep at the current simulated time (also what the periodic process does)."""
        report = run_sweep(self.sim, params=self.params, history=self.history)
        self.tally.add(report)
        self.proactive.consider(report)
        return report

    def report(self, actions_for: Any = None) -> dict[str, Any]:
        """The journal's ``"sweeps"`` section; ``actions_for(incident_id)`` adds each proactive incident's actions.

        ``duration_ms_*`` are wall-clock figures (they vary between identical runs)."""
        t = self.tally
        incidents = []
        for inc in self.proactive.incidents:
            d = inc.as_dict()
            if actions_for is not None:
                d["actions"] = actions_for(inc.id)
            incidents.append(d)
        ms = sorted(t.duration_ms)
        return {"enabled": True, "interval_s": self.interval_s, "sweeps": t.sweeps, "findings": dict(t.findings),
                "alarmed_components": len(t.alarmed), "alarmed_by_check": _count(t.alarmed.values()),
                "proactive_incidents": len(incidents), "proactive": incidents,
                "duration_ms_median": ms[len(ms) // 2] if ms else None, "duration_ms_max": ms[-1] if ms else None}


def _count(values: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return dict(sorted(out.items()))


def start_inrun_sweeps(sim: Simulation, opener: Opener | None, interval_s: float | None = None,
                       params: SweepParams | None = None) -> InrunSweeper:
    """Start periodic sweeps in ``sim`` (the first one ``interval_s`` after now)."""
    return InrunSweeper(sim, opener, interval_s, params)
