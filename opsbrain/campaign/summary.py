"""Campaign figures: a compact record per run (from its journal) and the summary over runs.

Per policy: interruptions by root-cause category (faults of the profile's interruption table; background faults
are counted apart), ETTR and goodput per job, ttr / ttd / ttdiag distributions per fault class, diagnosis
accuracy, noise incidents and false positives, hands-off share, spare usage. With both policies: the paired
comparison on the same seeds (the same fault timelines): ETTR difference, lost NPU-seconds / tokens, ttr.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from faultlib.injection.profiles import get_profile
from faultlib.injection.spec import Timeline
from opsbrain import stats
from opsbrain.campaign.spec import CampaignSpec, sim_params

BACKGROUND = "none"  # FaultSpec.category of non-interrupting background faults


def _r(x: float | None, nd: int = 6) -> float | None:
    return None if x is None or not math.isfinite(x) else round(float(x), nd)


def seed_record(journal: dict[str, Any], timeline: Timeline | None = None, spares: int = 0) -> dict[str, Any]:
    """The figures of one run a campaign keeps (journal -> a few kB); ``timeline`` gives fault categories."""
    cats = {(s.target, _r(s.at_s)): s.category for s in (timeline or [])}
    faults = []
    for i in journal.get("incidents", []):
        inj = i.get("injected")
        if not inj:
            continue
        d = i.get("diagnosis") or {}
        faults.append({
            "kind": inj["kind"], "component": inj["component"], "at_s": inj["at_s"],
            "category": cats.get((inj["component"], _r(inj["at_s"])), inj.get("category", BACKGROUND)),
            "ttd_s": i.get("ttd_s"), "ttdiag_s": i.get("ttdiag_s"), "ttr_s": i.get("ttr_s"),
            "diagnosis": d.get("fault_class"), "correct": bool(i.get("correct")),
            "class_correct": bool(i.get("class_correct")), "localized": bool(i.get("localized")),
            "runbook": i.get("runbook"), "human_steps": int(i.get("human_steps") or 0),
            "degraded": bool(i.get("degraded")),  # its recovery left a job scaled in (degraded operation)
            "affected": list(i.get("affected_workloads") or []), "impact": i.get("impact") or {}})
    noise = [i for i in journal.get("incidents", []) if not i.get("injected")]
    swaps = sum(1 for i in journal.get("incidents", []) for a in i.get("actions", [])
                if a.get("action") == "swap_spare" and a.get("status") == "succeeded")
    rep = journal.get("recovery") or {}
    summ = journal.get("summary") or {}
    return {
        "seed": journal["seed"], "policy": journal["policy"], "status": journal.get("status", "finished"),
        "duration_s": journal.get("duration_s"), "ended_at_s": journal.get("ended_at_s"),
        "workloads": [_workload(w) for w in journal.get("workloads", [])],
        "faults": faults, "noise_incidents": len(noise),
        "false_positives": sum(1 for i in noise if i.get("false_positive")),
        "spares": {"initial": spares, "left": len(rep.get("spares_left") or []), "swaps": swaps,
                   "exhausted": len(rep.get("spares_exhausted") or [])},
        "human_steps": int(rep.get("human_steps") or 0),
        "events": summ.get("events"), "diagnosis_ms_mean": summ.get("diagnosis_ms_mean"),
    }


def _workload(w: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in w.items() if not isinstance(v, dict | list)}
    if w.get("kind") == "training":
        el = float(w.get("elapsed_s") or 0.0)
        # the launch placement's step time: a job that scaled in (fewer replicas, slower steps) counts it
        nominal = float(w.get("launch_nominal_step_time_s") or w.get("nominal_step_time_s") or 0.0)
        out["goodput"] = _r(float(w.get("useful_steps") or 0.0) * nominal / el) if el > 0 else None
        out["goodput_steps_per_s"] = _r(float(w.get("useful_steps") or 0.0) / el) if el > 0 else None
    else:
        served, lost = float(w.get("tokens_served") or 0.0), float(w.get("lost_tokens") or 0.0)
        out["goodput"] = _r(served / (served + lost)) if served + lost > 0 else None
    return out


# ---- statistics ----------------------------------------------------------------------------------------------
def quantile(xs: list[float], q: float) -> float | None:
    """The one quantile of every summary (:func:`opsbrain.stats.quantile`: numpy's linear method)."""
    return stats.quantile(xs, q)


def dist(xs: Iterable[float | None]) -> dict[str, Any]:
    d = stats.summary(xs)
    return {k: (v if k == "n" else _r(v)) for k, v in d.items()}


def _mean(xs: Iterable[float | None]) -> float | None:
    v = [float(x) for x in xs if x is not None]
    return _r(sum(v) / len(v)) if v else None


# ---- per policy ------------------------------------------------------------------------------------------------
def policy_summary(records: list[dict[str, Any]], npus: int | None = None, days: float | None = None,
                   profile: str | None = None) -> dict[str, Any]:
    n = len(records)
    faults = [f for r in records for f in r["faults"]]
    inter = [f for f in faults if f["category"] != BACKGROUND]
    by_cat = Counter(f["category"] for f in inter)
    out: dict[str, Any] = {"runs": n, "seeds": sorted(r["seed"] for r in records)}
    expected = None
    if npus and days and profile:
        expected = _r(get_profile(profile).total_rate() * npus * days / 365.0, 3)
    out["interruptions"] = {
        "total": len(inter), "per_run": _r(len(inter) / n) if n else None, "expected_per_run": expected,
        "by_category": {c: {"count": k, "share": _r(k / len(inter), 4)} for c, k in by_cat.most_common()},
        "background_faults": len(faults) - len(inter)}
    out["faults_by_kind"] = dict(sorted(Counter(f["kind"] for f in faults).items()))
    out["jobs"] = _jobs(records)
    out["ttr_by_class"] = _ttr_by_class(faults)
    det = [f for f in faults if f["ttd_s"] is not None]
    per_class: dict[str, dict[str, int]] = defaultdict(lambda: {"n": 0, "correct": 0})
    for f in faults:
        per_class[f["kind"]]["n"] += 1
        per_class[f["kind"]]["correct"] += int(f["correct"])
    noise = sum(r["noise_incidents"] for r in records)
    fps = sum(r["false_positives"] for r in records)
    out["diagnosis"] = {
        "faults": len(faults), "detected": len(det), "correct": sum(f["correct"] for f in faults),
        "accuracy": _r(sum(f["correct"] for f in faults) / len(faults), 4) if faults else None,
        "class_accuracy": _r(sum(f["class_correct"] for f in faults) / len(faults), 4) if faults else None,
        "interruption_accuracy": _r(sum(f["correct"] for f in inter) / len(inter), 4) if inter else None,
        "by_class": dict(sorted(per_class.items())),
        "noise_incidents": noise, "false_positives": fps, "false_positives_per_run": _r(fps / n) if n else None}
    out["recovery"] = {
        "handled_without_human": _r(sum(f["human_steps"] == 0 for f in faults) / len(faults), 4) if faults else None,
        "human_steps": sum(r.get("human_steps", 0) for r in records)}
    sp = [r["spares"] for r in records]
    out["spares"] = {"initial": sp[0]["initial"] if sp else 0, "swaps": sum(s["swaps"] for s in sp),
                     "swaps_per_run": dist(s["swaps"] for s in sp),
                     "min_left": min((s["left"] for s in sp), default=None),
                     "runs_exhausted": sum(1 for s in sp if s["exhausted"])}
    out["cost"] = {"wall_s": dist(r.get("wall_s") for r in records), "events": dist(r.get("events") for r in records)}
    return out


def _jobs(records: list[dict[str, Any]]) -> dict[str, Any]:
    by_name: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        for w in r["workloads"]:
            by_name[w["name"]].append(w)
    out: dict[str, Any] = {}
    for name, ws in sorted(by_name.items()):
        kind = ws[0].get("kind")
        if kind == "training":
            out[name] = {"kind": kind, "npus": ws[0].get("npus"),
                         "ettr": dist(w.get("ettr") for w in ws), "goodput": dist(w.get("goodput") for w in ws),
                         **{k: _mean(w.get(k) for w in ws) for k in (
                             "downtime_s", "stalled_s", "redone_s", "ckpt_stall_s", "slowdown_loss_s",
                             "degraded_s", "degraded_loss_s", "scale_ins",
                             "lost_npu_s", "restarts", "in_place_recoveries", "crashes", "timeouts", "stalls")},
                         # 1 - ETTR = (downtime + stalled + checkpoint stalls + redone work) / elapsed
                         "loss_share": {k.removesuffix("_s"): _mean(
                             float(w.get(k) or 0.0) / float(w["elapsed_s"]) for w in ws if w.get("elapsed_s"))
                             for k in ("downtime_s", "stalled_s", "ckpt_stall_s", "redone_s")}}
        else:
            out[name] = {"kind": kind, "goodput": dist(w.get("goodput") for w in ws),
                         **{k: _mean(w.get(k) for w in ws) for k in (
                             "tokens_served", "lost_tokens", "slo_violation_s", "mean_tpot_ms")}}
    return out


def _ttr_by_class(faults: list[dict[str, Any]]) -> dict[str, Any]:
    by: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for f in faults:
        by[f["kind"]].append(f)
    return {k: {"n": len(fs), "recovered": sum(f["ttr_s"] is not None for f in fs),
                "ttr_s": dist(f["ttr_s"] for f in fs), "ttd_s_p50": _r(quantile(
                    [f["ttd_s"] for f in fs if f["ttd_s"] is not None], 0.5)),
                "ttdiag_s_p50": _r(quantile([f["ttdiag_s"] for f in fs if f["ttdiag_s"] is not None], 0.5))}
            for k, fs in sorted(by.items())}


# ---- auto versus manual ----------------------------------------------------------------------------------------
def compare(auto: list[dict[str, Any]], manual: list[dict[str, Any]], base: str = "manual") -> dict[str, Any]:
    """Paired comparison on the seeds both policies ran (same fault timelines); ``manual`` holds the records of
    the baseline ``base`` (``manual`` or ``vendor-default``), whose name the keys carry."""
    a_by, m_by = {r["seed"]: r for r in auto}, {r["seed"]: r for r in manual}
    seeds = sorted(set(a_by) & set(m_by))
    out: dict[str, Any] = {"seeds": seeds, "jobs": {}}
    names = sorted({w["name"] for s in seeds for w in a_by[s]["workloads"]})
    for name in names:
        pairs = [(a, m) for s in seeds if (a := _w(a_by[s], name)) and (m := _w(m_by[s], name))]
        if not pairs:
            continue
        if pairs[0][0].get("kind") == "training":
            ea, em = [a["ettr"] for a, _ in pairs], [m["ettr"] for _, m in pairs]
            la, lm = sum(a["lost_npu_s"] for a, _ in pairs), sum(m["lost_npu_s"] for _, m in pairs)
            out["jobs"][name] = {"ettr_auto": _mean(ea), f"ettr_{base}": _mean(em),
                                 "ettr_gain": _mean([a - m for a, m in zip(ea, em, strict=True)]),
                                 "per_seed": [{"seed": s, "auto": a, base: m}
                                              for s, a, m in zip(seeds, ea, em, strict=True)],
                                 "lost_npu_s_auto": _r(la), f"lost_npu_s_{base}": _r(lm),
                                 "lost_npu_s_reduction": _r(1 - la / lm, 4) if lm > 0 else None}
        else:
            la = sum(float(a.get("lost_tokens") or 0) for a, _ in pairs)
            lm = sum(float(m.get("lost_tokens") or 0) for _, m in pairs)
            sa = sum(float(a.get("slo_violation_s") or 0) for a, _ in pairs)
            sm = sum(float(m.get("slo_violation_s") or 0) for _, m in pairs)
            out["jobs"][name] = {"lost_tokens_auto": _r(la), f"lost_tokens_{base}": _r(lm),
                                 "lost_tokens_reduction": _r(1 - la / lm, 4) if lm > 0 else None,
                                 "slo_violation_s_auto": _r(sa), f"slo_violation_s_{base}": _r(sm)}
    ta, tm = [], []
    for s in seeds:
        mf = {(f["kind"], f["component"], f["at_s"]): f for f in m_by[s]["faults"]}
        for f in a_by[s]["faults"]:
            g = mf.get((f["kind"], f["component"], f["at_s"]))
            if g is not None and f["ttr_s"] is not None and g["ttr_s"] is not None:
                ta.append(f["ttr_s"])
                tm.append(g["ttr_s"])
    out["ttr_s"] = {"pairs": len(ta), "auto": dist(ta), base: dist(tm),
                    "median_reduction": _r(1 - quantile(ta, 0.5) / quantile(tm, 0.5), 4)  # type: ignore[operator]
                    if ta and (quantile(tm, 0.5) or 0) > 0 else None}
    return out


def _w(rec: dict[str, Any], name: str) -> dict[str, Any] | None:
    return next((w for w in rec["workloads"] if w["name"] == name), None)


def summarize(spec: CampaignSpec, records: list[dict[str, Any]]) -> dict[str, Any]:
    t = sim_params(spec).topology
    npus = spec.pods * t.nodes_per_pod * t.npus_per_node
    by_policy = {p: policy_summary([r for r in records if r["policy"] == p], npus, spec.days, spec.profile)
                 for p in spec.policies if any(r["policy"] == p for r in records)}
    out: dict[str, Any] = {"campaign": spec.campaign_id, "spec": spec.model_dump(mode="json"), "npus": npus,
                           "by_policy": by_policy}
    for base in ("manual", "vendor-default"):
        if "auto" in by_policy and base in by_policy:
            out[f"auto_vs_{base}"] = compare([r for r in records if r["policy"] == "auto"],
                                             [r for r in records if r["policy"] == base], base)
    return out
