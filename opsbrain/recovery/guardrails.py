"""Guardrails on automated recovery: blast radius, circuit breaker, repeat/rate limits, approvals.

* Blast radius: an isolating action (``isolate``, ``isolate_link``, ``cordon``) is refused when it would leave more
  than a set share of the pod's NPUs, nodes, L1-L2 links or L2 chips isolated or cordoned. Only parts still in
  service count against it: isolating a failed chip or a stopped host takes no capacity away (session 38).
* Circuit breaker (after NVIDIA NVSentinel): once isolations touched ``breaker_trip_share`` of a pod's nodes within
  ``breaker_window_s``, new isolations in that pod are refused; the breaker stays open ``breaker_hold_s``.
* Repeat and rate limits (after MindCluster): incidents are counted per component and class over
  ``repeat_window_s``; a runbook's ``repeat`` rule switches to a harder runbook (the same code twice in 24 h =>
  isolate), and the ``lemon_incidents``-th incident on one component hands it to a human.
* Approvals: a step marked ``approval: required`` waits for a modelled human delay (lognormal).

State is per instance (one per run). Plant state is read only as an operator sees it (component health).
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from faultlib import ids
from faultlib.health import Health
from opsbrain.recovery.params import RecoveryParams

if TYPE_CHECKING:
    from faultlib.engine import Simulation

OUT_OF_SERVICE = (Health.ISOLATED, Health.CORDONED)


def already_out(sim: Simulation, target: str, part: str | None = None) -> bool:
    """Whether ``part`` (default: ``target``; else an NPU, node, link or L2 chip a blast-radius count adds for
    isolating ``target``) is out of service already, as the plant shows it: no workload can use it, so isolating it
    takes no capacity away (session 38). Out of service: the part, the target, or the chip or node holding either
    FAILED, or its host stopped; a link or L2 chip only when it is FAILED itself (its traffic is not one host's). A
    part resetting comes back by itself and still counts, also a host down for a reboot under way (its node
    RESETTING: session 38's review, before it was out)."""
    st = sim.state
    if target in sim.topology.links or ids.node_of(target) is None:
        return st.health(target) == Health.FAILED
    for c in {part or target, target}:
        if st.host_down(c) and st.health(ids.node_of(c) or c) != Health.RESETTING:  # (not a reboot under way)
            return True
        for p in {c, ids.npu_of(c), ids.node_of(c)}:
            if p is not None and st.health(p) == Health.FAILED:
                return True
    return False


@dataclass
class Decision:
    allowed: bool
    rule: str | None = None
    reason: str = ""
    detail: dict[str, Any] = field(default_factory=dict)


class Guardrails:
    def __init__(self, params: RecoveryParams | None = None) -> None:
        self.p = params or RecoveryParams()
        self._isolations: list[tuple[float, str, str]] = []  # (t, pod, unit)
        self._tripped: dict[str, float] = {}  # pod -> time the breaker opened
        self._incidents: dict[str, list[tuple[float, str, str | None]]] = {}  # key -> [(t, class, incident)]
        self._totals: dict[str, dict[str, int]] = {}
        self._pending: set[str] = set()  # isolations allowed and under way
        self.refusals: list[dict[str, Any]] = []

    # ---- isolations ---------------------------------------------------------------------------------------
    @staticmethod
    def unit(sim: Simulation, target: str) -> str:
        """What the breaker counts: the node a target lives in (a link: its L1 end's node), else the target."""
        lk = sim.topology.links.get(target)
        if lk is not None and lk.node is not None:
            return lk.node
        return ids.node_of(target) or target

    def check_isolation(self, sim: Simulation, action: str, target: str, now: float, commit: bool = True
                        ) -> Decision:
        """May ``action`` isolate ``target`` now? With ``commit`` (not a dry run) a refusal is remembered in
        :attr:`refusals` and may trip the breaker."""
        pod = ids.pod_of(target) or "cluster"
        unit = self.unit(sim, target)
        d = self._breaker(sim, pod, unit, now, commit)
        if d.allowed:
            d = self._blast(sim, target, pod)
        if commit and d.allowed:  # reserve: isolations decided at the same instant see each other
            self._isolations.append((now, pod, unit))
            self._pending.add(target)
        elif commit:
            self.refusals.append({"at_s": now, "action": action, "target": target, "rule": d.rule,
                                  "reason": d.reason})
        return d

    def release(self, target: str) -> None:
        """The isolating action on ``target`` ended (the plant state now tells whether it is out of service)."""
        self._pending.discard(target)

    def _window_units(self, pod: str, now: float) -> set[str]:
        start = now - self.p.breaker_window_s
        return {u for t, p, u in self._isolations if p == pod and t > start}

    def _breaker(self, sim: Simulation, pod: str, unit: str, now: float, commit: bool = True) -> Decision:
        since = self._tripped.get(pod)
        if since is not None and now < since + self.p.breaker_hold_s:
            return Decision(False, "circuit_breaker", f"circuit breaker open in {pod} since t={since:.0f} s "
                            f"(held {self.p.breaker_hold_s:.0f} s): new isolations stopped",
                            {"opened_at_s": since})
        units = self._window_units(pod, now)
        limit = max(1, math.ceil(self.p.breaker_trip_share * self._total(sim, pod)["nodes"] - 1e-9))
        if unit not in units and len(units) >= limit:
            if commit:
                self._tripped[pod] = now
            return Decision(False, "circuit_breaker",
                            f"circuit breaker tripped: {len(units)} nodes isolated in {pod} within "
                            f"{self.p.breaker_window_s:.0f} s >= {limit} ({self.p.breaker_trip_share:.0%} of "
                            f"{self._total(sim, pod)['nodes']}); new isolations stopped",
                            {"isolated_in_window": sorted(units), "limit": limit})
        return Decision(True)

    def _total(self, sim: Simulation, pod: str) -> dict[str, int]:
        if not self._totals:  # every pod in one pass over the topology
            topo = sim.topology
            npn = topo.params.npus_per_node
            empty = {"nodes": 0, "npus": 0, "links": 0, "l2": 0}
            for n in topo.nodes():
                t = self._totals.setdefault(ids.pod_of(n) or "", dict(empty))
                t["nodes"] += 1
                t["npus"] += npn
            for lk in topo.links.values():
                if lk.kind == "ub_optical":
                    self._totals.setdefault(ids.pod_of(lk.a) or "", dict(empty))["links"] += 1
            for c in topo.by_kind.get("l2", []):
                self._totals.setdefault(ids.pod_of(c) or "", dict(empty))["l2"] += 1
        return self._totals.get(pod) or {"nodes": 0, "npus": 0, "links": 0, "l2": 0}

    def out_of_service(self, sim: Simulation, pod: str) -> dict[str, set[str]]:
        """Components of ``pod`` isolated or cordoned now or being isolated, by category (NPUs include those of
        such nodes)."""
        topo = sim.topology
        out: dict[str, set[str]] = {"nodes": set(), "npus": set(), "links": set(), "l2": set()}
        for cid, h in sim.state.unhealthy().items():
            if h in OUT_OF_SERVICE and ids.pod_of(cid) == pod:
                self._add(topo, cid, out)
        for cid in self._pending:
            if ids.pod_of(cid) == pod:
                self._add(topo, cid, out)
        return out

    @staticmethod
    def _add(topo: Any, cid: str, out: dict[str, set[str]]) -> None:
        if cid in topo.links:
            if topo.links[cid].kind == "ub_optical":
                out["links"].add(cid)
            return
        kind = topo.kind.get(cid)
        if kind == "node":
            out["nodes"].add(cid)
            out["npus"].update(topo.npus_of(cid))
        elif kind in ("npu", "die", "hbm"):
            out["npus"].add(ids.npu_of(cid) or cid)
        elif kind == "l2":
            out["l2"].add(cid)

    def _blast(self, sim: Simulation, target: str, pod: str) -> Decision:
        now_out = self.out_of_service(sim, pod)
        added: dict[str, set[str]] = {k: set() for k in now_out}
        self._add(sim.topology, target, added)
        after = {k: now_out[k] | {p for p in added[k] - now_out[k] if not already_out(sim, target, p)}
                 for k in now_out}
        total = self._total(sim, pod)
        limits = {"npus": self.p.max_isolated_npu_share, "nodes": self.p.max_isolated_node_share,
                  "links": self.p.max_isolated_link_share, "l2": self.p.max_isolated_l2_share}
        for cat, share in limits.items():
            if len(after[cat]) > len(now_out[cat]) and total[cat] and len(after[cat]) / total[cat] > share:
                return Decision(False, "blast_radius",
                                f"blast radius: isolating {target} would take {len(after[cat])} of {total[cat]} "
                                f"{cat} of {pod} out of service (> {share:.1%})",
                                {"category": cat, "after": len(after[cat]), "total": total[cat], "limit": share})
        return Decision(True)

    def breaker_state(self, sim: Simulation, now: float) -> dict[str, Any]:
        pods = sorted({p for _t, p, _u in self._isolations} | set(self._tripped))
        return {p: {"open": p in self._tripped and now < self._tripped[p] + self.p.breaker_hold_s,
                    "opened_at_s": self._tripped.get(p), "isolated_in_window": sorted(self._window_units(p, now))}
                for p in pods}

    # ---- repeats and rate limits -------------------------------------------------------------------------
    @staticmethod
    def component_key(component: str | None) -> str:
        """Incidents on an HBM, die or NPU count against the NPU (the device the fault codes name)."""
        if component is None:
            return "?"
        return ids.npu_of(component) or component

    def note_incident(self, component: str | None, fault_class: str, now: float, incident: str | None = None
                      ) -> None:
        """Count an incident on the component. An ``incident`` already counted there (an earlier response of the
        same incident, e.g. the same-part response before a diagnosis named the class) is counted once, under
        its latest class."""
        entries = self._incidents.setdefault(self.component_key(component), [])
        for k, (t, _c, inc) in enumerate(entries):
            if incident is not None and inc == incident:
                entries[k] = (t, fault_class, inc)
                return
        entries.append((now, fault_class, incident))

    def count(self, component: str | None, now: float, fault_class: str | Collection[str] | None = None,
              within_s: float | None = None) -> int:
        """Incidents on the component (of ``fault_class``, or of any of those classes, if given) within
        ``within_s`` (default: the repeat window), including one noted at ``now``."""
        start = now - (within_s if within_s is not None else self.p.repeat_window_s)
        classes = {fault_class} if isinstance(fault_class, str) else fault_class
        return sum(1 for t, c, _i in self._incidents.get(self.component_key(component), [])
                   if t > start and (classes is None or c in classes))

    # ---- approvals ----------------------------------------------------------------------------------------
    def approval_delay(self, rng: np.random.Generator) -> float:
        """Seconds a human takes to approve (lognormal around ``approval_median_s``)."""
        return float(self.p.approval_median_s * math.exp(self.p.approval_sigma * rng.standard_normal()))
