"""Campaign figures: a compact record per run (from its journal) and the summary over runs.

Per policy: interruptions by root-cause category (faults of the profile's interruption table; background faults
are counted apart), ETTR and goodput per job, ttr / ttd / ttdiag distributions per fault class, diagnosis
accuracy, noise incidents and false positives, hands-off share, spare usage. With both policies: the paired
comparison on the same seeds (the same fault timelines): ETTR difference, lost NPU-seconds / tokens, ttr.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from faultlib.injection.profiles import get_profile
from faultlib.injection.spec import Timeline
from opsbrain import stats
from opsbrain.campaign.spec import CampaignSpec, sim_params
from opsbrain.report.workloads import training_goodput
from opsbrain.verdict import is_noise, person_steps

if TYPE_CHECKING:
    import pandas as pd

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
            "recovery": i.get("recovery"),  # before_detection: healed by itself, out of the ttr distributions
            "detection": i.get("detection"),  # censored: too late in the run to detect, out of the accuracy
            "diagnosis": d.get("fault_class"), "correct": bool(i.get("correct")),
            "class_correct": bool(i.get("class_correct")), "localized": bool(i.get("localized")),
            "runbook": i.get("runbook"), "human_steps": int(i.get("human_steps") or 0),  # each step once
            "person_steps": person_steps(i),  # on the incident that handled it (folded: the covering one's)
            "degraded": bool(i.get("degraded")),  # its recovery left a job scaled in (degraded operation)
            "affected": list(i.get("affected_workloads") or []), "impact": i.get("impact") or {}})
    noise = [i for i in journal.get("incidents", []) if is_noise(i)]
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
        g = training_goodput(w)
        out["goodput"] = None if g is None else _r(g)
        out["goodput_steps_per_s"] = _r(float(w.get("useful_steps") or 0.0) / el) if el > 0 else None
    else:
        served, lost = float(w.get("tokens_served") or 0.0), float(w.get("lost_tokens") or 0.0)
        out["goodput"] = _r(served / (served + lost)) if served + lost > 0 else None
    return out


# ---- statistics ----------------------------------------------------------------------------------------------
QUANTILES = stats.QUANTILES  # the quantiles of every distribution a summary keeps (keys p50, p90, p99)


def quantile(xs: list[float], q: float) -> float | None:
    """The one quantile of every summary (:func:`opsbrain.stats.quantile`: numpy's linear method)."""
    return stats.quantile(xs, q)


def dist(xs: Iterable[float | None]) -> dict[str, Any]:
    """:func:`opsbrain.stats.summary` rounded, with ``unsupported``: the quantiles too few values support
    (:func:`opsbrain.stats.unsupported`: p90 below 10 values, p99 below 100)."""
    d = stats.summary(xs, QUANTILES)
    return {k: (v if k == "n" else _r(v)) for k, v in d.items()} | {"unsupported": stats.unsupported(d, QUANTILES)}


def _mean(xs: Iterable[float | None]) -> float | None:
    v = [float(x) for x in xs if x is not None]
    return _r(sum(v) / len(v)) if v else None


def frame(rows: list[dict[str, Any]], columns: list[str], numeric: Iterable[str] = ()) -> pd.DataFrame:
    """The rows as a DataFrame of ``columns`` (a key a row lacks is NaN); ``numeric`` columns as floats (None and
    anything not a number become NaN, i.e. left out of every figure, as :func:`opsbrain.stats.summary` does)."""
    import pandas as pd

    df = pd.DataFrame.from_records(rows, columns=columns)
    for c in numeric:
        df[c] = pd.to_numeric(df[c], errors="coerce").astype(float)
    return df


def dist_table(df: pd.DataFrame, by: str, col: str) -> pd.DataFrame:
    """Per value of ``by`` (sorted): n, mean, sd, min, p50, p90, p99, max of ``col``, NaN left out -- each group's
    figures are :func:`opsbrain.stats.summary`'s, the one definition of every summary."""
    import pandas as pd

    keys = list(stats.summary([], QUANTILES))
    rows = {k: stats.summary(g.dropna().tolist(), QUANTILES) for k, g in df.groupby(by, sort=True)[col]}
    return pd.DataFrame.from_dict(rows, orient="index", columns=keys) if rows else pd.DataFrame(columns=keys)


def dist_row(row: Any) -> dict[str, Any]:
    """One row of :func:`dist_table` as the summary's distribution dict (rounded as :func:`dist` rounds)."""
    d = {k: (int(v) if k == "n" else _nan_none(v)) for k, v in row.items()}
    return d | {"unsupported": stats.unsupported(d, QUANTILES)}


def group_means(df: pd.DataFrame, by: str, cols: Iterable[str]) -> pd.DataFrame:
    """Per value of ``by`` (sorted): the mean of each of ``cols`` over its rows that have a value (NaN if none),
    summed in row order as :func:`_mean` does."""
    def mean(s: pd.Series) -> float:
        v = s.dropna().tolist()
        return sum(v) / len(v) if v else math.nan

    return df.groupby(by, sort=True)[list(cols)].agg(mean)


def _nan_none(x: Any, nd: int = 6) -> float | None:
    return None if x is None or x != x else _r(float(x), nd)


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
    scored = [f for f in faults if f.get("detection") != "censored"]  # censored: no time left to detect them
    inter_scored = [f for f in inter if f.get("detection") != "censored"]
    det = [f for f in scored if f["ttd_s"] is not None]
    noise = sum(r["noise_incidents"] for r in records)
    fps = sum(r["false_positives"] for r in records)
    out["diagnosis"] = {
        "faults": len(scored), "censored": len(faults) - len(scored), "detected": len(det),
        "correct": sum(f["correct"] for f in scored),
        "accuracy": _r(sum(f["correct"] for f in scored) / len(scored), 4) if scored else None,
        "class_accuracy": _r(sum(f["class_correct"] for f in scored) / len(scored), 4) if scored else None,
        "interruption_accuracy": _r(sum(f["correct"] for f in inter_scored) / len(inter_scored), 4)
        if inter_scored else None,
        "by_class": _diagnosis_by_class(scored),
        "noise_incidents": noise, "false_positives": fps, "false_positives_per_run": _r(fps / n) if n else None}
    early = [f["ttr_s"] for f in faults if _early(f)]
    out["recovery"] = {
        "handled_without_human": _r(sum(f["ttr_s"] is not None and f.get("person_steps", f["human_steps"]) == 0
                                        for f in faults) / len(faults), 4) if faults else None,
        # recovered, and no person in the loop (records kept before person_steps: their human_steps)
        "human_steps": sum(r.get("human_steps", 0) for r in records),
        # the headline: faults that needed a response (recovered after their detection); those back before it
        # (self-healed, no action needed) apart
        "ttr_after_detection_s": dist(f["ttr_s"] for f in faults if not _early(f)),
        "recovered_before_detection": len(early), "ttr_before_detection_s": dist(early)}
    sp = [r["spares"] for r in records]
    out["spares"] = {"initial": sp[0]["initial"] if sp else 0, "swaps": sum(s["swaps"] for s in sp),
                     "swaps_per_run": dist(s["swaps"] for s in sp),
                     "min_left": min((s["left"] for s in sp), default=None),
                     "runs_exhausted": sum(1 for s in sp if s["exhausted"])}
    out["cost"] = {"wall_s": dist(r.get("wall_s") for r in records), "events": dist(r.get("events") for r in records)}
    return out


TRAINING_MEANS = ("downtime_s", "stalled_s", "redone_s", "ckpt_stall_s", "slowdown_loss_s", "degraded_s",
                  "degraded_loss_s", "scale_ins", "scale_outs", "lost_npu_s", "restarts", "in_place_recoveries",
                  "crashes", "timeouts", "stalls")
SERVING_MEANS = ("tokens_served", "lost_tokens", "slo_violation_s", "mean_tpot_ms")
LOSS_SHARES = ("downtime_s", "stalled_s", "ckpt_stall_s", "redone_s")  # 1 - ETTR = their sum / elapsed


def _diagnosis_by_class(faults: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Faults and correct diagnoses per fault class."""
    if not faults:
        return {}
    df = frame(faults, ["kind", "correct"])
    t = df.assign(correct=df["correct"].astype(bool)).groupby("kind", sort=True).agg(
        n=("kind", "size"), correct=("correct", "sum"))
    return {str(k): {"n": int(r["n"]), "correct": int(r["correct"])} for k, r in t.iterrows()}


def _jobs(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Per job over the runs (a table of one row per run and job, grouped by job): ETTR and goodput
    distributions, the mean of each loss and count, and the loss shares of elapsed time."""
    rows = [w for r in records for w in r["workloads"]]
    if not rows:
        return {}
    numeric = ("ettr", "goodput", "elapsed_s", *TRAINING_MEANS, *SERVING_MEANS)
    df = frame(rows, ["name", "kind", "npus", *numeric], numeric)
    for k in LOSS_SHARES:  # a run without elapsed time has no share
        df[f"share_{k}"] = (df[k].fillna(0.0) / df["elapsed_s"]).where(df["elapsed_s"] > 0)
    first = df.groupby("name", sort=True)[["kind", "npus"]].first()
    means = group_means(df, "name", [*TRAINING_MEANS, *SERVING_MEANS, *(f"share_{k}" for k in LOSS_SHARES)])
    ettr, goodput = dist_table(df, "name", "ettr"), dist_table(df, "name", "goodput")
    out: dict[str, Any] = {}
    for name, head in first.iterrows():
        kind, m = head["kind"], means.loc[name]
        if kind == "training":
            npus = head["npus"]
            out[str(name)] = {"kind": kind, "npus": None if npus != npus else int(npus),
                              "ettr": dist_row(ettr.loc[name]), "goodput": dist_row(goodput.loc[name]),
                              **{k: _nan_none(m[k]) for k in TRAINING_MEANS},
                              "loss_share": {k.removesuffix("_s"): _nan_none(m[f"share_{k}"]) for k in LOSS_SHARES}}
        else:
            out[str(name)] = {"kind": kind, "goodput": dist_row(goodput.loc[name]),
                              **{k: _nan_none(m[k]) for k in SERVING_MEANS}}
    return out


def _early(f: dict[str, Any]) -> bool:
    """Recovered before it was detected (healed by itself, needed no action): not a recovery by the response."""
    return f.get("recovery") == "before_detection"


def _ttr_by_class(faults: list[dict[str, Any]]) -> dict[str, Any]:
    """Per fault class (a table of one row per fault, grouped by kind): faults, recovered, of those how many were
    back before their detection (``recovered_before_detection``: left out of ``ttr_s``, the distribution of the
    recoveries after detection), and the distributions of ttr, ttd and ttdiag (the medians of the last two also
    under their old keys ``ttd_s_p50``, ``ttdiag_s_p50``)."""
    if not faults:
        return {}
    rows = [{**f, "early": _early(f), "ttr_after": None if _early(f) else f["ttr_s"]} for f in faults]
    df = frame(rows, ["kind", "ttd_s", "ttdiag_s", "ttr_s", "ttr_after", "early"],
               ("ttd_s", "ttdiag_s", "ttr_s", "ttr_after"))
    g = df.groupby("kind", sort=True)
    counts = g.agg(n=("kind", "size"), recovered=("ttr_s", "count"), early=("early", "sum"))
    med = g[["ttd_s", "ttdiag_s"]].agg(lambda x: stats.quantile(x.dropna().tolist(), 0.5))
    ttr, ttd, ttdiag = (dist_table(df, "kind", c) for c in ("ttr_after", "ttd_s", "ttdiag_s"))
    return {str(k): {"n": int(c["n"]), "recovered": int(c["recovered"]),
                     "recovered_before_detection": int(c["early"]), "ttr_s": dist_row(ttr.loc[k]),
                     "ttd_s": dist_row(ttd.loc[k]), "ttdiag_s": dist_row(ttdiag.loc[k]),
                     "ttd_s_p50": _nan_none(med.loc[k, "ttd_s"]), "ttdiag_s_p50": _nan_none(med.loc[k, "ttdiag_s"])}
            for k, c in counts.iterrows()}


# ---- auto versus manual ----------------------------------------------------------------------------------------
def compare(auto: list[dict[str, Any]], manual: list[dict[str, Any]], base: str = "manual") -> dict[str, Any]:
    """Paired comparison on the seeds both policies ran (same fault timelines); ``manual`` holds the records of
    the baseline ``base`` (``manual`` or ``vendor-default``), whose name the keys carry. Jobs are paired by (seed,
    job), faults by (seed, kind, component, onset): a join of the two policies' tables."""
    seeds = sorted({r["seed"] for r in auto} & {r["seed"] for r in manual})
    out: dict[str, Any] = {"seeds": seeds, "jobs": {}}
    cols = ["seed", "name", "kind", "ettr", "lost_npu_s", "lost_tokens", "slo_violation_s"]
    numeric = ("ettr", "lost_npu_s", "lost_tokens", "slo_violation_s")
    jobs = frame([{**w, "seed": r["seed"]} for r in auto for w in r["workloads"]], cols, numeric).merge(
        frame([{**w, "seed": r["seed"]} for r in manual for w in r["workloads"]], cols, numeric),
        on=["seed", "name"], suffixes=("_a", "_m"), sort=True)
    for name, p in jobs.groupby("name", sort=True):
        p = p.sort_values("seed", kind="stable")
        if p["kind_a"].iloc[0] == "training":
            la, lm = sum(p["lost_npu_s_a"].tolist()), sum(p["lost_npu_s_m"].tolist())
            out["jobs"][str(name)] = {
                "ettr_auto": _mean(p["ettr_a"].tolist()), f"ettr_{base}": _mean(p["ettr_m"].tolist()),
                "ettr_gain": _mean((p["ettr_a"] - p["ettr_m"]).tolist()),
                "per_seed": [{"seed": int(s_), "auto": float(a), base: float(m)}
                             for s_, a, m in zip(p["seed"], p["ettr_a"], p["ettr_m"], strict=True)],
                "lost_npu_s_auto": _r(la), f"lost_npu_s_{base}": _r(lm),
                "lost_npu_s_reduction": _r(1 - la / lm, 4) if lm > 0 else None}
        else:
            la, lm = sum(p["lost_tokens_a"].fillna(0).tolist()), sum(p["lost_tokens_m"].fillna(0).tolist())
            sa, sm = sum(p["slo_violation_s_a"].fillna(0).tolist()), sum(p["slo_violation_s_m"].fillna(0).tolist())
            out["jobs"][str(name)] = {"lost_tokens_auto": _r(la), f"lost_tokens_{base}": _r(lm),
                                      "lost_tokens_reduction": _r(1 - la / lm, 4) if lm > 0 else None,
                                      "slo_violation_s_auto": _r(sa), f"slo_violation_s_{base}": _r(sm)}
    fcols = ["seed", "kind", "component", "at_s", "ttr_s", "early"]
    fa = frame([{**f, "seed": r["seed"], "early": _early(f)} for r in auto for f in r["faults"]], fcols, ("ttr_s",))
    fm = frame([{**f, "seed": r["seed"], "early": _early(f)} for r in manual for f in r["faults"]], fcols,
               ("ttr_s",))
    fm = fm.drop_duplicates(["seed", "kind", "component", "at_s"], keep="last")  # one fault per key, as a dict
    both = fa.merge(fm, on=["seed", "kind", "component", "at_s"], how="inner", suffixes=("_a", "_m"), sort=False)
    both = both[both["seed"].isin(seeds)].dropna(subset=["ttr_s_a", "ttr_s_m"])
    early = both["early_a"].astype(bool) | both["early_m"].astype(bool)  # back before detection under either
    both = both[~early].sort_values("seed", kind="stable")  # seed order, each seed's faults in the auto run's order
    ta, tm = both["ttr_s_a"].tolist(), both["ttr_s_m"].tolist()
    out["ttr_s"] = {"pairs": len(ta), "pairs_before_detection": int(early.sum()), "auto": dist(ta), base: dist(tm),
                    "median_reduction": _r(1 - quantile(ta, 0.5) / quantile(tm, 0.5), 4)  # type: ignore[operator]
                    if ta and (quantile(tm, 0.5) or 0) > 0 else None}
    return out


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
