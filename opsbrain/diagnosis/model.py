"""The diagnosis model: a scikit-learn Pipeline (DictVectorizer -> classifier) persisted with a version sidecar.

Loading refuses a model whose sidecar does not match this install (library versions, knowledge-base hash,
format): the caller then retrains and says so once.
"""

from __future__ import annotations

import json
import platform
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import joblib
import numpy as np
import sklearn
from sklearn.ensemble import RandomForestClassifier
from sklearn.feature_extraction import DictVectorizer
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import Pipeline

from opsbrain.fsio import write_atomic

FORMAT = 1


class ModelMismatch(RuntimeError):
    """The persisted model was built by another install (versions, knowledge base or format differ)."""


def make_pipeline(seed: int = 0) -> Pipeline:
    return Pipeline([
        ("vectorize", DictVectorizer(sparse=False)),
        # natural class frequencies: self-healing flaps really are far more common than flapping links, so the
        # ambiguous first flap leans to the benign answer (no class re-weighting)
        ("classify", RandomForestClassifier(n_estimators=40, min_samples_leaf=2, random_state=seed, n_jobs=1)),
    ])


def _atomic_write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, data, mode=0o644)  # a shipped model must be readable by everyone


def versions() -> dict[str, str]:
    return {"sklearn": sklearn.__version__, "numpy": np.__version__, "python": platform.python_version()}


class DiagnosisModel:
    def __init__(self, pipeline: Pipeline, meta: dict[str, Any]) -> None:
        self.pipeline = pipeline
        self.meta = meta
        vec: DictVectorizer = pipeline.named_steps["vectorize"]
        self.vocabulary = set(vec.feature_names_)
        self.classes: list[str] = [str(c) for c in pipeline.classes_]
        self._index = dict(vec.vocabulary_)
        self._trees = [est.tree_ for est in pipeline.named_steps["classify"].estimators_]

    @classmethod
    def train(cls, features: list[dict[str, float]], labels: list[str], kb_hash: str, seed: int = 0,
              extra: dict[str, Any] | None = None) -> DiagnosisModel:
        pipe = make_pipeline(seed)
        counts = {c: labels.count(c) for c in set(labels)}
        folds = max(2, min(5, min(counts.values())))
        cv = cross_val_score(make_pipeline(seed), features, labels,
                             cv=StratifiedKFold(folds, shuffle=True, random_state=seed))
        pipe.fit(features, labels)
        meta = {"format": FORMAT, **versions(), "kb_hash": kb_hash, "trained_at": datetime.now(UTC).isoformat(),
                "cases": len(labels), "class_counts": dict(sorted(counts.items())),
                "cv_accuracy": round(float(cv.mean()), 4), "cv_folds": folds,
                "features": sorted(pipe.named_steps["vectorize"].feature_names_),
                "classes": [str(c) for c in pipe.classes_], **(extra or {})}
        return cls(pipe, meta)

    def predict_proba(self, features: list[dict[str, float]]) -> np.ndarray:
        if len(features) == 1:
            return self.predict_one(features[0])[None, :]
        return np.asarray(self.pipeline.predict_proba(features))

    def predict_one(self, feats: dict[str, float]) -> np.ndarray:
        """Class probabilities of one incident without the per-call overhead of the Pipeline (one incident in a
        live run): the same forest, walked tree by tree on a dense row; equal to ``pipeline.predict_proba``."""
        row = np.zeros((1, len(self._index)), dtype=np.float32)
        for k, v in feats.items():
            j = self._index.get(k)
            if j is not None:
                row[0, j] = v
        total = np.zeros(len(self.classes))
        for tree in self._trees:
            leaf = tree.apply(row)[0]
            counts = tree.value[leaf, 0]
            total += counts / counts.sum()
        return np.asarray(total / len(self._trees))

    def novelty(self, feats: dict[str, float]) -> float:
        """Share of the incident's signal-kind features this model never saw in training (0 = all familiar)."""
        keys = [k for k in feats if k.startswith("n:")]
        if not keys:
            return 1.0
        return sum(1 for k in keys if k not in self.vocabulary) / len(keys)

    def save(self, path: Path) -> None:
        import io

        buf = io.BytesIO()
        joblib.dump(self.pipeline, buf, compress=3)
        _atomic_write_bytes(path, buf.getvalue())
        _atomic_write_bytes(sidecar(path), json.dumps(self.meta, indent=1, sort_keys=True).encode())

    @classmethod
    def load(cls, path: Path, kb_hash: str) -> DiagnosisModel:
        side = sidecar(path)
        if not path.exists() or not side.exists():
            raise ModelMismatch(f"no model at {path}")
        meta = json.loads(side.read_text())
        want = {"format": FORMAT, **versions(), "kb_hash": kb_hash}
        diff = {k: (meta.get(k), v) for k, v in want.items() if k != "python" and meta.get(k) != v}
        if diff:
            raise ModelMismatch("model sidecar does not match this install: " +
                                ", ".join(f"{k} {a!r} != {b!r}" for k, (a, b) in sorted(diff.items())))
        return cls(joblib.load(path), meta)


def sidecar(path: Path) -> Path:
    return path.with_suffix(".json")
