"""Render a report model as Markdown: the same facts as the HTML report, for a ticket or a chat message.

Component ids go in code spans (a ``~`` between two of them would otherwise strike text through) and table cells
escape ``|``. Outside code spans ``&``, ``<`` and ``>`` become entities and ``[``/``]`` are backslash-escaped
(:func:`escape_outside_code`), so nothing that came from a journal renders as HTML or a link.
"""

from __future__ import annotations

from typing import Any

from opsbrain import stats
from opsbrain.report import text

_SPECIAL = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "[": "\\[", "]": "\\]"})


def escape_outside_code(md: str) -> str:
    """``md`` with HTML and link syntax escaped outside code spans (code spans show their text literally; ``_c``
    keeps backticks out of their content, so the spans are exactly the odd segments between backticks)."""
    parts = md.split("`")
    return "`".join(p if k % 2 else p.translate(_SPECIAL) for k, p in enumerate(parts))


def _c(x: Any) -> str:
    """A code span, safe for any content."""
    s = str(x).replace("`", "'")
    return f"`{s}`"


def _cell(x: Any) -> str:
    return str(x).replace("|", "\\|").replace("\n", " ")


def _table(head: list[str], rows: list[list[Any]]) -> list[str]:
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(_cell(c) for c in r) + " |" for r in rows]
    return out


def _expectation_label(e: dict[str, Any]) -> str:
    """What an expectation checked: its fault (``faults[2]``) or, run-level, the checks it made."""
    return f"faults[{e['fault']}]" if e.get("fault") is not None else str(e.get("check") or "run")


def _scale_out_words(s: dict[str, Any]) -> str:
    if s["status"] != "succeeded":
        return (f"- scaling {s['workload']} back out failed at {text.at(s['t_s'], None)}: {s.get('reason')}; it "
                "runs scaled in")
    return (f"- scaled {s['workload']} back out to {s['nodes']} of {s['launch_nodes']} launch nodes at "
            f"{text.at(s['t_s'], None)} ({text.count(len(s['added']), 'node')} back in the pool taken)")


def degraded_words(d: dict[str, Any]) -> str:
    """``train on 13 of 14 launch nodes since t=... s, 93% of its launch throughput`` (a scaled-in job)."""
    return (f"{d.get('workload')} on {d.get('nodes')} of {d.get('launch_nodes')} launch nodes since "
            f"{text.at(d.get('since_s'), None)}, {text.pct(d.get('throughput_share'))} of its launch throughput")


def render_run(m: dict[str, Any]) -> str:
    r, s = m["run"], m["summary"]
    sev = f" (severity {m['severity']})" if m.get("severity") else ""
    lines = [f"# {r['scenario']}: {str(r['verdict']).upper()}{sev}", ""]
    if r.get("description"):
        lines += [f"_{r['description']}_", ""]
    lines += [f"run {_c(r.get('run_id') or '(not stored)')} · seed {r.get('seed')} · policy {r.get('policy')} · "
              f"{r['simulated']}" + (f" · aborted: {r['abort_reason']}"
                                                                 if r.get("abort_reason") else ""), ""]
    clocks = ([f"simulated clock {r['sim_start']} → {r['sim_end']}"] if r.get("sim_start") else []) + (
        [f"ran {text.utc(r['started_at'])} → {text.utc(r['finished_at'])} UTC"] if r.get("started_at") else []) + (
        [f"opsbrain {r['tool']['version']}"] if (r.get("tool") or {}).get("version") else [])
    if clocks:
        lines += [" · ".join(clocks), ""]
    lines += [m["headline"], "", "## Summary", ""]
    lines += _table(["faults", "detected", "diagnosed correctly", "recovered", "of it before detection",
                     "median ttr after detection", "false positives", "actions", "steady state deviated"],
                    [[s.get("incidents"), s.get("detected"), s.get("diagnosed_correctly"), s.get("recovered"),
                      s.get("recovered_before_detection", "-"), text.seconds(s.get("median_ttr_s")),
                      s.get("false_positives"), text.action_split(m["counts"]), m["steady_state"].get("shown", "no")]])
    if m.get("never_fired"):
        lines += ["", "Faults never injected (not counted above):", *[f"- {x}" for x in m["never_fired"]]]
    unmet = [e for e in m["expectations"] if e.get("met") is False]
    unjudged = [e for e in m["expectations"] if e.get("met") is None]
    if m["expectations"]:
        said = [f"{_expectation_label(e)} not met ({'; '.join(e['problems'])})" for e in unmet] + [
            f"{_expectation_label(e)} not judged ({'; '.join(e.get('unjudged') or [])})" for e in unjudged]
        lines += ["", "Expectations: " + ("all met" if not said else "; ".join(said))]
    lines += ["", *_timeline(m.get("timeline") or {})]
    for inc in (i for i in m["incidents"] if i["detailed"]):
        lines += ["", *_incident(inc, m)]
    attention = [i for i in m["incidents"] if i["category"] == "attention"]
    if attention:
        lines += ["", f"## Incidents that need attention ({len(attention)})", "",
                  "_No injected fault explains them, yet they are no background event: a workload down, restarts "
                  "that failed, escalations._", ""]
        lines += _table(["id", "detected", "diagnosis", "component", "why", "response"],
                        [[i["id"], text.at(i["detected_at_s"], None), (i["diagnosis"] or {}).get("fault_class", "-"),
                          _c((i["diagnosis"] or {}).get("component") or "-"), i["trouble"],
                          "; ".join(a["said"] for a in i["actions"]) or "none"] for i in attention])
    rest = [i for i in m["incidents"] if not i["detailed"] and i["category"] != "attention"]
    if rest:
        lines += ["", f"## Other incidents ({len(rest)})", ""]
        lines += _table(["id", "detected", "diagnosis", "confidence", "component", "response"],
                        [[i["id"], text.at(i["detected_at_s"], None),
                          (i["diagnosis"] or {}).get("fault_class", "-"),
                          text.conf((i["diagnosis"] or {}).get("confidence")),
                          _c((i["diagnosis"] or {}).get("component") or "-"),
                          "; ".join(a["said"] for a in i["actions"]) or "none"] for i in rest])
    wt = m.get("workload_table") or {}
    lines += ["", "## Workloads", ""]
    lines += _table(wt["head"], wt["rows"]) if wt.get("rows") else ["_No workload ran._"]
    rec = m["recovery"]
    gone = rec.get("spares_exhausted") or []
    ends = [(w["name"], w["end_state"]) for w in m.get("workloads", []) if w.get("end_state")]
    lines += ["", "## State after the run", "", *[f"- {name}: {st['words']}" for name, st in ends],
              f"- spare nodes left: {len(rec['spares_left'])}"
              + (f" ({', '.join(_c(x) for x in rec['spares_left'])})" if rec["spares_left"] else ""),
              f"- spares ran out: {text.count(len(gone), 'time')}" + (
                  f", first at {text.at(gone[0].get('at_s'), None)}" if gone else ""),
              "- degraded operation: " + ("; ".join(degraded_words(st["degraded"] | {"workload": name})
                                                    for name, st in ends if st.get("degraded")) or "none"),
              f"- isolated parts: {', '.join(_c(x) for x in rec['isolated']) or 'none'}",
              f"- open tickets: {len(rec['open_tickets'])}"]
    b = m.get("baseline")
    lines += ["", "## Manual baseline", ""]
    if b:
        bs = b["summary"]
        lines += _table(["", "opsbrain", "manual"],
                        [["diagnosed correctly", s.get("diagnosed_correctly"), bs.get("diagnosed_correctly")],
                         ["recovered", s.get("recovered"), bs.get("recovered")],
                         ["median ttr after detection", text.seconds(s.get("median_ttr_s")),
                          text.seconds(bs.get("median_ttr_s"))]])
    else:
        lines.append("_No manual baseline attached (`opsbrain report RUN --baseline MANUAL_JOURNAL`)._")
    return escape_outside_code("\n".join(lines) + "\n")


def _timeline(tl: dict[str, Any]) -> list[str]:
    events = tl.get("events") or []
    out = ["## Timeline", ""]
    if not events:
        return [*out, "_No fault and no false positive: nothing to put on a timeline._"]
    out += _table(["clock", "t", "incident", "event", "what happened", "result"],
                  [[e["clock"] or "-", f"{e['t_s']:.1f} s", _c(e["incident"]), e["what"],
                    (_c(f"{e['host'] + ': ' if e['host'] else ''}{e['label']}") if e["what"] == "signal"
                     else e["label"]), e["result"] or ""]
                   for e in events])
    if tl.get("total", 0) > len(events):
        out += ["", f"_The first {len(events)} of {tl['total']} events._"]
    return out


def _incident(inc: dict[str, Any], m: dict[str, Any]) -> list[str]:
    d = inc["diagnosis"] or {}
    g = inc["grading"]
    verdict = ("diagnosis correct" if g.get("correct") else "diagnosis wrong") if g["graded"] else "false positive"
    sv = inc.get("severity") or {}
    out = [f"## {inc['title']} ({verdict}{', ' + sv['level'] if sv else ''})", ""]
    out.append(f"incident {_c(inc['id'])}" + (f" · onset t={inc['onset_s']:.1f} s" if inc["onset_s"] is not None
                                               else "") + (f" ({inc['onset_clock']})" if inc.get("onset_clock")
                                                           else "")
               + (f" · runbook {_c(inc['runbook'])}" if inc["runbook"] else "") + f" · {g['words']}"
               + (f" · severity {sv['level']}: {sv['basis']}" if sv else ""))
    out += ["", f"- **Time to detect:** {text.seconds(inc['ttd_s'])}"
            + (f" (lead time {text.human(inc['lead_time_s'])})" if inc["lead_time_s"] else ""),
            f"- **Time to diagnose:** {text.seconds(inc['ttdiag_s'])}",
            f"- **Time to recover:** {text.both(inc['ttr_s'])}" + (
                f" (still out of service at the end of the run: {inc['still_out_of_service']['reason']})"
                if inc.get("still_out_of_service") else "") + (
                " (before it was detected: healed by itself or needed no action)"
                if inc.get("recovery") == "before_detection" else ""),
            f"- **Confidence:** {text.conf(d.get('confidence'))}",
            f"- **Actions:** {inc['action_count']}",
            f"- **Human steps:** {inc['human_steps']}" + (f" ({inc['human_steps_note']})" if inc.get("human_steps_note")
                                                         else ""),
            "", "### Root cause", "", inc["root_cause"], ""]
    if d:
        out += ["Evidence:", *[f"- {_c(e)}" for e in d.get("evidence") or ["none recorded"]]]
    if g["graded"] and not g.get("correct"):
        out += ["", f"**Ground truth:** {g['injected_kind']} on {_c(g['injected_component'])}."]
    if inc["dips"]:
        out += ["", "### Affected workloads", ""]
        out += _table(["workload", "metric", "before", "lowest", "share", "worst TPOT"],
                      [[x["workload"], x["metric"], text.num(x["pre_rate"], x["unit"], 4),
                        text.num(x["min_rate"], x["unit"], 4), text.pct(x["min_share"]),
                        text.num(x["worst_tpot_ms"], "ms")] for x in inc["dips"]])
    out += ["", f"### Actions ({inc['action_count']})", ""]
    if inc["actions"]:
        out += _table(["#", "action", "target", "start", "took", "status", "outcome"],
                      [[k, a["words"], _c(a["target"]), text.rel(a["rel_start_s"]),
                        "in flight" if a["in_flight"] else text.human(a["duration_s"]), a["status"], a["outcome"]]
                       for k, a in enumerate(inc["actions"], start=1)])
    else:
        out.append("No action was taken.")
    out += ["", "### Impact", ""] + ([f"- {w}" for w in inc["impact_words"]] or ["No workload impact recorded."])
    sig = inc.get("signals") or []
    out += ["", f"### Evidence lines ({len(sig)})", ""]
    if sig:
        out += _table(["clock", "after onset", "host", "log line"],
                      [[x["clock"] or "-", text.rel(x["rel_s"]), _c(x["host"] or "-"),
                        _c(x["text"]) + (f" ({_c(x['at'])})" if x.get("at") else "")] for x in sig])
    else:
        out.append("_The journal holds no signal lines for this incident._")
    out += ["", "### What to do next", "", *[f"{k}. {n}" for k, n in enumerate(inc.get("next_steps") or [], 1)]]
    f = inc["followups"]
    out += ["", "### Follow-ups", ""]
    out += [f"- ticket ({t.get('kind') or 'ticket'}) for {_c(t.get('component'))}"
            + (f": {t['reason']}" if t.get("reason") else "") for t in f["tickets"]]
    out += [f"- isolated until repaired: {_c(c)}" for c in f["isolated"]]
    out += [f"- in flight: {p['action'].replace('_', ' ')} {_c(p['target'])}" for p in f["pending"]]
    out += [f"- spare used: {_c(x)}" for x in f["spares_used"]]
    if f.get("rungs"):
        out.append(f"- rungs tried, in order: {', '.join(f['rungs'])}")
    out += [f"- restart from the {c.get('source')} checkpoint (step {c.get('step')})"
            + (f", {text.count(len(c['dropped']), 'node')} given up (scaled in)" if c.get("dropped") else "")
            + (f", {text.count(len(c['added']), 'node')} added (scaled back out)" if c.get("added") else "")
            for c in f.get("checkpoints", [])]
    out += [f"- {text.at(c['t_s'], None)}: {text.count(c['spares_left'], 'spare node')} left "
            f"({c['action'].replace('_', ' ')}, "
            f"{c['status']})" for c in f.get("spare_counts", [])]
    if f.get("spares_exhausted"):
        out.append("- spares ran out: no warm spare was left in the pod when this incident needed one")
    out += [f"- a spare returned to the pool while the {r['action'].replace('_', ' ')} waited for its repair: "
            f"{_c(r['spare'])} taken at {text.at(r['t_s'], None)}" for r in f.get("returning_spares", [])]
    out += [f"- recovered in degraded operation: {degraded_words(d)}" for d in f.get("degraded", [])]
    out += [_scale_out_words(s) for s in f.get("scale_outs", [])]
    out += ["", "### Manual baseline", ""]
    b = inc.get("baseline")
    if b:
        out += _table(["", f"opsbrain ({m['run'].get('policy')})", "manual", "difference"],
                      [[label, text.seconds(inc[k]), text.seconds(b.get(k)), text.diff(inc[k], b.get(k))]
                       for k, label in (("ttd_s", "time to detect"), ("ttdiag_s", "time to diagnose"),
                                        ("ttr_s", "time to recover"))]
                      + [["human steps", inc["human_steps"], b.get("human_steps"), ""],
                         ["actions", inc["action_count"], b.get("action_count"), ""]]
                      + [[f"{w}: {text.impact_label(k)}", text.num(x), text.num(theirs), text.diff(x, theirs, "")]
                         for w, v in inc["impact"].items() for k, x in v.items()  # as the HTML (session 43)
                         for theirs in [((b.get("impact") or {}).get(w) or {}).get(k)]])
    else:
        out.append("_No manual baseline for this fault in the journal._")
    return out


def render_campaign(m: dict[str, Any]) -> str:
    a = m["accuracy"]
    lines = [f"# Campaign: {m['runs_line']['head']}, {a['faults']} faults", "",
             f"policies {', '.join(m['policies'])} · scenarios {', '.join(m['scenarios'])}", ""]
    lines += [f"**{m['runs_line']['note']}**", ""] if m["runs_line"]["note"] else []
    lines += ["## Diagnosis", ""]
    lines += _table(["faults", "detected", "top-1 accuracy", "class and component", "abstained", "false positives",
                     "censored"],
                    [[a["faults"], text.pct(a["detected_rate"], 1), text.pct(a["top1_rate"], 1),
                      text.pct(a["correct_rate"], 1), text.pct(a["abstained_rate"], 1), m["false_positives"],
                      a.get("censored", 0)]])
    if a.get("censored"):
        lines += ["", f"{text.count(a['censored'], 'fault')} censored: injected too close to the end of "
                  f"{'its' if a['censored'] == 1 else 'their'} run to be detected (the journal's `detection_note` says "
                  "why); left out of the faults and rates above, not counted missed."]
    lines += ["", "## Time to recover per fault class", ""]
    rows = []
    for k, v in m["per_class"].items():
        for p, s in v["ttr"].items():
            rows.append([k, s["faults"], s["top1"], p, s.get("before_detection", 0), s["n"],
                         *(stats.mark(text.seconds(s.get(stats.key(q))), q, s["n"]) for q in stats.QUANTILES),
                         text.seconds(s.get("max")), s["unrecovered"], s.get("censored", 0)])
    lines += _table(["fault class", "faults", "top-1", "policy", "back before detection", "recovered after detection",
                     *(f"{stats.key(q)} ttr" for q in stats.QUANTILES), "max ttr", "not recovered", "censored"], rows)
    lines += ["", "The ttr figures are over the faults recovered after their detection (n: recovered after "
              "detection); those back before it (healed by themselves or needing no action) are counted apart, not "
              "as recoveries by the response."]
    if any(str(c).endswith("*") for r in rows for c in r[6:9]):
        lines += ["", stats.UNSUPPORTED_NOTE]
    c = m["confusion"]
    lines += ["", "## Confusion matrix (rows injected, columns diagnosed)", ""]
    lines += _table(["injected \\ diagnosed", *c["cols"]], [[r, *row] for r, row in zip(c["rows"], c["matrix"],
                                                                                        strict=True)])
    lines += ["", "## ETTR and goodput", ""]
    lines += _table(["policy", "ETTR", "training goodput", "inference goodput", "NPU-hours lost", "tokens lost"],
                    [[p, text.pct(e["ettr"], 2), text.pct(e["training_goodput"], 2),
                      text.pct(e["inference_goodput"], 3), text.num(e["lost_npu_hours"]), text.num(e["lost_tokens"])]
                     for p, e in m["efficiency"]["by_policy"].items()])
    lines += ["", "## Versus manual operations", ""]
    if m["vs_manual"]:
        lines += _table(["fault class", "policy", "faults", "median ttr after detection", "NPU-s lost / fault",
                         "tokens lost / fault",
                         "human steps / fault"],
                        [[r["fault_class"], p, r[p]["n"], text.seconds(r[p]["median_ttr_s"]),
                          text.num(r[p]["lost_npu_s"]), text.num(r[p]["lost_tokens"]), text.num(r[p]["human_steps"])]
                         for r in m["vs_manual"] for p in m["policies"]])
    else:
        lines.append(f"_{m.get('vs_manual_note') or 'No comparison with manual operations.'}_")
    lines += ["", "Loss no fault covers (each workload's `unattributed` rest: before a fault's impact began or while "
              "none was open; the faults' shares plus it add up to the workload's loss):", ""]
    lines += _table(["policy", "runs", "NPU-s lost", "of it no fault's", "tokens lost", "of it no fault's"],
                    [[p, u["runs"], text.num(u["lost_npu_s"]), text.num(u["unattributed_npu_s"]),
                      text.num(u["lost_tokens"]), text.num(u["unattributed_tokens"])]
                     for p, u in m.get("unattributed", {}).items()])
    lines += ["", "## Runs", ""]
    lines += _table(["run", "scenario", "seed", "policy", "verdict", "faults", "correct", "median ttr after detection",
                     "back before detection"],
                    [[_c(r["run_id"] or "-"), r["scenario"], r["seed"], r["policy"], r["outcome"], r["faults"],
                      r["diagnosed_correctly"], text.seconds(r["median_ttr_s"]),
                      "-" if r.get("before_detection") is None else r["before_detection"]] for r in m["runs"]])
    return escape_outside_code("\n".join(lines) + "\n")
