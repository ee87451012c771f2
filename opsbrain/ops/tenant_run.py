"""Two tenants on one pod, a fault campaign on one of them: what recovery touched, per tenant.

Tenant ``a``: an inference service on nodes 0-21 (one prefill instance of 2 nodes, one decode instance of 20);
tenant ``b``: the same on nodes 22-43; nodes 44-47 are the shared spare pool. Each service reads its weights from
the EMS pool under its own namespace. Each campaign item injects a fault into ``a``'s slice; the controller runs the
real path -- the twin's telemetry -> signals -> detector -> diagnosis engine -> recovery orchestrator -- and the
incident belongs to the tenant whose telemetry raised it (:meth:`TenantGuard.telemetry_tenant`).

A localisation error across the boundary is an explicit test device: an item whose ``diagnosed`` names another node
than its target moves the engine's own verdict on the target's node to the same part of that node
(:class:`CrossTenantError`); class, confidence and evidence stay the engine's. The report counts, per tenant, the
actions that ran on its components, its EMS namespace reads, its components taken out of service, its incidents
and the SLO attainment of its service.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from faultlib import ids
from faultlib.ems import EmsPool
from faultlib.engine import Simulation
from faultlib.injection.spec import FaultSpec
from faultlib.workloads.elastic import ElasticInferenceService
from opsbrain.controller import Controller, Diagnoser
from opsbrain.detection import Incident, LinkHistory
from opsbrain.ops.setup import ops_params
from opsbrain.ops.tenants import Tenant, TenantGuard, TenantMap
from opsbrain.recovery.orchestrator import Orchestrator
from opsbrain.runner.censor import detection
from opsbrain.verdict import Diagnosis, took_action

TENANT_NODES = {"a": range(0, 22), "b": range(22, 44)}
SPARES = range(44, 48)
@dataclass(frozen=True)
class CampaignItem:
    at_s: float
    kind: str  # a fault kind of the catalog
    target: str  # where the fault is injected (in tenant a's slice)
    diagnosed: str  # the target, or the same part on another node: a localisation error on the engine's verdict


@lru_cache(maxsize=2)
def _engine(home: str | None) -> Any:
    from opsbrain.kb.training import load_engine

    return load_engine(Path(home) if home else None)


class CrossTenantError:
    """The diagnosis engine, with its verdicts on the nodes of ``moves`` moved to the same part of another node: a
    localisation error across the tenant boundary, applied to the engine's output. ``moves``: per node of a, the
    campaign's items on it in time order, ``(at_s, the node its diagnosis names)``; a verdict follows the latest item
    injected by then (session 36: one node per key, so of two items on one node the later one's move applied to both,
    and a right diagnosis of the first was refused as b's)."""

    def __init__(self, engine: Diagnoser, moves: dict[str, list[tuple[float, str]]]) -> None:
        self.engine, self.moves = engine, moves

    def diagnose(self, incident: Incident, now: float, history: LinkHistory,
                 metric: Callable[[str, str], float | None]) -> Diagnosis:
        d = self.engine.diagnose(incident, now, history, metric)
        node = ids.node_of(d.component) if d.component else None
        item = max([m for m in self.moves.get(node or "", []) if m[0] <= now], default=None)
        if item is not None and item[1] != node:
            assert d.component is not None and node is not None
            d = replace(d, component=item[1] + d.component[len(node):])
        return d


def _moves(items: list[CampaignItem]) -> dict[str, list[tuple[float, str]]]:
    """Per target node, ``(at_s, diagnosed node)`` of its items in time order; {} when no item names another node."""
    out: dict[str, list[tuple[float, str]]] = {}
    for i in sorted(items, key=lambda x: x.at_s):
        out.setdefault(ids.node_of(i.target) or i.target, []).append((i.at_s, ids.node_of(i.diagnosed) or ""))
    return out if any(d != n for n, ms in out.items() for _t, d in ms) else {}


def build(seed: int, guarded: bool = True, engine: Diagnoser | None = None, home: str | None = None
          ) -> tuple[Simulation, Orchestrator, TenantGuard, EmsPool, Controller]:
    """The two-tenant pod with the controller wired in (``engine``: default the trained/shipped model)."""
    sim = Simulation(ops_params(tight_slo=False), seed=seed, pods=1)
    ems = EmsPool()
    tenants = {}
    for name, rng in TENANT_NODES.items():
        nodes = [ids.node(0, i) for i in rng]
        svc = ElasticInferenceService(f"serve-{name}", [nodes[:2]], nodes[2:], sim.params.inference)
        svc.ems, svc.namespace = ems, name
        sim.add_workload(svc)
        ems.put(name, f"weights/{svc.name}", svc.p.total_params_b * 1e9 * svc.p.bytes_per_param)
        tenants[name] = Tenant(name, frozenset(nodes))
    spares = [ids.node(0, i) for i in SPARES]
    sim.control.set_spares(spares)
    tmap = TenantMap(sim, tenants, spare_pool=list(spares))
    guard = TenantGuard(tmap)
    orch = Orchestrator(sim, policy="auto")
    if guarded:
        orch.scope = guard
    ctl = Controller(sim, engine if engine is not None else _engine(home), orch)

    def origin(key: str) -> set[str]:
        for inc in ctl.incidents:
            if key in ctl.handled.get(inc.id, []):
                return inc.nodes | inc.components
        return set()

    guard.origin = origin
    return sim, orch, guard, ems, ctl


def run_campaign(items: list[CampaignItem], seed: int = 0, guarded: bool = True, horizon_s: float = 3600.0,
                 engine: Diagnoser | None = None, home: str | None = None) -> dict[str, Any]:
    """Run the campaign, then ``horizon_s`` past its last fault (room for the runbooks' repairs); returns per-tenant
    counts and the incident log (see the module docstring)."""
    moves = _moves(items)
    base = engine if engine is not None else _engine(home)
    sim, orch, guard, ems, ctl = build(seed, guarded, CrossTenantError(base, moves) if moves else base, home)
    before = {t: guard.map.out_of_service(t) for t in TENANT_NODES}
    b_nodes = set(guard.map.tenants["b"].nodes)
    truths = [sim.inject(FaultSpec(at_s=item.at_s, kind=item.kind, target=item.target)) for item in items]
    end = max([i.at_s for i in items], default=0.0) + horizon_s
    sim.run(end)
    acted: dict[str, list[tuple[str, str]]] = {"a": [], "b": [], "provider": [], "other": []}
    log: list[dict[str, Any]] = []
    for key, rec in orch.records.items():
        done = []
        for a in rec.actions:
            if not took_action(a):  # watching, paging, waiting, a refused or skipped step: nothing done to a part
                continue
            done.append(a)
            for target in str(a["target"]).split(","):
                owner = guard.map.tenant_of(target) if target not in ("-", "") else None
                k = "b" if owner == "b" or target in b_nodes else (owner if owner in acted else "other")
                acted[k].append((a["action"], target))
        log.append({"id": key, "tenant": guard.incidents.get(key), "started_at_s": rec.started_at_s,
                    "diagnosis": rec.diagnosis, "outcome": rec.outcome, "actions": rec.actions_view(sim.now),
                    "acted": len(done), "refused": [r for r in guard.refusals if r["incident"] == key]})
    out_b = guard.map.out_of_service("b") - before["b"]
    svc = {t: sim.workloads[f"serve-{t}"] for t in TENANT_NODES}
    return {"actions": {k: len(v) for k, v in acted.items()}, "actions_on_b": acted["b"],
            "ems_reads": {t: ems.reads_of(t) for t in TENANT_NODES},
            "blast_b": len(out_b), "out_of_service": {t: sorted(guard.map.out_of_service(t)) for t in TENANT_NODES},
            "out_of_service_a": len(guard.map.out_of_service("a")),
            "refusals": list(guard.refusals), "incidents": len(orch.records),
            "detected": len(ctl.incidents), "outcomes": {iid: r.outcome for iid, r in orch.records.items()},
            "incident_log": log, "faults": [{"kind": i.kind, "component": i.target, "at_s": i.at_s,
                                             "diagnosed_as": i.diagnosed, "if_undetected": detection(
                sim, f, None, end, ctl.detector.p.reorder_s, None)} for i, f in zip(items, truths, strict=True)],
            "slo_attainment": {t: s.slo_attainment() for t, s in svc.items()}}  # type: ignore[attr-defined]
