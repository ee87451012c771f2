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
                             "is the baseline for of_baseline probes", ge=0)


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
        decode = [i for i in w.instances().values() if i["role"] == "decode"]
        npus = sum(len(i["nodes"]) for i in decode) * sim.topology.params.npus_per_node
        return float(w.throughput_at(t)) / max(1, npus)
    if probe.metric == "tpot_ms":
        return float(w.tpot_at(t)) * 1e3
    if probe.metric == "ttft_ms":
        return float(w.ttft_at(t)) * 1e3
    return math.nan


def holds(probe: Probe, value: float, baseline: float | None) -> bool:
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
    deviation_s: dict[str, float] = field(default_factory=dict)
    worst_streak_s: dict[str, float] = field(default_factory=dict)
    aborted: str | None = None
    abort_event: simpy.Event | None = None

    def start(self) -> simpy.Event:
        self.abort_event = self.sim.env.event()
        if self.probes or self.guards:  # nothing to check (campaigns): no periodic process at all
            self.sim.env.process(self._loop())
        return self.abort_event

    def baseline_at_s_rate(self) -> dict[str, float]:
        """Each workload's service rate at the baseline time (its fault-free rate, as the run measured it)."""
        t = self.params.baseline_at_s
        return {name: float(w.throughput_at(t)) for name, w in self.sim.workloads.items()}

    def snapshot(self, t: float) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for p in self.probes:
            v = probe_value(self.sim, p, t)
            out[p.name] = {"value": None if not math.isfinite(v) else round(v, 4),
                           "ok": holds(p, v, self.baseline.get(p.name))}
        return out

    def _loop(self) -> Generator[simpy.Event, Any, None]:
        env = self.sim.env
        dt = self.params.probe_interval_s
        streak: dict[str, float] = {}
        while True:
            yield env.timeout(dt)
            t = env.now
            if not self.baseline and t >= self.params.baseline_at_s:
                self.baseline = {p.name: probe_value(self.sim, p, t) for p in self.probes}
            for p in self.probes:
                ok = holds(p, probe_value(self.sim, p, t), self.baseline.get(p.name))
                streak[p.name] = 0.0 if ok else streak.get(p.name, 0.0) + dt
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
                    return f"guard {g.kind}: {bad}/{total} isolated > {g.max:.0%}"
            elif g.kind == "slo_breach_s":
                for w in sim.workloads.values():
                    if w.kind == "inference":
                        slo = float(w.accounting().get("slo_violation_s") or 0.0)
                        if slo > g.max:
                            return f"guard slo_breach_s: {w.name} {slo:.0f} s of SLO breach > {g.max:.0f} s"
        return None

    def deviated(self) -> bool:
        return any(s > self.tolerance_s for s in self.worst_streak_s.values())
