"""Resolve runbook target expressions from the diagnosis and the placement an operator knows.

The context reads the topology, the plant's visible health (what device plugins and switch agents report) and
the workloads' placement (``sim.workloads``: names, nodes, kind, ``instance_of``). It never reads the injected
ground truth (``sim.faults``) nor the trace.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from faultlib import ids
from faultlib.health import Health

if TYPE_CHECKING:
    from faultlib.engine import Simulation


class TargetError(ValueError):
    """A target expression cannot be resolved for this diagnosis (e.g. ``nodes_of_link`` of an HBM)."""


@dataclass
class Context:
    """What one incident's steps act on. Workloads are fixed when the incident starts (placement may change
    as the runbook moves them onto spares)."""

    sim: Simulation
    component: str | None
    spare: str | None = None
    vars: dict[str, Any] = field(default_factory=dict)
    workloads: list[tuple[str, str | None]] = field(default_factory=list)
    link_downs: Callable[[str], int] | None = None
    """How often a link went down in the last 24 h, as the operator's link records say (None: not known)."""
    acted: bool = False
    """An earlier step of this response acted on the plant (book-keeping such as a ticket or a page aside)."""
    skipped: list[str] = field(default_factory=list)
    """The steps of this response skipped so far, each with its reason (what the ``acted`` condition reports)."""

    def __post_init__(self) -> None:
        self.workloads = self._affected_workloads()

    # ---- basic lookups --------------------------------------------------------------------------------------
    @property
    def kind(self) -> str | None:
        c = self.component
        if c is None:
            return None
        return "link" if c in self.sim.topology.links else self.sim.topology.kind.get(c)

    def _need(self) -> str:
        if self.component is None:
            raise TargetError("the diagnosis names no component")
        if not self.sim.topology.exists(self.component):
            raise TargetError(f"no component {self.component!r} in the topology")
        return self.component

    def node(self) -> str:
        c = self._need()
        if c in self.sim.topology.links:
            lk = self.sim.topology.links[c]
            if lk.node is not None:
                return lk.node
        n = ids.node_of(c)
        if n is None:
            raise TargetError(f"{c!r} is not inside a node")
        return n

    def pod(self) -> str:
        p = ids.pod_of(self._need())
        if p is None:
            raise TargetError(f"{self.component!r} is not inside a pod")
        return p

    def npu(self) -> str:
        n = ids.npu_of(self._need())
        if n is None:
            raise TargetError(f"{self.component!r} is not an NPU or part of one")
        return n

    def isolated_rows(self) -> int:
        """HBM rows isolated on the component's NPU: what its ``hbm_isolated_rows`` reading says, or the rows this
        side isolated if more (raises :class:`TargetError` when the component is no NPU or part of one)."""
        hbm = f"{self.npu()}/hbm"
        seen = self.sim.telemetry.scrape("hbm_isolated_rows", hbm, default=0.0) or 0.0
        return max(self.sim.control.isolated_rows.get(hbm, 0), int(seen))

    def affected_nodes(self) -> list[str]:
        """Nodes whose traffic or processes the component touches: every node of the pod for an L2 chip (each
        node has one uplink to it), else the component's own node."""
        if self.kind == "l2":
            pod = self.pod()
            return [n for n in self.sim.topology.nodes() if ids.pod_of(n) == pod]
        return [self.node()]

    def _affected_workloads(self) -> list[tuple[str, str | None]]:
        try:
            nodes = set(self.affected_nodes())
        except TargetError:
            return []
        out: list[tuple[str, str | None]] = []
        for name, w in self.sim.workloads.items():
            hit = [n for n in w.nodes if n in nodes]
            if not hit:
                continue
            if w.kind == "inference":
                insts = sorted({q for n in hit if (q := w.instance_of(n)) is not None})  # type: ignore[attr-defined]
                out.extend((name, q) for q in insts)
            else:
                out.append((name, None))
        return out

    # ---- expressions ----------------------------------------------------------------------------------------
    def resolve(self, expr: str) -> list[str]:
        """The ids an expression names (one for single targets; workloads as ``name`` or ``name/instance``)."""
        if expr in ("diagnosis.component", "component"):
            return [self._need()]
        if expr == "node_of(component)":
            return [self.node()]
        if expr == "npu_of(component)":
            return [self.npu()]
        if expr == "hbm_of(component)":
            return [f"{self.npu()}/hbm"]
        if expr == "pod_of(component)":
            return [self.pod()]
        if expr == "nodes_of_link":
            c = self._need()
            if c not in self.sim.topology.links and self.kind != "l1":
                raise TargetError(f"{c!r} is not a link or an L1 chip")
            return [self.node()]
        if expr == "affected_nodes":
            return self.affected_nodes()
        if expr == "affected_workloads":
            return [q or name for name, q in self.workloads]
        if expr == "spare":
            if self.spare is None:
                raise TargetError("no spare node was taken (swap_spare must run first)")
            return [self.spare]
        raise TargetError(f"unknown target expression {expr!r}")

    def resolve_one(self, expr: str) -> str:
        got = self.resolve(expr)
        if len(got) != 1:
            raise TargetError(f"{expr!r} names {len(got)} targets, one expected")
        return got[0]

    # ---- conditions -----------------------------------------------------------------------------------------
    def node_healthy(self, node: str) -> bool:
        st = self.sim.state
        if not st.is_up(node):
            return False
        topo = self.sim.topology
        return all(st.is_up(c) for c in topo.descendants(node) if topo.kind.get(c) in ("npu", "die", "hbm", "l1"))

    def workload_runs(self, name: str, instance: str | None = None) -> bool:
        """Whether a workload does work now: a training job running (or writing a checkpoint), an inference
        instance up (what a scheduler and the serving dashboard show)."""
        w = self.sim.workloads[name]
        if w.kind == "training":
            return getattr(w, "state", "") in ("running", "checkpointing")
        return instance is not None and bool(w.instances()[instance]["up"])  # type: ignore[attr-defined]

    def spares_in_pod(self) -> list[str]:
        try:
            pod = self.pod()
        except TargetError:
            pod = None
        return [n for n in self.sim.control.spares
                if (pod is None or ids.pod_of(n) == pod) and self.sim.state.health(n) == Health.HEALTHY]


COMPUTE_KINDS = frozenset({"npu", "die", "hbm"})
"""Devices whose loss kills a training rank on the node (a synchronous job cannot run with them)."""


def out_of_service(sim: Simulation, node: str) -> bool:
    """Whether a node's host or one of its compute devices is out of service as the plant shows it."""
    return not sim.state.is_up(node) or devices_out(sim, node)


def devices_out(sim: Simulation, node: str) -> bool:
    """Whether a compute device of the node (NPU, die, HBM) is out of service (failed, resetting, isolated) as the
    plant shows it: its device plugin reports the chip unhealthy, so the scheduler places no rank there (session 39:
    the node's ``huawei.com/Ascend910-Unhealthy`` chip list that Volcano reads, docs/en/scheduling/api/
    ascend_device_plugin.md and volcano.md in github.com/Ascend/mind-cluster)."""
    st, topo = sim.state, sim.topology
    for npu in topo.npus_of(node):
        if not st.is_up(npu) or any(not st.is_up(d) for d in topo.parts_of(npu, COMPUTE_KINDS)):
            return True
    return False


def pod_pool(sim: Simulation, node: str) -> int:
    """Nodes in the warm-spare pool of ``node``'s pod (the spares a response in that pod can take)."""
    pod = ids.pod_of(node)
    return sum(1 for n in sim.control.spares if ids.pod_of(n) == pod)


def conditions_hold(cond: Any, ctx: Context) -> tuple[bool, str]:
    """Whether every condition of a :class:`~opsbrain.recovery.schema.Conditions` holds, and why not."""
    if cond is None:
        return True, ""
    if cond.has_component is not None and (ctx.component is not None) != cond.has_component:
        return False, "the diagnosis names no component" if cond.has_component else "a component is named"
    if cond.affects_workload is not None and bool(ctx.workloads) != cond.affects_workload:
        return False, "affects_workload is " + str(bool(ctx.workloads)).lower()
    if cond.workload_kind is not None:
        kinds = {ctx.sim.workloads[name].kind for name, _q in ctx.workloads}
        if cond.workload_kind not in kinds:
            return False, f"no affected {cond.workload_kind} workload"
    if cond.component_kind is not None and ctx.kind not in cond.component_kind:
        return False, f"component is a {ctx.kind}"
    if cond.spares_available is not None and bool(ctx.spares_in_pod()) != cond.spares_available:
        return False, "spares_available is " + str(bool(ctx.spares_in_pod())).lower()
    if cond.spare_taken is not None and (ctx.spare is not None) != cond.spare_taken:
        return False, "spare_taken is " + str(ctx.spare is not None).lower()
    if cond.node_healthy is not None:
        try:
            ok = ctx.node_healthy(ctx.node())
        except TargetError as exc:
            return False, str(exc)
        if ok != cond.node_healthy:
            return False, "node_healthy is " + str(ok).lower()
    if cond.isolated_rows_at_least is not None:
        try:
            rows = ctx.isolated_rows()
        except TargetError as exc:
            return False, str(exc)
        if rows < cond.isolated_rows_at_least:
            return False, f"{rows} HBM rows isolated (< {cond.isolated_rows_at_least})"
    if cond.link_downs_at_least is not None or cond.link_downs_below is not None:
        link = ctx.component
        if link is None or link not in ctx.sim.topology.links:
            return False, "the diagnosis names no link"
        n = ctx.link_downs(link) if ctx.link_downs is not None else 0
        if cond.link_downs_at_least is not None and n < cond.link_downs_at_least:
            return False, f"the link went down {n} times in 24 h (< {cond.link_downs_at_least})"
        if cond.link_downs_below is not None and n >= cond.link_downs_below:
            return False, f"the link went down {n} times in 24 h (>= {cond.link_downs_below})"
    if cond.workload_down is not None:
        jobs = [ctx.sim.workloads[name] for name, _q in ctx.workloads]
        down = any(w.kind == "training" and getattr(w, "state", "") == "down" for w in jobs)
        if down != cond.workload_down:
            return False, "an affected training job is " + ("down" if down else "not down")
    if cond.workload_stopped is not None:
        stopped = [q or name for name, q in ctx.workloads if not ctx.workload_runs(name, q)]
        if bool(stopped) != cond.workload_stopped:
            return False, ("an affected workload is stopped: " + ", ".join(stopped) if stopped else
                           "every affected workload runs (" + ", ".join(q or n for n, q in ctx.workloads) + ")")
    if cond.acted is not None and ctx.acted != cond.acted:
        return False, ("an earlier step acted" if ctx.acted else
                       "no earlier step acted (" + ("; ".join(ctx.skipped) or "none was reached") + ")")
    if cond.link_down is not None:
        link = ctx.component
        if link is None or link not in ctx.sim.topology.links:
            return False, "the diagnosis names no link"
        down = ctx.sim.fabric.uplink_capacity(link) == 0.0
        if down != cond.link_down:
            return False, "the link is " + ("down" if down else "up")
    return True, ""
