"""``kb eval``: the diagnosis scored on held-out worlds (:mod:`opsbrain.kb.heldout`), fault incidents first.

Each incident is scored at its last diagnosis moment. Headline (fault incidents only): top-1 (the model's best
class), macro-F1 over the fault classes present (from top-1), localization (the component the *predicted* class's
rule names, :mod:`opsbrain.diagnosis.localize`, against the injected target; incidents without a target are left
out), confident-wrong (wrong top-1 at confidence >= 0.8), abstention (the engine answers ``unknown``). Background
noise incidents (self-healing flaps, correctable-error bursts) are scored apart with their false-alarm rate (an
actionable fault class named for noise). The near-copy rate is the share of fault incidents whose discrete features
equal a training case's with the same label.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from opsbrain import stats
from opsbrain.diagnosis.engine import Engine
from opsbrain.diagnosis.localize import RULES, localize, sibling_roots
from opsbrain.kb import cases as case_lib
from opsbrain.kb import heldout, nearcopy
from opsbrain.verdict import UNKNOWN

if TYPE_CHECKING:
    import pandas as pd

CONFIDENT = 0.8
BENIGN = ("dirty_connector", "hbm_ce_storm")
Say = Callable[[str], None]


@dataclass
class Scored:
    case: case_lib.Case
    values: dict[str, str]  # the run's held-out value per axis
    top1: str
    confidence: float
    answer: str  # the engine's decision (``unknown`` when it abstains)
    located: bool | None  # None: no injected target to find


def score(rows: Sequence[Scored]) -> dict[str, Any]:
    """Top-1, macro-F1, localization, confident-wrong and abstention of ``rows``."""
    if not rows:
        return {"n": 0, "top1": None, "macro_f1": None, "localization": None, "with_target_n": 0,
                "confident_wrong": None, "abstention": None, "accuracy_with_abstention": None}
    y = [r.case.label for r in rows]
    p = [r.top1 for r in rows]
    loc = [r.located for r in rows if r.located is not None]
    return {"n": len(rows), "top1": _r(np.mean([a == b for a, b in zip(y, p, strict=True)])),
            "macro_f1": _r(macro_f1(y, p)), "localization": _r(np.mean(loc)) if loc else None,
            "with_target_n": len(loc),
            "confident_wrong": _r(np.mean([r.top1 != r.case.label and r.confidence >= CONFIDENT for r in rows])),
            "abstention": _r(np.mean([r.answer == UNKNOWN for r in rows])),
            "accuracy_with_abstention": _r(np.mean([r.answer == r.case.label for r in rows])),
            "reliability": stats.reliability([r.confidence for r in rows], [r.top1 == r.case.label for r in rows])}


def run_weighted(rows: Sequence[Scored]) -> dict[str, Any]:
    """Top-1, localization, confident-wrong and abstention with each run weighted once (a run that splits into
    many incidents counts as much as one that opens a single incident)."""
    by_run: dict[int, list[Scored]] = {}
    for r in rows:
        by_run.setdefault(r.case.run_seed, []).append(r)

    def mean_of(test: Callable[[Scored], bool | None]) -> float | None:
        per = [np.mean(v) for rs in by_run.values() if (v := [x for r in rs if (x := test(r)) is not None])]
        return _r(np.mean(per)) if per else None

    return {"runs": len(by_run), "top1": mean_of(lambda r: r.top1 == r.case.label),
            "localization": mean_of(lambda r: r.located),
            "confident_wrong": mean_of(lambda r: r.top1 != r.case.label and r.confidence >= CONFIDENT),
            "abstention": mean_of(lambda r: r.answer == UNKNOWN)}


def macro_f1(y: Sequence[str], pred: Sequence[str]) -> float:
    """Mean F1 over the classes present in ``y``."""
    f1s = []
    for cl in sorted(set(y)):
        tp = sum(a == cl and b == cl for a, b in zip(y, pred, strict=True))
        fp = sum(a != cl and b == cl for a, b in zip(y, pred, strict=True))
        fn = sum(a == cl and b != cl for a, b in zip(y, pred, strict=True))
        f1s.append(2 * tp / (2 * tp + fp + fn) if tp else 0.0)
    return float(np.mean(f1s)) if f1s else 0.0


def _r(x: Any) -> float:
    return round(float(x), 4)


def score_case(engine: Engine, c: case_lib.Case, values: dict[str, str]) -> Scored:
    from opsbrain.runner.scoring import localized

    probs = engine.model.predict_one(c.features)
    best = int(probs.argmax())
    top1 = engine.model.classes[best]
    answer = engine.decide(c.features, c.signals, c.at_s).fault_class
    located = None
    if c.component is not None:
        root = localize(RULES.get(top1, ""), c.signals)
        # a link class names the node's other links down with it as roots of their own (Diagnosis.also, session 42):
        # a run of sibling links is located where the diagnosis names the case's link among them
        located = localized(c.label, c.component, root) or c.component in sibling_roots(top1, root, c.signals)
    return Scored(c, values, top1, float(probs[best]), answer, located)


def final_moments(cases: list[case_lib.Case]) -> list[case_lib.Case]:
    """The last diagnosis moment of each incident, per view."""
    last: dict[tuple[str, str], case_lib.Case] = {}
    for c in cases:
        last[(c.incident, c.view)] = c
    return list(last.values())


def incident_table(rows: Sequence[Scored]) -> pd.DataFrame:
    """One row per scored incident: its run, whether top-1 was right, localized (NaN: no target), abstained,
    confidently wrong, and its held-out value on each axis."""
    import pandas as pd

    return pd.DataFrame({
        "run": [r.case.run_seed for r in rows],
        "top1": [r.top1 == r.case.label for r in rows],
        "localization": [np.nan if r.located is None else float(r.located) for r in rows],
        "abstention": [r.answer == UNKNOWN for r in rows],
        "confident_wrong": [r.top1 != r.case.label and r.confidence >= CONFIDENT for r in rows],
        **{axis.name: [r.values.get(axis.name) for r in rows] for axis in heldout.AXES}})


_RUN_WEIGHTED = ("top1", "localization", "abstention", "confident_wrong")


def per_axis(rows: Sequence[Scored], train_pairs: set[tuple[int, str]] | None = None) -> list[dict[str, Any]]:
    """Fault-incident figures per held-out value of each axis, each run weighted once (a run that splits into
    many incidents would otherwise decide the row of every axis value it happened to draw); top-1 per incident
    beside, and, given the training library's signatures, the value's near-copy rate per incident (which axes
    change what an incident looks like). A table of incidents grouped by (value, run), then by value."""
    df = incident_table(rows)
    out = []
    for axis in heldout.AXES:
        per_run = df.groupby([axis.name, "run"], sort=True)[list(_RUN_WEIGHTED)].mean()
        by_value = per_run.groupby(level=0).mean()
        runs = per_run.groupby(level=0).size()
        per_incident = df.groupby(axis.name, sort=True)["top1"].agg(["size", "mean"])
        for value in axis.held_out:
            has = value in per_incident.index
            w = by_value.loc[value] if has else None
            near = None
            if train_pairs is not None:
                sub = [rows[int(i)] for i in np.flatnonzero((df[axis.name] == value).to_numpy())]
                near = nearcopy.near_copy_rate([r.case.features for r in sub], [r.case.label for r in sub],
                                               train_pairs)
            out.append({"axis": axis.name, "value": value, "n": int(per_incident.loc[value, "size"]) if has else 0,
                        "runs": int(runs.loc[value]) if has else 0,
                        **{k: _r_or_none(None if w is None else w[k]) for k in _RUN_WEIGHTED},
                        "top1_per_incident": _r_or_none(per_incident.loc[value, "mean"]) if has else None,
                        "near_copy": None if near is None else _r(near)})
    return out


def _r_or_none(x: Any) -> float | None:
    return None if x is None or x != x else _r(x)


def hurts_most(table: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The axis whose values spread top-1 the most, and its worst value (of the per-axis table)."""
    import pandas as pd

    t = pd.DataFrame(table, columns=["axis", "value", "top1"]).dropna(subset=["top1"])
    t = t[t.groupby("axis")["top1"].transform("size") >= 2]
    if t.empty:
        return None
    g = t.groupby("axis", sort=True)["top1"]
    spread = (g.max() - g.min()).sort_values(ascending=False, kind="stable")
    axis = str(spread.index[0])
    worst = t.loc[t.loc[t["axis"] == axis, "top1"].idxmin()]
    return {"axis": axis, "top1_spread": round(float(spread.iloc[0]), 4), "worst_value": str(worst["value"]),
            "worst_top1": float(worst["top1"])}


def confusion(rows: Sequence[Scored]) -> dict[str, dict[str, int]]:
    """Injected class x top-1 counts (only the pairs that occur), rows and columns sorted."""
    import pandas as pd

    if not rows:
        return {}
    t = pd.crosstab(pd.Series([r.case.label for r in rows], name="label"),
                    pd.Series([r.top1 for r in rows], name="top1"))
    return {str(a): {str(b): int(n) for b, n in row.items() if n} for a, row in t.iterrows()}


def noise_false_positives(engine: Engine, days: float = 1.0, seeds: tuple[int, ...] = (1_000_001,)) -> dict[str, Any]:
    """Incidents the engine would act on in noise-only pods (no fault injected, training world): per pod-day."""
    from faultlib.topology import Topology
    from opsbrain.controller import Controller

    topo = Topology.build()
    actionable = total = 0
    by_class: Counter[str] = Counter()
    for s in seeds:
        sim = case_lib.build_world(s, topo)
        ctl = Controller(sim, engine)
        sim.run(days * 86400.0)
        for inc in ctl.incidents:
            total += 1
            d = inc.diagnosis
            if d is not None and d.fault_class not in (*BENIGN, UNKNOWN):
                actionable += 1
                by_class[d.fault_class] += 1
    pod_days = days * len(seeds)
    return {"pod_days": pod_days, "incidents": total, "false_positives": actionable,
            "false_positives_per_pod_day": actionable / pod_days, "by_class": dict(by_class)}


def evaluate_heldout(engine: Engine, per_kind: int = 10, workers: int = 2, noise_days: float = 1.0,
                     progress: Callable[[int, int], None] | None = None, say: Say | None = None,
                     home: Any = None) -> dict[str, Any]:
    """Generate the held-out runs, score them, and report (see the module docstring)."""
    heldout.check_disjoint()
    t0 = time.perf_counter()
    plan = heldout.plan_heldout(per_kind, text_views=True)
    results = case_lib.run_all([args for args, _v in plan], workers, progress)
    gen_s = time.perf_counter() - t0
    rows: list[Scored] = []
    text_rows: list[Scored] = []
    undetected: Counter[str] = Counter()
    t1 = time.perf_counter()
    for (args, values), cases in zip(plan, results, strict=True):
        kind = args[1]
        if not any(c.injected and c.label == kind for c in cases):
            undetected[kind] += 1
        for c in final_moments(cases):
            (rows if c.view == "live" else text_rows).append(score_case(engine, c, values))
    ms = (time.perf_counter() - t1) * 1e3 / max(1, len(rows) + len(text_rows))
    faults = [r for r in rows if r.case.injected]
    noise = [r for r in rows if not r.case.injected]
    t2 = time.perf_counter()
    train_pairs = training_signatures(engine, workers, say, home)
    sig_s = time.perf_counter() - t2
    near = nearcopy.near_copy_rate([r.case.features for r in faults], [r.case.label for r in faults], train_pairs)
    table = per_axis(faults, train_pairs)
    meta = engine.model.meta
    return {
        "near_copy_rate": round(near, 4) if near is not None else None,
        "near_copy_by_class": near_copy_by_class(faults, train_pairs),
        "faults": score(faults),
        "faults_per_run": {**run_weighted(faults), "near_copy_rate": _near_per_run(faults, train_pairs)},
        "noise": {**score(noise), "false_alarm_rate": _r(np.mean([r.answer not in (*BENIGN, UNKNOWN) for r in noise]))
                  if noise else None},
        "text_view": {**score([r for r in text_rows if r.case.injected]),
                      "note": "the same fault incidents as pasted log text: no metrics, no job events"},
        "undetected_runs": {"n": sum(undetected.values()), "of": len(plan),
                            "by_class": dict(sorted(undetected.items()))},
        "per_axis": table,
        "hurts_most": hurts_most(table),
        "confusion": confusion(faults),
        "noise_only": noise_false_positives(engine, days=noise_days),
        "protocol": {"axes": heldout.axes_table(), "runs": len(plan), "runs_per_class": per_kind,
                     "eval_seeds": f"{case_lib.EVAL_SEEDS.start}..{case_lib.EVAL_SEEDS.stop - 1}",
                     "train_seeds": f"{case_lib.TRAIN_SEEDS.start}..{case_lib.TRAIN_SEEDS.stop - 1}",
                     "concurrency": heldout.EVAL_CONCURRENCY, "confident_at": CONFIDENT,
                     "fault_params": {k: [list(d) for d in v] for k, v in heldout.FAULT_PARAMS.items()},
                     "generation_s": round(gen_s, 1), "training_signatures_s": round(sig_s, 1),
                     "diagnosis_ms_per_incident": round(ms, 3),
                     "model": {k: meta.get(k) for k in ("trained_at", "cases", "cv", "cv_accuracy", "cv_folds")}},
    }


def near_copy_by_class(rows: Sequence[Scored], pairs: set[tuple[int, str]]) -> dict[str, dict[str, Any]]:
    """Per fault class: its fault incidents, how many are near-copies, and the rate (which classes' telemetry
    training has already seen whole)."""
    out: dict[str, dict[str, Any]] = {}
    for r in rows:
        row = out.setdefault(r.case.label, {"n": 0, "near_copies": 0})
        row["n"] += 1
        row["near_copies"] += (nearcopy.signature(r.case.features), r.case.label) in pairs
    return {k: {**v, "rate": _r(v["near_copies"] / v["n"])} for k, v in sorted(out.items())}


def _near_per_run(rows: Sequence[Scored], pairs: set[tuple[int, str]]) -> float | None:
    by_run: dict[int, list[bool]] = {}
    for r in rows:
        by_run.setdefault(r.case.run_seed, []).append((nearcopy.signature(r.case.features), r.case.label) in pairs)
    return _r(np.mean([np.mean(v) for v in by_run.values()])) if by_run else None


def training_signatures(engine: Engine, workers: int, say: Say | None, home: Any = None) -> set[tuple[int, str]]:
    from opsbrain.kb.training import training_signatures as sigs

    return sigs(engine.model, workers, say, home)


BARS = {"top1": (">=", 0.93), "macro_f1": (">=", 0.90), "localization": (">=", 0.90), "confident_wrong": ("<=", 0.02)}
"""Issue 15's bars on the fault-only figures (targets, not fitted: nothing here was chosen on the held-out set)."""
MAX_NEAR_COPY = 0.20
MAX_NOISE_FP_PER_POD_DAY = 1.0


def shortfalls(res: dict[str, Any]) -> list[str]:
    """The figures that miss their bar (``faults.<name>``, ``near_copy_rate``, noise false positives)."""
    short = []
    for name, (op, bar) in BARS.items():
        v = res["faults"].get(name)
        if v is None or (v < bar if op == ">=" else v > bar):
            short.append(f"faults.{name}")
    if res.get("near_copy_rate") is None or res["near_copy_rate"] > MAX_NEAR_COPY:
        short.append("near_copy_rate")
    if res["noise_only"]["false_positives_per_pod_day"] > MAX_NOISE_FP_PER_POD_DAY:
        short.append("noise_only.false_positives_per_pod_day")
    return short
