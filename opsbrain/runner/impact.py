"""Each fault's share of its workloads' loss (the journal's ``impact``) and the loss no fault carries.

A workload's loss is cut at every boundary of the faults' impact windows on it (:meth:`dips.Recovery.windows`: onset
to recovery, less the dips other causes own); each segment's loss (the workload's loss totals at its end minus at its
start, :meth:`loss_totals_at`: exact at any moment, not only at the snapshots taken during the run) goes in equal
shares to the faults whose window covers the segment's start (:func:`opsbrain.runner.scoring.loss_owners`). The rest
(before any fault, between windows, inside another cause's dip: background noise, a checkpoint) is the workload's
``unattributed`` loss; the faults' figures plus it add up to the workload's total.
"""

from __future__ import annotations

from typing import Any

from opsbrain.runner import scoring

IMPACT_FIELDS = {"training": ("lost_npu_s", "redone_steps", "downtime_s", "stalled_s", "ckpt_stall_s"),
                 "inference": ("lost_tokens", "slo_violation_s")}


def unattributed(acc: dict[str, Any], name: str, faults: list[dict[str, Any]]) -> dict[str, float]:
    """The part of a workload's loss no fault's impact carries (before the first fault touching it, or while none
    of their impact windows was open: noise, a fault no one injected): the faults' ``impact`` shares of it plus
    this add up to its total."""
    fields = IMPACT_FIELDS.get(acc.get("kind", ""), ())
    return {k: (acc.get(k) or 0.0) - sum((f.get("impact") or {}).get(name, {}).get(k, 0.0) for f in faults)
            for k in fields}


def attribute_impact(entries: list[dict[str, Any]], windows: dict[str, list[scoring.Window]],
                     workloads: dict[str, Any], accounting_end: dict[str, dict[str, Any]], end: float) -> None:
    """Fill each fault entry's ``impact``: per affected workload, its share of the workload's loss (module
    docstring). A fault that shared a loss says with which faults (``impact_shared_with``: workload -> fault ids)."""
    by_id = {e["id"]: e for e in entries}
    for e in entries:
        e["impact"] = {w: {k: 0.0 for k in IMPACT_FIELDS[accounting_end.get(w, {}).get("kind", "inference")]}
                       for w in e["affected_workloads"]}
    for w, wins in windows.items():
        fields = IMPACT_FIELDS[accounting_end.get(w, {}).get("kind", "inference")]
        cuts = sorted({t for _f, a, b in wins for t in (a, b) if t < end} | {end})
        points = [workloads[w].loss_totals_at(t) for t in cuts[:-1]] + [accounting_end.get(w, {})]
        for k, owners in enumerate(scoring.loss_owners(cuts, wins)):
            a, b = points[k + 1], points[k]
            if any(a.get(fld, 0.0) - b.get(fld, 0.0) > 0 for fld in fields) and len(owners) > 1:
                for fid in owners:  # say who shared a loss with whom (reports print "its share")
                    others = by_id[fid].setdefault("impact_shared_with", {}).setdefault(w, [])
                    have = {fid, *others}
                    others += [o for o in owners if o not in have]
            for fid in owners:
                share = by_id[fid]["impact"][w]
                for fld in fields:
                    share[fld] += (a.get(fld, 0.0) - b.get(fld, 0.0)) / len(owners)


def measurable(entry: dict[str, Any], units_down: dict[str, tuple[list[str], float]]) -> dict[str, Any]:
    """Whether the fault's loss shows in its workloads' loss figures. An inference fault that took instances out
    (``units_down``: workload -> its instances and their instance-seconds out inside the fault's windows) while the
    service lost no token and no SLO second (the other instances carried the demand) has a loss the metrics cannot
    see: ``impact_measurable`` false, with the reason in words (the journal says so rather than print 0)."""
    for w, (insts, secs) in units_down.items():
        share = (entry.get("impact") or {}).setdefault(w, {})
        share["instances_down_s"] = secs
        if secs > 0 and not any(v > 0 for k, v in share.items() if k != "instances_down_s"):
            names = ", ".join(f"{w}/{i}" for i in insts)
            return {"impact_measurable": False,
                    "impact_note": f"{names} out of service {secs:.0f} instance-s, but {w}'s other instances carried "
                                   "its demand within its SLO: no lost tokens or SLO time to charge; the capacity "
                                   "lost is the instance time"}
    return {"impact_measurable": True}
