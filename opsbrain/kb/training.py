"""Train, persist, load and evaluate the diagnosis model.

The model that ``opsbrain kb train`` builds ships in the package (``knowledge_base/model``) with its sidecar. When
the sidecar does not match this install (another scikit-learn, an edited knowledge base), the engine trains a
smaller model on first use, caches it in the data directory and says so once.
"""

from __future__ import annotations

import time
from collections import Counter, defaultdict
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from opsbrain.diagnosis.engine import DiagnosisParams, Engine
from opsbrain.diagnosis.model import DiagnosisModel, ModelMismatch
from opsbrain.store import default_home
from opsbrain.verdict import UNKNOWN

if TYPE_CHECKING:  # the simulator (case generation, the controller) is imported by training and evaluation only
    from opsbrain.kb import cases as case_lib

Say = Callable[[str], None]
FIRST_USE_PER_KIND = 12
TEXT_CASES_PER_CLASS = 150


def shipped_model_path() -> Path:
    return Path(str(resources.files("knowledge_base"))) / "model" / "diagnosis.npz"


def cached_model_path(home: Path | None = None) -> Path:
    return (home or default_home()) / "model" / "diagnosis.npz"


def kb_hash() -> str:
    """The knowledge base's hash, with the code/message tables and vendor map that feed the features."""
    import hashlib

    from opsbrain.kb.loader import load_kb

    h = hashlib.sha256(load_kb().hash().encode())
    base = Path(str(resources.files("knowledge_base")))
    for name in ("codes.yaml", "categories.yaml", "vendor_map.yaml"):
        p = base / name
        h.update(p.read_bytes() if p.exists() else b"")
    return h.hexdigest()[:16]


def train_model(per_kind: int = 30, workers: int = 2, seed: int = 0,
                progress: Callable[[int, int], None] | None = None) -> DiagnosisModel:
    """Generate the case library from training seeds and fit the model on it."""
    from opsbrain.kb import cases as case_lib

    t0 = time.perf_counter()
    cases = case_lib.generate(case_lib.TRAIN_SEEDS, per_kind=per_kind, workers=workers, progress=progress,
                              text_views=True)
    gen_s = time.perf_counter() - t0
    from opsbrain.diagnosis.knowledge import default_table
    from opsbrain.kb import textcases
    from opsbrain.kb.loader import load_kb

    texts = textcases.generate(default_table(), per_class=TEXT_CASES_PER_CLASS,
                               families={c.id: c.family for c in load_kb()})
    feats = [c.features for c in cases] + [c.features for c in texts]
    labels = [c.label for c in cases] + [c.label for c in texts]
    groups = [f"twin-{c.run_seed}" for c in cases] + [c.group for c in texts]
    model = DiagnosisModel.train(feats, labels, kb_hash(), seed=seed, groups=groups,
                                 extra={"case_runs_per_kind": per_kind, "case_seeds": "0..9999 (training range)",
                                        "views": "live (controller) and text (pasted logs: no metrics, no jobs)",
                                        "text_cases": len(texts), "text_cases_per_class": TEXT_CASES_PER_CLASS,
                                        "text_seed": textcases.TRAIN_SEED, "case_generation_s": round(gen_s, 1)})
    return model


def load_engine(home: Path | None = None, say: Say | None = None, params: DiagnosisParams | None = None) -> Engine:
    """The engine with the shipped model, else a cached one, else one trained now (announced through ``say``)."""
    h = kb_hash()
    reasons = []
    for path in (shipped_model_path(), cached_model_path(home)):
        try:
            return Engine(DiagnosisModel.load(path, h), params)
        except ModelMismatch as exc:
            reasons.append(str(exc))
        except Exception as exc:  # an unreadable file is a cache miss, not a crash
            reasons.append(f"{path}: {type(exc).__name__}: {exc}")
    if say:
        say(f"opsbrain: no usable diagnosis model ({reasons[0]}); training one now on "
            f"{FIRST_USE_PER_KIND} case runs per fault class (once; cached in {cached_model_path(home).parent})")
    model = train_model(per_kind=FIRST_USE_PER_KIND)
    model.save(cached_model_path(home))
    return Engine(model, params)


def noise_false_positives(engine: Engine, days: float = 1.0, seeds: tuple[int, ...] = (1_000_001,)) -> dict[str, Any]:
    """Incidents the engine would act on in noise-only pods (no fault injected): count per pod-day."""
    from faultlib.topology import Topology
    from opsbrain.controller import Controller
    from opsbrain.kb import cases as case_lib

    topo = Topology.build()
    actionable = 0
    total = 0
    by_class: Counter[str] = Counter()
    for s in seeds:
        sim = case_lib.build_world(s, topo)
        ctl = Controller(sim, engine)
        sim.run(days * 86400.0)
        for inc in ctl.incidents:
            total += 1
            d = inc.diagnosis
            if d is not None and d.fault_class not in ("dirty_connector", "hbm_ce_storm", UNKNOWN):
                actionable += 1
                by_class[d.fault_class] += 1
    pod_days = days * len(seeds)
    return {"pod_days": pod_days, "incidents": total, "false_positives": actionable,
            "false_positives_per_pod_day": actionable / pod_days, "by_class": dict(by_class)}


def evaluate(engine: Engine, per_kind: int = 10, workers: int = 2, noise_days: float = 1.0,
             progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """Held-out evaluation (DESIGN.md protocol): seeds disjoint from training, other noise levels, concurrency."""
    from opsbrain.diagnosis.localize import RULES, localize
    from opsbrain.kb import cases as case_lib

    t0 = time.perf_counter()
    cases = case_lib.generate(case_lib.EVAL_SEEDS, per_kind=per_kind, workers=workers, concurrency=0.3,
                              noise_scales=(0.5, 2.0, 5.0), progress=progress, keep_signals=True, text_views=True)
    gen_s = time.perf_counter() - t0
    final: dict[tuple[int, str, str], case_lib.Case] = {}
    for c in cases:
        final[(c.run_seed, c.incident, c.view)] = c  # the last diagnosis moment of each incident, per view
    rows = [c for c in final.values() if c.view == "live"]
    text_rows = [c for c in final.values() if c.view == "text"]
    text_pred = [engine.model.classes[int(i)] for i in engine.model.predict_proba(
        [c.features for c in text_rows]).argmax(1)] if text_rows else []
    probs = engine.model.predict_proba([c.features for c in rows])
    t1 = time.perf_counter()
    decisions = [engine.decide(c.features, c.signals, c.at_s) for c in rows]
    per_incident_ms = (time.perf_counter() - t1) * 1e3 / max(1, len(rows))
    t2 = time.perf_counter()
    engine.model.predict_proba([c.features for c in rows])
    batch_rate = len(rows) / max(1e-9, time.perf_counter() - t2)
    labels = sorted(set(engine.model.classes) | {c.label for c in rows})
    y = [c.label for c in rows]
    pred = [d.fault_class for d in decisions]
    top1 = [engine.model.classes[int(i)] for i in probs.argmax(1)]
    answered = [i for i, p in enumerate(pred) if p != UNKNOWN]
    loc_ok = [_localized(c.label, c.component, localize(RULES.get(c.label, ""), c.signals)) for c in rows]
    conf = {a: Counter() for a in labels}  # type: dict[str, Counter[str]]
    for a, p in zip(y, pred, strict=True):
        conf[a][p] += 1
    per_class = {}
    for cl in labels:
        tp = sum(1 for a, p in zip(y, pred, strict=True) if a == cl and p == cl)
        fp = sum(1 for a, p in zip(y, pred, strict=True) if a != cl and p == cl)
        fn = sum(1 for a, p in zip(y, pred, strict=True) if a == cl and p != cl)
        prec = tp / (tp + fp) if tp + fp else 0.0
        rec = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        per_class[cl] = {"support": tp + fn, "precision": round(prec, 4), "recall": round(rec, 4),
                         "f1": round(f1, 4)}
    supported = [v["f1"] for v in per_class.values() if v["support"] > 0]
    fault_rows = [i for i, c in enumerate(rows) if c.injected]
    noise = noise_false_positives(engine, days=noise_days)
    return {
        "protocol": {"train_seeds": "0..9999", "eval_seeds": "1000000..1009999", "runs_per_class": per_kind,
                     "noise_scales": [0.5, 2.0, 5.0], "concurrency": 0.3, "incidents": len(rows),
                     "generation_s": round(gen_s, 1), "model": {k: engine.model.meta.get(k) for k in
                                                                  ("trained_at", "cases", "cv_accuracy", "sklearn")}},
        "top1_accuracy": round(float(np.mean([a == p for a, p in zip(y, top1, strict=True)])), 4),
        "accuracy": round(float(np.mean([a == p for a, p in zip(y, pred, strict=True)])), 4),
        "answered_accuracy": round(float(np.mean([y[i] == pred[i] for i in answered])), 4) if answered else None,
        "macro_f1": round(float(np.mean(supported)), 4) if supported else 0.0,
        "localization_accuracy": round(float(np.mean(loc_ok)), 4),
        "fault_incidents": {"n": len(fault_rows),
                            "accuracy": round(float(np.mean([y[i] == pred[i] for i in fault_rows])), 4)
                            if fault_rows else None},
        "abstention_rate": round(1 - len(answered) / max(1, len(rows)), 4),
        "wrong_and_confident": round(sum(1 for i in answered if y[i] != pred[i]) / max(1, len(rows)), 4),
        "diagnosis_ms_per_incident": round(per_incident_ms, 3),
        "batch_incidents_per_s": round(batch_rate, 1),
        "text_view": {"incidents": len(text_rows), "top1_accuracy": round(float(np.mean(
            [c.label == p for c, p in zip(text_rows, text_pred, strict=True)])), 4) if text_rows else None,
            "note": "the same incidents as pasted log text: no metrics, no job events"},
        "noise_only": noise,
        "per_class": per_class,
        "confusion": {a: dict(sorted(v.items())) for a, v in conf.items() if v},
    }


def _localized(kind: str, target: str | None, component: str | None) -> bool:
    from opsbrain.runner.scoring import localized

    return target is None or localized(kind, target, component)  # background noise: no injected root to find


def class_counts(cases: list[case_lib.Case]) -> dict[str, int]:
    out: defaultdict[str, int] = defaultdict(int)
    for c in cases:
        out[c.label] += 1
    return dict(out)
