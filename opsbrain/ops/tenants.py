"""Tenant slices of a superpod: who owns which component, the scope guard of recovery, spares, views.

* :class:`TenantMap` -- each tenant owns whole nodes (and with them their NPUs, dies, HBM, L1 UB switch chips, RoCE
  ports and L1-L2 links: the node's UB partition) and the workloads placed only on them. L2 switch chips and the pod
  fabric are shared: they belong to the provider (:data:`PROVIDER`), no tenant.
* :class:`TenantGuard` -- plugged into :class:`opsbrain.recovery.orchestrator.Orchestrator` (``orch.scope``): an
  incident belongs to the tenant whose telemetry opened it; every step target must belong to that tenant, else
  the step is refused (held, paged). Isolations are also bounded per tenant (blast radius: at most
  ``max_isolated_node_share`` / ``max_isolated_npu_share`` of the tenant's own slice; a part already dead is not
  capped: session 38). Spares are shared by the rule
  of :meth:`TenantMap.spare_quota`: a tenant may hold at most ``ceil(pool x its NPU share)`` spares at a time; a
  spare it takes joins its slice.
* :class:`TenantStoreView` -- the run store seen by one tenant: its runs, and in each journal only the incidents
  on its components.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from faultlib import ids
from faultlib.health import Health
from opsbrain.recovery.guardrails import already_out
from opsbrain.recovery.params import RecoveryParams

if TYPE_CHECKING:
    from faultlib.control import ActionResult
    from faultlib.engine import Simulation
    from opsbrain.store import RunStore
    from opsbrain.verdict import Diagnosis

PROVIDER = "provider"
ISOLATING = frozenset({"isolate", "isolate_link", "cordon"})
_OUT = (Health.ISOLATED, Health.CORDONED)


@dataclass(frozen=True)
class Tenant:
    name: str
    nodes: frozenset[str]


@dataclass
class TenantMap:
    """Ownership of the plant by tenant; spares are a shared pool with per-tenant quotas."""

    sim: Simulation
    tenants: dict[str, Tenant]
    spare_pool: list[str] = field(default_factory=list)
    held_spares: dict[str, list[str]] = field(default_factory=dict)  # spares a tenant took (now in its slice)

    def __post_init__(self) -> None:
        seen: dict[str, str] = {}
        for t in self.tenants.values():
            for n in t.nodes:
                if n in seen:
                    raise ValueError(f"node {n} is in tenants {seen[n]} and {t.name}")
                seen[n] = t.name
        self._node_tenant = seen
        self._slice = {t.name: len(t.nodes) for t in self.tenants.values()}  # the slices as set up

    def tenant_of(self, component: str) -> str | None:
        """The tenant owning ``component`` (a part of a node, a link by its L1 end, a workload or instance),
        :data:`PROVIDER` for the shared fabric, None for an unknown name."""
        sim = self.sim
        if component in self.tenants:
            return component
        head = component.split("/", 1)[0]
        if head in sim.workloads:  # a workload or one of its instances: the tenant owning all its nodes
            owners = {self._node_tenant.get(n, PROVIDER) for n in sim.workloads[head].nodes}
            return owners.pop() if len(owners) == 1 else PROVIDER
        link = sim.topology.links.get(component)
        node = link.node if link is not None else ids.node_of(component)
        if node is not None:
            return self._node_tenant.get(node, PROVIDER)
        return PROVIDER if sim.topology.exists(component) else None

    def components_of(self, tenant: str) -> set[str]:
        """Every node-level component of the tenant's slice (nodes and their descendants)."""
        topo = self.sim.topology
        out: set[str] = set()
        for n in self.tenants[tenant].nodes:
            out.add(n)
            out.update(topo.descendants(n))
        return out

    def npu_share(self, tenant: str) -> float:
        """The tenant's share of the tenants' NPUs as the slices were set up (spares taken later do not count)."""
        total = sum(self._slice.values())
        return self._slice[tenant] / total if total else 0.0

    def spare_quota(self, tenant: str) -> int:
        """The stated rule: at most ``ceil(pool size x the tenant's NPU share)`` spares held at once."""
        pool = len(self.spare_pool) + sum(len(v) for v in self.held_spares.values())
        return math.ceil(pool * self.npu_share(tenant) - 1e-9)

    def give_spare(self, tenant: str, spare: str) -> None:
        """A spare taken by ``tenant`` joins its slice."""
        if spare in self.spare_pool:
            self.spare_pool.remove(spare)
        self.held_spares.setdefault(tenant, []).append(spare)
        t = self.tenants[tenant]
        self.tenants[tenant] = Tenant(t.name, t.nodes | {spare})
        self._node_tenant[spare] = tenant

    def out_of_service(self, tenant: str) -> set[str]:
        """The tenant's components isolated or cordoned now (its blast-radius count)."""
        mine = self.components_of(tenant)
        links = {lid for lid, lk in self.sim.topology.links.items() if lk.node in self.tenants[tenant].nodes}
        return {c for c, h in self.sim.state.unhealthy().items() if h in _OUT and (c in mine or c in links)}


class TenantGuard:
    """The orchestrator's scope guard (``Orchestrator.scope``); see the module docstring."""

    def __init__(self, tenants: TenantMap, params: RecoveryParams | None = None) -> None:
        self.map = tenants
        self.p = params or RecoveryParams()
        self.incidents: dict[str, str] = {}  # incident id -> tenant
        self.refusals: list[dict[str, Any]] = []
        self.acted: list[tuple[str, str, str]] = []  # (tenant of the incident, action, target) that ran
        self.origin: Callable[[str], Iterable[str]] | None = None
        """Where the telemetry that raised an incident came from (its signals' nodes and components), by responder
        key; set by the controller wiring (:func:`opsbrain.ops.tenant_run.build`)."""

    def open(self, incident_id: str, tenant: str) -> None:
        """The incident was raised by ``tenant``'s telemetry (its detector's scope)."""
        self.incidents[incident_id] = tenant

    def telemetry_tenant(self, components: Iterable[str]) -> str:
        """The tenant whose telemetry names ``components``: the one tenant owning all of them that a tenant owns;
        :data:`PROVIDER` when they span tenants or only the shared fabric (every step on a tenant's part is then
        refused: no tenant's incident may act on another's)."""
        owners = {o for c in components if (o := self.map.tenant_of(c)) is not None and o != PROVIDER}
        return owners.pop() if len(owners) == 1 else PROVIDER

    def incident_tenant(self, incident_id: str, diagnosis: Diagnosis) -> str | None:
        if incident_id not in self.incidents and self.origin is not None:
            comps = list(self.origin(incident_id))
            if comps:
                self.incidents[incident_id] = self.telemetry_tenant(comps)
        if incident_id not in self.incidents and diagnosis.component:
            self.incidents[incident_id] = self.map.tenant_of(diagnosis.component) or PROVIDER
        return self.incidents.get(incident_id)

    def refuse(self, incident_id: str, action: str, targets: list[str]) -> str | None:
        """Why the incident's step may not act on ``targets`` (None = allowed)."""
        tenant = self.incidents.get(incident_id)
        if tenant is None:
            return None
        for t in targets:
            if t in ("-", ""):
                continue
            owner = self.map.tenant_of(t)
            if owner != tenant:
                return self._no(incident_id, action, t, f"tenant scope: {t} belongs to {owner or 'nobody'}, the "
                                f"incident to {tenant}")
            if action in ISOLATING:
                why = self._blast(tenant, t)
                if why:
                    return self._no(incident_id, action, t, why)
            if action == "swap_spare":
                held = len(self.map.held_spares.get(tenant, []))
                if held >= self.map.spare_quota(tenant):
                    return self._no(incident_id, action, t, f"spare quota: {tenant} holds {held} of its "
                                    f"{self.map.spare_quota(tenant)} spares")
        return None

    def _blast(self, tenant: str, target: str) -> str | None:
        if already_out(self.map.sim, target):
            return None  # a dead chip or stopped host: its isolation takes nothing away (session 38)
        nodes = self.map.tenants[tenant].nodes
        out = self.map.out_of_service(tenant)
        out_nodes = {c for c in out if c in nodes}
        node = ids.node_of(target)
        if self.map.sim.topology.kind.get(target) == "node" and target not in out_nodes:
            share = (len(out_nodes) + 1) / len(nodes)
            if share > self.p.max_isolated_node_share:
                return (f"tenant blast radius: isolating {target} would take {len(out_nodes) + 1} of {len(nodes)} "
                        f"nodes of {tenant} out of service (> {self.p.max_isolated_node_share:.1%})")
        elif node is not None and self.map.sim.topology.kind.get(target) in ("npu", "die", "hbm"):
            npus = {ids.npu_of(c) for c in out if ids.npu_of(c)} | {ids.npu_of(target)}
            total = len(nodes) * self.map.sim.topology.params.npus_per_node
            if len(npus) / total > self.p.max_isolated_npu_share:
                return (f"tenant blast radius: {len(npus)} of {total} NPUs of {tenant} out of service "
                        f"(> {self.p.max_isolated_npu_share:.1%})")
        return None

    def _no(self, incident_id: str, action: str, target: str, reason: str) -> str:
        self.refusals.append({"incident": incident_id, "action": action, "target": target, "reason": reason})
        return reason

    def note(self, incident_id: str, action: str, target: str, res: ActionResult) -> None:
        """After a successful action: remember it; a spare taken joins the incident's tenant."""
        tenant = self.incidents.get(incident_id, PROVIDER)
        self.acted.append((tenant, action, target))
        spare = res.detail.get("spare") if isinstance(res.detail, dict) else None
        if action == "swap_spare" and spare and tenant in self.map.tenants:
            self.map.give_spare(tenant, spare)


class TenantStoreView:
    """The run store as one tenant sees it: runs tagged with the tenant, incidents on its components only."""

    def __init__(self, store: RunStore, tenant: str, owns: Any) -> None:
        self.store, self.tenant, self.owns = store, tenant, owns  # owns(component) -> bool

    def list_runs(self, limit: int = 50) -> list[dict[str, Any]]:
        out = []
        for r in self.store.list_runs(limit * 4):
            j = self.store.get_journal(r["id"]) or {}
            if self.tenant in (j.get("tenants") or []):
                out.append(r)
        return out[:limit]

    def get_journal(self, run_id: str) -> dict[str, Any] | None:
        j = self.store.get_journal(run_id)
        if j is None or self.tenant not in (j.get("tenants") or []):
            return None
        mine = [i for i in j.get("incidents", []) if self._mine(i)]
        return {**j, "incidents": mine, "tenant_view": self.tenant}

    def _mine(self, incident: dict[str, Any]) -> bool:
        if incident.get("tenant"):  # the tenant whose telemetry raised it (a superpod journal says so)
            return bool(incident["tenant"] == self.tenant)
        comp = ((incident.get("diagnosis") or {}).get("component") or
                (incident.get("injected") or {}).get("component"))
        return bool(comp) and bool(self.owns(comp))
