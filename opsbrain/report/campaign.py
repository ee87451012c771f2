"""Campaign summaries from many run journals: ttr per fault class, diagnosis accuracy and confusion, ETTR and
goodput, and opsbrain against the manual baseline.

Input is a list of journals (or a campaign summary holding them under ``journals``/``runs``, see
:func:`opsbrain.report.output.as_journals`). Definitions: a *fault* is a journal incident with an injected truth;
*top-1 accuracy* counts a fault whose diagnosed class equals the injected kind; *correct* also needs the component;
*abstained* means the diagnosis said ``unknown`` or nothing; ETTR is the training job's own figure (useful time /
elapsed); training goodput = useful steps x the launch placement's nominal step time / elapsed (slowdowns and
scale-ins count against it); inference goodput = tokens served / (served + lost).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from markupsafe import Markup
from matplotlib import __version__ as mpl_version
from matplotlib.colors import LinearSegmentedColormap

from opsbrain import stats
from opsbrain.report import plots
from opsbrain.report.build import REPORT_VERSION
from opsbrain.verdict import ettr_outcome, is_noise, run_outcome

if TYPE_CHECKING:
    import pandas as pd

NONE = "(none)"


def _q(values: list[float], q: float) -> float | None:
    """The one quantile of every summary (:func:`opsbrain.stats.quantile`), so the HTML, Markdown and CLI
    summaries of a campaign print the same figures."""
    return stats.quantile(values, q)


def _stats(values: list[float]) -> dict[str, Any]:
    """A ttr distribution as ``chaos campaign`` keeps it (:func:`opsbrain.campaign.summary.dist`: n, mean, sd, min,
    p50, p90, p99, max and ``unsupported``, the quantiles too few values support), with the sorted ``values``.
    ``median`` repeats ``p50`` for the consumers of the model before session 42 (it gave median / p90 / max); it
    goes in the next release (docs/reports.md)."""
    from opsbrain.campaign.summary import dist  # here: opsbrain.campaign's package imports the runner

    d = dist(values)
    return d | {"median": d["p50"], "values": sorted(values)}


def _fault_table(faults: list[tuple[dict[str, Any], dict[str, Any]]]) -> pd.DataFrame:
    """One row per fault: injected kind, policy, diagnosed class (``(none)`` if none), ttr (NaN if unrecovered) and
    the scorer's flags."""
    import pandas as pd

    rows = [{"kind": i["injected"]["kind"], "policy": str(j.get("policy", "auto")),
             "diag": (i.get("diagnosis") or {}).get("fault_class") or NONE,
             "ttr_s": float(i["ttr_s"]) if i.get("ttr_s") is not None else float("nan"),
             "detected": i.get("detected_at_s") is not None, "class_correct": bool(i.get("class_correct")),
             "correct": bool(i.get("correct")), "localized": bool(i.get("localized")),
             "early": i.get("recovery") == "before_detection", "censored": i.get("detection") == "censored"}
            for j, i in faults]
    df = pd.DataFrame.from_records(rows, columns=["kind", "policy", "diag", "ttr_s", "detected", "class_correct",
                                                  "correct", "localized", "early", "censored"])
    df["top1"] = df["diag"] == df["kind"]
    # censored (too late in its run to be detected): no recovery was due, so not an unrecovered fault
    df["unrecovered"] = df["ttr_s"].isna() & ~df["censored"].astype(bool)
    return df


def build_campaign_report(journals: list[dict[str, Any]], summary: dict[str, Any] | None = None) -> dict[str, Any]:
    """The report model of a campaign (``kind`` = ``campaign``): the faults as one table, grouped by kind and policy
    (per-class figures), cross-tabulated against the diagnosed class (confusion)."""
    import pandas as pd

    faults = [(j, i) for j in journals for i in j.get("incidents") or [] if i.get("injected")]
    df = _fault_table(faults)
    kinds = sorted(set(df["kind"]))
    cols = sorted(set(kinds) | set(df["diag"]), key=lambda c: (c not in kinds, c == NONE, c))
    matrix = [[int(x) for x in row] for row in
              pd.crosstab(df["kind"], df["diag"]).reindex(index=kinds, columns=cols, fill_value=0).to_numpy()] \
        if len(df) else []
    scored = df[~df["censored"].astype(bool)]  # censored: injected too late in a run to be detected, apart
    n = len(scored)
    acc: dict[str, Any] = {"faults": n, "detected": int(scored["detected"].sum()),
                           "top1": int(scored["class_correct"].sum()), "correct": int(scored["correct"].sum()),
                           "localized": int(scored["localized"].sum()),
                           "abstained": int(scored["diag"].isin([NONE, "unknown"]).sum()),
                           "censored": len(df) - n}
    acc |= {f"{k}_rate": (acc[k] / n if n else None) for k in ("detected", "top1", "correct", "localized",
                                                                "abstained")}
    per_class: dict[str, Any] = {}
    for k, g in df.groupby("kind", sort=True):
        by_pol = {str(p): _stats(gp.loc[~gp["early"].astype(bool), "ttr_s"].dropna().tolist()) | {
                      "faults": len(gp), "top1": int(gp["top1"].sum()), "unrecovered": int(gp["unrecovered"].sum()),
                      "censored": int(gp["censored"].sum()),
                      "before_detection": int(gp["early"].sum())}  # back before detection: out of the ttr figures
                  for p, gp in g.groupby("policy", sort=True)}
        per_class[str(k)] = {"support": len(g), "top1": int(g["top1"].sum()), "ttr": by_pol,
                             "unrecovered": int(g["unrecovered"].sum())}
    runs = [_run_row(j) for j in journals]
    return {"kind": "campaign", "report_version": REPORT_VERSION, "runs": runs, "summary": summary or {},
            "runs_line": runs_line(len(runs), summary),
            "policies": sorted({str(j.get("policy", "auto")) for j in journals}),
            "scenarios": sorted({str(j.get("scenario")) for j in journals}),
            "accuracy": acc, "per_class": per_class,
            "confusion": {"rows": kinds, "cols": cols, "matrix": matrix},
            "false_positives": sum(1 for j in journals for i in j.get("incidents") or []
                                   if not i.get("injected") and i.get("false_positive")),
            "noise_incidents": sum(1 for j in journals for i in j.get("incidents") or [] if is_noise(i)),
            "efficiency": _efficiency(journals), "vs_manual": (vs := _vs_manual(faults)),
            "vs_manual_note": None if vs else vs_manual_note({str(j.get("policy", "auto")) for j in journals}),
            "unattributed": _unattributed(journals)}


def runs_line(reported: int, summary: dict[str, Any] | None) -> dict[str, Any]:
    """How many runs the report covers, of how many the campaign planned (its summary's ``runs.total``): a campaign
    stopped before its end (``complete`` false) says so, since its figures are over the finished runs only (before
    session 35 its report read as a whole campaign: "1 runs, 25 faults" of a campaign of 8)."""
    planned = (summary or {}).get("runs")
    total = planned.get("total") if isinstance(planned, dict) else None
    stopped = (summary or {}).get("complete") is False and isinstance(total, int) and total > reported
    head = f"{reported} of {total} runs" if stopped else f"{reported} run{'' if reported == 1 else 's'}"
    note = (f"Stopped before its end: {reported} of its {total} runs finished (run the same `opsbrain chaos campaign` "
            "command again to resume); every figure here is over the finished runs only.") if stopped else ""
    return {"head": head, "note": note, "planned": total}


def _run_row(j: dict[str, Any]) -> dict[str, Any]:
    s = j.get("summary") or {}
    eff = _efficiency([j])
    row = {"run_id": j.get("run_id"), "scenario": j.get("scenario"), "seed": j.get("seed"),
            "policy": j.get("policy"), "verdict": j.get("verdict"), "faults": s.get("incidents"),
            "diagnosed_correctly": s.get("diagnosed_correctly"), "recovered": s.get("recovered"),
            "median_ttr_s": s.get("median_ttr_s"), "before_detection": s.get("recovered_before_detection"),
            "false_positives": s.get("false_positives"),
            "ettr": eff["by_policy"].get(str(j.get("policy", "auto")), {}).get("ettr"),
            "training_goodput": eff["by_policy"].get(str(j.get("policy", "auto")), {}).get("training_goodput"),
            "inference_goodput": eff["by_policy"].get(str(j.get("policy", "auto")), {}).get("inference_goodput")}
    row["outcome"], row["tone"] = run_outcome(row["verdict"], row["ettr"])  # the CLI's words and colours
    row["ettr_tone"] = ettr_outcome(row["ettr"])[1]
    return row


def _efficiency(journals: list[dict[str, Any]]) -> dict[str, Any]:
    """ETTR and goodput per policy, time-weighted over the runs' training jobs and token-weighted for serving."""
    acc: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for j in journals:
        p = str(j.get("policy", "auto"))
        for w in j.get("workloads") or []:
            if w.get("kind") == "training" and w.get("elapsed_s"):
                acc[p]["elapsed"] += w["elapsed_s"]
                acc[p]["useful"] += w.get("useful_s") or 0.0
                step_s = w.get("launch_nominal_step_time_s") or w.get("nominal_step_time_s") or 0.0  # scale-in counts
                acc[p]["nominal"] += (w.get("useful_steps") or 0.0) * step_s
                acc[p]["lost_npu_s"] += w.get("lost_npu_s") or 0.0
            elif w.get("kind") == "inference":
                acc[p]["served"] += w.get("tokens_served") or 0.0
                acc[p]["lost"] += w.get("lost_tokens") or 0.0
    out = {}
    for p, a in sorted(acc.items()):
        out[p] = {"ettr": a["useful"] / a["elapsed"] if a["elapsed"] else None,
                  "training_goodput": a["nominal"] / a["elapsed"] if a["elapsed"] else None,
                  "inference_goodput": a["served"] / (a["served"] + a["lost"]) if a["served"] + a["lost"] else None,
                  "lost_npu_hours": a["lost_npu_s"] / 3600.0, "lost_tokens": a["lost"]}
    return {"by_policy": out}


def _unattributed(journals: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per policy: the runs, the workloads' loss and the part of it no fault's impact covers (each workload's
    ``unattributed``: before a fault's impact began or while none was open), NPU-seconds and tokens. ``None`` when
    no journal has the split (journals written before it)."""
    acc: dict[str, dict[str, Any]] = {}
    for j in journals:
        a = acc.setdefault(str(j.get("policy", "auto")), {"runs": 0, "lost_npu_s": 0.0, "unattributed_npu_s": None,
                                                          "lost_tokens": 0.0, "unattributed_tokens": None})
        a["runs"] += 1
        for w in j.get("workloads") or []:
            lost, key, rest = (("lost_npu_s", "unattributed_npu_s", "lost_npu_s") if w.get("kind") == "training"
                               else ("lost_tokens", "unattributed_tokens", "lost_tokens"))
            a[lost] += float(w.get(lost) or 0.0)
            split = w.get("unattributed")
            if isinstance(split, dict) and rest in split:
                a[key] = (a[key] or 0.0) + float(split[rest] or 0.0)
    return dict(sorted(acc.items()))


def _impact_sum(i: dict[str, Any], key: str) -> float:
    return sum(float(v.get(key) or 0.0) for v in (i.get("impact") or {}).values())


def vs_manual_note(policies: set[str]) -> str:
    """Why a campaign report has no comparison with manual operations. Before session 42 it said "No manual-policy
    runs in this campaign" also of a `--policy both` campaign whose manual runs met no fault (operator42)."""
    if "manual" not in policies:
        return "No manual-policy runs in this campaign; add runs with --policy manual (or both) to compare."
    if len(policies) < 2:
        return "Every run in this campaign is manual: no other policy to compare with it."
    return ("No fault was injected in the manual-policy runs, so there is no fault class to compare "
            "(the comparison is per injected fault class).")


def _vs_manual(faults: list[tuple[dict[str, Any], dict[str, Any]]]) -> list[dict[str, Any]]:
    """Per fault class with manual runs: median ttr and mean impact per fault under each policy (empty without
    manual runs, or when every run is manual)."""
    policies = {str(j.get("policy", "auto")) for j, _ in faults}
    if "manual" not in policies or len(policies) < 2:
        return []
    rows = []
    for k in sorted({i["injected"]["kind"] for j, i in faults if str(j.get("policy", "auto")) == "manual"}):
        row: dict[str, Any] = {"fault_class": k}
        for p in sorted(policies):
            mine = [i for j, i in faults if i["injected"]["kind"] == k and str(j.get("policy", "auto")) == p]
            ttrs = [float(i["ttr_s"]) for i in mine if i.get("ttr_s") is not None
                    and i.get("recovery") != "before_detection"]  # recoveries after detection only
            row[p] = {"n": len(mine), "median_ttr_s": _q(ttrs, 0.5),
                      "lost_npu_s": statistics.fmean([_impact_sum(i, "lost_npu_s") for i in mine]) if mine else None,
                      "lost_tokens": statistics.fmean([_impact_sum(i, "lost_tokens") for i in mine]) if mine else None,
                      "human_steps": statistics.fmean([float(i.get("human_steps") or 0) for i in mine])
                      if mine else None}
        rows.append(row)
    return rows


# ---- figures -----------------------------------------------------------------------------------------
def campaign_figures(m: dict[str, Any]) -> dict[str, Any]:
    """Inline SVGs: ttr per class, confusion matrix, efficiency per policy, and (with manual runs) ttr vs manual."""
    figs: dict[str, Any] = {"ttr": Markup(ttr_svg(m)), "confusion": Markup(confusion_svg(m)),
                            "efficiency": Markup(efficiency_svg(m))}
    if m["vs_manual"]:
        figs["vs_manual"] = Markup(vs_manual_svg(m))
    return figs


def ttr_svg(m: dict[str, Any]) -> str:
    classes = [k for k, v in m["per_class"].items() if any(s["n"] for s in v["ttr"].values())]
    policies = m["policies"]
    with plots.matplotlib.rc_context(plots.RC):
        fig = plots._figure(9.0, 0.9 + 0.32 * max(1, len(classes) * len(policies)))
        ax = fig.add_subplot()
        data, labels, colours = [], [], []
        for k in classes:
            for p in policies:
                vals = _raw_ttr(m, k, p)
                if vals:
                    data.append(vals)
                    labels.append(f"{k} ({p}, n={len(vals)})")
                    colours.append("#2e86c1" if p != "manual" else "#e67e22")
        if data:
            horizontal = ({"orientation": "horizontal"} if tuple(int(x) for x in mpl_version.split(".")[:2]) >= (3, 10)
                          else {"vert": False})
            bp = ax.boxplot(data, patch_artist=True, widths=0.6, showfliers=True,
                            medianprops={"color": "#1c2833"}, **horizontal)
            for patch, c in zip(bp["boxes"], colours, strict=True):
                patch.set_facecolor(c)
                patch.set_alpha(0.55)
            for y, (vals, c) in enumerate(zip(data, colours, strict=True), start=1):
                ax.plot(vals, [y] * len(vals), "o", markersize=3, color=c, alpha=0.8)
            ax.set_yticks(range(1, len(labels) + 1), labels)
            plots.symlog_seconds(ax)
            ax.set_xlim(left=0, right=max(max(v) for v in data) * 1.5 + 1)
            ax.invert_yaxis()
        ax.set_xlabel("time to recover, seconds (linear to 10 s, logarithmic beyond)")
        ax.grid(axis="x", color="#eeeeee")
        return plots.to_svg(fig, "campaign-ttr")


def _raw_ttr(m: dict[str, Any], kind: str, policy: str) -> list[float]:
    return list(m["per_class"].get(kind, {}).get("ttr", {}).get(policy, {}).get("values", []))


def confusion_svg(m: dict[str, Any]) -> str:
    c = m["confusion"]
    rows, cols, mat = c["rows"], c["cols"], c["matrix"]
    with plots.matplotlib.rc_context(plots.RC):
        fig = plots._figure(min(11.0, 3.0 + 0.42 * len(cols)), 1.6 + 0.32 * max(1, len(rows)))
        ax = fig.add_subplot()
        if rows:
            cmap = LinearSegmentedColormap.from_list("ob", ["#ffffff", "#1f4e79"])
            top = max(1, max(max(r) for r in mat))
            # vector cells (pcolormesh), not imshow: an image would be a raster embedded in the SVG
            ax.pcolormesh([x - 0.5 for x in range(len(cols) + 1)], [y - 0.5 for y in range(len(rows) + 1)], mat,
                          cmap=cmap, vmin=0, vmax=top, edgecolors="#eeeeee", linewidth=0.5)
            ax.invert_yaxis()
            for y, r in enumerate(mat):
                for x, v in enumerate(r):
                    if v:
                        ax.text(x, y, str(v), ha="center", va="center", fontsize=7.5,
                                color="white" if v > top / 2 else "#1c2833",
                                fontweight="bold" if rows[y] == cols[x] else "normal")
            ax.set_xticks(range(len(cols)), cols, rotation=40, ha="right")
            ax.set_yticks(range(len(rows)), rows)
        ax.set_xlabel("diagnosed class")
        ax.set_ylabel("injected kind")
        return plots.to_svg(fig, "campaign-confusion")


def efficiency_svg(m: dict[str, Any]) -> str:
    eff = m["efficiency"]["by_policy"]
    metrics = [("ettr", "ETTR"), ("training_goodput", "training goodput"), ("inference_goodput",
                                                                             "inference goodput")]
    with plots.matplotlib.rc_context(plots.RC):
        fig = plots._figure(9.0, 2.4)
        ax = fig.add_subplot()
        pols = list(eff)
        width = 0.8 / max(1, len(pols))
        for k, p in enumerate(pols):
            xs = [x + k * width for x in range(len(metrics))]
            ys = [eff[p].get(key) or 0.0 for key, _ in metrics]
            bars = ax.bar(xs, ys, width=width * 0.95, label=p, color="#2e86c1" if p != "manual" else "#e67e22")
            for b, y in zip(bars, ys, strict=True):
                ax.text(b.get_x() + b.get_width() / 2, y, f"{y:.1%}", ha="center", va="bottom", fontsize=7)
        ax.set_xticks([x + 0.4 - width / 2 for x in range(len(metrics))], [lab for _, lab in metrics])
        lows = [eff[p].get(key) for p in pols for key, _ in metrics if eff[p].get(key)]
        ax.set_ylim(max(0.0, min(lows, default=0.0) - 0.05) if lows else 0.0, 1.02)
        ax.legend(frameon=False, fontsize=7.5, loc="lower left", bbox_to_anchor=(0, 1.0), ncol=len(pols))
        ax.set_ylabel("share")
        return plots.to_svg(fig, "campaign-efficiency")


def vs_manual_svg(m: dict[str, Any]) -> str:
    rows = [r for r in m["vs_manual"] if all(r.get(p, {}).get("median_ttr_s") is not None for p in m["policies"])]
    with plots.matplotlib.rc_context(plots.RC):
        fig = plots._figure(9.0, 0.9 + 0.4 * max(1, len(rows)))
        ax = fig.add_subplot()
        pols = m["policies"]
        h = 0.8 / max(1, len(pols))
        for k, p in enumerate(pols):
            ys = [y + k * h for y in range(len(rows))]
            vals = [r[p]["median_ttr_s"] for r in rows]
            ax.barh(ys, vals, height=h * 0.95, label=p, color="#2e86c1" if p != "manual" else "#e67e22")
        ax.set_yticks([y + 0.4 - h / 2 for y in range(len(rows))], [r["fault_class"] for r in rows])
        plots.symlog_seconds(ax)
        ax.invert_yaxis()
        ax.set_xlabel("median time to recover, seconds (linear to 10 s, logarithmic beyond)")
        ax.legend(frameon=False, fontsize=7.5, loc="lower left", bbox_to_anchor=(0, 1.0), ncol=len(pols))
        return plots.to_svg(fig, "campaign-vs-manual")
