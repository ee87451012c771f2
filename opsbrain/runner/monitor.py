"""Steady-state probes and abort guards, checked as a periodic simulation process (the chaos harness's view)."""

from __future__ import annotations

import math
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

import simpy

from faultlib.engine import Simulation
from faultlib.health import Health
from faultlib.params import P, ParamGroup
from opsbrain.scenario.schema import Guard, Probe


class MonitorParams(ParamGroup):
    probe_interval_s: float = P(10.0, "s", "reason: fine enough to time recoveries of tens of seconds, cheap (one "
                                "event per interval)", gt=0)
    baseline_at_s: float = P(60.0, "s", "reason: workloads reach their fault-free rates at start; one minute in "
                             "is the baseline for of_baseline probes, or 1 s before the first fault if that is sooner "
                             "(the baseline is never read during a fault)", ge=0)
    fault_margin_s: float = P(1.0, "s", "reason: the baseline is read this long before the first fault's onset, so "
                              "that no fault at that instant is in it; one second is below every probe interval", gt=0)


HISTORY_METRICS = ("step_rate", "tpot_ms", "ttft_ms")
"""Metrics read from the workload's piecewise history, so readable at a past time; the others read the state now."""
RATE_METRICS = ("step_rate", "decode_tokens_per_npu")
"""Metrics for which 0 means the workload was not running: no baseline can be 0."""


def probe_value(sim: Simulation, probe: Probe, t: float) -> float:
    """The probe's metric at time ``t``."""
    if probe.metric == "isolated_npus":
        return float(sum(1 for c, h in sim.state.unhealthy().items()
                         if h == Health.ISOLATED and sim.topology.kind.get(c) == "npu"))
    if probe.metric == "failed_links":
        return float(sum(1 for c, h in sim.state.unhealthy().items()
                         if h in (Health.FAILED, Health.ISOLATED) and c in sim.topology.links))
    w: Any = sim.workloads[probe.workload] if probe.workload else None
    if w is None:
        return math.nan
    if probe.metric == "step_rate":
        return float(w.throughput_at(t))
    if probe.metric == "decode_tokens_per_npu":
        return float(w.throughput_at(t)) / decode_npus(sim, w)
    if probe.metric == "tpot_ms":
        return float(w.tpot_at(t)) * 1e3
    if probe.metric == "ttft_ms":
        return float(w.ttft_at(t)) * 1e3
    return math.nan


def decode_npus(sim: Simulation, w: Any) -> int:
    """The NPUs of an inference service's decode instances (at least 1)."""
    decode = [i for i in w.instances().values() if i["role"] == "decode"]
    return max(1, sum(len(i["nodes"]) for i in decode) * sim.topology.params.npus_per_node)


def model_value(sim: Simulation, probe: Probe) -> float | None:
    """The probe's fault-free value from the workload's model, where the model states one: a training job's
    launch placement's fault-free step rate (``nominal_rates``), an inference service's fault-free decode rate per
    decode NPU (:func:`served_fault_free`; session 47: with a fault at t=0 the probe was left unchecked); None
    otherwise (latencies have no model value)."""
    w: Any = sim.workloads.get(probe.workload) if probe.workload else None
    if probe.metric == "decode_tokens_per_npu" and w is not None:
        served = served_fault_free(w)
        return served / decode_npus(sim, w) if served > 0 else None
    hist = getattr(w, "nominal_rates", None) if probe.metric == "step_rate" else None
    return float(hist[0][1]) if hist else None


def served_fault_free(w: Any) -> float:
    """An inference service's decode tokens/s at its start had nothing failed, from its model: its demand then,
    at most its fault-free capacity (served = min(demand, capacity); its lost tokens are counted against that
    demand). 0.0 for a workload that states neither. Session 46 (newuser46): a fault at t=0 left the service no
    fault-free reading, so its dip was measured against 0: ttr 0.0, "recovered before detection", its loss
    unattributed."""
    hist = w.rate_history() if getattr(w, "kind", None) == "inference" else []
    capacity = getattr(w, "capacity_req_s", None)
    if not hist or capacity is None:
        return 0.0
    return float(min(hist[0]["demand_tokens_per_s"], capacity * w.p.output_tokens))


def usable_baseline(probe: Probe, value: float | None) -> bool:
    """A baseline must be finite, and a rate metric's must be above 0 (0 means the workload was not running)."""
    return value is not None and math.isfinite(value) and (value > 0 or probe.metric not in RATE_METRICS)


def holds(probe: Probe, value: float, baseline: float | None) -> bool | None:
    """Whether the probe holds; None when it cannot be checked (an ``of_baseline`` probe without a baseline)."""
    if probe.value is None and baseline is None:
        return None
    ref = probe.value if probe.value is not None else (baseline or 0.0) * (probe.of_baseline or 1.0)
    if math.isnan(value):
        return False
    if probe.op == ">=":
        return value >= ref
    if probe.op == "<=":
        return value <= ref
    return abs(value - ref) < 1e-9


@dataclass
class Monitor:
    sim: Simulation
    probes: list[Probe]
    guards: list[Guard]
    tolerance_s: float
    params: MonitorParams = field(default_factory=MonitorParams)
    baseline: dict[str, float] = field(default_factory=dict)
    baseline_source: dict[str, str] = field(default_factory=dict)
    """Per of_baseline probe: ``measured`` (read at a fault-free moment) or ``model`` (the workload's nominal)."""
    unchecked: list[str] = field(default_factory=list)
    """of_baseline probes for which no baseline could be established: they were not checked."""
    onsets: list[float] = field(default_factory=list)
    """Fault onsets known so far (scripted at build, triggered as they fire): the baseline is read before them."""
    baseline_taken: bool = False
    deviation_s: dict[str, float] = field(default_factory=dict)
    worst_streak_s: dict[str, float] = field(default_factory=dict)
    last_ok_s: dict[str, float] = field(default_factory=dict)
    """Per probe: the last tick it read in band (its off-bar stretch at the end began after it)."""
    aborted: str | None = None
    abort_event: simpy.Event | None = None

    def start(self) -> simpy.Event:
        self.abort_event = self.sim.env.event()
        if self.probes or self.guards:  # nothing to check (campaigns): no periodic process at all
            self.sim.env.process(self._loop())
        return self.abort_event

    def fault_free_t(self, now: float) -> float | None:
        """The latest moment at or before ``now`` (and the baseline time) known to be before every fault's onset;
        None when a fault began at time 0 (there is no fault-free moment)."""
        first = min(self.onsets, default=math.inf)
        if first <= 0:
            return None
        t = min(now, self.params.baseline_at_s)
        return t if t < first else max(0.0, first - self.params.fault_margin_s)

    def take_baseline(self) -> None:
        """Read each ``of_baseline`` probe's baseline at the last fault-free moment (now, or before an earlier
        triggered fault for a metric with history); else the workload model's nominal value; else leave the
        probe unchecked. Called once, at the baseline time (or before the first fault if that is sooner)."""
        if self.baseline_taken:
            return
        self.baseline_taken = True
        now = self.sim.now
        t = self.fault_free_t(now)
        for p in self.probes:
            if p.of_baseline is None:
                continue
            v: float | None = None
            if t is not None and (t >= now or p.metric in HISTORY_METRICS):
                v = probe_value(self.sim, p, t)
            source = "measured"
            if not usable_baseline(p, v):
                v, source = model_value(self.sim, p), "model"
            if usable_baseline(p, v) and v is not None:
                self.baseline[p.name] = v
                self.baseline_source[p.name] = source
            else:
                self.unchecked.append(p.name)

    def baseline_at_s_rate(self) -> dict[str, float]:
        """Each workload's fault-free service rate: read at the baseline time or the last moment before the first
        fault, whichever is sooner; when no fault-free moment was run, the model's: a training job's nominal, an
        inference service's :func:`served_fault_free`."""
        t = self.fault_free_t(self.params.baseline_at_s)
        out = {}
        for name, w in self.sim.workloads.items():
            rate = float(w.throughput_at(t)) if t is not None else 0.0
            hist = getattr(w, "nominal_rates", None)
            out[name] = rate if rate > 0 else float(hist[0][1]) if hist else served_fault_free(w)
        return out

    def hypothesis(self) -> str:
        """The steady-state hypothesis's outcome: ``none`` (no probes), ``deviated``, ``unchecked`` (a probe had no
        baseline and none deviated) or ``held``."""
        if not self.probes:
            return "none"
        if self.deviated():
            return "deviated"
        return "unchecked" if self.unchecked else "held"

    def snapshot(self, t: float) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for p in self.probes:
            v = probe_value(self.sim, p, t)
            out[p.name] = {"value": None if not math.isfinite(v) else round(v, 4),
                           "ok": holds(p, v, self.baseline.get(p.name))}  # None: not checked (no baseline)
        return out

    def _loop(self) -> Generator[simpy.Event, Any, None]:
        env = self.sim.env
        dt = self.params.probe_interval_s
        streak: dict[str, float] = {}
        while True:
            yield env.timeout(dt)
            t = env.now
            for p in self.probes:
                ok = holds(p, probe_value(self.sim, p, t), self.baseline.get(p.name))
                if ok is None:  # no baseline (yet): not judged
                    continue
                streak[p.name] = 0.0 if ok else streak.get(p.name, 0.0) + dt
                if ok:
                    self.last_ok_s[p.name] = t
                if not ok:
                    self.deviation_s[p.name] = self.deviation_s.get(p.name, 0.0) + dt
                self.worst_streak_s[p.name] = max(self.worst_streak_s.get(p.name, 0.0), streak[p.name])
            reason = self._guard_tripped()
            if reason and self.abort_event is not None and not self.abort_event.triggered:
                self.aborted = reason
                self.abort_event.succeed(reason)
                return

    def _guard_tripped(self) -> str | None:
        sim = self.sim
        for g in self.guards:
            if g.kind in ("isolated_npu_share", "isolated_node_share"):
                kind = "npu" if g.kind == "isolated_npu_share" else "node"
                total = len(sim.topology.by_kind.get(kind, [])) or 1
                bad = sum(1 for c, h in sim.state.unhealthy().items()
                          if h == Health.ISOLATED and sim.topology.kind.get(c) == kind)
                if kind == "npu":
                    bad += sum(len(sim.topology.npus_of(c)) for c, h in sim.state.unhealthy().items()
                               if h == Health.ISOLATED and sim.topology.kind.get(c) == "node")
                if bad / total > g.max:
                    # the bar as written, not rounded: max 0.001 printed "> 0%" (session 44, newuser44)
                    return f"guard {g.kind}: {bad}/{total} isolated ({bad / total:.1%}) > {g.max * 100:g}%"
            elif g.kind == "slo_breach_s":
                for w in sim.workloads.values():
                    if w.kind == "inference":
                        slo = float(w.accounting().get("slo_violation_s") or 0.0)
                        if slo > g.max:
                            return f"guard slo_breach_s: {w.name} {slo:.0f} s of SLO breach > {g.max:.0f} s"
        return None

    def unjudged_at_end(self, after: dict[str, Any], onsets: dict[float, bool]) -> dict[str, str]:
        """The probes out of band at the end (``after``, a :meth:`snapshot`), never longer than the tolerance, whose
        off-bar stretch began only with faults too late in the run to detect: every fault onset since the probe last
        read in band is censored (``onsets``: onset -> censored). Those end readings are not judged (session 36: a
        link down 1 s before the end failed the run while its expectation was not judged); probe -> why."""
        out = {}
        for p in self.probes:
            if after.get(p.name, {}).get("ok") is not False or self.worst_streak_s.get(p.name, 0.0) > self.tolerance_s:
                continue
            since = self.last_ok_s.get(p.name, 0.0)
            causes = sorted(t for t in onsets if t >= since)
            if causes and all(onsets[t] for t in causes):
                out[p.name] = (f"out of band at the end only since t={since:g} s, when the only faults that began "
                               f"were censored (at t={', '.join(f'{t:g}' for t in causes)} s: too late in the run "
                               "to detect): not judged")
        return out

    def deviated(self) -> bool:
        return any(s > self.tolerance_s for s in self.worst_streak_s.values())
