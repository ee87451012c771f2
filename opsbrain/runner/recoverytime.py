"""A fault's recovery as the journal scores it: when its link went down, who detected it and the lead time, each
affected workload's recovery from the fault's own dips, the fault's time to recover, whether its part is back in
service, and how it came back. Split from :mod:`opsbrain.runner.run` (session 43: run.py passed 500 lines)."""

from __future__ import annotations

from typing import Any

from faultlib.faults.base import ActiveFault
from opsbrain.runner import dips, scoring


def link_down_at(sim: Any, f: ActiveFault) -> float | None:
    """When the fault took its link down; an optical degradation ends by taking the link down (when the link was
    drained before, the model's last step is that moment: the link would have gone down then)."""
    down = next((e.t for e in sim.trace.events if e.kind == "health" and e.subject == f.target
                 and e.detail.get("new") == "failed" and e.detail.get("cause") == f"fault:{f.id}"), None)
    if down is None and f.kind == "optical_degradation":
        down = f.ended_at_s
    return down


def lead_time(sim: Any, f: ActiveFault, detected: float | None, swept: bool) -> dict[str, Any]:
    """Issue 7: who detected the fault, and for a link fault caught before its link went down, the lead time
    (link down - detection)."""
    down = link_down_at(sim, f) if f.target in sim.topology.links else None
    lead = down - detected if down is not None and detected is not None and detected < down else None
    return {"detected_by": None if detected is None else "sweep" if swept else "detector", "link_down_at_s": down,
            "lead_time_s": lead}


def breach_series(w: Any) -> scoring.Series | None:
    """An inference service's latency SLO over time: (t, 1.0 while TPOT or TTFT is over its bound, else 0.0), the
    bounds its ``slo_violation_s`` also counts; None for training, or for a service that did not meet them at its
    start (an SLO it never met is no bar to come back within)."""
    if w.kind != "inference":
        return None
    tpot, ttft = w.p.tpot_slo_ms, w.p.ttft_slo_s * 1e3
    out = [(float(s["t"]), 1.0 if s["tpot_ms"] > tpot or s["ttft_ms"] > ttft else 0.0) for s in w.rate_history()]
    return out if out and out[0][1] == 0.0 else None


def recoveries(f: ActiveFault, affected: list[str], series: dict[str, scoring.Series],
                histories: dict[str, list[dict[str, Any]]], causes: dict[str, dips.Causes], end: float,
                nominal: dict[str, float], dip_by: float, degraded: dict[str, float],
                breaches: dict[str, scoring.Series]) -> tuple[dict[str, dips.Recovery], dict[str, dict[str, float]]]:
    """Per affected workload, the fault's recovery from its own dips (:func:`dips.recover`: a dip is the fault's when
    it owns the dip's start, :class:`dips.Causes`), and per inference service the instances whose drop the fault owns
    (its units: out of the bar until they serve again, :func:`dips.unit_drops`)."""
    recs: dict[str, dips.Recovery] = {}
    units: dict[str, dict[str, float]] = {}
    for w in affected:
        def mine(t: float, w: str = w) -> bool:
            return f.id in causes[w].owners_at(t)

        u = dips.unit_drops(histories[w], f.at_s, mine) if w in histories else {}
        units[w] = u
        recs[w] = dips.recover(series[w], f.at_s, end, nominal=nominal.get(w), dip_by=dip_by,
                               degraded_rate=degraded.get(w), breach=breaches.get(w),
                               units=dips.units_out(histories[w], u) if u else None, mine=mine)
    return recs, units


def fault_ttr(f: ActiveFault, affected: list[str], recs: dict[str, dips.Recovery], actions: list[dict[str, Any]],
         service: tuple[bool, float | None] = (False, None), still_out: bool = False) -> float | None:
    """The fault's ttr (None: not recovered by the run's end): the last of its workloads' recoveries (``recs``). A
    fault that touches no workload: when its part was back (``service``, :func:`scoring.back_in_service`) if the
    fault took it out of service; otherwise the end of its response's last successful action, or the fault's end. A
    link ``still_out`` of service at the end (:func:`scoring.still_out_of_service`) is not recovered, nor are its
    workloads: their loss is the fault's until the end of the run."""
    if still_out:
        return None
    if affected:
        vals = [recs[w].ttr for w in affected]
        return None if any(t is None for t in vals) else max(t for t in vals if t is not None)
    took_out, back = service
    if took_out:  # never while the part is still down and unhandled (a ticket does not bring a link back)
        return None if back is None else back - f.at_s
    done = [a["end_s"] for a in actions if a.get("status") == "succeeded" and a.get("end_s") is not None]
    if done:
        return max(done) - f.at_s
    if f.ended_at_s is not None:
        return f.ended_at_s - f.at_s
    return None


def health_changes(sim: Any) -> dict[str, list[tuple[float, str, str | None]]]:
    """Each part's health changes in the plant's trace: part -> [(t, new state, cause)], in time order."""
    out: dict[str, list[tuple[float, str, str | None]]] = {}
    for e in sim.trace.of_kind("health"):
        out.setdefault(e.subject, []).append((e.t, str(e.detail.get("new")), e.detail.get("cause")))
    return out


def service_state(sim: Any, changes: dict[str, list[tuple[float, str, str | None]]], f: ActiveFault,
             actions: list[dict[str, Any]], end: float) -> tuple[tuple[bool, float | None], dict[str, Any] | None]:
    """:func:`scoring.back_in_service` for ``f`` from the plant's health changes of its part and its response's
    successful re-routes and drains; and for a link, :func:`scoring.still_out_of_service`."""
    health = [h for h in changes.get(f.target, []) if h[0] >= f.at_s - 1e-9]
    routes = [a["end_s"] for a in actions if a.get("action") in ("reroute", "drain_link")
              and a.get("status") == "succeeded" and a.get("end_s") is not None]
    link = "~" in f.target
    dark = scoring.still_out_of_service(f.id, f.at_s, health, routes, bool(sim.fabric.drain_holders(f.target)),
                                        end) if link else None
    return scoring.back_in_service(f.id, f.at_s, health, routes, link, end), dark


def recovery_kind(onset: float, ttr: float | None, detected: float | None) -> str:
    """How a fault came back (docs/architecture.md, "recovery"): ``after_detection`` (its workloads or part back at or
    after it was detected: what the response is measured on), ``before_detection`` (back before anything detected it:
    it healed by itself or needed no action; ttr 0, never degraded, is one), ``not_recovered``."""
    if ttr is None:
        return "not_recovered"
    return "before_detection" if detected is not None and onset + ttr < detected - 1e-9 else "after_detection"
