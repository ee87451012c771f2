"""Each workload's accounting over a run and its state at the end, from the journal, in one shape for every reader.

The CLI's run summary, the HTML, Markdown and JSON reports and the replay summary all take their workload facts
from here, so they cannot disagree. The state at the end is the journal's own (``workloads[].state``, the
training job's state when the run ended; ``degraded`` only while it runs scaled in); how long a job has made no
step is read from its rate series (``series``: the change point where its rate last fell to zero and stayed
there). Definitions (docs/reports.md): ETTR = useful training time / elapsed; training goodput = useful steps x
the launch placement's nominal step time / elapsed.
"""

from __future__ import annotations

from typing import Any

from opsbrain.report import text
from opsbrain.verdict import ettr_outcome

END_STATES = ("down", "stalled", "degraded", "running", "unknown")
"""A workload's state at the end of a run, as every report says it."""
_DOWN = {"down": "down", "restarting": "restarting", "recovering": "recovering", "new": "never started"}
"""The training job's states in which it is not up (faultlib's JobState), and how they read."""
HEAD = ["workload", "kind", "state at the end", "ETTR", "goodput", "lost", "accounting over the run"]
"""The columns of the workload table (HTML and Markdown alike)."""


def training_goodput(w: dict[str, Any]) -> float | None:
    """Useful steps x the launch placement's nominal step time / elapsed (slowdowns and scale-ins count against
    it); None without an elapsed time."""
    el = float(w.get("elapsed_s") or 0.0)
    nominal = float(w.get("launch_nominal_step_time_s") or w.get("nominal_step_time_s") or 0.0)
    return float(w.get("useful_steps") or 0.0) * nominal / el if el > 0 else None


def goodput(w: dict[str, Any]) -> float | None:
    """Training goodput (:func:`training_goodput`), or for serving tokens served / (served + lost)."""
    if w.get("kind") == "training":
        return training_goodput(w)
    served, lost = float(w.get("tokens_served") or 0.0), float(w.get("lost_tokens") or 0.0)
    return served / (served + lost) if served + lost > 0 else None


def idle_since(entry: dict[str, Any] | None) -> float | None:
    """When a workload's main rate (its ``series`` entry) last fell to zero and stayed there to the end of the
    series; None when it was making progress at the end or there is no series."""
    pts = [p for p in (entry or {}).get("points") or [] if len(p) > 1 and p[1] is not None]
    if not pts or pts[-1][1] > 0:
        return None
    k = len(pts) - 1
    while k > 0 and pts[k - 1][1] == 0:
        k -= 1
    return float(pts[k][0])


def end_state(w: dict[str, Any], series: dict[str, Any] | None = None, end: float | None = None) -> dict[str, Any]:
    """Where workload ``w`` (a journal ``workloads`` entry) stood at the end of the run: ``state`` (one of
    :data:`END_STATES`), the journal's own ``journal_state``, ``idle_since_s``/``idle_s`` (no step or token since
    then, from its rate series), ``degraded`` (the placement, only while running scaled in) and ``words``."""
    name, raw = w.get("name"), w.get("state")
    since = idle_since((series or {}).get(str(name)))
    idle = None if since is None or end is None else max(0.0, end - since)
    deg = w.get("degraded") if isinstance(w.get("degraded"), dict) else None
    if w.get("kind") == "training":
        if raw in _DOWN:
            state = "down"
        elif raw == "stalled":
            state = "stalled"
        elif raw in ("running", "checkpointing"):
            state = "degraded" if deg else "running"
        else:
            state = "unknown"
    else:  # a serving workload's journal keeps no state: its decode rate at the end says whether it served
        state = "unknown" if not (series or {}).get(str(name)) else "down" if since is not None else "running"
    out = {"state": state, "journal_state": raw, "idle_since_s": since, "idle_s": idle,
           "degraded": deg if state == "degraded" else None,
           "tone": {"running": "ok", "degraded": "warn", "unknown": "neutral"}.get(state, "bad")}
    out["words"] = _words(w, out, deg)
    return out


def summary_lists(workloads: list[dict[str, Any]], series: dict[str, Any] | None = None,
                  end: float | None = None) -> dict[str, list[dict[str, Any]]]:
    """The run summary's workloads by their state at the end (:func:`end_state`, as the workload table says it):
    ``degraded_workloads`` (running scaled in: its placement), ``down_workloads`` (its journal state, no step or
    token since ``idle_since_s``, ``last_placement`` when it had been scaled in) and ``stalled_workloads``. A job
    that scaled in and then went down is down, not degraded."""
    out: dict[str, list[dict[str, Any]]] = {"degraded_workloads": [], "down_workloads": [], "stalled_workloads": []}
    for w in workloads:
        st = end_state(w, series, end)
        name = w.get("name")
        if st["state"] == "degraded":
            out["degraded_workloads"].append({"workload": name, **st["degraded"]})
        elif st["state"] in ("down", "stalled"):
            last = w.get("degraded") if isinstance(w.get("degraded"), dict) else None
            out[f"{st['state']}_workloads"].append({"workload": name, "journal_state": st["journal_state"],
                                                   "idle_since_s": st["idle_since_s"], "last_placement": last})
    return out


def _words(w: dict[str, Any], s: dict[str, Any], deg: dict[str, Any] | None) -> str:
    state, raw = s["state"], s["journal_state"]
    what = "token decoded" if w.get("kind") != "training" else "step made"
    idle = (f", no {what} since {text.at(s['idle_since_s'], None)}"
            + (f" (the last {text.human(s['idle_s'])} of the run)" if s["idle_s"] is not None else "")
            if s["idle_since_s"] is not None else "")
    if state == "down":
        where = (f"; last placed on {deg.get('nodes')} of {deg.get('launch_nodes')} launch nodes"
                 if deg else "")
        how = f" (job state: {_DOWN[raw]})" if raw in _DOWN and raw != "down" else ""
        return f"down at the end of the run{how}{idle}{where}"
    if state == "stalled":
        return f"stalled at the end of the run (up){idle}" if idle else (
            "stalled at the end of the run (up, no step made)")
    if state == "degraded" and deg:
        return (f"degraded: {deg.get('nodes')} of {deg.get('launch_nodes')} launch nodes since "
                f"{text.at(deg.get('since_s'), None)}, {text.pct(deg.get('throughput_share'))} of its launch "
                "throughput")
    if state == "running":
        if w.get("kind") != "training":
            return "serving at the end of the run"
        full = w.get("launch_nodes") in (None, w.get("nodes"))
        return "running at the end of the run" + (f" on {w.get('nodes')} nodes" if full and w.get("nodes") else "")
    return "state at the end not recorded in this journal"


def table(workloads: list[dict[str, Any]], series: dict[str, Any] | None = None,
          end: float | None = None) -> dict[str, Any]:
    """The workload table of a run report: :data:`HEAD` and one row of text per workload, with a tone per row
    for the state (``ok``/``warn``/``bad``) and for the ETTR (verdict.ettr_outcome)."""
    rows, tones = [], []
    for w in workloads:
        st = end_state(w, series, end)
        training = w.get("kind") == "training"
        ettr, ettr_tone = ettr_outcome(w.get("ettr")) if training else ("-", "neutral")
        if training:
            lost = (f"{text.num(w.get('lost_npu_s'), 'NPU-s')} "
                    f"({text.num((w.get('lost_npu_s') or 0) / 3600, 'NPU-h')})")
            acct = (f"{text.num(w.get('useful_steps'), 'useful steps')}, {text.num(w.get('redone_steps'), 'redone', 2)}"
                    f", down {text.human(w.get('downtime_s'))}, stalled {text.human(w.get('stalled_s'))}, "
                    f"{text.count(w.get('restarts', 0), 'restart')}, "
                    f"{text.count(w.get('in_place_recoveries', 0), 'in-place recovery', 'in-place recoveries')}"
                    + (f", {text.count(w['scale_ins'], 'scale-in')}, {text.human(w.get('degraded_s'))} run scaled in"
                       if w.get("scale_ins") else ""))
        else:
            lost = text.num(w.get("lost_tokens"), "tokens")
            acct = (f"{text.num(w.get('tokens_served'), 'tokens served')}, {text.human(w.get('slo_violation_s'))} in "
                    f"SLO violation, mean TPOT {text.num(w.get('mean_tpot_ms'), 'ms')}")
        g = goodput(w)
        rows.append([str(w.get("name")), str(w.get("kind")), st["words"], ettr, "-" if g is None else f"{g:.3f}", lost,
                     acct])
        tones.append({"state": st["tone"], "ettr": ettr_tone})
    return {"head": list(HEAD), "rows": rows, "tones": tones}
