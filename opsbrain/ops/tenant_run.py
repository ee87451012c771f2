"""Two tenants on one pod, a fault campaign on one of them: what recovery touched, per tenant.

Tenant ``a``: an inference service on nodes 0-21 (one prefill instance of 2 nodes, one decode instance of 20);
tenant ``b``: the same on nodes 22-43; nodes 44-47 are the shared spare pool. Each service reads its weights from
the EMS pool under its own namespace. Each campaign item injects a fault into ``a``'s slice and, after
``detect_s``, hands the recovery orchestrator a diagnosis of it -- the class of the injected kind on the component
the item names, which may be wrong (``diagnosed`` can name a component of ``b``: a localisation error across the
boundary). The incident is ``a``'s (``a``'s telemetry raised it). The report counts, per tenant, the actions that
ran on its components, its EMS namespace reads and its components taken out of service.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from faultlib import ids
from faultlib.ems import EmsPool
from faultlib.engine import Simulation
from faultlib.injection.spec import FaultSpec
from faultlib.workloads.elastic import ElasticInferenceService
from opsbrain.ops.setup import ops_params
from opsbrain.ops.tenants import Tenant, TenantGuard, TenantMap
from opsbrain.recovery.orchestrator import Orchestrator
from opsbrain.verdict import Diagnosis

TENANT_NODES = {"a": range(0, 22), "b": range(22, 44)}
SPARES = range(44, 48)
DETECT_S = 30.0
"""reason: the campaign hands recovery each incident 30 s after the fault's onset, the upper end of ByteRobust's
10-30 s detection (facts.md §5); the property does not depend on it."""
WATCH_ACTIONS = frozenset({"none", "notify", "wait", "page", "escalate", "guardrail", "approval"})
"""Log entries that do nothing to a component (watching, paging a person, the guard's own refusals)."""


@dataclass(frozen=True)
class CampaignItem:
    at_s: float
    kind: str  # a fault kind of the catalog (also the diagnosed class)
    target: str  # where the fault is injected (in tenant a's slice)
    diagnosed: str  # the component the diagnosis names (a's, or wrongly b's)


def build(seed: int, guarded: bool = True) -> tuple[Simulation, Orchestrator, TenantGuard, EmsPool]:
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
    return sim, orch, guard, ems


def run_campaign(items: list[CampaignItem], seed: int = 0, detect_s: float = DETECT_S, guarded: bool = True,
                 horizon_s: float = 3600.0) -> dict[str, Any]:
    """Run the campaign, then ``horizon_s`` past its last fault (room for the runbooks' repairs); returns per-tenant
    counts (see the module docstring)."""
    sim, orch, guard, ems = build(seed, guarded)
    before = {t: guard.map.out_of_service(t) for t in TENANT_NODES}
    b_nodes = set(guard.map.tenants["b"].nodes)

    def respond(k: int, item: CampaignItem) -> Any:
        yield sim.env.timeout(item.at_s + detect_s)
        iid = f"inc{k:03d}"
        guard.open(iid, "a")
        yield orch.handle(iid, Diagnosis(item.kind, item.diagnosed, 0.95, at_s=sim.now))

    for k, item in enumerate(items):
        sim.inject(FaultSpec(at_s=item.at_s, kind=item.kind, target=item.target))
        sim.env.process(respond(k, item))
    end = max([i.at_s for i in items], default=0.0) + horizon_s
    sim.run(end)
    acted: dict[str, list[tuple[str, str]]] = {"a": [], "b": [], "provider": [], "other": []}
    for rec in orch.records.values():
        for a in rec.actions:
            if a["action"] in WATCH_ACTIONS or a["status"] == "skipped" or a.get("kind") == "guardrail":
                continue
            for target in str(a["target"]).split(","):
                owner = guard.map.tenant_of(target) if target not in ("-", "") else None
                key = "b" if owner == "b" or target in b_nodes else (owner if owner in acted else "other")
                acted[key].append((a["action"], target))
    out_b = guard.map.out_of_service("b") - before["b"]
    return {"actions": {k: len(v) for k, v in acted.items()}, "actions_on_b": acted["b"],
            "ems_reads": {t: ems.reads_of(t) for t in TENANT_NODES},
            "blast_b": len(out_b), "out_of_service_a": len(guard.map.out_of_service("a")),
            "refusals": list(guard.refusals), "incidents": len(orch.records),
            "outcomes": {iid: r.outcome for iid, r in orch.records.items()}}
