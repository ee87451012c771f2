"""Turn a validated scenario into a concrete plan: topology, placements, spares and the fault timeline."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from faultlib import ids
from faultlib.injection.profiles import draw_timeline
from faultlib.injection.selectors import TargetIndex, plan_scripted
from faultlib.injection.spec import FaultPlanError, FaultSpec, Timeline
from faultlib.params import ParamError, ParamGroup, apply_overrides
from faultlib.simparams import SimParams
from faultlib.topology import Topology
from opsbrain.errors import ScenarioError
from opsbrain.scenario.schema import EventTrigger, Scenario


@dataclass(frozen=True)
class TriggeredFault:
    """A resolved fault (target known) that starts ``trigger.after_s`` after its trigger event."""

    spec: FaultSpec
    trigger: EventTrigger
    index: int
    """Its index in the scenario's ``faults``."""


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
    triggered: list[TriggeredFault] = field(default_factory=list)
    """Faults started by an event (scenario ``at: {event: ...}``); their specs carry ``at_s`` 0 until they fire."""
    initial_state: list[dict[str, Any]] = field(default_factory=list)
    """Component states the run starts in (checked against the topology): ``{id, health, lanes_down, rx_dbm}``."""

    def describe(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario.metadata.name, "seed": self.seed, "policy": self.policy,
            "duration_s": self.scenario.spec.duration, "pods": self.topology.pods,
            "workloads": [{"name": w.name, "kind": w.kind, "nodes": len(self.placements[w.name]),
                           "first": self.placements[w.name][0], "last": self.placements[w.name][-1]}
                          for w in self.scenario.spec.workloads],
            "spares": self.spares,
            "faults": [{"fault": origin_index(s), "at_s": s.at_s, "kind": s.kind, "target": s.target,
                        "duration_s": s.duration_s, "source": s.source, **self._symptom(origin_index(s))}
                       for s in self.timeline] + [
                {"fault": t.index, "at": t.trigger.model_dump(exclude_none=True), "kind": t.spec.kind,
                 "target": t.spec.target, "duration_s": t.spec.duration_s, "source": t.spec.source,
                 **self._symptom(t.index)}
                for t in sorted(self.triggered, key=lambda t: t.index)],  # in the scenario's order
            "initial_state": self.initial_state,
        }

    def _symptom(self, index: int | None) -> dict[str, int]:
        """``{"symptom_of": K}`` for a scripted fault declared a symptom of ``faults[K]`` (the dry run says it)."""
        k = None if index is None else self.scenario.spec.faults[index].symptom_of
        return {} if k is None else {"symptom_of": k}


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
        if w.first_node + count > spec.topology.pods * per_pod:  # before a list of them is built
            pods = f"{spec.topology.pods} pod{' has' if spec.topology.pods == 1 else 's have'}"
            raise ScenarioError(f"needs {count} nodes from index {w.first_node}; the {pods} "
                                f"{spec.topology.pods * per_pod}", file=file, path=f"spec.workloads[{i}]")
        nodes = [ids.node(k // per_pod, k % per_pod) for k in range(w.first_node, w.first_node + count)]
        for node in nodes:
            if not topo.exists(node):
                raise ScenarioError(f"needs {count} nodes from index {w.first_node}; {node} does not exist",
                                    file=file, path=f"spec.workloads[{i}]")
            if node in used:
                raise ScenarioError(f"node {node} is already used by {used[node]}", file=file,
                                    path=f"spec.workloads[{i}]")
            used[node] = w.name
        placements[w.name] = nodes
    index = TargetIndex(topo)
    items = [f.model_dump(exclude_none=True, exclude={"symptom_of"}) for f in spec.faults]
    for it in items:
        if "selector" in it:
            it["selector"] = {k: v for k, v in it["selector"].items() if v is not None}
        if isinstance(it["at"], dict):
            it["at"] = 0.0  # an event trigger: the time is known when the event happens
    try:
        timeline = plan_scripted(index, items, np.random.default_rng([seed, 1]), where="spec.faults")
        triggers = {k: t for k, f in enumerate(spec.faults) if (t := f.trigger) is not None}
        triggered = [TriggeredFault(s, triggers[k], k) for s in timeline
                     if (k := origin_index(s)) is not None and k in triggers]
        timeline = Timeline(s for s in timeline if origin_index(s) not in triggers)
        if spec.random is not None:
            try:
                drawn = draw_timeline(spec.random.profile, topo, spec.duration / 86400.0,
                                      np.random.default_rng([seed, 2]), bursty=spec.random.bursty,
                                      lemons=spec.random.lemons, background=spec.random.background,
                                      params=params.injection)
            except FaultPlanError as exc:  # its field is one of spec.random's ('profile: unknown profile ...')
                raise exc.under("spec.random") from None
            timeline = timeline.merge(drawn)
    except (FaultPlanError, KeyError, ValueError) as exc:
        text = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)  # a KeyError's repr quotes
        path, _, reason = text.partition(": ")
        raise ScenarioError(reason or path, file=file, path=path if reason else None) from None
    taken = set(spec.initial_state.spares_taken)
    for k, taken_node in enumerate(spec.initial_state.spares_taken):
        if taken_node in spec.initial_state.spares_taken[:k]:
            raise ScenarioError(f"{taken_node!r} is listed twice", file=file,
                                path=f"spec.initial_state.spares_taken[{k}]")
        if taken_node not in spares:
            raise ScenarioError(f"{taken_node!r} is not one of the warm spares ({', '.join(spares) or 'none'})",
                                file=file, path=f"spec.initial_state.spares_taken[{k}]")
    if spec.noise_scale != 1.0:
        params = params.model_copy(update={"noise": scaled_noise(params.noise, spec.noise_scale)})
    states = initial_states(sc, topo, file)
    if bad := expectation_errors(sc, topo, file):
        raise bad[0]
    return Plan(sc, seed, policy or spec.policy, topo, params, placements, [n for n in spares if n not in taken],
                timeline, workload_params, triggered=triggered, initial_state=states)


NOISE_RATES = ("hbm_ce_per_day", "hbm_ce_bursts_per_day", "flap_per_link_day", "crc_per_link_day")
"""The background-noise event rates a scenario's ``noise: {scale: x}`` multiplies."""


def scaled_noise(noise: Any, scale: float) -> Any:
    return noise.model_copy(update={k: getattr(noise, k) * scale for k in NOISE_RATES})


def origin_index(spec: FaultSpec) -> int | None:
    """The index in the scenario's ``faults`` a scripted spec came from (origin ``spec.faults[3]``)."""
    if not spec.origin.startswith("spec.faults["):
        return None
    return int(spec.origin.split("[", 1)[1].split("]", 1)[0])


def initial_states(sc: Scenario, topo: Topology, file: str) -> list[dict[str, Any]]:
    """The scenario's starting component states, each checked against the topology (what the id names)."""
    out = []
    for i, c in enumerate(sc.spec.initial_state.components):
        where = f"spec.initial_state.components[{i}]"
        module = any(c.id in lk.modules for lk in topo.links.values()) if c.rx_dbm is not None else False
        is_link = c.id in topo.links
        if not (is_link or module or topo.exists(c.id)):
            raise ScenarioError(f"no component, link or optical module {c.id!r}", file=file, path=f"{where}.id")
        if c.lanes_down is not None:
            if not is_link:
                raise ScenarioError("lanes_down applies to a link", file=file, path=f"{where}.lanes_down")
            if c.lanes_down > topo.links[c.id].lanes:
                raise ScenarioError(f"the link has {topo.links[c.id].lanes} lanes", file=file,
                                    path=f"{where}.lanes_down")
        if c.rx_dbm is not None and not (module or (is_link and topo.links[c.id].modules)):
            raise ScenarioError("rx_dbm applies to an optical link or module", file=file, path=f"{where}.rx_dbm")
        if c.health is not None and module:
            raise ScenarioError("an optical module has no health of its own (give its link)", file=file,
                                path=f"{where}.health")
        out.append(c.model_dump(exclude_none=True))
    return out


def expectation_errors(sc: Scenario, topo: Topology, file: str) -> list[ScenarioError]:
    """Each expectation whose ``component`` names no part of the topology: the diagnosis's component is compared
    with it as written, so the run could only fail it (session 46, newuser46: ``pod0/node99`` was accepted)."""
    return [ScenarioError(f"no component {e.component!r}", file=file, path=f"spec.expectations[{k}].component")
            for k, e in enumerate(sc.spec.expectations) if e.component is not None and not topo.exists(e.component)]


def plan_errors(sc: Scenario, file: str) -> list[ScenarioError]:
    """The plan's errors: the first the plan meets, and, where that is a fault's, every other fault's target or
    selector that does not resolve (five bad targets took five rounds of validate-and-fix)."""
    try:
        build_plan(sc, file)
    except ScenarioError as exc:
        if exc.path and exc.path.startswith("spec.faults["):
            faults = list(enumerate(sc.spec.faults))
            return [exc, *(e for e in fault_target_errors(faults, sc.spec.topology.pods, file) if e.path != exc.path)]
        if exc.path and exc.path.startswith("spec.expectations["):  # every such expectation, not the first only
            return expectation_errors(sc, Topology.build(SimParams().topology, sc.spec.topology.pods), file)
        return [exc]
    return []


def fault_target_errors(faults: list[tuple[int, Any]], pods: int, file: str) -> list[ScenarioError]:
    """Each fault's target or selector resolved alone against a topology of ``pods`` pods (errors only); the faults
    are (index in ``spec.faults``, validated item): all of a valid scenario's, or those of a file with other errors
    that validate on their own (the loader's, session 44)."""
    import numpy as np

    from faultlib.injection.selectors import resolve

    index = TargetIndex(Topology.build(SimParams().topology, pods))
    rng = np.random.default_rng(0)
    out: list[ScenarioError] = []
    for i, f in faults:
        item = f.model_dump(exclude_none=True, exclude={"symptom_of"})
        selector = {k: v for k, v in item["selector"].items() if v is not None} if "selector" in item else None
        try:
            resolve(index, item["kind"], target=item.get("target"), selector=selector, mode=item.get("mode"),
                    value=item.get("value"), rng=rng, where=f"spec.faults[{i}]")
        except (FaultPlanError, KeyError, ValueError) as exc:
            text = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)
            path, _, reason = text.partition(": ")
            out.append(ScenarioError(reason or path, file=file, path=path if reason else None))
    return out
