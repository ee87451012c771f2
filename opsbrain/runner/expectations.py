"""A scenario's expectations checked against a finished run, and its faults declared as symptoms of others.

Per-fault expectations (``fault: 2``) look at the journal entry of every fault the scenario item injected (known by
fault id, so event-triggered faults count too). Run-level expectations look at the whole run: false alarms, a
workload's degraded operation (it kept working, if at a lower rate, instead of waiting down), the Markdown
report's content. Each result says what was checked, whether it was met and why not. A check that needs a fault
detected (its diagnosis, component, ttr, the response's actions) cannot be judged on a fault the run ended too soon
after to detect (``detection: censored``): such a result has ``met`` null and says why in ``unjudged`` (session 33).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from opsbrain.scenario.plan import Plan
from opsbrain.scenario.schema import Expectation

# A response that only watches or shifts traffic does not count as acting on an incident; anything that takes a part
# out of service, restarts work or hands a person work (ticket, page) does, and on noise that is a false positive.
PASSIVE_ACTIONS = ("none", "wait", "reroute", "drain_link", "undrain_link")  # routing: no capacity lost
Series = list[tuple[float, float]]


def acted(actions: list[dict[str, Any]]) -> bool:
    """Whether a response did something to the plant or paged a person (not just watched)."""
    return any(a.get("kind") == "step" and a.get("action") not in PASSIVE_ACTIONS and a.get("status") != "skipped"
               for a in actions)


def mark_symptoms(plan: Plan, incidents: list[dict[str, Any]], fault_index: dict[str, int]) -> None:
    """Mark each journal entry of a fault declared ``symptom_of`` another with the ids of that other fault's
    entries; the summary then counts it with its cause, not as a fault (or a miss) of its own."""
    faults = plan.scenario.spec.faults
    by_index: dict[int, list[str]] = {}
    for fid, k in fault_index.items():
        by_index.setdefault(k, []).append(fid)
    for entry in incidents:
        idx = fault_index.get(entry["id"]) if entry["injected"] is not None else None
        cause = faults[idx].symptom_of if idx is not None else None
        if cause is not None:
            entry["symptom_of"] = sorted(by_index.get(cause, []))


def check_expectations(plan: Plan, incidents: list[dict[str, Any]], fault_index: dict[str, int],
                       series: dict[str, Series], nominal: dict[str, float], end: float) -> list[dict[str, Any]]:
    """One result per expectation; ``report_contains`` results are ``pending`` until :func:`check_report`."""
    out = []
    onsets = [i["injected"]["at_s"] for i in incidents if i["injected"] is not None]
    first = min(onsets, default=0.0)
    for e in plan.scenario.spec.expectations:
        problems: list[str] = []
        unjudged: list[str] = []
        if e.fault is not None:
            entries = [i for i in incidents if i["injected"] is not None and fault_index.get(i["id"]) == e.fault]
            problems, unjudged = _fault_problems(e, entries)
            label = f"faults[{e.fault}]"
        else:
            label = ", ".join(k for k in ("actions_any", "false_alarms_max", "degraded_operation", "report_contains")
                              if getattr(e, k) is not None)
            if e.actions_any is not None and not _took(incidents, e.actions_any):
                problems.append(f"no response completed any of {', '.join(e.actions_any)}")
            if e.false_alarms_max is not None:
                fps = sum(1 for i in incidents if i["injected"] is None and i.get("false_positive"))
                if fps > e.false_alarms_max:
                    problems.append(f"{fps} false alarms, at most {e.false_alarms_max} expected")
            if e.degraded_operation is not None:
                d = e.degraded_operation
                problems += _degraded_problems(d.workload, d.max_down_s, d.min_share, series.get(d.workload, []),
                                               nominal.get(d.workload, 0.0), first, end)
        met = False if problems else None if unjudged else True
        result: dict[str, Any] = {"fault": e.fault, "check": label, "met": met, "problems": problems}
        if unjudged:
            result["unjudged"] = unjudged
        if e.report_contains:
            result["pending"] = list(e.report_contains)
        out.append(result)
    return out


def check_report(expectations: list[dict[str, Any]], render: Callable[[], str]) -> None:
    """Settle the ``report_contains`` checks against the Markdown report (rendered once, if any is pending)."""
    pending = [e for e in expectations if "pending" in e]
    if not pending:
        return
    text = render().lower()
    for e in pending:
        missing = [t for t in e.pop("pending") if t.lower() not in text]
        e["problems"] += [f"the report does not say {t!r}" for t in missing]
        e["met"] = False if e["problems"] else None if e.get("unjudged") else True


def _censored(i: dict[str, Any]) -> bool:
    """A fault entry the run ended too soon after to detect, and that nothing diagnosed."""
    return i.get("detection") == "censored" and not i.get("diagnosis")


def _fault_problems(e: Expectation, entries: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """The expectation's unmet checks on the fault's entries, and why checks could not be judged on censored ones
    (all but ``no_action``: nothing acted on a fault nobody detected is still a fact)."""
    problems: list[str] = []
    unjudged: list[str] = []
    if not entries:
        problems.append("fault never started")
    for i in entries:
        if _censored(i):
            if any(v is not None for v in (e.diagnosis, e.component, e.ttr_max_s, e.actions_any)):
                unjudged.append(f"{i['id']} censored: {i.get('detection_note') or 'too late in the run to detect'}")
            if e.no_action and acted(i["actions"]):
                problems.append("actions were taken where none were expected")
            continue
        d = i["diagnosis"] or {}
        if e.diagnosis is not None:
            got = d.get("fault_class") or "none"
            if got != e.diagnosis:
                problems.append(f"diagnosed {got}, expected {e.diagnosis}")
        if e.component is not None and d.get("component") != e.component:
            problems.append(f"localized to {d.get('component')}, expected {e.component}")
        if e.ttr_max_s is not None and (i["ttr_s"] is None or i["ttr_s"] > e.ttr_max_s):
            problems.append("not recovered" if i["ttr_s"] is None
                            else f"ttr {i['ttr_s']:.1f} s exceeds {e.ttr_max_s:g} s")
        if e.no_action and acted(i["actions"]):
            problems.append("actions were taken where none were expected")
        if e.actions_any is not None and not _took([i], e.actions_any):
            problems.append(f"the response completed none of {', '.join(e.actions_any)}")
    return problems, unjudged


def _took(incidents: list[dict[str, Any]], actions: list[str]) -> bool:
    return any(a.get("action") in actions and a.get("status") == "succeeded" and a.get("kind") in ("step", "retry")
               for i in incidents for a in i.get("actions", []))


def longest_down_s(points: Series, start: float, end: float) -> float:
    """Longest stretch within [start, end] in which a piecewise-constant rate series (change points) is 0."""
    longest, since = 0.0, None
    bounds = [t for t, _r in points[1:]] + [end]
    for (t0, r), t1 in zip(points, bounds, strict=True):
        a, b = max(t0, start), min(t1, end)
        if b <= a:
            continue  # outside the window, or an instant
        if r > 0:
            since = None
            continue
        since = a if since is None else since
        longest = max(longest, b - since)
    return longest


def _degraded_problems(name: str, max_down_s: float | None, min_share: float | None, points: Series,
                       nominal: float, start: float, end: float) -> list[str]:
    problems = []
    if max_down_s is not None:
        down = longest_down_s(points, start, end)
        if down > max_down_s:
            problems.append(f"{name} did no work for {down:.0f} s, at most {max_down_s:g} s expected")
    if min_share is not None:
        last = next((r for t, r in reversed(points) if t <= end), 0.0)
        share = last / nominal if nominal > 0 else 0.0
        if share < min_share:
            problems.append(f"{name} ends at {share:.0%} of its fault-free rate, at least {min_share:.0%} expected")
    return problems
