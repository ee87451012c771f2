"""One health sweep: take a snapshot, run every check, summarise the findings.

Shared by the scheduled service (which keeps a :class:`~opsbrain.sweeps.snapshot.SweepHistory` between sweeps)
and by chaos runs (periodic simulation processes).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from opsbrain.sweeps.checks import CHECKS, LEVEL, SEVERITIES, Check, Finding, json_safe, worst
from opsbrain.sweeps.params import SweepParams
from opsbrain.sweeps.predict import check_dom_trend
from opsbrain.sweeps.snapshot import Snapshot, SweepHistory, take_snapshot

if TYPE_CHECKING:
    from faultlib.engine import Simulation

ALL_CHECKS: tuple[Check, ...] = (*CHECKS, Check("dom_trend", check_dom_trend, lambda s: len(s.modules)))
CHECK_NAMES: tuple[str, ...] = tuple(c.name for c in ALL_CHECKS)


@dataclass
class SweepReport:
    """The result of one sweep at simulated time ``t_s``."""

    t_s: float
    findings: list[Finding]
    counts: dict[str, int]
    """Findings by severity; ``OK`` = component-checks that found nothing (a finding that folds several links of
    one host, ``data["covers"]``, counts each of them: session 35)."""
    duration_ms: float
    worst: dict[str, str]
    """Worst severity per component that has a finding (every other component is OK)."""
    checked: dict[str, int] = field(default_factory=dict)
    """Components each check examined."""

    @property
    def severity(self) -> str:
        """The worst severity of the sweep."""
        return worst(*self.worst.values())

    def at_least(self, severity: str) -> list[Finding]:
        """Findings of ``severity`` or worse."""
        lv = LEVEL[severity]
        return [f for f in self.findings if f.level >= lv]

    def as_dict(self) -> dict[str, Any]:
        """A JSON-safe dict (no inf/nan, plain Python numbers)."""
        return json_safe({"t_s": self.t_s, "duration_ms": round(self.duration_ms, 3), "severity": self.severity,
                          "counts": self.counts, "checked": self.checked, "worst": self.worst,
                          "findings": [f.as_dict() for f in self.findings]})


def run_sweep(sim: Simulation, t: float | None = None, params: SweepParams | None = None,
              history: SweepHistory | None = None, checks: Iterable[str] | None = None) -> SweepReport:
    """Sweep ``sim`` at ``t`` (default: now) with every check (or the named ``checks``).

    ``history`` (one per simulation, updated) keeps DOM readings between sweeps for the trend fit and caches
    what does not change between sweeps; without it the snapshot re-reads the DOM store over the trend window.
    """
    start = time.perf_counter()
    p = params or SweepParams()
    return sweep_snapshot(take_snapshot(sim, t, p, history), p, checks, start)


def sweep_snapshot(snap: Snapshot, params: SweepParams | None = None, checks: Iterable[str] | None = None,
                   started: float | None = None) -> SweepReport:
    """Run every check (or the named ``checks``) on a snapshot from any telemetry source (``opsbrain.sources``);
    ``started`` (a ``time.perf_counter()`` value) counts the collection into the duration."""
    start = time.perf_counter() if started is None else started
    p = params or SweepParams()
    selected = ALL_CHECKS
    if checks is not None:
        names = set(checks)
        unknown = names - set(CHECK_NAMES)
        if unknown:
            raise ValueError(f"unknown checks {sorted(unknown)} (known: {', '.join(CHECK_NAMES)})")
        selected = tuple(c for c in ALL_CHECKS if c.name in names)
    findings: list[Finding] = []
    checked: dict[str, int] = {}
    for c in selected:
        findings.extend(c.fn(snap, p))
        checked[c.name] = int(c.scope(snap))
    return summarise(snap.t, findings, checked, (time.perf_counter() - start) * 1e3)


def summarise(t: float, findings: list[Finding], checked: dict[str, int], duration_ms: float) -> SweepReport:
    """The report of ``findings`` (sorted most severe first; counted by severity and worst per component)."""
    findings = sorted(findings, key=lambda f: (-f.level, f.check, f.component))
    counts = dict.fromkeys(SEVERITIES, 0)
    worst_of: dict[str, str] = {}
    for f in findings:
        counts[f.severity] += 1
        worst_of[f.component] = worst(worst_of.get(f.component, "OK"), f.severity)
    counts["OK"] = sum(checked.values()) - sum(f.covers for f in findings)  # a host's folded links count each
    return SweepReport(t, findings, counts, duration_ms, worst_of, checked)
