"""The chaos runner: build the world, run it, score the diagnoses against the injected truth, write the journal.

The journal follows the contract in DESIGN.md. It is complete whatever happens: an abort by a guard, an operator's
Ctrl-C or a failing action all end in a journal with a verdict (``aborted`` when the run did not reach its end).
"""

from __future__ import annotations

import math
import time
from bisect import bisect_right
from collections.abc import Callable
from pathlib import Path
from typing import Any

from faultlib.faults.base import ActiveFault
from faultlib.injection.spec import FaultSpec
from opsbrain.detection import Incident
from opsbrain.diagnosis.engine import Engine
from opsbrain.recovery.params import hccl_launch_env
from opsbrain.recovery.schema import WORKLOAD_STUCK
from opsbrain.runner import scoring
from opsbrain.runner.monitor import Monitor, MonitorParams
from opsbrain.runner.world import World, build_world
from opsbrain.scenario.plan import Plan

NO_ACTION_CLASSES = ("dirty_connector", "hbm_ce_storm", "unknown")
# A response that only watches or shifts traffic does not count as acting on an incident; anything that takes a part
# out of service, restarts work or hands a person work (ticket, page) does, and on noise that is a false positive.
PASSIVE_ACTIONS = ("none", "wait", "reroute", "drain_link", "undrain_link")  # routing: no capacity lost
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


def run_plan(plan: Plan, engine: Engine, progress: Progress | None = None, dry_run: bool = False,
             bundle_dir: Path | None = None) -> dict[str, Any]:
    """Run a plan to its end (or abort) and return the journal. With ``bundle_dir``, also write a log bundle per
    journal incident into ``bundle_dir/<incident id>/`` (issue 9; listed under the journal's ``bundles``)."""
    wall0 = time.perf_counter()
    world = build_world(plan, engine, dry_run=dry_run)
    sim = world.sim
    spec = plan.scenario.spec
    mon_params = (MonitorParams() if plan.monitor_interval_s is None
                  else MonitorParams(probe_interval_s=plan.monitor_interval_s))
    mon = Monitor(sim, spec.steady_state.probes, spec.guards, spec.steady_state.tolerance_s, params=mon_params)
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
        "launch_config": {name: hccl_launch_env(w.p) for name, w in world.sim.workloads.items()
                          if w.kind == "training"},  # the HCCL environment each training job was launched with
        "incidents": incidents,
        "workloads": [{"name": name, **acc} for name, acc in accounting_end.items()],
        "recovery": world.orchestrator.report(),
        "sweeps": world.sweeper.report(world.orchestrator.actions_for) if world.sweeper else {"enabled": False},
        "summary": summarize(incidents, faults, world, time.perf_counter() - wall0),
        "series": journal_series(world, incidents),
    }
    out = dict(_clean(journal))
    if bundle_dir is not None:
        from opsbrain.bundle.writer import write_run_bundles

        out["bundles"] = write_run_bundles(world, out, bundle_dir)
    return out


SERIES_MAX_POINTS = 2000  # per workload: keeps a week-long journal small (reason: report plots, not analysis)
SERIES_MARGIN_S = 300.0  # change points kept exactly from this long before an incident to this long after it


def journal_series(world: World, incidents: list[dict[str, Any]]) -> dict[str, Any]:
    """Per-workload rate histories for reports: training (t, steps/s); inference (t, decode tokens/s, TPOT ms).

    Piecewise-constant change points, capped at SERIES_MAX_POINTS per workload; around incidents the points are
    kept exactly (see :func:`downsample`)."""
    windows = []
    for i in incidents:
        t0 = (i["injected"] or {}).get("at_s", i.get("detected_at_s"))
        if t0 is None:
            continue
        t1 = i.get("recovered_at_s") or max([t0] + [a.get("start_s") or t0 for a in i.get("actions", [])])
        windows.append((t0 - SERIES_MARGIN_S, t1 + SERIES_MARGIN_S))
    out: dict[str, Any] = {}
    for name, w in world.sim.workloads.items():
        if w.kind == "training":
            fields = ["t", "steps_per_s"]
            pts = [(float(t), float(r)) for t, r in w.rate_history()]
        else:
            fields = ["t", "decode_tokens_per_s", "tpot_ms"]
            pts = [(float(s["t"]), float(s["decode_tokens_per_s"]), float(s["tpot_ms"])) for s in w.rate_history()]
        kept = downsample(pts, windows, SERIES_MAX_POINTS)
        out[name] = {"kind": w.kind, "fields": fields, "points": kept, "points_total": len(pts)}
    return out


def downsample(points: list[tuple[float, ...]], windows: list[tuple[float, float]],
               cap: int) -> list[tuple[float, ...]]:
    """At most ``cap`` of the change points ``points`` (sorted by t): all of them when they fit; otherwise the
    first and last, those inside ``windows`` (min/max-thinned when they alone exceed 3/4 of the cap), and min/max
    per bucket of the rest, so dips and peaks survive."""
    if len(points) <= cap:
        return list(points)

    def minmax(idx: list[int], n: int) -> set[int]:
        if len(idx) <= n:
            return set(idx)
        buckets = max(1, n // 2)
        keep: set[int] = set()
        for b in range(buckets):
            part = idx[b * len(idx) // buckets:(b + 1) * len(idx) // buckets]
            if part:
                keep.add(min(part, key=lambda k: points[k][1]))
                keep.add(max(part, key=lambda k: points[k][1]))
        return keep

    merged: list[list[float]] = []
    for a, b in sorted(windows):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    starts = [m[0] for m in merged]

    def within(t: float) -> bool:
        j = bisect_right(starts, t) - 1
        return j >= 0 and t <= merged[j][1]

    inside = [k for k, p in enumerate(points) if within(p[0])]
    keep = {0, len(points) - 1} | minmax(inside, cap * 3 // 4)
    inside_set = set(inside)
    rest = [k for k in range(len(points)) if k not in inside_set]
    keep |= minmax(rest, max(0, cap - len(keep)))
    return [points[k] for k in sorted(keep)]


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
        detected = (primary.opened_at if primary.detected_at is None else primary.detected_at) if primary else None
        manual = [orch.incident(k) for k in keys] if plan.policy in ("manual", "vendor-default") else []
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
        out[-1].update(_lead_time(sim, f, detected, primary is not None and primary.id in ctl.adopted))
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
                    "false_positive": (d is None or d.fault_class != WORKLOAD_STUCK) and (
                        _acted(actions) or (d is not None and d.fault_class not in NO_ACTION_CLASSES)),
                    "impact": {}})
    return out


def _link_down_at(sim: Any, f: ActiveFault) -> float | None:
    """When the fault took its link down; an optical degradation ends by taking the link down (when the link was
    drained before, the model's last step is that moment: the link would have gone down then)."""
    down = next((e.t for e in sim.trace.events if e.kind == "health" and e.subject == f.target
                 and e.detail.get("new") == "failed" and e.detail.get("cause") == f"fault:{f.id}"), None)
    if down is None and f.kind == "optical_degradation":
        down = f.ended_at_s
    return down


def _lead_time(sim: Any, f: ActiveFault, detected: float | None, swept: bool) -> dict[str, Any]:
    """Issue 7: who detected the fault, and for a link fault caught before its link went down, the lead time
    (link down - detection)."""
    down = _link_down_at(sim, f) if f.target in sim.topology.links else None
    lead = down - detected if down is not None and detected is not None and detected < down else None
    return {"detected_by": None if detected is None else "sweep" if swept else "detector", "link_down_at_s": down,
            "lead_time_s": lead}


def _acted(actions: list[dict[str, Any]]) -> bool:
    """Whether a response did something to the plant or paged a person (not just watched)."""
    return any(a.get("kind") == "step" and a.get("action") not in PASSIVE_ACTIONS and a.get("status") != "skipped"
               for a in actions)


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
            if e.no_action and _acted(i["actions"]):
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
