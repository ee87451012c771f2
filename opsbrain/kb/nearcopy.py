"""Near-copies: a held-out incident whose discrete features equal a training case's with the same label.

The discrete feature vector is every feature except the continuous readings (elapsed times, temperatures, a rank's
step-time ratio): signal kind counts, code families, knowledge-base matches and topology counts, values rounded to 6
decimals. Its 64-bit digest is the case's signature; ``kb train`` stores the training library's signatures with the
model.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

import numpy as np

CONTINUOUS = frozenset({"span_s", "dark_for_s", "last_down_s", "max_temp_c", "rank_slowdown"})


def discrete(features: dict[str, float]) -> tuple[tuple[str, float], ...]:
    return tuple(sorted((k, round(float(v), 6)) for k, v in features.items() if k not in CONTINUOUS))


def signature(features: dict[str, float]) -> int:
    digest = hashlib.blake2b(repr(discrete(features)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def signature_arrays(features: Iterable[dict[str, float]], labels: Iterable[str],
                     classes: Sequence[str]) -> dict[str, np.ndarray]:
    """The training library's (signature, label index) pairs as arrays to store with the model."""
    index = {c: i for i, c in enumerate(classes)}
    pairs = sorted({(signature(f), index[y]) for f, y in zip(features, labels, strict=True)})
    return {"train_sig": np.asarray([p[0] for p in pairs], dtype=np.uint64),
            "train_sig_label": np.asarray([p[1] for p in pairs], dtype=np.int32)}


def stored_pairs(arrays: dict[str, np.ndarray], classes: Sequence[str]) -> set[tuple[int, str]] | None:
    """The stored (signature, label) pairs, or None when the model was trained without them."""
    if "train_sig" not in arrays:
        return None
    return {(int(s), classes[int(i)]) for s, i in zip(arrays["train_sig"], arrays["train_sig_label"], strict=True)}


def pairs_of(features: Iterable[dict[str, float]], labels: Iterable[str]) -> set[tuple[int, str]]:
    return {(signature(f), y) for f, y in zip(features, labels, strict=True)}


def near_copy_rate(features: Sequence[dict[str, float]], labels: Sequence[str],
                   training: set[tuple[int, str]]) -> float | None:
    if not features:
        return None
    hits = sum((signature(f), y) in training for f, y in zip(features, labels, strict=True))
    return hits / len(features)
