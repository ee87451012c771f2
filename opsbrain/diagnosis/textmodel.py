"""The real-text fallback's model as served: a tf-idf + logistic regression fitted by :mod:`opsbrain.kb.realtext_fit`,
read from a JSON file (:data:`MODEL_FILE`) in plain Python (no scikit-learn, scipy or numpy), its weights kept raw in
the data directory's cache for the next process (:mod:`opsbrain.rawcache`), and the model a block serves in place of
the shipped one (:func:`serving`). What it reads and when it answers is :mod:`opsbrain.diagnosis.realtext`'s (split
from there in session 46)."""

from __future__ import annotations

import contextlib
import json
import math
from array import array
from collections import Counter
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

MODEL_FILE = Path(__file__).resolve().parents[2] / "knowledge_base" / "model" / "realtext.json"
FORMAT = 1


@dataclass(frozen=True)
class TextModel:
    classes: tuple[str, ...]
    intercept: tuple[float, ...]
    vocab: Mapping[str, tuple[float, tuple[float, ...]]]  # token -> (idf, coefficient per class)
    meta: dict[str, Any]

    def proba(self, tokens: list[str]) -> list[float]:
        """scikit-learn's ``predict_proba`` of the fitted (TfidfVectorizer(sublinear_tf, l2), LogisticRegression)."""
        counts = Counter(t for t in tokens if t in self.vocab)
        x = {t: (1.0 + math.log(n)) * self.vocab[t][0] for t, n in counts.items()}
        norm = math.sqrt(sum(v * v for v in x.values())) or 1.0
        logits = list(self.intercept)
        for t, v in x.items():
            coef = self.vocab[t][1]
            for k in range(len(logits)):
                logits[k] += v / norm * coef[k]
        top = max(logits)
        ex = [math.exp(z - top) for z in logits]
        s = sum(ex)
        return [e / s for e in ex]

    def weight(self, tokens: list[str], cls: str) -> float:
        """How much one line's tokens count for ``cls`` (idf times coefficient, each distinct token once)."""
        k = self.classes.index(cls)
        return sum(self.vocab[t][0] * self.vocab[t][1][k] for t in set(tokens) if t in self.vocab)


def model_from_doc(doc: dict[str, Any]) -> TextModel:
    classes = tuple(str(c) for c in doc["classes"])
    vocab = {str(t): (float(idf), tuple(float(c) for c in coef)) for t, idf, coef in doc["vocab"]}
    if any(len(c) != len(classes) for _i, c in vocab.values()) or len(doc["intercept"]) != len(classes):
        raise ValueError("text model arrays do not match its classes")
    return TextModel(classes, tuple(float(v) for v in doc["intercept"]), vocab, dict(doc.get("meta") or {}))


@lru_cache(maxsize=4)
def load_model(path: Path = MODEL_FILE, cache_dir: Path | None = None) -> TextModel | None:
    """The shipped text model, or None when it is absent or not of this format (the fallback is then off).
    ``cache_dir``: where its weights are kept raw for the next process (default: the data directory's cache; the
    parsed weights are the same, and reading them there saves ~25 ms of JSON floats a diagnosis: session 36)."""
    import hashlib

    from opsbrain import rawcache
    from opsbrain.kb.compiled import cache_path

    try:
        raw = path.read_bytes()
    except OSError:
        return None
    digest = hashlib.sha256(raw).hexdigest()
    where = rawcache.path_for(cache_dir or cache_path().parent, CACHE_PREFIX, digest)
    if (got := rawcache.read(where, digest)) is not None:
        with contextlib.suppress(KeyError, TypeError, ValueError, IndexError):
            return _from_raw(*got)
    try:
        doc = json.loads(raw)
        if doc.get("format") != FORMAT:
            return None
        model = model_from_doc(doc)
    except (ValueError, KeyError, TypeError):
        return None
    rawcache.store(where, digest, *_to_raw(model))
    return model


CACHE_PREFIX = "text-model-"
_SERVED: ContextVar[TextModel | None] = ContextVar("opsbrain_served_text_model", default=None)


@contextlib.contextmanager
def serving(model: TextModel) -> Iterator[None]:
    """Within the block, :func:`answer` reads with ``model`` in place of the shipped one: the cross-fitted
    evaluation (:mod:`opsbrain.kb.crossfit`) scores each dev excerpt with a model fitted without its fold."""
    token = _SERVED.set(model)
    try:
        yield
    finally:
        _SERVED.reset(token)


def _to_raw(model: TextModel) -> tuple[dict[str, Any], dict[str, array[float]]]:
    """The header and weights of a raw copy of ``model`` (:mod:`opsbrain.rawcache`): per token its idf, then its
    coefficients, as doubles (the parsed floats, bit for bit)."""
    weights = array("d")
    for idf, coef in model.vocab.values():
        weights.append(idf)
        weights.extend(coef)
    head = {"format": FORMAT, "classes": list(model.classes), "intercept": list(model.intercept),
            "tokens": list(model.vocab), "meta": model.meta}
    return head, {"weights": weights}


def _from_raw(head: dict[str, Any], arrays: dict[str, array[float]]) -> TextModel:
    """The model of a raw copy made by this format's reader (ValueError for another's: a copy written before
    :data:`FORMAT` changed would serve a file the JSON path now refuses; review 36)."""
    if head.get("format") != FORMAT:
        raise ValueError(f"raw text model of format {head.get('format')!r}, not {FORMAT}")
    classes = tuple(str(c) for c in head["classes"])
    w, k = arrays["weights"], len(classes) + 1
    tokens = head["tokens"]
    if len(w) != k * len(tokens) or len(head["intercept"]) != len(classes):
        raise ValueError("raw text model does not match its classes")
    vocab = RawVocab(w, k, {t: i for t, i in zip(tokens, range(0, len(w), k), strict=True)})
    return TextModel(classes, tuple(float(v) for v in head["intercept"]), vocab, dict(head["meta"]))


class RawVocab(Mapping[str, tuple[float, tuple[float, ...]]]):
    """A text model's vocabulary over its raw weights: a token's (idf, coefficients) made when it is looked up (a
    diagnosis looks up the few dozen tokens of its input, not the 5,000 of the model)."""

    def __init__(self, weights: array[float], row: int, at: dict[str, int]) -> None:
        self._w, self._row, self._at = weights, row, at

    def __getitem__(self, token: str) -> tuple[float, tuple[float, ...]]:
        i = self._at[token]
        return self._w[i], tuple(self._w[i + 1:i + self._row])

    def __contains__(self, token: object) -> bool:
        return token in self._at

    def __iter__(self) -> Iterator[str]:
        return iter(self._at)

    def __len__(self) -> int:
        return len(self._at)


def served_model() -> TextModel | None:
    """The model :func:`serving` gives within its block, else the shipped one (:func:`load_model`; None: none)."""
    return _SERVED.get() or load_model()
