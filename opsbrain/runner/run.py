"""The chaos runner: build the world, run it, score the diagnoses against the injected truth, write the journal.

The journal follows the contract in DESIGN.md. It is complete whatever happens: an abort by a guard, an operator's
Ctrl-C or a failing action all end in a journal with a verdict (``aborted`` when the run did not reach its end).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from faultlib.faults.base import ActiveFault
from faultlib.workloads.inference import InferenceService
from faultlib.workloads.training import TrainingJob
from opsbrain import stats
from opsbrain.detection import Incident
from opsbrain.detection.detector import collective_failure
from opsbrain.diagnosis.engine import Engine
from opsbrain.recovery.params import hccl_launch_env
from opsbrain.recovery.schema import WORKLOAD_STUCK
from opsbrain.report.workloads import summary_lists
from opsbrain.runner import dips, scoring
from opsbrain.runner.censor import detection
from opsbrain.runner.expectations import acted, check_expectations, check_report, mark_symptoms
from opsbrain.runner.gcpace import long_run_gc
from opsbrain.runner.impact import attribute_impact, measurable, unattributed
from opsbrain.runner.monitor import Monitor, MonitorParams
from opsbrain.runner.recoverytime import (  # noqa: F401 (recovery_kind: tests import it from here)
    breach_series,
    fault_ttr,
    health_changes,
    lead_time,
    recoveries,
    recovery_kind,
    service_state,
)
from opsbrain.runner.responses import fault_events, placed, respond
from opsbrain.runner.series import journal_series
from opsbrain.runner.triggers import never_fired, not_reached
from opsbrain.runner.world import World, build_world
from opsbrain.scenario.plan import Plan
from opsbrain.stophold import StopHold
from opsbrain.verdict import is_noise, person_steps, run_verdict

NO_ACTION_CLASSES = ("dirty_connector", "hbm_ce_storm", "unknown")
Progress = Callable[[float, float], None]


def _clean(x: Any) -> Any:
    """JSON-safe: no inf/nan, tuples as lists, floats rounded to microseconds (no -0.0)."""
    if isinstance(x, float):
        return None if not math.isfinite(x) else round(x, 6) + 0.0  # -0.0 + 0.0 == 0.0
    if isinstance(x, dict):
        return {str(k): _clean(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_clean(v) for v in x]
    return x


def run_plan(plan: Plan, engine: Engine, progress: Progress | None = None, dry_run: bool = False,
             bundle_dir: Path | None = None, hold: StopHold | None = None) -> dict[str, Any]:
    """Run a plan to its end (or abort) and return the journal. With ``bundle_dir``, also write a log bundle per
    journal incident into ``bundle_dir/b0001/``, ... (issue 9; named by :func:`opsbrain.bundle.writer.bundle_names`,
    listed under the journal's ``bundles`` with the incident each holds). The whole run, scoring included, is at
    the long-run collector pace (:func:`opsbrain.runner.gcpace.long_run_gc`; session 38: here, so that campaigns,
    sweeps and benchmarks calling this directly get it too, not only ``opsbrain.chaos.run``). A stop after the
    simulation is held while the run is scored (:mod:`opsbrain.stophold`): by ``hold``, which the caller releases
    once the journal is stored, else until the journal is built."""
    with long_run_gc():
        own = hold or StopHold()
        try:
            journal = _run_plan(plan, engine, progress, dry_run, bundle_dir, own)
        finally:
            noted = None if hold else own.release()
        StopHold.redeliver(noted)
        return journal


def _run_plan(plan: Plan, engine: Engine, progress: Progress | None, dry_run: bool,
              bundle_dir: Path | None, hold: StopHold) -> dict[str, Any]:
    wall0 = time.perf_counter()
    started_at = _utc_now()
    # a triggered fault tells the monitor its onset (no baseline is taken after it)
    world = build_world(plan, engine, dry_run=dry_run, on_inject=lambda s: mon.onsets.append(s.at_s))
    sim = world.sim
    spec = plan.scenario.spec
    mon_params = (MonitorParams() if plan.monitor_interval_s is None
                  else MonitorParams(probe_interval_s=plan.monitor_interval_s))
    mon = Monitor(sim, spec.steady_state.probes, spec.guards, spec.steady_state.tolerance_s, params=mon_params)
    mon.onsets = [s.at_s for s in plan.timeline]
    abort = mon.start()
    first_fault = min(mon.onsets, default=spec.duration)
    before_t = max(0.0, min(first_fault - mon.params.fault_margin_s, mon.params.baseline_at_s))
    steady_before: dict[str, Any] = {}
    status = "finished"
    try:
        sim.run(before_t)
        mon.take_baseline()  # at the last fault-free moment (docs/scenarios.md, "Steady state")
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
    hold.start()  # the run is over: scoring and storing it are not cut by a stop (held, then honoured)
    end = sim.now
    accounting_end = {name: w.accounting() for name, w in sim.workloads.items()}
    steady_after = mon.snapshot(end)
    nominal = mon.baseline_at_s_rate()
    incidents = score(world, plan, end, accounting_end, nominal)
    fault_index = world.triggers.fault_index if world.triggers else {}
    mark_symptoms(plan, incidents, fault_index)
    onsets: dict[float, bool] = {}
    for i in incidents:
        if i["injected"] is not None:
            t = float(i["injected"]["at_s"])
            onsets[t] = onsets.get(t, True) and i.get("detection") == "censored"
    unjudged = mon.unjudged_at_end(steady_after, onsets)
    for name in unjudged:
        steady_after[name]["ok"] = None  # not judged: only censored faults since it was last in band
    deviated = mon.deviated() or any(v["ok"] is False for v in steady_after.values())
    expectations = check_expectations(plan, incidents, fault_index,
                                      {name: _series(w) for name, w in sim.workloads.items()}, nominal, end)
    hypothesis = "deviated" if deviated else "unchecked" if unjudged else mon.hypothesis()
    verdict, verdict_reason = run_verdict(status, hypothesis, mon.unchecked, expectations, unjudged)
    faults = [i for i in incidents if i["injected"] is not None and not i.get("symptom_of")]  # symptoms: with cause
    triggers = world.triggers.report() if world.triggers else []
    workloads = [{"name": name, **acc, "unattributed": unattributed(acc, name, incidents)}
                 for name, acc in accounting_end.items()]
    series = journal_series(world, incidents)
    journal = {
        **journal_header(plan, started_at, world.sim.params.telemetry.epoch),
        "scenario": plan.scenario.metadata.name, "description": plan.scenario.metadata.description,
        "seed": plan.seed, "policy": plan.policy, "verdict": verdict, "verdict_reason": verdict_reason,
        "status": status,
        "expected_verdict": plan.scenario.metadata.expected_verdict,
        "expected_reason": plan.scenario.metadata.expected_reason,
        "abort_reason": mon.aborted or ("interrupted by the operator" if status == "interrupted" else None),
        "duration_s": spec.duration, "ended_at_s": end,
        "steady_state": {"before": steady_before, "after": steady_after, "deviated": deviated,
                         "hypothesis": hypothesis,
                         "baseline": mon.baseline, "baseline_source": mon.baseline_source,
                         "unchecked": mon.unchecked, "unjudged": unjudged, "deviation_s": mon.deviation_s,
                         "longest_deviation_s": mon.worst_streak_s, "tolerance_s": spec.steady_state.tolerance_s},
        "expectations": expectations,
        "launch_config": {name: hccl_launch_env(w.p) for name, w in world.sim.workloads.items()
                          if isinstance(w, TrainingJob | InferenceService)},  # each workload's HCCL environment
        "incidents": incidents,
        "workloads": workloads,
        "recovery": world.orchestrator.report(),
        "sweeps": world.sweeper.report(world.orchestrator.actions_for) if world.sweeper else {"enabled": False},
        "summary": summarize(incidents, faults, world, time.perf_counter() - wall0)
        | summary_lists(workloads, series, end)  # each workload's end state as the workload table says it
        | {"triggers_never_fired": never_fired(triggers),  # faults never injected: said, not silently dropped
           "faults_not_reached": not_reached(plan, end, triggers)},  # ... nor those due after a run that ended early
        "series": series,
        "triggers": triggers,
    }
    out = dict(_clean(journal))
    if any("pending" in e for e in expectations):
        from opsbrain.report import render_run_report

        check_report(out["expectations"], lambda: render_run_report(out, "md"))
        out["verdict"], out["verdict_reason"] = run_verdict(status, hypothesis, mon.unchecked, out["expectations"],
                                                            unjudged)
    if bundle_dir is not None:
        from opsbrain.bundle.writer import write_run_bundles
        from opsbrain.runner.evidence import locate_run_evidence

        out["bundles"] = write_run_bundles(world, out, bundle_dir)
        locate_run_evidence(out)  # the evidence lines as file:line of the bundles just written
    return out


def _utc_now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).isoformat(timespec="milliseconds")


def journal_header(plan: Plan, started_at: str, sim_epoch: str) -> dict[str, Any]:
    """What makes a journal self-describing (its JSON Schema: :mod:`opsbrain.runner.journal_schema`): the schema
    version, the tool that wrote it, the run's wall-clock start and end (UTC), the simulated clock's time at t=0
    (the time the twin's logs print, for matching a timeline to log lines) and the scenario it ran, embedded."""
    from opsbrain import __version__
    from opsbrain.runner.journal_schema import SCHEMA_VERSION

    return {"schema_version": SCHEMA_VERSION, "tool": {"name": "opsbrain", "version": __version__},
            "started_at": started_at, "finished_at": _utc_now(), "sim_epoch": sim_epoch,
            "scenario_definition": plan.scenario.model_dump(mode="json")}


def _series(w: Any) -> scoring.Series:
    if w.kind == "training":
        return [(float(t), float(r)) for t, r in w.rate_history()]
    return [(float(s["t"]), float(s["decode_tokens_per_s"])) for s in w.rate_history()]


def _root(inc: Incident) -> str | None:
    """The component the incident's latest diagnosis names (None when it abstained or has none)."""
    d = inc.diagnosis
    return None if d is None or d.abstained else d.component


def score(world: World, plan: Plan, end: float, accounting_end: dict[str, dict[str, Any]],
          nominal: dict[str, float] | None = None) -> list[dict[str, Any]]:
    """One journal entry per injected fault that began, plus one per incident that matches none."""
    sim, ctl, orch = world.sim, world.controller, world.orchestrator
    began = {e.detail.get("id") for e in sim.trace.of_kind("fault")}
    truths: list[ActiveFault] = [f for f in sim.faults if f.at_s <= end and f.id in began]
    # a fault that changed nothing (quiet_s unbounded: on a host already stopped) is no incident's cause
    faults = [(f.id, f.kind, f.target, f.at_s, f.ended_at_s) for f in truths if not math.isinf(f.quiet_s)]
    incs = {i.id: i for i in ctl.incidents}
    # the parts each incident names as its subjects: a rank reporting a collective's wait is a witness (session 43)
    # (an incident opened outside the detector, a sweep's proactive one, names its part with no signal: kept)
    subjects = {i.id: scoring.subject_components(i.signals) | (i.components - {s.component for s in i.signals})
                for i in ctl.incidents}
    matched = scoring.match_incidents(faults, [(i.id, i.opened_at, subjects[i.id]) for i in ctl.incidents],
                                      horizon_s=24 * 3600.0, roots={i.id: _root(i) for i in ctl.incidents})
    covering_in = [(i.id, i.opened_at, i.opened_at if i.detected_at is None else i.detected_at, subjects[i.id],
                    [(s.t, s.component) for s in i.signals]) for i in ctl.incidents]
    covered = scoring.covered_faults(faults, covering_in, 24 * 3600.0, skip=set(matched.values()))
    series = {name: _series(w) for name, w in sim.workloads.items()}
    breaches = {name: br for name, w in sim.workloads.items() if (br := breach_series(w)) is not None}
    out: list[dict[str, Any]] = []
    changes = health_changes(sim)
    by_part: dict[str, scoring.PartIndex] = {}  # a covering incident's signals by the part they name
    harms: list[scoring.Harm] = []  # what each fault's workloads suffered, and until when (consequences)
    windows: dict[str, list[scoring.Window]] = {}  # workload -> each touching fault's impact windows on it
    ctx = [respond(world, plan, f, incs, matched, covered, end) for f in truths]
    covering = {inc_id for inc_id, _at in covered.values()}
    others = [a for inc in ctl.incidents if inc.id not in matched and inc.id not in covering
              for k in ctl.handled.get(inc.id, []) for a in orch.actions_for(k)]
    events = fault_events(sim, ctx)
    causes = {name: dips.build_causes(w, events, {c.f.id: set(c.affected) for c in ctx},
                                      sim.trace.events, others, end) for name, w in sim.workloads.items()}
    sweep = world.sweeper.params if world.sweeper else None  # its trend can flag an optical decay early
    histories = {name: w.rate_history() for name, w in sim.workloads.items() if isinstance(w, InferenceService)}
    steps_with = human_step_owners(ctx)
    for c in ctx:
        f, detected, diag, diag_at, actions, affected = c.f, c.detected, c.diag, c.diag_at, c.actions, c.affected
        bars = {w: b for w in affected if (b := scoring.nominal_at(sim.workloads[w], f.at_s, (nominal or {}).get(w)))
                is not None}
        degraded = scoring.degraded_after(actions, sim.workloads)
        service, dark = service_state(sim, changes, f, actions, end)
        recs, units = recoveries(f, affected, series, histories, causes, end, bars, c.window_end,
                                  {d["workload"]: d["rate"] for d in degraded}, breaches)
        raw = fault_ttr(f, affected, recs, actions, service, dark is not None)
        ttr = scoring.credited_ttr(raw, detected)
        fault_windows: dict[str, list[scoring.Window]] = {}
        for w in affected:
            redo = getattr(sim.workloads[w], "redo_until", None)
            fault_windows[w] = ([(f.id, f.at_s, end)] if dark is not None
                                else recs[w].windows(f.id, f.at_s, end, redo))
            windows.setdefault(w, []).extend(fault_windows[w])
        where = placed(sim, f.at_s, c.window_end)
        harms.append((f.id, f.at_s, end if ttr is None else f.at_s + ttr, {n for w in affected for n in where[w]}))
        runbooks = [orch.incident(k).get("runbook") for k in c.keys]
        handed = next((h for k in c.keys if (r := orch.records.get(k)) and (h := r.extra.get("handed_to"))), None)
        cls = diag["fault_class"] if diag else None
        comp = diag["component"] if diag else None
        out.append({
            "id": f.id, "injected": scoring.injected(f),
            "incident_ids": [i.id for i in c.mine],
            **({"covered_by": c.cover.id} if c.cover else {}),  # folded into the incident matched to another fault
            "detected_at_s": detected, **detection(sim, f, detected, end, ctl.detector.p.reorder_s, sweep),
            "diagnosis": diag,
            "runbook": next((r for r in reversed(runbooks) if r), None),
            "actions": actions, "affected_workloads": affected,
            **({"handed_to": handed} if handed else {}),  # its doomed restart stopped, its job left to that incident
            "recovered_at_s": None if ttr is None else f.at_s + ttr,
            "ttd_s": None if detected is None else detected - f.at_s,
            "ttdiag_s": None if diag_at is None else diag_at - f.at_s,
            "ttr_s": ttr, "recovery": recovery_kind(f.at_s, ttr, detected), "class_correct": cls == f.kind,
            "localized": scoring.localized(f.kind, f.target, comp),
            "correct": cls == f.kind and scoring.localized(f.kind, f.target, comp),
            "degraded": [{k: v for k, v in d.items() if k != "rate"} for d in degraded],  # recovered scaled in
            **({"still_out_of_service": dark} if dark is not None else {}),  # a link only drained, still dark
            **human_steps(c, sum(orch.incident(k).get("human_steps", 0) for k in c.keys), steps_with),
            "impact": {},  # below, once every fault's impact window is known (:func:`scoring.loss_owners`)
            **signal_lines([sg for inc in c.mine for sg in inc.signals] if c.cover is None else
                           _signals_of(c.cover, by_part).items_naming(f.target)),
        })
        out[-1]["_units"] = {w: (sorted(u), dips.unit_seconds(dips.units_out(histories[w], u), [  # unmasked
            (f.id, f.at_s, end if (t := recs[w].ttr) is None else f.at_s + t)], end)) for w, u in units.items() if u}
        out[-1].update(lead_time(sim, f, detected, c.primary is not None and c.primary.id in ctl.adopted))
    attribute_impact(out, windows, sim.workloads, accounting_end, end)
    for e in out:
        e.update(measurable(e, e.pop("_units")))
    for inc in ctl.incidents:
        if inc.id in matched or inc.id in covering:  # a fault's incident (the one it was folded into too)
            continue
        d = inc.diagnosis
        keys = ctl.handled.get(inc.id, [])
        actions = [a for k in keys for a in orch.actions_for(k)]
        cause = scoring.consequence_of(inc.nodes | inc.job_nodes, inc.opened_at, harms) if _workload_reports(
            inc, ctl.placement) else None
        fp = cause is None and inc.id not in ctl.duplicates and (d is None or d.fault_class != WORKLOAD_STUCK) and (
            acted(actions) or (d is not None and d.fault_class not in NO_ACTION_CLASSES))
        out.append({"id": inc.id, "injected": None, "incident_ids": [inc.id], "detected_at_s": inc.opened_at,
                    "diagnosis": d.as_dict() if d else None, "runbook": None, "actions": actions,
                    "recovered_at_s": None, "ttd_s": None, "ttdiag_s": None, "ttr_s": None, "correct": False,
                    "class_correct": False, "localized": False,
                    "false_positive": fp, "joined": ctl.duplicates.get(inc.id),  # the incident that covered it
                    **({"consequence_of": cause} if cause else {}),  # the fault whose workload reported it
                    "impact": {}, **signal_lines(inc.signals, MAX_SIGNAL_LINES if fp else MAX_NOISE_SIGNAL_LINES)})
    return out


def human_step_owners(ctx: list[Any]) -> dict[str, str]:
    """Incident id -> the one fault its human steps are counted with: the fault it is matched to, else (an incident
    that only covers folded faults) the earliest of those. Each step is counted once, in one fault's figures."""
    out = {inc.id: c.f.id for c in ctx for inc in c.mine}
    for c in sorted(ctx, key=lambda c: (c.f.at_s, c.f.id)):
        if c.cover is not None:
            out.setdefault(c.cover.id, c.f.id)
    return out


def human_steps(c: Any, steps: int, owners: dict[str, str]) -> dict[str, Any]:
    """A fault's ``human_steps``: the steps a person took on its own incidents. A folded fault (``covered_by``) says
    so in ``human_steps_folded`` (the covering incident, its steps and the fault they are counted with) and counts
    them only when it is that fault, so that per-fault sums and means count each step once."""
    if c.cover is None:
        return {"human_steps": steps}
    owner = owners[c.cover.id]
    return {"human_steps": steps if owner == c.f.id else 0,
            "human_steps_folded": {"into": c.cover.id, "steps": steps, "counted_with": owner}}


def _signals_of(inc: Incident, cache: dict[str, scoring.PartIndex]) -> scoring.PartIndex:
    """``inc``'s signals indexed by the part they name (built once per incident)."""
    if inc.id not in cache:
        cache[inc.id] = scoring.PartIndex((s.component, s) for s in inc.signals if s.component)
    return cache[inc.id]


def _workload_reports(inc: Incident, placement: dict[str, list[str]]) -> bool:
    """Whether every signal of an incident is a workload's own report: a rank saying a collective failed, or a job
    event (its kind ``job:...``, whether it names the job or the device the scheduler saw fail: an instance that went
    down when its HCCL re-executions ran out names a device of the reporting node, not the fault's part;
    :func:`scoring.consequence_of` attributes such an incident by blast radius and time)."""
    return bool(inc.signals) and all(collective_failure(s) or s.component in placement or s.kind.startswith("job:")
                                     for s in inc.signals)


MAX_SIGNAL_LINES = 12  # per incident (reason: the evidence a report quotes; a week-long journal stays small)
MAX_NOISE_SIGNAL_LINES = 3  # reason: background events are counted, not investigated; a month of them stays small


def signal_lines(signals: list[Any], limit: int = MAX_SIGNAL_LINES) -> dict[str, Any]:
    """The log lines behind an incident's signals, for reports' timelines and evidence: at most ``limit``
    (:data:`MAX_SIGNAL_LINES`; :data:`MAX_NOISE_SIGNAL_LINES` for background events not acted on) distinct lines
    -- the first line of each signal kind, then the earliest others -- in time order (``t_s``, ``host``,
    ``severity``, the ``kinds`` the line gave, its ``text`` as the device or program printed it), and
    ``signals_total``, the count of all signals. One line per kind first, so a burst of one kind
    (forty switch ports reporting a dead node) does not hide the line that names the cause."""
    lines: dict[tuple[float, str | None, str], dict[str, Any]] = {}
    for sg in sorted(signals, key=lambda x: x.t):
        if (entry := lines.get(key := (sg.t, sg.host, sg.text))) is None:  # a dict built only for a new line
            entry = lines[key] = {"t_s": sg.t, "host": sg.host, "severity": sg.severity, "kinds": [], "text": sg.text}
        entry["severity"] = max(entry["severity"], sg.severity)
        if sg.kind not in entry["kinds"]:
            entry["kinds"].append(sg.kind)
    order = list(lines.values())
    keep: list[int] = []
    seen: set[str] = set()
    for k, e in enumerate(order):  # the first line of each kind
        if len(keep) < limit and not seen.issuperset(e["kinds"]):
            keep.append(k)
            seen.update(e["kinds"])
    chosen = set(keep)
    rest = [k for k in range(len(order)) if k not in chosen]
    keep += rest[:limit - len(keep)]
    return {"signals": [order[k] for k in sorted(keep)], "signals_total": len(signals)}


def summarize(incidents: list[dict[str, Any]], faults: list[dict[str, Any]], world: World,
              wall_s: float) -> dict[str, Any]:
    """The run's figures. ``median_ttr_s`` is over the faults recovered after their detection (the ones that needed
    a response); those back before it (self-healed, no action needed) are counted apart with their own median, so a
    run of flaps that heal in a second does not report a 1 s median beside restarts of minutes."""
    ttrs = [i["ttr_s"] for i in faults if i["ttr_s"] is not None and i.get("recovery") != "before_detection"]
    early = [i["ttr_s"] for i in faults if i.get("recovery") == "before_detection"]
    fps = [i for i in incidents if i["injected"] is None and i.get("false_positive")]
    ms = world.controller.diagnosis_ms
    return {
        "incidents": len(faults), "detected": sum(i["detected_at_s"] is not None for i in faults),
        "missed": sum(i.get("detection") == "missed" for i in faults),
        "censored": sum(i.get("detection") == "censored" for i in faults),  # no time left to detect: not missed
        "diagnosed_correctly": sum(bool(i["correct"]) for i in faults),
        "class_correct": sum(bool(i["class_correct"]) for i in faults),
        "recovered": sum(i["ttr_s"] is not None for i in faults),
        "recovered_after_detection": len(ttrs), "recovered_before_detection": len(early),
        "recovered_degraded": sum(i["ttr_s"] is not None and bool(i.get("degraded")) for i in faults),
        "handled_without_human": sum(i["ttr_s"] is not None and person_steps(i) == 0 for i in faults),
        # recovered with no person's step (on its own incident or the one it was folded into): a fault nothing
        # handled (missed, never recovered) is none
        "false_positives": len(fps),
        "noise_incidents": sum(is_noise(i) for i in incidents),
        "median_ttr_s": stats.median(ttrs),  # after detection only; the median of opsbrain.stats (session 36)
        "median_ttr_before_detection_s": stats.median(early),
        "diagnosis_ms_mean": sum(ms) / len(ms) if ms else None, "wall_s": wall_s,
        "events": len(world.sim.trace),
    }
