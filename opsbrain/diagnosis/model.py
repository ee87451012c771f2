"""The diagnosis model: a random forest over incident features, fitted with scikit-learn (``kb train``) and
served from plain arrays (``.npz``) with a JSON sidecar, so that diagnosis imports neither scikit-learn nor scipy,
nor numpy (the arrays are read by :mod:`.npzplain` and walked in plain Python; numpy serves training and tests).

Loading refuses a model whose sidecar does not match this install (format, knowledge-base hash): the caller then
retrains and says so once. The fitted pipeline is DictVectorizer -> RandomForestClassifier; the vectorizer's
vocabulary and the trees are exported (:mod:`opsbrain.diagnosis.forest`).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import platform
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from opsbrain.diagnosis.forest import ArrayForest, export_forest
from opsbrain.errors import InputError
from opsbrain.fsio import check_target, write_atomic

if TYPE_CHECKING:
    import numpy as np

FORMAT = 2  # 2: arrays (npz) instead of a pickled scikit-learn pipeline


class ModelMismatch(RuntimeError):
    """The persisted model was built by another install (format or knowledge base differ), or is unreadable."""


TREES = 160
"""Trees of the forest. With 40 the same case library gave answers whose probability moved by up to 0.4 between
forest seeds (a pasted L2 chip death's 48 uplink alarms: l2_switch_failure 0.33 / 0.71 / 0.44 at seeds 0-2, under and
over the 0.4 bar; a lone host-memory allocation failure npu_oom 0.56 / 0.60 / 0.70), so a retrain for any knowledge
change flipped answers near the bar; with 160 the same probes move by 0.06 and 0.02 (0.52 / 0.57 / 0.51, 0.70 / 0.68
/ 0.69) and the real-log dev figure is the same at every seed. Cost: a 1.5 MB model (0.4 MB), ~0.04 s more per
``diagnose --logs`` (0.16 -> 0.20 s on 5 lines). Session 49 (kbstable49): 640 trees took the seed noise floor on the
blind sets' 535 answers from 1-2 class changes to 0, at 0.41 s against 0.31 s on a 5-line paste and a 6.8 MB model
(1.75 MB); not adopted (docs/validation.md)."""


def make_pipeline(seed: int = 0) -> Any:
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.pipeline import Pipeline

    return Pipeline([
        ("vectorize", DictVectorizer(sparse=False)),
        # natural class frequencies: self-healing flaps really are far more common than flapping links, so the
        # ambiguous first flap leans to the benign answer (no class re-weighting)
        ("classify", RandomForestClassifier(n_estimators=TREES, min_samples_leaf=2, random_state=seed, n_jobs=1)),
    ])


def versions() -> dict[str, str]:
    import numpy as np

    return {"numpy": np.__version__, "python": platform.python_version()}


def grouped_cv(features: list[dict[str, float]], labels: list[str], groups: Sequence[str] | None,
               seed: int) -> tuple[float, int, str]:
    """Cross-validated accuracy; folds grouped by run when groups are given (one run's incidents never straddle
    a fold)."""
    from sklearn.model_selection import GroupKFold, StratifiedKFold, cross_val_score

    counts = {c: labels.count(c) for c in set(labels)}
    if groups is not None and len(set(groups)) >= 5:
        cv = cross_val_score(make_pipeline(seed), features, labels, groups=list(groups), cv=GroupKFold(5))
        return float(cv.mean()), 5, "GroupKFold by run"
    folds = max(2, min(5, min(counts.values())))
    cv = cross_val_score(make_pipeline(seed), features, labels,
                         cv=StratifiedKFold(folds, shuffle=True, random_state=seed))
    return float(cv.mean()), folds, "StratifiedKFold"


class DiagnosisModel:
    def __init__(self, arrays: dict[str, np.ndarray], meta: dict[str, Any], pipeline: Any = None) -> None:
        self.meta = meta
        self.arrays = arrays
        self.classes: list[str] = [str(c) for c in meta["classes"]]
        names: list[str] = list(meta["features"])
        self._index = {k: i for i, k in enumerate(names)}
        self.vocabulary = set(names)
        self.forest = ArrayForest(arrays)
        self.pipeline = pipeline  # the fitted scikit-learn pipeline, only right after training

    @classmethod
    def train(cls, features: list[dict[str, float]], labels: list[str], kb_hash: str, seed: int = 0,
              extra: dict[str, Any] | None = None, groups: Sequence[str] | None = None) -> DiagnosisModel:
        import sklearn

        pipe = make_pipeline(seed)
        cv, folds, how = grouped_cv(features, labels, groups, seed)
        pipe.fit(features, labels)
        vec = pipe.named_steps["vectorize"]
        counts = {c: labels.count(c) for c in set(labels)}
        meta = {"format": FORMAT, **versions(), "sklearn_fitted_with": sklearn.__version__, "kb_hash": kb_hash,
                "trained_at": datetime.now(UTC).isoformat(), "cases": len(labels),
                "class_counts": dict(sorted(counts.items())), "cv_accuracy": round(cv, 4), "cv_folds": folds,
                "cv": how, "features": list(vec.feature_names_), "classes": [str(c) for c in pipe.classes_],
                **(extra or {})}
        return cls(export_forest(pipe.named_steps["classify"]), meta, pipe)

    def _row(self, feats: dict[str, float]) -> dict[int, float]:
        return {j: v for k, v in feats.items() if (j := self._index.get(k)) is not None}

    def proba_one(self, feats: dict[str, float]) -> list[float]:
        """Class probabilities of one incident (in the order of :attr:`classes`), in plain Python."""
        return self.forest.proba(self._row(feats))

    def predict_one(self, feats: dict[str, float]) -> np.ndarray:
        return self.forest.predict_one(self._row(feats))

    def predict_proba(self, features: list[dict[str, float]]) -> np.ndarray:
        import numpy as np

        if not features:
            return np.zeros((0, len(self.classes)))
        return np.vstack([self.predict_one(f) for f in features])

    def novelty(self, feats: dict[str, float]) -> float:
        """Share of the incident's signal-kind features this model never saw in training (0 = all familiar)."""
        keys = [k for k in feats if k.startswith("n:")]
        if not keys:
            return 1.0
        return sum(1 for k in keys if k not in self.vocabulary) / len(keys)

    def save(self, path: Path, force: bool = False) -> None:
        """Write the arrays and the sidecar as one unit (see :func:`save_pair`); ``force``: the output policy's
        (replace package data, as for the shipped model)."""
        import numpy as np

        buf = io.BytesIO()
        np.savez_compressed(buf, **{k: _as_numpy(v) for k, v in self.arrays.items()})
        path.parent.mkdir(parents=True, exist_ok=True)
        data = buf.getvalue()
        meta = {**self.meta, "arrays_sha256": hashlib.sha256(data).hexdigest()}
        save_pair(path, data, json.dumps(meta, indent=1, sort_keys=True).encode(), force=force)
        self.meta = meta

    @classmethod
    def load(cls, path: Path, kb_hash: str, cache_dir: Path | None = None) -> DiagnosisModel:
        """The model at ``path`` (checked against this install); ``cache_dir``: where a stored copy of its arrays
        is kept for the next process (:func:`opsbrain.diagnosis.npzplain.load_npz_cached`)."""
        data, meta = load_pair(path)
        want = {"format": FORMAT, "kb_hash": kb_hash}
        diff = {k: (meta.get(k), v) for k, v in want.items() if meta.get(k) != v}
        if diff:
            raise ModelMismatch("model sidecar does not match this install: " +
                                ", ".join(f"{k} {a!r} != {b!r}" for k, (a, b) in sorted(diff.items())))
        from opsbrain.diagnosis.npzplain import NotPlain, load_npz_cached

        try:  # the sidecar names the arrays' digest (load_pair checked it)
            arrays: dict[str, Any] = dict(load_npz_cached(data, str(meta["arrays_sha256"]), cache_dir))
        except NotPlain:  # a layout the plain reader does not handle: numpy reads it
            import numpy as np

            with np.load(io.BytesIO(data), allow_pickle=False) as z:
                arrays = {k: z[k] for k in z.files}
        return cls(arrays, meta)


def _as_numpy(v: Any) -> Any:
    """An array of :mod:`.npzplain` (a loaded model re-saved) as numpy's; numpy arrays as they are."""
    from opsbrain.diagnosis.npzplain import PlainArray

    if isinstance(v, PlainArray):
        import numpy as np

        return np.frombuffer(v.data.tobytes(), dtype=np.dtype(v.data.typecode)).reshape(v.shape)
    return v


def _staged(path: Path) -> Path:
    return path.with_name(f".{path.name}.new")


def save_pair(path: Path, data: bytes, meta: bytes, force: bool = False) -> None:
    """Model arrays and sidecar as one unit: both are first written (atomically) as staged ``.NAME.new`` files,
    then moved into place arrays first, sidecar last. The sidecar names the arrays' digest, so at every moment one
    matching pair exists -- the old pair, the staged pair, or the new arrays with the staged sidecar -- and
    :func:`load_pair` finds it (and finishes an interrupted swap)."""
    side = sidecar(path)
    if side == path:
        raise InputError(f"the model file {str(path)!r} would be its own sidecar: give a name ending in .npz",
                         path="--out")
    for target in (path, side):
        check_target(target, "--out", force)
    write_atomic(_staged(path), data, mode=0o644, option="--out", force=force)
    write_atomic(_staged(side), meta, mode=0o644, option="--out", force=force)
    os.replace(_staged(path), path)
    os.replace(_staged(side), side)


def _pair_ok(arrays: Path, side: Path) -> tuple[bytes, dict[str, Any]] | None:
    try:
        meta = json.loads(side.read_text())
        data = arrays.read_bytes()
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict) or meta.get("arrays_sha256") != hashlib.sha256(data).hexdigest():
        return None
    return data, meta


def load_pair(path: Path) -> tuple[bytes, dict[str, Any]]:
    """The arrays' bytes and the sidecar of the matching pair at ``path`` (see :func:`save_pair`); a swap
    interrupted after the arrays moved is finished here when the directory is writable."""
    side = sidecar(path)
    if not path.exists() and not _staged(path).exists():
        raise ModelMismatch(f"no model at {path}")
    got = _pair_ok(path, side)
    if got is not None:
        return got
    got = _pair_ok(path, _staged(side))
    if got is not None:
        with contextlib.suppress(OSError):  # a read-only install still loads the pair
            os.replace(_staged(side), side)
        return got
    got = _pair_ok(_staged(path), _staged(side))
    if got is not None:
        return got
    if not side.exists():
        raise ModelMismatch(f"no model sidecar at {side}")
    for f in (path, side):
        try:
            with f.open("rb"):
                pass
        except OSError as exc:  # not a mismatch: a file that cannot be opened (no permission)
            raise ModelMismatch(f"cannot read {f}: {exc.strerror or exc}") from None
    raise ModelMismatch(f"{path} does not match its sidecar (digest differs): an interrupted write?")


def sidecar(path: Path) -> Path:
    return path.with_suffix(".json")
