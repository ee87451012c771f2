"""Who responded to an injected fault and when: its incidents (or the one it was folded into), their actions, the
detection and diagnosis times (a person's under the baselines), the fault's window and the workloads on its part;
and the moments the fault or its response did something to the plant (the causes a dip can be the fault's,
:mod:`opsbrain.runner.dips`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from opsbrain.runner import scoring

if TYPE_CHECKING:
    from faultlib.faults.base import ActiveFault
    from opsbrain.detection import Incident
    from opsbrain.runner.world import World
    from opsbrain.scenario.plan import Plan


@dataclass
class Response:
    """One injected fault and what answered it (the first pass of :func:`opsbrain.runner.run.score`)."""

    f: ActiveFault
    mine: list[Incident]  # the incidents matched to it, by opening time
    cover: Incident | None  # the incident it was folded into (none of its own)
    primary: Incident | None
    keys: list[str]  # the orchestrator's handles of its incidents
    actions: list[dict[str, Any]]
    detected: float | None
    diag: dict[str, Any] | None
    diag_at: float | None
    window_end: float
    affected: list[str] = field(default_factory=list)


def respond(world: World, plan: Plan, f: ActiveFault, incs: dict[str, Incident], matched: dict[str, str],
            covered: dict[str, tuple[str, float]], end: float) -> Response:
    """The fault's responders, actions, detection and diagnosis (a person's times under the baselines: none yet while
    their step is still under way at the end), its window (:func:`scoring.fault_window_end`) and the workloads
    placed on its part during it (:func:`scoring.blast_radius`)."""
    ctl, orch, sim = world.controller, world.orchestrator, world.sim
    mine = sorted((incs[i] for i, fid in matched.items() if fid == f.id), key=lambda x: x.opened_at)
    cover = incs[covered[f.id][0]] if not mine and f.id in covered else None  # folded into another's incident
    responders = mine or ([cover] if cover else [])
    primary = responders[0] if responders else None
    keys = [k for inc in responders for k in ctl.handled.get(inc.id, [])]
    actions = [a for k in keys for a in orch.actions_for(k)]
    diag, diag_at = final_diagnosis(primary) if primary else (None, None)
    diag = own_root(diag, f.target)
    detected = (primary.opened_at if primary.detected_at is None else primary.detected_at) if primary else None
    if cover is not None:
        detected = covered[f.id][1]
    manual = [orch.incident(k) for k in keys] if plan.policy in ("manual", "vendor-default") else []
    if manual:  # the person's times, not the tool's
        seen = manual[0].get("detected_at_s")
        detected = seen if cover is None or seen is None or detected is None else max(seen, detected)
        diag_at = manual[0].get("diagnosed_at_s")
        diag = diag | {"at_s": diag_at} if diag is not None and diag_at is not None else None
    if cover is not None and diag is not None and diag_at is not None and detected is not None:
        diag_at = max(diag_at, detected)  # a diagnosis made before the fault began is not its diagnosis time
        diag = diag | {"at_s": diag_at}
    window_end = scoring.fault_window_end(f.at_s, f.ended_at_s, [a["start_s"] for a in actions
                                                                  if a.get("start_s") is not None], end)
    affected = scoring.blast_radius(f.kind, f.target, placed(sim, f.at_s, window_end))
    return Response(f, mine, cover, primary, keys, actions, detected, diag, diag_at, window_end, affected)


def fault_events(sim: Any, responses: list[Response]) -> dict[str, list[float]]:
    """Per fault: the moments it or its response changed something (its onset and end, each plant change caused by
    it, the start and end of each action of its response): the causes a dip can be its (:mod:`dips`)."""
    out = {r.f.id: [r.f.at_s, *([r.f.ended_at_s] if r.f.ended_at_s is not None else []),
                    *(t for a in r.actions for t in (a.get("start_s"), a.get("end_s")) if t is not None)]
           for r in responses}
    for e in sim.trace.events:  # its health and lane changes (an optical decay drops lanes before the link dies)
        cause = str(e.detail.get("cause") or "") if e.kind in ("health", "lanes") else ""
        if cause.startswith("fault:") and cause[6:] in out:
            out[cause[6:]].append(e.t)
    return out


def final_diagnosis(inc: Incident) -> tuple[dict[str, Any] | None, float | None]:
    """The incident's latest diagnosis with the time it was first made (the same class and component), and that
    time."""
    d = inc.diagnosis
    if d is None:
        return None, None
    first_same = next(x for x in inc.diagnoses if (x.fault_class, x.component) == (d.fault_class, d.component))
    return d.as_dict() | {"at_s": first_same.at_s}, first_same.at_s


def own_root(diag: dict[str, Any] | None, target: str) -> dict[str, Any] | None:
    """A diagnosis (``as_dict`` form) as the fault at ``target`` reads it: where the diagnosis names that target
    among its further roots (``also``: a link class on several links of a node, each its own fault), the target is
    this fault's component and the diagnosis' own component one of the others (session 42); ``named_first`` keeps
    the component the diagnosis named first, so the journal does not claim the engine named this link first."""
    if diag is None or target == diag.get("component") or target not in (diag.get("also") or []):
        return diag
    return diag | {"component": target, "also": sorted({diag["component"], *diag["also"]} - {target}),
                   "named_first": diag["component"]}


def placed(sim: Any, start: float, end: float) -> dict[str, list[str]]:
    """Where each workload ran during a fault's window (its placement history: spares swapped in count from the
    moment they joined)."""
    return {name: sorted(scoring.nodes_during(w, start, end)) for name, w in sim.workloads.items()}
