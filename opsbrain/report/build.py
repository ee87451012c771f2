"""Journal -> report model: the facts of a run, ready for the HTML, Markdown and JSON renderers.

The model is plain JSON-able data (``report_version`` 2, described in docs/reports.md; 2 added severity, the
merged timeline with clock times, evidence lines and next steps: :mod:`opsbrain.report.postmortem`; what each
incident's response did: :mod:`opsbrain.report.response`). Every number in it is the journal's own (ttd/ttdiag/ttr,
confidence, action counts, impact) or derived from it in one stated step (the dip of a workload's rate, read from
the journal's ``series``). Nothing here reads the simulator.
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any

from opsbrain.report import postmortem, response, text, workloads
from opsbrain.verdict import censored_reason, human_steps_note, needs_attention, probe_outcome, trouble

REPORT_VERSION = 2
RECOVERY_SHARE = 0.95  # DESIGN.md: recovered = back at >= 95% of the pre-fault rate
# Incidents shown in full with plots (about a second of rendering each); the rest go into a table.
# reason: a week-long run has hundreds of incidents; a report must stay quick to make and to read.
MAX_DETAILED_FAULTS = 25
MAX_DETAILED_FALSE_POSITIVES = 5
NOISE_CLASSES = ("dirty_connector", "hbm_ce_storm", "unknown")


_TICKET_KEYS = ("component", "kind", "reason", "opened_at_s", "incident")
"""The keys of an open ticket the reports print."""


def kb_info(class_ids: list[str]) -> dict[str, dict[str, str]]:
    """Title, description and suggestion of fault classes from the knowledge base ({} when it cannot load)."""
    try:
        from opsbrain.kb import load_kb

        kb = load_kb()
    except Exception:  # noqa: BLE001 - a report must render even without a readable knowledge base
        return {}
    out = {}
    for c in class_ids:
        if c in kb:
            fc = kb.get(c)
            out[c] = {"title": fc.title, "description": fc.description, "suggestion": fc.suggestion}
    return out


def build_run_report(journal: dict[str, Any], baseline: dict[str, Any] | None = None,
                     kb: dict[str, dict[str, str]] | None = None) -> dict[str, Any]:
    """The report model of one run. ``baseline`` (a manual-policy journal of the same scenario) overrides the
    journal's own ``baseline`` key; ``kb`` maps class ids to their words (default: the knowledge base)."""
    baseline = baseline if baseline is not None else journal.get("baseline")
    incs = list(journal.get("incidents") or [])
    classes = sorted({c for i in incs for c in ((i.get("diagnosis") or {}).get("fault_class"),
                                                (i.get("injected") or {}).get("kind")) if c})
    words = kb if kb is not None else kb_info(classes)
    series = journal.get("series") or {}
    recovery = journal.get("recovery") or {}
    end = text.run_end(journal)
    base_incs = _baseline_faults(baseline)
    epoch = journal.get("sim_epoch")
    models = [_incident(i, k, series, recovery, words, end, base_incs, epoch) for k, i in enumerate(incs)]
    detailed = ([m for m in models if m["category"] == "fault"][:MAX_DETAILED_FAULTS]
                + [m for m in models if m["category"] == "false_positive"][:MAX_DETAILED_FALSE_POSITIVES])
    for m in detailed:
        m["detailed"] = True
    summary = dict(journal.get("summary") or {})
    faults = [m for m in models if m["category"] == "fault"]
    return {
        "kind": "run", "report_version": REPORT_VERSION,
        "run": {k: journal.get(k) for k in ("run_id", "scenario", "description", "seed", "policy", "verdict",
                                             "status", "abort_reason", "duration_s", "ended_at_s", "started_at",
                                             "finished_at", "sim_epoch", "campaign_id")}
        | {"tool": journal.get("tool") or {}, "schema_version": journal.get("schema_version"),
           "simulated": text.simulated(journal.get("duration_s"), journal.get("ended_at_s")),
           "sim_start": postmortem.clock(epoch, 0.0),
           "sim_end": postmortem.clock(epoch, end)},
        "severity": postmortem.run_severity(models),
        "timeline": postmortem.run_timeline(models, epoch),
        "headline": _headline(journal, faults),
        "summary": summary,
        "never_fired": text.never_fired(journal) + text.not_reached(journal),
        "steady_state": _steady(journal.get("steady_state") or {}),
        "expectations": journal.get("expectations") or [],
        "incidents": models,
        "counts": {"faults": len(faults), "false_positives": sum(m["category"] == "false_positive" for m in models),
                   "noise": sum(m["category"] == "noise" for m in models),
                   "attention": sum(m["category"] == "attention" for m in models), "detailed": len(detailed),
                   # session 44: actions taken, apart from skipped steps and watching or waiting (all: steps)
                   "actions": sum(m["action_split"]["taken"] for m in models),
                   "actions_skipped": sum(m["action_split"]["skipped"] for m in models),
                   "actions_watch": sum(m["action_split"]["watch"] for m in models),
                   "steps": sum(m["action_count"] for m in models)},
        "workloads": [_workload(w) | {"end_state": workloads.end_state(w, series, end)}
                      for w in journal.get("workloads") or []],
        "workload_table": workloads.table(list(journal.get("workloads") or []), series, end),
        "recovery": {"spares_left": recovery.get("spares_left", []), "isolated": recovery.get("isolated", []),
                     "open_tickets": [{k: t.get(k) for k in _TICKET_KEYS} for t in recovery.get("open_tickets") or []
                                      if isinstance(t, dict)],  # each key there, None where a journal lacks it
                     "spares_exhausted": recovery.get("spares_exhausted", []),
                     "guardrail_refusals": recovery.get("guardrail_refusals", []),
                     "human_steps": recovery.get("human_steps"), "outcomes": recovery.get("outcomes", {})},
        "baseline": _baseline_summary(baseline, journal),
    }


# ---- one incident ------------------------------------------------------------------------------------
def _incident(inc: dict[str, Any], index: int, series: dict[str, Any], recovery: dict[str, Any],
              words: dict[str, dict[str, str]], end: float | None,
              base_incs: list[dict[str, Any]], epoch: str | None = None) -> dict[str, Any]:
    inj = inc.get("injected")
    diag = inc.get("diagnosis")
    actions = list(inc.get("actions") or [])
    if inj is not None:
        category = "fault"
    elif inc.get("false_positive"):
        category = "false_positive"
    elif needs_attention(inc):  # no injected fault explains it, yet no background event: a workload down, ...
        category = "attention"
    else:
        category = "noise"
    onset = inj.get("at_s") if inj else None
    t0 = onset if onset is not None else inc.get("detected_at_s")
    diag_at = (diag or {}).get("at_s")
    affected = list(inc.get("affected_workloads") or [])
    dips = [d for d in (_dip(series.get(w), w, t0, inc.get("recovered_at_s"), end) for w in affected) if d]
    inferred: list[str] = []
    if not affected and category == "fault" and series:
        cand = [_dip(series[w], w, t0, inc.get("recovered_at_s"), end) for w in sorted(series)]
        dips = [d for d in cand if d and d["min_share"] is not None and d["min_share"] < RECOVERY_SHARE]
        inferred = [d["workload"] for d in dips]
    ttd = inc.get("ttd_s")
    model = {
        "id": inc.get("id", f"#{index}"), "category": category, "detailed": False,
        "title": _title(inc, words),
        "injected": inj, "onset_s": onset, "t0_s": t0,
        "detected_at_s": inc.get("detected_at_s"), "diagnosed_at_s": diag_at,
        "recovered_at_s": inc.get("recovered_at_s"), "still_out_of_service": inc.get("still_out_of_service"),
        "ttd_s": ttd, "ttdiag_s": inc.get("ttdiag_s"), "ttr_s": inc.get("ttr_s"), "recovery": inc.get("recovery"),
        "lead_time_s": -ttd if ttd is not None and ttd < 0 else None,
        "diagnosis": _diagnosis(diag, words) if diag else None,
        "root_cause": _root_cause(inc, words),
        "grading": _grading(inc),
        "runbook": inc.get("runbook"),
        "actions": [response.action(a, t0) for a in actions],
        "action_count": len(actions), "action_split": response.step_split(actions),
        "action_groups": response.groups(actions),
        "affected_workloads": affected, "affected_inferred": inferred,
        "dips": dips,
        "impact": inc.get("impact") or {},
        "impact_words": _impact_words(inc.get("impact") or {}, inc.get("impact_shared_with") or {})
        + ([f"not measurable: {inc['impact_note']}"] if inc.get("impact_measurable") is False else []),
        "human_steps": inc.get("human_steps", 0),
        "human_steps_note": human_steps_note(inc),  # a folded fault: where its incident's steps are counted
        "followups": response.followups(inc, actions, recovery),
        "components": response.components(inc, actions),
        "timeline": response.timeline(inc, actions, t0),
        "severity": postmortem.incident_severity(inc, category),
        "detected_by": inc.get("detected_by"),
        "onset_clock": postmortem.clock(epoch, onset),
        "detected_clock": postmortem.clock(epoch, inc.get("detected_at_s")),
        "signals": postmortem.signal_rows(inc, epoch, t0), "signals_total": inc.get("signals_total"),
        "trouble": trouble(inc) if category == "attention" else None,
    }
    model["baseline"] = _match_baseline(inc, base_incs) if category == "fault" else None
    model["next_steps"] = postmortem.next_steps(model)
    return model


def _title(inc: dict[str, Any], words: dict[str, dict[str, str]]) -> str:
    inj = inc.get("injected")
    if inj:
        kind = inj.get("kind", "?")
        return f"{words.get(kind, {}).get('title', kind)} on {inj.get('component', '?')}"
    d = inc.get("diagnosis") or {}
    cls = d.get("fault_class", "unclassified")
    what = ("false positive" if inc.get("false_positive") else f"consequence of {inc['consequence_of']}"
            if inc.get("consequence_of") else "needs attention" if needs_attention(inc) else "background event")
    return f"{what}: {words.get(cls, {}).get('title', cls)} on {d.get('component', '?')}"


def _diagnosis(d: dict[str, Any], words: dict[str, dict[str, str]]) -> dict[str, Any]:
    cls = d.get("fault_class")
    alts = [{"fault_class": a[0], "confidence": a[1]} if isinstance(a, list | tuple) else a
            for a in d.get("alternatives") or []]
    return {"fault_class": cls, "title": words.get(cls or "", {}).get("title", cls),
            "component": d.get("component"), "confidence": d.get("confidence"),
            "evidence": list(d.get("evidence") or []), "alternatives": alts, "runbook": d.get("runbook"),
            "at_s": d.get("at_s")}


def _root_cause(inc: dict[str, Any], words: dict[str, dict[str, str]]) -> str:
    """The root cause in plain words: what the diagnosis found, how sure it is, and what that class means."""
    d = inc.get("diagnosis")
    if not d:
        return "No diagnosis was made: the incident was not detected or the diagnosis abstained."
    cls = d.get("fault_class", "unknown")
    w = words.get(cls, {})
    if cls == "unknown":
        head = (f"The diagnosis abstained (\"unknown\", confidence {text.conf(d.get('confidence'))}); "
                f"a person has to triage {d.get('component')}.")
    else:
        head = (f"{w.get('title', cls)} at {d.get('component')}, diagnosed with confidence "
                f"{text.conf(d.get('confidence'))}.")
    parts = [head]
    if w.get("description"):
        parts.append(w["description"])
    alts = d.get("alternatives") or []
    if alts:
        parts.append("Also considered: " + ", ".join(f"{a[0]} ({text.pct(a[1])})" for a in alts
                                                      if isinstance(a, list | tuple)) + ".")
    if w.get("suggestion"):
        parts.append("What to do: " + w["suggestion"])
    return " ".join(parts)


def _grading(inc: dict[str, Any]) -> dict[str, Any]:
    """How the diagnosis compares with the injected truth (scoring only, after the fact)."""
    inj = inc.get("injected")
    d = inc.get("diagnosis") or {}
    if not inj:
        return {"graded": False, "correct": None, "words": "no injected fault behind this incident"}
    ok_cls, ok_loc = bool(inc.get("class_correct")), bool(inc.get("localized"))
    if inc.get("correct"):
        words = "correct: class and component match the injected fault"
    elif not d and inc.get("detection") == "censored":  # no time left to detect: graded apart, not a miss
        return {"graded": False, "correct": None, "censored": True, "injected_kind": inj.get("kind"),
                "injected_component": inj.get("component"),
                "words": f"censored: injected {inj.get('kind')} {_censored_words(inc)} ({inc.get('detection_note')})"}
    elif not d:
        words = f"missed: injected {inj.get('kind')} was not diagnosed"
    elif not ok_cls:
        words = f"wrong class: diagnosed {d.get('fault_class')}, injected {inj.get('kind')}"
    else:
        words = f"class right, wrong place: diagnosed {d.get('component')}, injected {inj.get('component')}"
    return {"graded": True, "correct": bool(inc.get("correct")), "class_correct": ok_cls, "localized": ok_loc,
            "injected_kind": inj.get("kind"), "injected_component": inj.get("component"), "words": words}


def _time_lost_words(v: dict[str, Any]) -> str:
    """Where a training job's time went, from the journal's own accounting: down (not running: restarting,
    recovering, waiting for parts), stalled (running but making no step: a hung collective until its timeout)
    and checkpoint stalls; a journal that does not record the stall says so rather than leave it out."""
    parts = [f"{text.human(v.get('downtime_s'))} down"]
    if "stalled_s" in v:
        parts.append(f"{text.human(v.get('stalled_s'))} stalled (up, no step made)")
    else:
        parts.append("stall time not recorded in this journal")
    if v.get("ckpt_stall_s"):
        parts.append(f"{text.human(v.get('ckpt_stall_s'))} in checkpoint stalls")
    return ", ".join(parts)


def _impact_words(impact: dict[str, Any], shared: dict[str, list[str]] | None = None) -> list[str]:
    """The fault's impact per workload; its share when other faults hurt the workload at the same time (the
    journal's ``impact_shared_with``: the workload's loss is split among them, docs/architecture.md)."""
    out = []
    for w, v in sorted(impact.items()):
        if others := (shared or {}).get(w):
            w = f"{w} (its share; shared with {', '.join(others)})"
        if "lost_npu_s" in v:
            out.append(f"{w}: {text.num(v.get('lost_npu_s'), 'NPU-seconds')} lost "
                       f"({text.num((v.get('lost_npu_s') or 0) / 3600, 'NPU-hours', 2)}), "
                       f"{text.num(v.get('redone_steps'), 'steps', 2)} redone, " + _time_lost_words(v))
        else:
            out.append(f"{w}: {text.num(v.get('lost_tokens'), 'tokens')} lost, "
                       f"{text.human(v.get('slo_violation_s'))} in SLO violation"
                       + (f", its instances out {text.human(v['instances_down_s'])} (instance time)"
                          if v.get("instances_down_s") else ""))
    return out


def _dip(entry: dict[str, Any] | None, name: str, t0: float | None, recovered: float | None,
         end: float | None) -> dict[str, Any] | None:
    """How far a workload's main rate fell after ``t0`` and for how long it stayed under 95% of pre-fault."""
    if not entry or t0 is None or not entry.get("points"):
        return None
    pts = [p for p in entry["points"] if p[1] is not None]
    if not pts:
        return None
    ts = [p[0] for p in pts]
    i = bisect_right(ts, t0 - 1e-6) - 1
    pre = pts[i][1] if i >= 0 else pts[0][1]
    stop = recovered if recovered is not None else (end if end is not None else pts[-1][0])
    window = [p for p in pts if t0 - 1e-6 <= p[0] <= stop]
    at_t0 = pts[bisect_right(ts, t0) - 1][1] if bisect_right(ts, t0) > 0 else pre
    low = min([at_t0] + [p[1] for p in window])
    tpot = None
    if entry.get("kind") == "inference" and len(entry.get("fields", [])) > 2:
        vals = [p[2] for p in entry["points"] if t0 - 1e-6 <= p[0] <= stop and p[2] is not None]
        tpot = max(vals) if vals else None
    metric, unit = text.rate_unit(entry.get("kind"))
    return {"workload": name, "kind": entry.get("kind"), "metric": metric, "unit": unit, "pre_rate": pre,
            "min_rate": low, "min_share": low / pre if pre else None, "worst_tpot_ms": tpot,
            "stalled": low == 0.0}


# ---- run level ---------------------------------------------------------------------------------------
def _headline(journal: dict[str, Any], faults: list[dict[str, Any]]) -> str:
    s = journal.get("summary") or {}
    v = str(journal.get("verdict", "?")).upper()
    parts = [f"{journal.get('scenario')}: {v}."]
    if journal.get("verdict_reason"):  # inconclusive: why (docs/scenarios.md, "Verdict")
        parts.append(f"{str(journal['verdict_reason'])[0].upper()}{str(journal['verdict_reason'])[1:]}.")
    if faults:
        early = s.get("recovered_before_detection") or 0
        parts.append(f"{text.count(len(faults), 'fault')}; {s.get('diagnosed_correctly', 0)} diagnosed correctly, "
                     f"{s.get('recovered', 0)} recovered (median ttr after detection "
                     f"{text.both(s.get('median_ttr_s'))})"
                     + (f"; {early} back before detection (healed by itself or needed no action), counted apart"
                        if early else "") + ".")
    else:
        parts.append("No injected fault.")
    if silent := text.never_fired(journal):
        parts.append(f"{text.count(len(silent), 'triggered fault')} never injected: the trigger never fired.")
    if late := text.not_reached(journal):
        parts.append(f"{text.count(len(late), 'scheduled fault')} never injected: {text.run_ended(journal)} first.")
    if s.get("false_positives"):
        parts.append(f"{text.count(s['false_positives'], 'false positive')}.")
    if journal.get("abort_reason"):
        parts.append(f"Aborted: {journal['abort_reason']}.")
    return " ".join(parts)


def _steady(ss: dict[str, Any]) -> dict[str, Any]:
    before, after = ss.get("before") or {}, ss.get("after") or {}
    probes = []
    for name in sorted(set(before) | set(after)):
        b, a = before.get(name) or {}, after.get(name) or {}
        longest = (ss.get("longest_deviation_s") or {}).get(name)
        outcome, tone = probe_outcome(longest, ss.get("tolerance_s"), a.get("ok"))  # the CLI's words
        probes.append({"name": name, "baseline": (ss.get("baseline") or {}).get(name), "before": b.get("value"),
                       "after": a.get("value"), "ok": tone == "ok", "outcome": outcome, "tone": tone,
                       "longest_deviation_s": longest})
    hyp = ss.get("hypothesis")
    shown = "yes" if ss.get("deviated") else {"none": "no probes", "unchecked": "not checked"}.get(str(hyp), "no")
    return {"deviated": ss.get("deviated"), "hypothesis": hyp, "shown": shown, "tolerance_s": ss.get("tolerance_s"),
            "probes": probes}


def _workload(w: dict[str, Any]) -> dict[str, Any]:
    if w.get("kind") == "training":
        keys: tuple[str, ...] = (
            "ettr", "useful_steps", "redone_steps", "downtime_s", "stalled_s", "lost_npu_s", "restarts",
            "in_place_recoveries", "crashes", "npus", "nodes", "state", "launch_nodes", "scale_ins", "degraded",
            "degraded_s", "degraded_loss_s")
    else:
        keys = ("tokens_served", "lost_tokens", "slo_violation_s", "mean_tpot_ms", "demand_tokens_per_s")
    return {"name": w.get("name"), "kind": w.get("kind"), **{k: w.get(k) for k in keys if k in w},
            "goodput": workloads.goodput(w)}


# ---- the manual baseline -----------------------------------------------------------------------------
def _baseline_faults(baseline: dict[str, Any] | None) -> list[dict[str, Any]]:
    if not isinstance(baseline, dict):
        return []
    return [i for i in baseline.get("incidents") or [] if i.get("injected")]


def _match_baseline(inc: dict[str, Any], base: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The baseline's record of the same injected fault (same kind, component and onset)."""
    inj = inc.get("injected") or {}
    for b in base:
        bi = b["injected"]
        if (bi.get("kind"), bi.get("component")) == (inj.get("kind"), inj.get("component")) and \
                abs((bi.get("at_s") or 0) - (inj.get("at_s") or 0)) < 1e-6:
            return {k: b.get(k) for k in ("ttd_s", "ttdiag_s", "ttr_s", "human_steps", "impact", "correct")} | {
                "action_count": len(b.get("actions") or [])}
    return None


def _baseline_summary(baseline: dict[str, Any] | None, journal: dict[str, Any]) -> dict[str, Any] | None:
    if not isinstance(baseline, dict):
        return None
    s = baseline.get("summary") or {}
    return {"scenario": baseline.get("scenario"), "policy": baseline.get("policy"),
            "run_id": baseline.get("run_id"), "verdict": baseline.get("verdict"), "summary": s,
            "same_scenario": baseline.get("scenario") in (None, journal.get("scenario")),
            "workloads": [_workload(w) for w in baseline.get("workloads") or []]}


def _censored_words(inc: dict[str, Any]) -> str:
    """Why a censored fault was not graded, in a sentence's words."""
    return ("changed nothing that could be detected" if censored_reason(inc) == "nothing to detect"
            else "too late in the run to be detected")
