"""Run one elastic-serving day: demand curve, decode-node faults, and a policy (autoscaler or a static layout).

Policies compared on the same seed (same demand curve, same faults, same duration draws):

* ``autoscale`` -- :class:`opsbrain.ops.autoscaler.Autoscaler` sizes the pools to demand and replaces lost
  instances on free nodes;
* ``static-peak`` -- no autoscaler: the layout the autoscaler would pick for the day's peak, fixed; a lost instance
  is repaired the way the recovery runbooks do it (restart on a spare node, weights from EMS);
* ``static-paper`` -- no autoscaler: the paper's layout (6 prefill x 2 nodes, 1 decode x 20 nodes), with the same
  repair.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from faultlib import ids
from faultlib.engine import Simulation
from faultlib.injection.spec import FaultSpec
from faultlib.workloads.demand import DemandCurve, curve_for, drive_demand
from faultlib.workloads.elastic import ElasticInferenceService
from opsbrain.ops.autoscaler import Autoscaler, AutoscalerParams
from opsbrain.ops.setup import ops_params, serviceable

Policy = Literal["autoscale", "static-peak", "static-paper"]
POLICIES: tuple[Policy, ...] = ("autoscale", "static-peak", "static-paper")


@dataclass(frozen=True)
class ElasticSetup:
    """One elastic-serving experiment (the ``superpod.elastic`` block of a scenario)."""

    duration_s: float = 86400.0
    pods: int = 2
    peak_tokens_per_s: float = 180000.0
    budget_npus: int = 736
    start_hour: float = 0.0
    faults: tuple[tuple[float, str], ...] = ((50400.0, "decode"),)  # (at s, role whose node crashes)
    spare_nodes: int = 4
    params: dict[str, Any] = field(default_factory=dict)  # dotted SimParams overrides


class LayoutError(ValueError):
    """A policy's layout does not fit the pods' usable nodes (``opsbrain superpod run`` names the block, or the
    ``--demand-scale`` that asked for it)."""


def _layout(sim: Simulation, counts: dict[str, int], dec_n: int, pre_n: int, nodes: list[str]
            ) -> tuple[list[list[str]], list[list[str]]]:
    """Place ``counts`` instances pod by pod (decode first, each inside one pod)."""
    by_pod: dict[str, list[str]] = {}
    for n in nodes:
        by_pod.setdefault(ids.pod_of(n) or "", []).append(n)
    dec: list[list[str]] = []
    pre: list[list[str]] = []
    for _ in range(counts["decode"]):
        pod = max(by_pod, key=lambda p: len(by_pod[p]))
        if len(by_pod[pod]) < dec_n:
            raise LayoutError(f"no pod has {dec_n} free nodes for a decode instance")
        dec.append(by_pod[pod][:dec_n])
        by_pod[pod] = by_pod[pod][dec_n:]
    for _ in range(counts["prefill"]):
        pod = max(by_pod, key=lambda p: len(by_pod[p]))
        if len(by_pod[pod]) < pre_n:
            raise LayoutError(f"no pod has {pre_n} free nodes for a prefill instance")
        pre.append(by_pod[pod][:pre_n])
        by_pod[pod] = by_pod[pod][pre_n:]
    return pre, dec


class _Repairer:
    """The static layouts' repair: a lost instance restarts on spare nodes in place of its unhealthy ones."""

    def __init__(self, sim: Simulation, svc: ElasticInferenceService, spares: list[str], lost_after_s: float,
                 interval_s: float) -> None:
        self.sim, self.svc, self.spares = sim, svc, list(spares)
        self.lost_after_s, self.interval_s = lost_after_s, interval_s
        self.busy: set[str] = set()
        self.down_since: dict[str, float] = {}

    def run(self) -> Generator[Any, Any, None]:
        while True:
            now = self.sim.now
            for qual, info in self.svc.instances().items():
                if info["up"] or qual in self.busy:
                    self.down_since.pop(qual, None)
                    continue
                if now - self.down_since.setdefault(qual, now) >= self.lost_after_s:
                    self._repair(qual, info["nodes"])
            yield self.sim.env.timeout(self.interval_s)

    def _repair(self, qual: str, nodes: list[str]) -> None:
        bad = [n for n in nodes if not serviceable(self.sim, n)]
        pod = ids.pod_of(nodes[0])
        replace: dict[str, str] = {}
        for n in bad:  # session 36: a spare with a chip down was taken (its host alone was looked at)
            cand = next((s for s in self.spares if ids.pod_of(s) == pod and serviceable(self.sim, s)), None)
            if cand is None:
                return
            self.spares.remove(cand)
            replace[n] = cand
        self.busy.add(qual)
        proc = self.sim.control.restart_instance(self.svc.name, qual, replace or None, "ems")

        def wait() -> Generator[Any, Any, None]:
            yield proc
            self.busy.discard(qual)

        self.sim.env.process(wait())


@dataclass
class _Sized:
    """A run's simulation, nodes, demand curve and the autoscaler's sizing, before any layout is placed."""

    sim: Simulation
    usable: list[str]
    spares: list[str]
    curve: DemandCurve
    sizing: Autoscaler


def _sized(setup: ElasticSetup, seed: int, ap: AutoscalerParams) -> _Sized:
    sim = Simulation(ops_params(setup.params), seed=seed, pods=setup.pods)
    ip = sim.params.inference
    dec_n, pre_n = ip.decode_nodes, ip.prefill_nodes_per_instance
    last = sim.topology.params.nodes_per_pod - 1
    spares = [ids.node(pod, last - k) for pod in range(setup.pods) for k in range(setup.spare_nodes // setup.pods)]
    usable = [n for n in sim.topology.nodes() if n not in spares]
    curve = curve_for(sim, setup.peak_tokens_per_s, setup.duration_s, setup.start_hour)
    probe = ElasticInferenceService("probe", [usable[:pre_n]], usable[pre_n:pre_n + dec_n], ip)
    probe_sim = Simulation(sim.params, seed=seed, pods=setup.pods)
    probe_sim.add_workload(probe)
    return _Sized(sim, usable, spares, curve, Autoscaler(probe_sim, probe, setup.budget_npus, usable, ap))


def _placed(setup: ElasticSetup, policy: Policy, z: _Sized) -> tuple[list[list[str]], list[list[str]]]:
    """(prefill, decode) instances of ``policy``'s opening layout; LayoutError where it does not fit."""
    ip = z.sim.params.inference
    dec_n, pre_n = ip.decode_nodes, ip.prefill_nodes_per_instance
    counts: dict[str, int]
    if policy == "static-paper":
        counts = {"decode": 1, "prefill": ip.prefill_instances}
    elif policy == "static-peak":
        counts = {str(k): v for k, v in z.sizing.wanted(z.curve.peak / ip.output_tokens).items()}
    else:
        counts = _within_budget({str(k): v for k, v in z.sizing.wanted(z.curve.at(0.0) / ip.output_tokens).items()},
                                dec_n, pre_n, z.sim.topology.params.npus_per_node, setup.budget_npus)
    try:
        return _layout(z.sim, counts, dec_n, pre_n, z.usable)
    except LayoutError as exc:
        raise LayoutError(f"the {policy} layout for a peak of {setup.peak_tokens_per_s:,.0f} tok/s ({counts['decode']} "
                          f"decode x {dec_n} nodes, {counts['prefill']} prefill x {pre_n}) does not fit the "
                          f"{len(z.usable)} usable nodes of {setup.pods} pods: {exc}") from None


def _within_budget(counts: dict[str, int], dec_n: int, pre_n: int, npn: int, budget: int) -> dict[str, int]:
    """The autoscaler's opening layout within its NPU budget, as its own starts would keep it: decode instances
    first (room kept for one prefill), prefill in what is left; at least one of each (the block's validation keeps
    the budget above that). Session 36: the opening layout was the demand's, above the budget at a peak start."""
    dec = max(1, min(counts["decode"], (budget - pre_n * npn) // (dec_n * npn)))
    pre = max(1, min(counts["prefill"], (budget - dec * dec_n * npn) // (pre_n * npn)))
    return {"decode": dec, "prefill": pre}


def check_layouts(setup: ElasticSetup, policies: tuple[Policy, ...] | list[Policy], seed: int,
                  params: AutoscalerParams | None = None) -> None:
    """Raise :class:`LayoutError` where a policy's opening layout on ``seed`` does not fit, without running the day
    (the same sizing and placement :func:`run_elastic` does first: a campaign validates every scale before it runs
    any, session 35)."""
    z = _sized(setup, seed, params or AutoscalerParams())
    for policy in policies:
        _placed(setup, policy, z)


def run_elastic(setup: ElasticSetup, policy: Policy, seed: int,
                params: AutoscalerParams | None = None) -> dict[str, Any]:
    """Run one day under ``policy``; returns the metrics of :func:`summarize`."""
    ap = params or AutoscalerParams()
    z = _sized(setup, seed, ap)
    sim, usable, spares, curve, ip = z.sim, z.usable, z.spares, z.curve, z.sim.params.inference
    pre, dec = _placed(setup, policy, z)
    svc = ElasticInferenceService("serve", pre, dec[0], ip, extra_decode=dec[1:])  # the run opens warm
    sim.add_workload(svc)
    sim.env.process(drive_demand(sim, svc, curve))
    scaler: Autoscaler | None = None
    if policy == "autoscale":
        scaler = Autoscaler(sim, svc, setup.budget_npus, usable + spares, ap)
        sim.env.process(scaler.run())
    else:
        sim.env.process(_Repairer(sim, svc, spares, ap.lost_after_s, ap.interval_s).run())
    fault_times: list[float] = []
    for at, role in setup.faults:
        sim.env.process(_crash_later(sim, svc, at, role, fault_times))
    sim.run(setup.duration_s)
    return summarize(sim, svc, setup, policy, seed, fault_times, scaler)


def _crash_later(sim: Simulation, svc: ElasticInferenceService, at: float, role: str, out: list[float]
                 ) -> Generator[Any, Any, None]:
    """At ``at``: a node of the first ``role`` instance serving then crashes (kernel panic)."""
    yield sim.env.timeout(at)
    insts = [i for i in svc.instances().values() if i["role"] == role and i["up"]]
    if not insts:
        return
    nodes = insts[0]["nodes"]
    node = nodes[len(nodes) // 2]
    sim.inject(FaultSpec(at_s=sim.now, kind="node_crash", target=node))
    out.append(sim.now)


def time_to_slo(violations: list[tuple[float, float]], t: float) -> float:
    """Seconds from ``t`` until the SLO holds again (0 if it was not violated just after ``t``)."""
    for a, b in violations:
        if a <= t + 1e-6 < b or t <= a <= t + 1.0:
            return b - t
    return 0.0


def summarize(sim: Simulation, svc: ElasticInferenceService, setup: ElasticSetup, policy: str, seed: int,
              fault_times: list[float], scaler: Autoscaler | None) -> dict[str, Any]:
    acc = svc.accounting()
    npu_s = svc.npu_seconds()
    hist = svc.rate_history()
    dec_tokens = acc["tokens_served"]
    ok_tokens = 0.0
    npn = sim.topology.params.npus_per_node
    for k, h in enumerate(hist):
        t1 = hist[k + 1]["t"] if k + 1 < len(hist) else sim.now
        if not h["slo_violated"]:
            ok_tokens += h["decode_tokens_per_s"] * (t1 - h["t"])
    cap = svc.capacity_per_npu()
    viol = svc.violations()
    return {
        "policy": policy, "seed": seed, "duration_s": setup.duration_s,
        "slo_attainment": svc.slo_attainment(),
        "tokens_served": dec_tokens, "tokens_lost": acc["lost_tokens"],
        "npu_hours_allocated": npu_s["allocated"] / 3600.0,
        "npu_hours_idle": (npu_s["allocated"] - npu_s["serving"]) / 3600.0,
        "tokens_per_s_per_npu": dec_tokens / npu_s["allocated"] if npu_s["allocated"] else 0.0,
        "decode_tokens_per_s_per_decode_npu": (dec_tokens / npu_s["decode_allocated"]
                                               if npu_s["decode_allocated"] else 0.0),
        "decode_tokens_per_s_per_npu_at_slo_bound": cap["decode_tokens_per_s_per_npu_tight"],
        "tpot_bound_ms": svc.p.tpot_slo_ms,
        "time_to_slo_after_fault_s": [time_to_slo(viol, t) for t in fault_times],
        "violation_s": float(np.sum([b - a for a, b in viol])) if viol else 0.0,
        "peak_tokens_per_s": setup.peak_tokens_per_s,
        "scale_events": len(scaler.events) if scaler else 0,
        "refusals": [dict(r) for r in scaler.refusals] if scaler else [],  # refused scale-ups (session 37)
        "decode_npus_per_node": npn,
        "slo_ok_tokens": ok_tokens,
    }
