"""Elastic prefill/decode autoscaler: size the pools to demand within an SLO and an NPU budget, rebalance after faults.

Every ``interval_s`` the policy reads what a serving scheduler sees -- the router's request rate
(``router_request_rate``), each instance's health probe (``instance_up``) and the placement -- and:

1. retires instances that are not up and not starting (crashed, or hung past a probe), and sets their nodes aside
   until the nodes look healthy again (the repair path is not the autoscaler's);
2. wants ``ceil(demand / (target_utilization x capacity of one instance at the SLO))`` instances per role, where
   the decode capacity is the roofline's tokens/s at the TPOT bound (538 tok/s/NPU at 15 ms on 160 NPUs) and the
   prefill capacity is its prompt tokens/s; clamps to ``[min_instances, NPU budget]``;
3. starts missing instances on free nodes that may take work (:func:`opsbrain.ops.setup.serviceable`: not
   cordoned, failed, rebooting, nor with a chip down) of one pod (the pod with most free nodes), weights from the EMS
   pool; retires surplus instances only after the demand stayed below for ``scale_down_hold_s``.

A scale-up it cannot make (the NPU budget, or no pod with enough free serviceable nodes) is a refusal: one entry of
:attr:`Autoscaler.refusals` per run of consecutive decisions refused for the same role and reason (when it began and
last held, how many decisions, the reason in figures), so the journal and the report say why the pool stayed short
(session 37: refusals were kept only as scale events, counted but never shown).

Actions go through the service's control actions (:meth:`ElasticInferenceService.add_instance` /
``retire_instance``); their durations are the twin's sourced distributions. The policy never reads the fault list.
"""

from __future__ import annotations

import math
from collections.abc import Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from faultlib import ids
from faultlib.params import P, ParamGroup
from faultlib.workloads.elastic import ElasticInferenceService, Role
from opsbrain.ops.setup import serviceable

if TYPE_CHECKING:
    from faultlib.engine import Simulation


class AutoscalerParams(ParamGroup):
    """Autoscaler policy settings (configured values of the policy, not plant physics)."""

    interval_s: float = P(15.0, "s", "reason: one control decision per router metric scrape (15 s Prometheus "
                          "default scrape interval)", gt=0)
    decode_target_utilization: float = P(
        0.75, "fraction", "reason: headroom for a 25% burst (demand.burst_factor) and for losing one instance of "
        "four while its replacement loads (~4-6 min); a configured target, not fitted", gt=0, le=1)
    prefill_target_utilization: float = P(
        0.7, "fraction", "reason: TTFT stays < 2 s below ~82% prefill load (M/D/1 wait on a 0.6 s batch); 0.7 "
        "leaves burst headroom", gt=0, le=1)
    scale_down_hold_s: float = P(
        1800.0, "s", "reason: hold a surplus instance 30 min before retiring it, so bursts and the diurnal ramp do "
        "not make the pool flap (each start costs minutes of weight loading)", ge=0)
    min_instances: int = P(1, "instances", "reason: keep one instance per role warm (cold start takes minutes)",
                           ge=1)
    lost_after_s: float = P(
        30.0, "s", "reason: an instance whose health probe fails for 30 s (two scrapes) is retired and replaced "
        "(matches HCCL's 30 s heartbeat loss, facts.md §8)", ge=0)


@dataclass
class ScaleEvent:
    t: float
    action: str
    instance: str
    detail: dict[str, Any] = field(default_factory=dict)


class Autoscaler:
    """The policy, run as a simpy process over one :class:`ElasticInferenceService`."""

    def __init__(self, sim: Simulation, service: ElasticInferenceService, budget_npus: int, nodes: list[str],
                 params: AutoscalerParams | None = None, decode_nodes: int | None = None,
                 prefill_nodes: int | None = None) -> None:
        self.sim, self.svc, self.p = sim, service, params or AutoscalerParams()
        self.budget = budget_npus
        self.pool = list(nodes)  # nodes the autoscaler may place on (the service's current nodes included)
        self.decode_nodes = decode_nodes or service.p.decode_nodes
        self.prefill_nodes = prefill_nodes or service.p.prefill_nodes_per_instance
        self.events: list[ScaleEvent] = []
        self.refusals: list[dict[str, Any]] = []  # runs of refused scale-ups (see the module docstring)
        self._refusing: dict[str, dict[str, Any]] = {}  # role -> its refusal run still going on at the last decision
        self._refused: set[str] = set()  # roles refused in the decision under way
        self._starting: set[str] = set()
        self._down_since: dict[str, float] = {}
        self._aside: set[str] = set()  # nodes of lost instances, until they look healthy
        self._surplus_since: dict[str, float] = {}
        npn = sim.topology.params.npus_per_node
        cap = service.capacity_per_npu()
        self.decode_cap_tok_s = cap["decode_tokens_per_s_per_npu_tight"] * self.decode_nodes * npn
        self.prefill_cap_tok_s = cap["prefill_tokens_per_s_per_npu"] * self.prefill_nodes * npn

    # ---- what the scheduler sees ----------------------------------------------------------------------
    def demand_req_s(self) -> float:
        return float(self.sim.telemetry.read("router_request_rate", self.svc.name, default=self.svc.demand_req_s)
                     or 0.0)

    def _up(self, qual: str) -> bool:
        return bool(self.sim.telemetry.read("instance_up", qual, default=0.0))

    def _node_ok(self, node: str) -> bool:
        return serviceable(self.sim, node)

    def free_nodes(self) -> list[str]:
        used = set(self.svc.nodes) | {n for w in self.sim.workloads.values() if w is not self.svc for n in w.nodes}
        return [n for n in self.pool if n not in used and n not in self._aside and self._node_ok(n)]

    def wanted(self, req_s: float) -> dict[Role, int]:
        p, sp = self.p, self.svc.p
        dec = math.ceil(req_s * sp.output_tokens / (p.decode_target_utilization * self.decode_cap_tok_s) - 1e-9)
        pre = math.ceil(req_s * sp.prompt_tokens / (p.prefill_target_utilization * self.prefill_cap_tok_s) - 1e-9)
        return {"decode": max(p.min_instances, dec), "prefill": max(p.min_instances, pre)}

    # ---- the loop -------------------------------------------------------------------------------------
    def run(self) -> Generator[Any, Any, None]:
        while True:
            self.step()
            yield self.sim.env.timeout(self.p.interval_s)

    def step(self) -> None:
        now = self.sim.now
        self._aside = {n for n in self._aside if not self._node_ok(n)}
        insts = self.svc.instances()
        for qual, info in insts.items():
            if qual in self._starting or self._up(qual):
                self._down_since.pop(qual, None)
                continue
            since = self._down_since.setdefault(qual, now)
            if now - since >= self.p.lost_after_s and len([i for i in insts.values()
                                                           if i["role"] == info["role"]]) > 1:
                self._retire(qual, "lost", aside=True)
        insts = self.svc.instances()
        want = self.wanted(self.demand_req_s())
        self._refused.clear()
        for role in ("decode", "prefill"):
            mine = [q for q, i in insts.items() if i["role"] == role]
            have = len(mine)
            if have < want[role]:
                self._surplus_since.pop(role, None)
                for _ in range(want[role] - have):
                    if not self._start(role):
                        break
            elif have > want[role]:
                since = self._surplus_since.setdefault(role, now)
                if now - since >= self.p.scale_down_hold_s:
                    idle = [q for q in mine if q not in self._starting] or mine
                    self._retire(idle[-1], "scale_down")
                    self._surplus_since[role] = now
            else:
                self._surplus_since.pop(role, None)
        for role in [r for r in self._refusing if r not in self._refused]:  # a decision not refused ends the
            del self._refusing[role]  # role's run of refusals

    def _retire(self, qual: str, why: str, aside: bool = False) -> None:
        try:
            freed = self.svc.retire_instance(qual)
        except ValueError:
            return
        self._starting.discard(qual)
        self._down_since.pop(qual, None)
        if aside:
            self._aside.update(freed)
        self.events.append(ScaleEvent(self.sim.now, "retire", qual, {"reason": why, "nodes": len(freed)}))

    def _refuse(self, role: Role, reason: str, **detail: Any) -> bool:
        """Record a scale-up of ``role`` refused for ``reason`` (a run of them: see the module docstring)."""
        now = self.sim.now
        self._refused.add(role)
        self.events.append(ScaleEvent(now, "refused", role, {"reason": reason, **detail}))
        run = self._refusing.get(role)
        if run is None or run["reason"] != reason:
            run = {"role": role, "reason": reason, "first_s": now, "last_s": now, "times": 0, **detail}
            self._refusing[role] = run
            self.refusals.append(run)
        run.update(detail, last_s=now, times=run["times"] + 1)
        return False

    def _start(self, role: Role) -> bool:
        size = self.decode_nodes if role == "decode" else self.prefill_nodes
        npn = self.sim.topology.params.npus_per_node
        held = self.svc.allocated_npus()
        if held + size * npn > self.budget:
            return self._refuse(role, "NPU budget", detail=f"{held} NPUs allocated + {size * npn} for one more "
                                f"{role} instance > the budget of {self.budget}")
        by_pod: dict[str, list[str]] = {}
        for n in self.free_nodes():
            by_pod.setdefault(ids.pod_of(n) or "", []).append(n)
        fits = [ns for ns in by_pod.values() if len(ns) >= size]
        if not fits:
            most = max((len(ns) for ns in by_pod.values()), default=0)
            unfit = sum(1 for n in self.pool if not self._node_ok(n))
            return self._refuse(role, "no serviceable node", detail=f"a {role} instance needs {size} free serviceable "
                                f"nodes in one pod; the most free in a pod: {most} ({unfit} of the autoscaler's "
                                f"{len(self.pool)} nodes not serviceable, {len(self._aside)} set aside)")
        nodes = max(fits, key=len)[:size]
        qual, proc = self.svc.add_instance(role, nodes)
        self._starting.add(qual)
        self.events.append(ScaleEvent(self.sim.now, "start", qual, {"nodes": list(nodes)}))

        def done() -> Generator[Any, Any, None]:
            out = yield proc
            self._starting.discard(qual)
            self.events.append(ScaleEvent(self.sim.now, "started" if out.get("ok") else "start_failed", qual,
                                          {"duration_s": out.get("duration_s")}))

        self.sim.env.process(done())
        return True
