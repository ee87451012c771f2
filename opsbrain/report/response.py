"""What an incident's response did, for the report model (:mod:`opsbrain.report.build`): its actions, identical ones
grouped, its timeline, its follow-ups (tickets, isolations, spares, rungs, checkpoints, scale-outs) and the components
a topology picture shows. Read from the journal's actions and recovery state only."""

from __future__ import annotations

from collections import Counter
from typing import Any

from opsbrain.report import text
from opsbrain.verdict import took_action


def step_kind(a: dict[str, Any]) -> str:
    """What a journal step was: ``skipped`` (not carried out, a guard's refusal too), ``watch`` (ran, but is no
    action on the plant: :data:`opsbrain.verdict.NO_ACTION`, or a guard's own record) or ``taken`` (an action
    carried out, whether it succeeded or failed: :func:`opsbrain.verdict.took_action`). Session 44: the run report's
    ``actions`` figure counted all three."""
    if a.get("status") == "skipped":
        return "skipped"
    return "taken" if took_action(a) else "watch"


def step_split(actions: list[dict[str, Any]]) -> dict[str, int]:
    """How many of ``actions`` were taken, skipped, and watching or waiting (:func:`step_kind`)."""
    kinds = Counter(step_kind(a) for a in actions)
    return {k: kinds[k] for k in ("taken", "skipped", "watch")}


def action(a: dict[str, Any], t0: float | None) -> dict[str, Any]:
    """One action for the report; ``said`` is its words with its status when it did not succeed (``restart the
    failed processes in place (skipped)``), for the one-line response of an incident not shown in detail."""
    start, stop = a.get("start_s"), a.get("end_s")
    words, status = text.action_words(str(a.get("action"))), a.get("status")
    return {"action": a.get("action"), "words": words, "target": a.get("target"),
            "said": words if status in (None, "succeeded") else f"{words} ({status})",
            "status": a.get("status"), "kind": a.get("kind"), "rung": a.get("rung"), "step": a.get("step"),
            "start_s": start, "end_s": stop, "duration_s": None if start is None or stop is None else stop - start,
            "rel_start_s": None if start is None or t0 is None else start - t0,
            "in_flight": bool((a.get("detail") or {}).get("in_flight")), "outcome": text.outcome(a)}


def groups(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Identical actions (same action, target, status and times: repeated incidents of one event) counted once."""
    seen: Counter[tuple[Any, ...]] = Counter()
    first: dict[tuple[Any, ...], dict[str, Any]] = {}
    for a in actions:
        key = (a.get("action"), a.get("target"), a.get("status"), a.get("start_s"), a.get("end_s"))
        seen[key] += 1
        first.setdefault(key, a)
    return [{"action": k[0], "target": k[1], "status": k[2], "start_s": k[3], "end_s": k[4], "count": n,
             "kind": first[k].get("kind"), "in_flight": bool((first[k].get("detail") or {}).get("in_flight"))}
            for k, n in seen.items()]


def timeline(inc: dict[str, Any], actions: list[dict[str, Any]], t0: float | None) -> list[dict[str, Any]]:
    ev: list[dict[str, Any]] = []

    def add(t: float | None, what: str, label: str) -> None:
        if t is not None:
            ev.append({"t_s": t, "rel_s": None if t0 is None else t - t0, "what": what, "label": label})

    inj = inc.get("injected") or {}
    add(inj.get("at_s"), "onset", f"fault onset ({inj.get('kind')})")
    add(inc.get("detected_at_s"), "detected", "detected")
    d = inc.get("diagnosis") or {}
    add(d.get("at_s"), "diagnosed", f"diagnosed {d.get('fault_class')}")
    for g in groups(actions):
        n = f" x{g['count']}" if g["count"] > 1 else ""
        add(g["start_s"], "action", f"{text.action_words(str(g['action']))} {g['target']} ({g['status']}){n}")
    add(inc.get("recovered_at_s"), "recovered", "recovered (>= 95% of pre-fault rate, TPOT / TTFT in SLO)")
    order = {"onset": 0, "detected": 1, "diagnosed": 2, "action": 3, "recovered": 4}
    return sorted(ev, key=lambda e: (e["t_s"], order[e["what"]]))


def followups(inc: dict[str, Any], actions: list[dict[str, Any]], recovery: dict[str, Any]) -> dict[str, Any]:
    ids = set(inc.get("incident_ids") or [inc.get("id")])
    tickets = [t for t in recovery.get("open_tickets", []) if t.get("incident") in ids]
    if not tickets:
        tickets = [{"component": a.get("target"), "kind": (a.get("detail") or {}).get("kind"),
                    "reason": (a.get("detail") or {}).get("reason"), "opened_at_s": a.get("start_s")}
                   for a in actions if a.get("action") == "ticket" and a.get("status") == "succeeded"]
    touched = {a.get("target") for a in actions if a.get("status") == "succeeded"}
    isolated = [c for c in recovery.get("isolated", []) if c in touched]
    spares_used = [(a.get("detail") or {}).get("spare") for a in actions if a.get("status") == "succeeded" and (
        a.get("action") == "swap_spare" or (a.get("detail") or {}).get("took_returning_spare"))]
    pending = [{"action": a.get("action"), "target": a.get("target")} for a in actions
               if (a.get("detail") or {}).get("in_flight")]
    return {"tickets": _unique(tickets), "isolated": isolated, "spares_used": [s for s in spares_used if s],
            "spares_left": list(recovery.get("spares_left", [])), "pending": _unique(pending),
            **spare_moments(actions), "rungs": rungs_tried(actions), "checkpoints": checkpoints_used(actions),
            "returning_spares": [{"spare": d.get("spare"), "t_s": a.get("end_s"), "action": a.get("action")}
                                 for a in actions if (d := a.get("detail") or {}).get("took_returning_spare")],
            "degraded": list(inc.get("degraded") or []), "scale_outs": scale_outs(actions)}


def scale_outs(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rescales back towards a job's launch size after its scale-in (:mod:`opsbrain.recovery.scaleout`)."""
    return [{"workload": a.get("target"), "t_s": a.get("end_s"), "status": a.get("status"),
             "nodes": d.get("nodes"), "launch_nodes": d.get("launch_nodes"), "added": d.get("add") or [],
             "reason": d.get("reason")} for a in actions if a.get("action") == "scale_out"
            and not (d := a.get("detail") or {}).get("in_flight")]


_POOL_ACTIONS = ("swap_spare", "add_spare", "scale_out")  # actions that take from or give to the spare pool


def spare_moments(actions: list[dict[str, Any]]) -> dict[str, Any]:
    """The spare pool as the incident's own actions saw it: (time, spares left, action) at each swap or return,
    and whether a swap found none left (not the end-of-run count)."""
    counts = []
    for a in actions:
        d = a.get("detail") or {}
        n = d.get("spares_left", d.get("spares")) if a.get("action") in _POOL_ACTIONS or d.get(
            "took_returning_spare") else None
        if n is not None:
            counts.append({"t_s": a.get("start_s"), "spares_left": n, "action": a.get("action"),
                           "status": a.get("status")})
    exhausted = any(a.get("action") == "swap_spare" and a.get("status") == "failed"
                    and (a.get("detail") or {}).get("spares_left") == 0 for a in actions)
    return {"spare_counts": counts, "spares_exhausted": exhausted}


def rungs_tried(actions: list[dict[str, Any]]) -> list[str]:
    """Every rung of the recovery ladder the response tried, in order (``human`` when it ran out)."""
    out: list[str] = []
    for a in actions:
        r = (a.get("detail") or {}).get("to_rung") if a.get("kind") == "escalation" else a.get("rung")
        if r and r != "followup" and (not out or out[-1] != r):
            out.append(str(r))
    return out


def checkpoints_used(actions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The checkpoint each restart of the response loaded (source and step), from the workload's own report."""
    return [{"t_s": a.get("end_s"), "action": a.get("action"), **(a.get("detail") or {})["checkpoint"]}
            for a in actions if isinstance((a.get("detail") or {}).get("checkpoint"), dict)
            and a.get("status") == "succeeded"]


def _unique(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen, out = set(), []
    for r in rows:
        key = tuple(sorted((k, str(v)) for k, v in r.items() if k not in ("incident", "at_s", "opened_at_s")))
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def components(inc: dict[str, Any], actions: list[dict[str, Any]]) -> dict[str, Any]:
    """The parts a topology picture must show: diagnosed, injected, and those actions isolated."""
    inj = (inc.get("injected") or {}).get("component")
    diag = (inc.get("diagnosis") or {}).get("component")
    isolated = sorted({str(a.get("target")) for a in actions if a.get("status") == "succeeded"
                       and a.get("action") in ("isolate", "isolate_link", "cordon")})
    spares = sorted({str((a.get("detail") or {}).get("spare")) for a in actions
                     if a.get("action") == "swap_spare" and (a.get("detail") or {}).get("spare")})
    return {"injected": inj, "diagnosed": diag, "isolated": isolated, "spares": spares}
