"""Turn a validated scenario into a concrete plan: topology, placements, spares and the fault timeline."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from faultlib import ids
from faultlib.injection.profiles import draw_timeline
from faultlib.injection.selectors import TargetIndex, plan_scripted
from faultlib.injection.spec import FaultPlanError, FaultSpec, Timeline
from faultlib.params import ParamError, ParamGroup, apply_overrides
from faultlib.simparams import SimParams
from faultlib.topology import Topology
from opsbrain.errors import ScenarioError
from opsbrain.scenario.schema import ComponentState, EventTrigger, Expectation, Scenario, TopologySpec, WorkloadSpec

if TYPE_CHECKING:
    from opsbrain.scenario.checks import SpecParts


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


@dataclass
class Placement:
    """The workloads' parameters and nodes, the warm spares, and every error met placing them."""

    workload_params: dict[str, ParamGroup] = field(default_factory=dict)
    placements: dict[str, list[str]] = field(default_factory=dict)
    spares: list[str] = field(default_factory=list)
    errors: list[ScenarioError] = field(default_factory=list)


SERVICE_SIZE = ("prefill_instances", "prefill_nodes_per_instance", "decode_nodes")
"""An inference service's parameters that set how many nodes it takes."""


def place_workloads(topology: TopologySpec, workloads: Iterable[tuple[int, WorkloadSpec]], topo: Topology,
                    base: SimParams, file: str) -> Placement:
    """Each workload (index in ``spec.workloads``, item) with its parameter group (the defaults with its ``params``
    applied) placed on its nodes; a workload that cannot be placed is an error and the next is still placed
    (session 46, validate46: the first such error stopped the plan). A workload whose parameters are invalid still
    reserves its nodes where its size does not depend on them (session 47: an overlap with it showed only after
    the parameter was fixed)."""
    per_pod = base.topology.nodes_per_pod
    out = Placement()
    used: dict[str, str] = {}
    for p in range(topology.pods):
        for n in range(per_pod - topology.spares, per_pod):
            out.spares.append(ids.node(p, n))
            used[ids.node(p, n)] = "spares"
    for i, w in workloads:
        group: ParamGroup = base.training if w.kind == "training" else base.inference
        valid = True
        try:
            wp: Any = apply_overrides(group, dict(w.params)) if w.params else group
        except ParamError as exc:
            out.errors.append(ScenarioError(exc.reason, file=file, path=f"spec.workloads[{i}].params.{exc.path}"))
            if w.kind == "inference" and set(w.params) & set(SERVICE_SIZE):
                continue  # its size is not known: it reserves nothing
            wp, valid = group, False  # its size does not depend on the bad parameter: its nodes are still reserved
        if valid:
            out.workload_params[w.name] = wp
        if w.kind == "inference":
            count = wp.prefill_instances * wp.prefill_nodes_per_instance + wp.decode_nodes
        else:
            count = w.nodes or 8
        if w.first_node + count > topology.pods * per_pod:  # before a list of them is built
            pods = f"{topology.pods} pod{' has' if topology.pods == 1 else 's have'}"
            out.errors.append(ScenarioError(f"needs {count} nodes from index {w.first_node}; the {pods} "
                                            f"{topology.pods * per_pod}", file=file, path=f"spec.workloads[{i}]"))
            continue
        nodes = [ids.node(k // per_pod, k % per_pod) for k in range(w.first_node, w.first_node + count)]
        for node in nodes:
            reason = f"needs {count} nodes from index {w.first_node}; {node} does not exist" \
                if not topo.exists(node) else f"node {node} is already used by {used[node]}" if node in used else None
            if reason is not None:
                out.errors.append(ScenarioError(reason, file=file, path=f"spec.workloads[{i}]"))
                break
            used[node] = w.name
        else:
            if valid:
                out.placements[w.name] = nodes
    return out


def build_plan(sc: Scenario, file: str, seed: int | None = None, policy: str | None = None, *,
               topo: Topology | None = None) -> Plan:
    """Resolve placements and faults; errors name the file and the YAML path (the first met is raised;
    :func:`plan_errors` finds every one). ``topo``: the scenario's topology already built (validation's: a
    topology of 64 pods takes seconds), else a new one."""
    import numpy as np

    spec = sc.spec
    seed = spec.seed if seed is None else seed
    params = SimParams()
    topo = Topology.build(params.topology, spec.topology.pods) if topo is None else topo
    placed = place_workloads(spec.topology, enumerate(spec.workloads), topo, params, file)
    if placed.errors:
        raise placed.errors[0]
    spares = placed.spares
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
        raise _as_error(exc, file) from None
    taken = set(spec.initial_state.spares_taken)
    states, bad = initial_states(enumerate(spec.initial_state.components), topo, file)
    bad = [*spares_taken_errors(spec.initial_state.spares_taken, spares, file), *bad,
           *expectation_errors(enumerate(spec.expectations), topo, file)]
    if bad:
        raise bad[0]
    if spec.noise_scale != 1.0:
        params = params.model_copy(update={"noise": scaled_noise(params.noise, spec.noise_scale)})
    return Plan(sc, seed, policy or spec.policy, topo, params, placed.placements,
                [n for n in spares if n not in taken], timeline, placed.workload_params, triggered=triggered,
                initial_state=states)


NOISE_RATES = ("hbm_ce_per_day", "hbm_ce_bursts_per_day", "flap_per_link_day", "crc_per_link_day")
"""The background-noise event rates a scenario's ``noise: {scale: x}`` multiplies."""


def scaled_noise(noise: Any, scale: float) -> Any:
    return noise.model_copy(update={k: getattr(noise, k) * scale for k in NOISE_RATES})


def origin_index(spec: FaultSpec) -> int | None:
    """The index in the scenario's ``faults`` a scripted spec came from (origin ``spec.faults[3]``)."""
    if not spec.origin.startswith("spec.faults["):
        return None
    return int(spec.origin.split("[", 1)[1].split("]", 1)[0])


def _as_error(exc: Exception, file: str) -> ScenarioError:
    """A planner's error (``path: reason``) as the file's error."""
    text = str(exc.args[0]) if isinstance(exc, KeyError) and exc.args else str(exc)  # a KeyError's repr quotes
    path, _, reason = text.partition(": ")
    return ScenarioError(reason or path, file=file, path=path if reason else None)


def spares_taken_errors(taken: list[str], spares: list[str], file: str) -> list[ScenarioError]:
    """Each of ``initial_state.spares_taken`` listed twice or not a warm spare."""
    out = []
    for k, node in enumerate(taken):
        where = f"spec.initial_state.spares_taken[{k}]"
        if node in taken[:k]:
            out.append(ScenarioError(f"{node!r} is listed twice", file=file, path=where))
        elif node not in spares:
            out.append(ScenarioError(f"{node!r} is not one of the warm spares ({', '.join(spares) or 'none'})",
                                     file=file, path=where))
    return out


def initial_states(components: Iterable[tuple[int, ComponentState]], topo: Topology,
                   file: str) -> tuple[list[dict[str, Any]], list[ScenarioError]]:
    """The scenario's starting component states (index in ``initial_state.components``, item), each checked
    against the topology (what the id names); the first problem of each component is an error."""
    out, errors = [], []
    for i, c in components:
        if (bad := _state_problem(c, topo)) is not None:
            errors.append(ScenarioError(bad[1], file=file, path=f"spec.initial_state.components[{i}].{bad[0]}"))
        else:
            out.append(c.model_dump(exclude_none=True))
    return out, errors


def _state_problem(c: ComponentState, topo: Topology) -> tuple[str, str] | None:
    """(field, reason) of what is wrong with a starting state, or None."""
    module = any(c.id in lk.modules for lk in topo.links.values()) if c.rx_dbm is not None else False
    is_link = c.id in topo.links
    if not (is_link or module or topo.exists(c.id)):
        return "id", f"no component, link or optical module {c.id!r}"
    if c.lanes_down is not None:
        if not is_link:
            return "lanes_down", "lanes_down applies to a link"
        if c.lanes_down > topo.links[c.id].lanes:
            return "lanes_down", f"the link has {topo.links[c.id].lanes} lanes"
    if c.rx_dbm is not None and not (module or (is_link and topo.links[c.id].modules)):
        return "rx_dbm", "rx_dbm applies to an optical link or module"
    if c.health is not None and module:
        return "health", "an optical module has no health of its own (give its link)"
    return None


def expectation_errors(expectations: Iterable[tuple[int, Expectation]], topo: Topology,
                       file: str) -> list[ScenarioError]:
    """Each expectation whose ``component`` names no part of the topology: the diagnosis's component is compared
    with it as written, so the run could only fail it (session 46, newuser46: ``pod0/node99`` was accepted)."""
    return [ScenarioError(f"no component {e.component!r}", file=file, path=f"spec.expectations[{k}].component")
            for k, e in expectations if e.component is not None and not topo.exists(e.component)]


def plan_errors(parts: SpecParts, file: str, topo: Topology | None = None) -> list[ScenarioError]:
    """Every error the plan would meet, on the parts of a spec that are valid (all of a valid scenario's): each
    workload that cannot be placed, each fault whose target or selector does not resolve, an unknown random
    profile, each wrong ``spares_taken`` and starting state, each expectation of no component. Nothing is checked
    against a topology that is not valid. Session 46 (validate46): ``build_plan`` stopped at its first error, and
    ran only on a file with no other error, so a job placed on a spare showed in a round of its own."""
    from faultlib.injection.profiles import get_profile

    params = SimParams()
    if parts.pods is not None and topo is None:
        topo = Topology.build(params.topology, parts.pods)
    placed = None if topo is None or parts.topology is None else \
        place_workloads(parts.topology, parts.workloads, topo, params, file)  # needs the spare count too
    errors = [*(placed.errors if placed else []), *(fault_target_errors(parts.faults, topo, file) if topo else [])]
    if parts.random is not None:
        try:
            get_profile(parts.random.profile)
        except FaultPlanError as exc:
            errors.append(_as_error(exc.under("spec.random"), file))
    if placed is not None and parts.spares_taken is not None:
        errors += spares_taken_errors(parts.spares_taken, placed.spares, file)
    if topo is not None:
        errors += initial_states(parts.components, topo, file)[1]
        errors += expectation_errors(parts.expectations, topo, file)
    return errors


def fault_target_errors(faults: list[tuple[int, Any]], topo: Topology, file: str) -> list[ScenarioError]:
    """Each fault's target or selector resolved alone against ``topo`` (errors only); the faults are (index in
    ``spec.faults``, validated item): those of a file that validate on their own."""
    import numpy as np

    from faultlib.injection.selectors import resolve

    index = TargetIndex(topo)
    rng = np.random.default_rng(0)
    out: list[ScenarioError] = []
    for i, f in faults:
        item = f.model_dump(exclude_none=True, exclude={"symptom_of"})
        selector = {k: v for k, v in item["selector"].items() if v is not None} if "selector" in item else None
        try:
            resolve(index, item["kind"], target=item.get("target"), selector=selector, mode=item.get("mode"),
                    value=item.get("value"), rng=rng, where=f"spec.faults[{i}]")
        except (FaultPlanError, KeyError, ValueError) as exc:
            out.append(_as_error(exc, file))
    return out
