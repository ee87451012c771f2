"""Fits the real-text fallback (:mod:`opsbrain.diagnosis.realtext`) on the real-log corpus' development excerpts and
exports it as the plain JSON the diagnosis serves (``opsbrain kb text-train``).

The classifier is :mod:`.textcv`'s (tf-idf, sublinear, tokens in >= 2 excerpts; multinomial logistic regression,
balanced class weights, C = :data:`.textcv.STRENGTH`) over :func:`opsbrain.diagnosis.realtext.excerpt_view` of each
excerpt; every excerpt of the dev split, whatever its confidence, with ``other`` as a class (predicting it is
abstaining). The test split is never read: :func:`.textcv.dev_only` raises on any test excerpt.

The sidecar block ``meta`` carries the chronological check that chose the threshold: for each corpus part from
:data:`FIRST_SCORED` on, a model fitted on the dev excerpts of the earlier parts scores that part's dev excerpts; its
precision and coverage at the threshold (firm/likely excerpts with a class label) are the figures the diagnosis
quotes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from opsbrain.diagnosis.realtext import ANSWERABLE, FORMAT, THRESHOLD, excerpt_view
from opsbrain.kb.textcv import STRENGTH, dev_only, fit
from opsbrain.kb.texttokens import text_tokens

FIRST_SCORED = "i"
"""reason: parts A-H (180 dev excerpts) are the first training set; parts I onwards are each scored by a model of the
parts before them (a later harvest read by what was known before it)."""
DIGITS = 7


def dev_excerpts(corpus: Path) -> list[dict[str, Any]]:
    from opsbrain.kb.realeval import load_corpus

    return dev_only([e for e in load_corpus(corpus) if e["split"] == "dev"])


def corpus_digest(excerpts: list[dict[str, Any]]) -> str:
    """A digest of what the model is fitted on (ids, labels, texts, in id order)."""
    h = hashlib.sha256()
    for e in sorted(excerpts, key=lambda e: str(e["id"])):
        h.update(json.dumps([e["id"], e["label"], e["text"]], ensure_ascii=False).encode())
    return h.hexdigest()[:16]


def part_of(e: dict[str, Any]) -> str:
    """``corpus_q.yaml`` -> ``q``."""
    return str(e["file"]).removeprefix("corpus_")[:1]


def _docs(excerpts: list[dict[str, Any]]) -> list[list[str]]:
    return [text_tokens(excerpt_view(str(e["text"]))) for e in excerpts]


def chronological(excerpts: list[dict[str, Any]], strength: float = STRENGTH) -> dict[str, Any]:
    """Per later part: the fallback's answers on its firm/likely dev excerpts by a model of the earlier parts."""
    excerpts = dev_only(excerpts)
    docs = _docs(excerpts)
    parts = sorted({part_of(e) for e in excerpts if part_of(e) >= FIRST_SCORED})
    answered = right = labelled = 0
    per_part: dict[str, dict[str, int]] = {}
    for p in parts:
        tr = [i for i, e in enumerate(excerpts) if part_of(e) < p]
        te = [i for i, e in enumerate(excerpts) if part_of(e) == p and e["confidence"] in ("firm", "likely")
              and e["label"] != "other"]
        if not te:
            continue
        vec, clf = fit([docs[i] for i in tr], [excerpts[i]["label"] for i in tr], [1.0] * len(tr), strength)
        a = r = 0
        for i, pr in zip(te, clf.predict_proba(vec.transform([docs[i] for i in te])), strict=True):
            j = max(range(len(pr)), key=lambda k: pr[k])
            cls = str(clf.classes_[j])
            if cls in ANSWERABLE and pr[j] >= THRESHOLD:
                a += 1
                r += cls == excerpts[i]["label"]
        per_part[p] = {"n": len(te), "answered": a, "right": r}
        answered, right, labelled = answered + a, right + r, labelled + len(te)
    return {"parts": per_part, "n": labelled, "answered": answered, "right": right,
            "precision": round(right / answered, 3) if answered else None,
            "coverage": round(answered / labelled, 3) if labelled else None}


def fit_text_model(corpus: Path, strength: float = STRENGTH) -> dict[str, Any]:
    """The JSON document of the fitted model (see :func:`opsbrain.diagnosis.realtext.model_from_doc`)."""
    import numpy as np
    import sklearn

    excerpts = dev_excerpts(corpus)
    vec, clf = fit(_docs(excerpts), [str(e["label"]) for e in excerpts], [1.0] * len(excerpts), strength)
    classes = [str(c) for c in clf.classes_]
    coef, intercept = clf.coef_, clf.intercept_
    if len(classes) == 2:  # scikit-learn's binary form: one row, p(second) = sigmoid; as softmax over (0, z)
        coef, intercept = np.vstack([np.zeros_like(coef[0]), coef[0]]), np.array([0.0, intercept[0]])
    vocab = [[tok, round(float(vec.idf_[j]), DIGITS), [round(float(coef[k, j]), DIGITS) for k in range(len(classes))]]
             for tok, j in sorted(vec.vocabulary_.items())]
    check = chronological(excerpts, strength)
    meta = {"excerpts": len(excerpts), "corpus_digest": corpus_digest(excerpts), "split": "dev", "strength": strength,
            "threshold": THRESHOLD, "sklearn_fitted_with": sklearn.__version__,
            "precision_out_of_part": check["precision"], "coverage_out_of_part": check["coverage"],
            "chronological_check": check}
    return {"format": FORMAT, "classes": classes, "intercept": [round(float(v), DIGITS) for v in intercept],
            "vocab": vocab, "meta": meta}


def write_model(doc: dict[str, Any], out: Path, force: bool = False) -> None:
    from opsbrain.fsio import write_atomic

    write_atomic(out, (json.dumps(doc, ensure_ascii=False, separators=(",", ":")) + "\n").encode(), option="--out",
                 force=force)
