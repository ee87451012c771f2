"""Turn a validated scenario into a concrete plan: topology, placements, spares and the fault timeline."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from faultlib import ids
from faultlib.injection.profiles import draw_timeline
from faultlib.injection.selectors import TargetIndex, plan_scripted
from faultlib.injection.spec import FaultPlanError, Timeline
from faultlib.params import ParamError, ParamGroup, apply_overrides
from faultlib.simparams import SimParams
from faultlib.topology import Topology
from opsbrain.errors import ScenarioError
from opsbrain.scenario.schema import Scenario


@dataclass
class Plan:
    scenario: Scenario
    seed: int
    policy: str
    topology: Topology
    params: SimParams
    placements: dict[str, list[str]]
    spares: list[str]
    timeline: Timeline
    workload_params: dict[str, ParamGroup] = field(default_factory=dict)
    monitor_interval_s: float | None = None
    """How often probes and guards are checked (None: MonitorParams' default); trace replays size it to the trace."""

    def describe(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario.metadata.name, "seed": self.seed, "policy": self.policy,
            "duration_s": self.scenario.spec.duration, "pods": self.topology.pods,
            "workloads": [{"name": w.name, "kind": w.kind, "nodes": len(self.placements[w.name]),
                           "first": self.placements[w.name][0], "last": self.placements[w.name][-1]}
                          for w in self.scenario.spec.workloads],
            "spares": self.spares,
            "faults": [{"at_s": s.at_s, "kind": s.kind, "target": s.target, "duration_s": s.duration_s,
                        "source": s.source} for s in self.timeline],
        }


def _workload_params(sc: Scenario, base: SimParams, file: str) -> dict[str, ParamGroup]:
    """Each workload's own parameter group: the defaults with that workload's ``params`` applied."""
    out: dict[str, ParamGroup] = {}
    for i, w in enumerate(sc.spec.workloads):
        group: ParamGroup = base.training if w.kind == "training" else base.inference
        try:
            out[w.name] = apply_overrides(group, dict(w.params)) if w.params else group
        except ParamError as exc:
            raise ScenarioError(exc.reason, file=file, path=f"spec.workloads[{i}].params.{exc.path}") from None
    return out


def build_plan(sc: Scenario, file: str, seed: int | None = None, policy: str | None = None) -> Plan:
    """Resolve placements and faults; errors name the file and the YAML path."""
    import numpy as np

    spec = sc.spec
    seed = spec.seed if seed is None else seed
    params = SimParams()
    workload_params = _workload_params(sc, params, file)
    topo = Topology.build(params.topology, spec.topology.pods)
    per_pod = params.topology.nodes_per_pod
    used: dict[str, str] = {}
    spares: list[str] = []
    for p in range(spec.topology.pods):
        for n in range(per_pod - spec.topology.spares, per_pod):
            spares.append(ids.node(p, n))
            used[ids.node(p, n)] = "spares"
    placements: dict[str, list[str]] = {}
    for i, w in enumerate(spec.workloads):
        if w.kind == "inference":
            ip = workload_params[w.name]
            count = ip.prefill_instances * ip.prefill_nodes_per_instance + ip.decode_nodes  # type: ignore[attr-defined]
        else:
            count = w.nodes or 8
        nodes = [ids.node(n // per_pod, n % per_pod) for n in range(w.first_node, w.first_node + count)]
        for n in nodes:
            if not topo.exists(n):
                raise ScenarioError(f"needs {count} nodes from index {w.first_node}; {n} does not exist",
                                    file=file, path=f"spec.workloads[{i}]")
            if n in used:
                raise ScenarioError(f"node {n} is already used by {used[n]}", file=file,
                                    path=f"spec.workloads[{i}]")
            used[n] = w.name
        placements[w.name] = nodes
    index = TargetIndex(topo)
    items = [f.model_dump(exclude_none=True) for f in spec.faults]
    for it in items:
        if "selector" in it:
            it["selector"] = {k: v for k, v in it["selector"].items() if v is not None}
    try:
        timeline = plan_scripted(index, items, np.random.default_rng([seed, 1]), where="spec.faults")
        if spec.random is not None:
            drawn = draw_timeline(spec.random.profile, topo, spec.duration / 86400.0,
                                  np.random.default_rng([seed, 2]), bursty=spec.random.bursty,
                                  lemons=spec.random.lemons, background=spec.random.background,
                                  params=params.injection)
            timeline = timeline.merge(drawn)
    except (FaultPlanError, KeyError, ValueError) as exc:
        path, _, reason = str(exc).strip("'\"").partition(": ")
        raise ScenarioError(reason or path, file=file, path=path if reason else None) from None
    return Plan(sc, seed, policy or spec.policy, topo, params, placements, spares, timeline, workload_params)


def plan_errors(sc: Scenario, file: str) -> list[ScenarioError]:
    try:
        build_plan(sc, file)
    except ScenarioError as exc:
        return [exc]
    return []
