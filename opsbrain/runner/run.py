"""The chaos runner: build the world, run it, score the diagnoses against the injected truth, write the journal.

The journal follows the contract in DESIGN.md. It is complete whatever happens: an abort by a guard, an operator's
Ctrl-C or a failing action all end in a journal with a verdict (``aborted`` when the run did not reach its end).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from faultlib.faults.base import ActiveFault
from faultlib.injection.spec import FaultSpec
from opsbrain.detection import Incident
from opsbrain.diagnosis.engine import Engine
from opsbrain.runner import scoring
from opsbrain.runner.monitor import Monitor
from opsbrain.runner.world import World, build_world
from opsbrain.scenario.plan import Plan

NO_ACTION_CLASSES = ("dirty_connector", "hbm_ce_storm", "unknown")
PASSIVE_ACTIONS = ("none", "wait")
Progress = Callable[[float, float], None]


def _clean(x: Any) -> Any:
    """JSON-safe: no inf/nan, tuples as lists, floats rounded to microseconds."""
    if isinstance(x, float):
        return None if not math.isfinite(x) else round(x, 6)
    if isinstance(x, dict):
        return {str(k): _clean(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_clean(v) for v in x]
    return x


def run_plan(plan: Plan, engine: Engine, progress: Progress | None = None, dry_run: bool = False) -> dict[str, Any]:
    """Run a plan to its end (or abort) and return the journal."""
    wall0 = time.perf_counter()
    world = build_world(plan, engine, dry_run=dry_run)
    sim = world.sim
    spec = plan.scenario.spec
    mon = Monitor(sim, spec.steady_state.probes, spec.guards, spec.steady_state.tolerance_s)
    abort = mon.start()
    snaps: dict[float, dict[str, dict[str, Any]]] = {}
    for t in sorted({s.at_s for s in plan.timeline}):
        _snapshot_at(world, t, snaps)
    first_fault = min((s.at_s for s in plan.timeline), default=spec.duration)
    before_t = max(0.0, min(first_fault - 1.0, mon.params.baseline_at_s))
    steady_before: dict[str, Any] = {}
    status = "finished"
    try:
        sim.run(before_t)
        steady_before = mon.snapshot(sim.now)
        chunks = 50
        for k in range(1, chunks + 1):
            until = spec.duration * k / chunks
            if until <= sim.now:
                continue
            sim.env.run(until=sim.env.any_of([abort, sim.env.timeout(until - sim.now)]))
            if progress:
                progress(sim.now, spec.duration)
            if mon.aborted:
                status = "aborted"
                break
    except KeyboardInterrupt:
        status = "interrupted"
    end = sim.now
    accounting_end = {name: w.accounting() for name, w in sim.workloads.items()}
    steady_after = mon.snapshot(end)
    incidents = score(world, plan, snaps, end, accounting_end, mon.baseline_at_s_rate())
    deviated = mon.deviated() or not all(v["ok"] for v in steady_after.values())
    expectations = check_expectations(plan, incidents)
    if status != "finished":
        verdict = "aborted"
    elif deviated or not all(e["met"] for e in expectations):
        verdict = "failed"
    else:
        verdict = "passed"
    faults = [i for i in incidents if i["injected"] is not None]
    journal = {
        "scenario": plan.scenario.metadata.name, "description": plan.scenario.metadata.description,
        "seed": plan.seed, "policy": plan.policy, "verdict": verdict, "status": status,
        "abort_reason": mon.aborted or ("interrupted by the operator" if status == "interrupted" else None),
        "duration_s": spec.duration, "ended_at_s": end,
        "steady_state": {"before": steady_before, "after": steady_after, "deviated": deviated,
                         "baseline": mon.baseline, "deviation_s": mon.deviation_s,
                         "longest_deviation_s": mon.worst_streak_s, "tolerance_s": spec.steady_state.tolerance_s},
        "expectations": expectations,
        "incidents": incidents,
        "workloads": [{"name": name, **acc} for name, acc in accounting_end.items()],
        "recovery": world.orchestrator.report(),
        "summary": summarize(incidents, faults, world, time.perf_counter() - wall0),
    }
    return dict(_clean(journal))


def _snapshot_at(world: World, t: float, snaps: dict[float, dict[str, dict[str, Any]]]) -> None:
    sim = world.sim

    def take() -> Any:
        yield sim.env.timeout(max(0.0, t - sim.now))
        snaps[t] = {name: w.accounting() for name, w in sim.workloads.items()}

    sim.env.process(take())


def _series(w: Any) -> scoring.Series:
    if w.kind == "training":
        return [(float(t), float(r)) for t, r in w.rate_history()]
    return [(float(s["t"]), float(s["decode_tokens_per_s"])) for s in w.rate_history()]


def _impact(before: dict[str, Any] | None, after: dict[str, Any], names: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for n in names:
        a, b = after.get(n, {}), (before or {}).get(n, {})
        if a.get("kind") == "training":
            out[n] = {"lost_npu_s": a.get("lost_npu_s", 0.0) - b.get("lost_npu_s", 0.0),
                      "redone_steps": a.get("redone_steps", 0.0) - b.get("redone_steps", 0.0),
                      "downtime_s": a.get("downtime_s", 0.0) - b.get("downtime_s", 0.0)}
        else:
            out[n] = {"lost_tokens": a.get("lost_tokens", 0.0) - b.get("lost_tokens", 0.0),
                      "slo_violation_s": a.get("slo_violation_s", 0.0) - b.get("slo_violation_s", 0.0)}
    return out


def _final_diagnosis(inc: Incident) -> tuple[dict[str, Any] | None, float | None]:
    d = inc.diagnosis
    if d is None:
        return None, None
    first_same = next(x for x in inc.diagnoses if (x.fault_class, x.component) == (d.fault_class, d.component))
    return d.as_dict() | {"at_s": first_same.at_s}, first_same.at_s


def score(world: World, plan: Plan, snaps: dict[float, dict[str, dict[str, Any]]], end: float,
          accounting_end: dict[str, dict[str, Any]], nominal: dict[str, float] | None = None) -> list[dict[str, Any]]:
    """One journal entry per injected fault that began, plus one per incident that matches none."""
    sim, ctl, orch = world.sim, world.controller, world.orchestrator
    truths: list[ActiveFault] = [f for f in sim.faults if f.at_s <= end and _began(sim, f)]
    faults = [(f.id, f.kind, f.target, f.at_s) for f in truths]
    incs = {i.id: i for i in ctl.incidents}
    matched = scoring.match_incidents(faults, [(i.id, i.opened_at, i.components) for i in ctl.incidents],
                                      horizon_s=24 * 3600.0)
    onsets = sorted({f.at_s for f in truths})
    # where each workload ran at any time of the run: its planned nodes and the spares swapped in since
    placements = {name: sorted(set(plan.placements.get(name, [])) | set(w.nodes)) for name, w in sim.workloads.items()}
    series = {name: _series(w) for name, w in sim.workloads.items()}
    out: list[dict[str, Any]] = []
    for f in truths:
        mine = sorted((incs[i] for i, fid in matched.items() if fid == f.id), key=lambda x: x.opened_at)
        primary = mine[0] if mine else None
        keys = [k for inc in mine for k in ctl.handled.get(inc.id, [])]
        actions = [a for k in keys for a in orch.actions_for(k)]
        diag, diag_at = _final_diagnosis(primary) if primary else (None, None)
        detected = primary.opened_at if primary else None
        manual = [orch.incident(k) for k in keys] if plan.policy == "manual" else []
        if manual:
            detected = manual[0].get("detected_at_s", detected)
            diag_at = manual[0].get("diagnosed_at_s", diag_at)
            if diag is not None and diag_at is not None:
                diag = diag | {"at_s": diag_at}
        affected = scoring.blast_radius(f.kind, f.target, placements)
        nxt = next((t for t in onsets if t > f.at_s), end)
        ttr = _ttr(f, affected, series, actions, end, nominal or {})
        runbooks = [orch.incident(k).get("runbook") for k in keys]
        cls = diag["fault_class"] if diag else None
        comp = diag["component"] if diag else None
        out.append({
            "id": f.id, "injected": {"kind": f.kind, "component": f.target, "at_s": f.at_s, "params": f.params},
            "incident_ids": [i.id for i in mine],
            "detected_at_s": detected, "diagnosis": diag,
            "runbook": next((r for r in reversed(runbooks) if r), None),
            "actions": actions, "affected_workloads": affected,
            "recovered_at_s": None if ttr is None else f.at_s + ttr,
            "ttd_s": None if detected is None else detected - f.at_s,
            "ttdiag_s": None if diag_at is None else diag_at - f.at_s,
            "ttr_s": ttr, "class_correct": cls == f.kind,
            "localized": scoring.localized(f.kind, f.target, comp),
            "correct": cls == f.kind and scoring.localized(f.kind, f.target, comp),
            "human_steps": sum(orch.incident(k).get("human_steps", 0) for k in keys),
            "impact": _impact(snaps.get(f.at_s), snaps.get(nxt, accounting_end), affected),
        })
    for inc in ctl.incidents:
        if inc.id in matched:
            continue
        d = inc.diagnosis
        keys = ctl.handled.get(inc.id, [])
        actions = [a for k in keys for a in orch.actions_for(k)]
        out.append({"id": inc.id, "injected": None, "incident_ids": [inc.id], "detected_at_s": inc.opened_at,
                    "diagnosis": d.as_dict() if d else None, "runbook": None, "actions": actions,
                    "recovered_at_s": None, "ttd_s": None, "ttdiag_s": None, "ttr_s": None, "correct": False,
                    "class_correct": False, "localized": False,
                    "false_positive": _acted(actions) or (d is not None and d.fault_class not in NO_ACTION_CLASSES),
                    "impact": {}})
    return out


def _acted(actions: list[dict[str, Any]]) -> bool:
    """Whether a response did something to the plant or paged a person (not just watched)."""
    return any(a.get("kind") == "step" and a.get("action") not in PASSIVE_ACTIONS for a in actions)


def _began(sim: Any, f: ActiveFault) -> bool:
    return any(e.kind == "fault" and e.detail.get("id") == f.id for e in sim.trace.of_kind("fault"))


def _ttr(f: ActiveFault, affected: list[str], series: dict[str, scoring.Series], actions: list[dict[str, Any]],
         end: float, nominal: dict[str, float]) -> float | None:
    if affected:
        ttrs = [scoring.time_to_recover(series[w], f.at_s, end, nominal=nominal.get(w)) for w in affected]
        return None if any(t is None for t in ttrs) else max(t for t in ttrs if t is not None)
    done = [a["end_s"] for a in actions if a.get("status") == "succeeded" and a.get("end_s") is not None]
    if done:
        return max(done) - f.at_s
    if f.ended_at_s is not None:
        return f.ended_at_s - f.at_s
    return None


def check_expectations(plan: Plan, incidents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    by_origin: dict[int, list[FaultSpec]] = {}
    for s in plan.timeline:
        if s.origin.startswith("spec.faults["):
            by_origin.setdefault(int(s.origin.split("[")[1].split("]")[0]), []).append(s)
    for e in plan.scenario.spec.expectations:
        specs = by_origin.get(e.fault, [])
        entries = [i for i in incidents if i["injected"] and any(
            i["injected"]["component"] == s.target and abs(i["injected"]["at_s"] - s.at_s) < 1e-6 for s in specs)]
        problems: list[str] = []
        if not entries:
            problems.append("fault never started")
        for i in entries:
            d = i["diagnosis"] or {}
            if e.diagnosis is not None:
                want = "none" if e.diagnosis == "none" else e.diagnosis
                got = d.get("fault_class") or "none"
                if got != want:
                    problems.append(f"diagnosed {got}, expected {want}")
            if e.component is not None and d.get("component") != e.component:
                problems.append(f"localized to {d.get('component')}, expected {e.component}")
            if e.ttr_max_s is not None and (i["ttr_s"] is None or i["ttr_s"] > e.ttr_max_s):
                problems.append(f"ttr {i['ttr_s']} s exceeds {e.ttr_max_s} s")
            if e.no_action and any(a.get("kind") == "step" and a.get("action") not in
                                   ("none", "notify", "wait") for a in i["actions"]):
                problems.append("actions were taken where none were expected")
        out.append({"fault": e.fault, "met": not problems, "problems": problems})
    return out


def summarize(incidents: list[dict[str, Any]], faults: list[dict[str, Any]], world: World,
              wall_s: float) -> dict[str, Any]:
    ttrs = [i["ttr_s"] for i in faults if i["ttr_s"] is not None]
    fps = [i for i in incidents if i["injected"] is None and i.get("false_positive")]
    ms = world.controller.diagnosis_ms
    return {
        "incidents": len(faults), "detected": sum(i["detected_at_s"] is not None for i in faults),
        "diagnosed_correctly": sum(bool(i["correct"]) for i in faults),
        "class_correct": sum(bool(i["class_correct"]) for i in faults),
        "recovered": sum(i["ttr_s"] is not None for i in faults),
        "handled_without_human": sum(i.get("human_steps", 0) == 0 for i in faults),
        "false_positives": len(fps), "noise_incidents": sum(i["injected"] is None for i in incidents),
        "median_ttr_s": sorted(ttrs)[len(ttrs) // 2] if ttrs else None,
        "diagnosis_ms_mean": sum(ms) / len(ms) if ms else None, "wall_s": wall_s,
        "events": len(world.sim.trace),
    }
