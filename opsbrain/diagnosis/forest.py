"""A fitted random forest as plain arrays, served without numpy (and without scikit-learn or scipy).

:func:`export_forest` turns a fitted ``RandomForestClassifier`` into flat arrays (all trees end to end, child
indices made global); :class:`ArrayForest` walks them in plain Python. Its probabilities equal the fitted forest's
(a parity test checks): sklearn averages each tree's normalised leaf class distribution in float32, compares float32
features with the thresholds, and so does this (float32 rounding through :mod:`array` and :mod:`struct`).
"""

from __future__ import annotations

import math
import struct
from array import array
from typing import Any

LEAF = -1
_F32 = struct.Struct("f")


def f32(x: float) -> float:
    """``float(numpy.float32(x))``: ``x`` rounded to single precision (overflow to infinity, as numpy)."""
    try:
        return _F32.unpack(_F32.pack(x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def export_forest(forest: Any) -> dict[str, Any]:
    """Flat arrays of a fitted ``RandomForestClassifier``: feature, threshold, left, right, value, roots."""
    import numpy as np

    feats, thr, left, right, vals, roots = [], [], [], [], [], []
    base = 0
    for est in forest.estimators_:
        t = est.tree_
        n = t.node_count
        roots.append(base)
        feats.append(t.feature.astype(np.int32))
        thr.append(t.threshold.astype(np.float64))
        cl, cr = t.children_left.astype(np.int64), t.children_right.astype(np.int64)
        left.append(np.where(cl == LEAF, LEAF, cl + base).astype(np.int32))
        right.append(np.where(cr == LEAF, LEAF, cr + base).astype(np.int32))
        v = t.value[:, 0, :].astype(np.float64)
        s = v.sum(axis=1, keepdims=True)
        vals.append((v / np.where(s == 0, 1, s)).astype(np.float32))
        base += n
    return {"feature": np.concatenate(feats), "threshold": np.concatenate(thr), "left": np.concatenate(left),
            "right": np.concatenate(right), "value": np.concatenate(vals), "roots": np.asarray(roots, np.int32)}


def _flat_f32(value: Any) -> array[float]:
    """The (nodes x classes) leaf values as one flat float32 array (numpy's or :mod:`.npzplain`'s)."""
    data = getattr(value, "data", None)
    if isinstance(data, array) and data.typecode == "f":
        return data
    import numpy as np

    out = array("f")
    out.frombytes(np.ascontiguousarray(value, dtype=np.float32).tobytes())
    return out


class ArrayForest:
    """Class probabilities of one sparse feature row by walking the exported trees."""

    def __init__(self, arrays: dict[str, Any]) -> None:
        self.feature = arrays["feature"].tolist()
        self.threshold = arrays["threshold"].tolist()
        self.left = arrays["left"].tolist()
        self.right = arrays["right"].tolist()
        self.n_classes = int(arrays["value"].shape[1])
        self.value = _flat_f32(arrays["value"])
        self.roots = arrays["roots"].tolist()

    def leaves(self, row: dict[int, float]) -> list[int]:
        feature, threshold, left, right = self.feature, self.threshold, self.left, self.right
        row32 = {k: f32(v) for k, v in row.items()}  # sklearn compares float32 features: x <= threshold goes left
        out = []
        for node in self.roots:
            while left[node] != LEAF:
                node = left[node] if row32.get(feature[node], 0.0) <= threshold[node] else right[node]
            out.append(node)
        return out

    def proba(self, row: dict[int, float]) -> list[float]:
        """The mean of the trees' leaf distributions, summed and divided in float32 as numpy's ``mean(axis=0)``
        of the float32 leaf rows does (one row after the other)."""
        leaves = self.leaves(row)
        c, value = self.n_classes, self.value
        acc = array("f", bytes(4 * c))
        for leaf in leaves:
            base = leaf * c
            for j in range(c):
                acc[j] = acc[j] + value[base + j]  # stored back as float32: a float32 addition
        n = len(leaves)
        return array("f", [a / n for a in acc]).tolist()

    def predict_one(self, row: dict[int, float]) -> Any:
        import numpy as np

        return np.asarray(self.proba(row), dtype=np.float64)
