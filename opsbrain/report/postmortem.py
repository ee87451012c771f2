"""What an incident report adds for a postmortem: severity, one merged timeline with clock times, the evidence lines,
and what to do next. Part of the report model (:mod:`opsbrain.report.build`); every entry is read from the journal.

Times: ``t_s`` is simulated seconds from the run's start; ``clock`` is the simulated clock at that moment (the
journal's ``sim_epoch`` + ``t_s``), the time the twin's devices and programs print in their logs, so a timeline
row can be matched to a log line. The run's own wall-clock start and end (``started_at``/``finished_at``, UTC) are
when the simulation ran on this host, not when the faults happened.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from opsbrain import severity as sev
from opsbrain.report import text

MAX_TIMELINE_EVENTS = 300  # reason: a week-long run's timeline stays readable; the rest is counted, not hidden
SIGNALS_IN_TIMELINE = 3  # per incident; the incident's own section lists all its journal signal lines
LOW_SPARES = 1  # reason: with one spare left the next node fault of the job has nowhere to go after it
_ORDER = {"onset": 0, "signal": 1, "detected": 2, "diagnosed": 3, "action": 4, "recovered": 5}


def clock(epoch: str | None, t: float | None) -> str | None:
    """The simulated clock at ``t`` (``YYYY-MM-DD HH:MM:SS.s``), None without an epoch or a time."""
    if not epoch or t is None:
        return None
    try:
        at = datetime.fromisoformat(epoch) + timedelta(seconds=round(float(t), 1))
    except (ValueError, OverflowError):
        return None
    return at.strftime("%Y-%m-%d %H:%M:%S.") + f"{at.microsecond // 100_000}"


def incident_severity(inc: dict[str, Any], category: str) -> dict[str, Any]:
    """Severity of one journal incident: from the diagnosed class's handling level (the injected kind's when
    nothing was diagnosed); background events that no runbook acted on are ``info``."""
    d = inc.get("diagnosis") or {}
    if category == "noise":
        return {"level": "info", "basis": "background event, not acted on"}
    cls = d.get("fault_class") or (inc.get("injected") or {}).get("kind")
    handling = sev.handling_level(cls)
    basis = (f"{cls}: MindCluster handling level {handling}" if handling else
             f"{cls}: not a known class; a person has to triage" if cls else "no class")
    if not d and inc.get("injected"):
        basis += " (the injected kind: nothing was diagnosed)"
    return {"level": sev.severity(cls), "basis": basis}


def signal_rows(inc: dict[str, Any], epoch: str | None, t0: float | None) -> list[dict[str, Any]]:
    """The incident's evidence lines (journal ``signals``) with clock time, time after onset and where the line is
    in the run's bundle (``at``: ``file:line``, when the run wrote bundles)."""
    return [{"t_s": s.get("t_s"), "clock": clock(epoch, s.get("t_s")),
             "rel_s": None if t0 is None or s.get("t_s") is None else s["t_s"] - t0,
             "host": s.get("host"), "kinds": list(s.get("kinds") or []), "severity": s.get("severity"),
             "text": str(s.get("text", "")), "at": evidence_at(s)} for s in inc.get("signals") or []]


def evidence_at(signal: dict[str, Any]) -> str | None:
    """``file:line`` of an evidence line in the run's bundle (journal ``file``/``line``), None when not located."""
    return f"{signal['file']}:{signal['line']}" if signal.get("file") and signal.get("line") else None


def next_steps(model: dict[str, Any]) -> list[str]:
    """What is left to do after the run, from the incident's model (diagnosis, grading, follow-ups, recovery)."""
    out: list[str] = []
    d = model.get("diagnosis") or {}
    g = model.get("grading") or {}
    if not d or d.get("fault_class") == "unknown":
        where = d.get("component") or (model.get("injected") or {}).get("component") or "the affected part"
        out.append(f"Triage {where} by hand: the diagnosis abstained; start from the evidence lines.")
    elif g.get("graded") and not g.get("correct"):
        out.append(f"Review the diagnosis: it named {d.get('fault_class')} on {d.get('component')}, the fault was "
                   f"{g.get('injected_kind')} on {g.get('injected_component')}; add the case to the knowledge base "
                   "or the training library.")
    elif model.get("category") == "false_positive":
        out.append(f"Undo what the response did to {d.get('component')} and tune the detection of "
                   f"{d.get('fault_class')}: nothing was wrong there.")
    f = model.get("followups") or {}
    for t in f.get("tickets") or []:
        out.append(f"Work the {t.get('kind') or 'replacement'} ticket for {t.get('component')}"
                   + (f" ({t['reason']})" if t.get("reason") else "") + ".")
    for c in f.get("isolated") or []:
        out.append(f"Repair {c} and return it to service (isolated by the runbook).")
    for p in f.get("pending") or []:
        out.append(f"Finish the field work still in flight: {str(p.get('action')).replace('_', ' ')} "
                   f"{p.get('target')}.")
    left = len(f.get("spares_left") or [])
    if f.get("spares_used") and left <= LOW_SPARES:
        out.append(f"Refill the spare pool: {', '.join(f['spares_used'])} taken, {left} spare node"
                   f"{'' if left == 1 else 's'} left.")
    dark = model.get("still_out_of_service")
    if dark:  # a link only drained or re-routed around: nobody isolated or repaired it
        part = (model.get("injected") or {}).get("component") or "the link"
        out.append(f"Isolate or repair {part}: still out of service at the end of the run ({dark['reason']}).")
    elif model.get("category") == "fault" and model.get("ttr_s") is None:
        out.append("The workload did not recover within the run: check "
                   + (", ".join(model.get("affected_workloads") or []) or "the affected part") + " now.")
    return out or ["Nothing left to do: the runbook finished and nothing is out of service."]


def run_timeline(models: list[dict[str, Any]], epoch: str | None) -> dict[str, Any]:
    """One timeline of the detailed incidents: fault onsets (ground truth, after the fact), their first evidence
    lines, detection, diagnosis, every distinct action with its result, and recovery, in time order."""
    events: list[dict[str, Any]] = []

    def add(t: float | None, inc: dict[str, Any], what: str, label: str, result: str | None = None,
            host: str | None = None) -> None:
        if t is not None:
            events.append({"t_s": t, "clock": clock(epoch, t), "incident": inc["id"], "what": what, "label": label,
                           "result": result, "severity": inc["severity"]["level"], "host": host})

    for m in (x for x in models if x.get("detailed")):
        inj = m.get("injected") or {}
        add(m.get("onset_s"), m, "onset", f"fault injected: {inj.get('kind')} on {inj.get('component')}")
        for s in _varied(m["signals"], SIGNALS_IN_TIMELINE):
            add(s["t_s"], m, "signal", s["text"], host=s["host"])
        add(m.get("detected_at_s"), m, "detected", "incident opened" + (
            f" (by {m['detected_by']})" if m.get("detected_by") else ""))
        d = m.get("diagnosis") or {}
        if d:
            conf = d.get("confidence")
            add(d.get("at_s"), m, "diagnosed", f"diagnosed {d.get('fault_class') or 'no class'}"
                + (f" at {d['component']}" if d.get("component") else "")
                + (f" (confidence {conf:.2f})" if isinstance(conf, int | float) else ""))
        for a in m.get("action_groups") or []:
            n = f" x{a['count']}" if a["count"] > 1 else ""
            target = a["target"] if a["target"] not in (None, "", "-") else ""
            add(a["start_s"], m, "action", f"{text.action_words(str(a['action']))} {target}".strip() + n,
                "in flight" if a.get("in_flight") else a["status"])
        add(m.get("recovered_at_s"), m, "recovered",
            "workloads back within the bar (>= 95% of the pre-fault rate, TPOT / TTFT in SLO)")
    events.sort(key=lambda e: (e["t_s"], _ORDER[e["what"]]))
    return {"events": events[:MAX_TIMELINE_EVENTS], "total": len(events), "sim_epoch": epoch}


def _varied(signals: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """Up to ``n`` signal lines: each adding a signal kind not yet shown first, then the earliest others."""
    first: list[int] = []
    seen: set[str] = set()
    for k, s in enumerate(signals):
        if len(first) < n and not seen.issuperset(s["kinds"]):
            first.append(k)
            seen.update(s["kinds"])
    first += [k for k in range(len(signals)) if k not in first][:n - len(first)]
    return [signals[k] for k in sorted(first)]


def run_severity(models: list[dict[str, Any]]) -> str | None:
    """The worst severity of the run's faults and false positives (None: neither)."""
    return sev.worst([m["severity"]["level"] for m in models if m["category"] != "noise"])
