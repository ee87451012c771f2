"""A fitted random forest as plain arrays, served with numpy only (no scikit-learn or scipy at diagnosis time).

:func:`export_forest` turns a fitted ``RandomForestClassifier`` into flat arrays (all trees end to end, child
indices made global); :class:`ArrayForest` walks them. Its probabilities equal the fitted forest's (a parity test
checks): sklearn averages each tree's normalised leaf class distribution, and so does this.
"""

from __future__ import annotations

from typing import Any

import numpy as np

LEAF = -1


def export_forest(forest: Any) -> dict[str, np.ndarray]:
    """Flat arrays of a fitted ``RandomForestClassifier``: feature, threshold, left, right, value, roots."""
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


class ArrayForest:
    """Class probabilities of one sparse feature row by walking the exported trees."""

    def __init__(self, arrays: dict[str, np.ndarray]) -> None:
        self.feature = arrays["feature"].tolist()
        self.threshold = arrays["threshold"].tolist()
        self.left = arrays["left"].tolist()
        self.right = arrays["right"].tolist()
        self.value = arrays["value"]
        self.roots = arrays["roots"].tolist()

    def leaves(self, row: dict[int, float]) -> list[int]:
        feature, threshold, left, right = self.feature, self.threshold, self.left, self.right
        out = []
        for node in self.roots:
            while left[node] != LEAF:
                # sklearn compares float32 features: x <= threshold goes left
                node = left[node] if float(np.float32(row.get(feature[node], 0.0))) <= threshold[node] else right[node]
            out.append(node)
        return out

    def predict_one(self, row: dict[int, float]) -> np.ndarray:
        return np.asarray(self.value[self.leaves(row)].mean(axis=0), dtype=np.float64)
