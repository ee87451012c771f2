"""Would a text classifier learned from the real excerpts themselves help where the signal engine abstains?
(``opsbrain kb text-cv``; issue 14.) An honest estimate before any integration: grouped cross-validation on the
development split only.

The classifier: tf-idf (sublinear) over :mod:`.texttokens` tokens (words, bigrams, codes; optionally ``sig:<kind>``
for the signal kinds the ingestion layer reads from the same text), multinomial logistic regression with balanced
class weights. ``other`` (no class of ours fits) is one of its classes: predicting it means abstaining. Variants:
``words``, ``words+signals``, ``words+signals+kb`` (the knowledge base's documented texts per class as weaker extra
examples, weight :data:`KB_WEIGHT`).

Folds are grouped by corpus part (each part a later harvest: "excerpts collected later") and by source project
(GitHub owner/repo or documentation site), so no fold is scored by a model that saw its part or its project. For
each threshold tau on the top probability: coverage and precision on all dev excerpts, on the firm/likely ones,
and on those the signal engine abstains on; the firm/likely agreement if the text model answered where the engine
abstains; and a veto check (text model confident in another class than the engine's answer: how many engine
answers it would turn into abstentions, and how many of them were wrong). The engine's dev answers are in-sample
(its parsers were written from dev), so the abstained residue is the hardest part of dev.

The test split is never read here: :func:`dev_only` raises on any excerpt of another split."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from opsbrain.errors import InputError
from opsbrain.kb.texttokens import text_tokens

VARIANTS = {"words": (False, False), "words+signals": (True, False), "words+signals+kb": (True, True)}
"""Variant -> (signal kinds as tokens, knowledge-base texts as extra examples)."""
KB_WEIGHT = 0.3
"""reason: a documented symptom line is a paraphrase, not a log; it should count for a third of a real excerpt."""
STRENGTH = 10.0
"""Inverse L2 regularisation (scikit-learn's C). reason: C=1 left every out-of-fold top probability below 0.4 on
~180 examples over ~10 classes (nothing answered); C=100 spread the mass but lowered precision at every tau.
Re-checked for the shipped fallback (session 32, dev, benchmarks/textgen_variants.py; right of 318 in the
chronological check / of 404 in project-grouped 5-fold CV, at the threshold): C 3, 5, 10, 20, 30 gave 224 / 225 / 223 /
223 / 222 and 288 / 287 / 289 / 285 / 282, precision 0.709-0.721 and 0.716-0.728: within noise, 10 kept."""
MIN_DF = 2
"""reason: a token seen in one excerpt only names that excerpt (a path, a model name), not its class."""
TAUS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
GROUPINGS = ("part", "project")
FOLDS_BY_PROJECT = 5


class LeakError(AssertionError):
    """An excerpt outside the development split reached the text model's training or cross-validation."""


def dev_only(excerpts: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The excerpts, after checking every one is of the dev split (by :func:`realeval.split_of` of its id)."""
    from opsbrain.kb.realeval import split_of

    for e in excerpts:
        if split_of(str(e["id"])) != "dev" or e.get("split", "dev") != "dev":
            raise LeakError(f"excerpt {e['id']!r} is not of the dev split; the text model never sees the test part")
    return list(excerpts)


def project_of(source: str) -> str:
    """The source project of an excerpt: GitHub owner/repo (lower case), else the site's host."""
    m = re.match(r"https?://github\.com/([^/]+/[^/#?]+)", source) or re.match(r"github:([^/:]+/[^/:@]+)", source)
    if m:
        return m.group(1).lower()
    m = re.match(r"https?://([^/]+)", source)
    return m.group(1).lower() if m else source.split(":")[0]


def kinds_of(text: str) -> list[str]:
    from opsbrain.ingest import ingest_text

    return sorted({s.kind for s in ingest_text(text)[0]})


def kb_texts() -> list[tuple[str, str]]:
    """(class, text) for each class's title and description, each symptom, and each signature's example line."""
    from opsbrain.kb.loader import load_kb

    out: list[tuple[str, str]] = []
    for c in load_kb():
        d = c.model_dump(mode="json")
        out.append((c.id, f"{d['title']}\n{d.get('description') or ''}"))
        out.extend((c.id, s) for s in d.get("symptoms") or [])
        for group in (d.get("signatures") or {}).values():
            out.extend((c.id, s["example"]) for s in group or [] if isinstance(s, dict) and s.get("example"))
    return out


def fit(docs: list[list[str]], labels: list[str], weights: list[float], strength: float, balanced: bool,
        min_df: int = MIN_DF, kept_from_one: str | None = None) -> Any:
    """A fitted (vectorizer, classifier) pair; sample weights ``weights``, times class weights balanced over the given
    labels when ``balanced``; tokens in fewer than ``min_df`` documents left out, except those starting with
    ``kept_from_one``."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    if kept_from_one:
        df = Counter(t for d in docs for t in set(d))
        vocab = sorted(t for t, n in df.items() if n >= min_df or t.startswith(kept_from_one))
        vec = TfidfVectorizer(analyzer=_identity, sublinear_tf=True, lowercase=False, vocabulary=vocab)
    else:
        vec = TfidfVectorizer(analyzer=_identity, sublinear_tf=True, min_df=min_df)
    x = vec.fit_transform(docs)
    count, n = Counter(labels), len(labels)
    sw = [w * (n / (len(count) * count[y]) if balanced else 1.0) for w, y in zip(weights, labels, strict=True)]
    clf = LogisticRegression(C=strength, max_iter=5000).fit(x, labels, sample_weight=sw)
    return vec, clf


def _identity(doc: list[str]) -> list[str]:
    return doc


def out_of_fold(excerpts: list[dict[str, Any]], grouping: str, variant: str,
                strength: float = STRENGTH) -> list[tuple[str, float]]:
    """(top class, its probability) for each excerpt, from a model trained without the excerpt's group."""
    from sklearn.model_selection import GroupKFold, LeaveOneGroupOut

    excerpts = dev_only(excerpts)
    use_sig, use_kb = VARIANTS[variant]
    docs = [text_tokens(str(e["text"]), kinds_of(str(e["text"])) if use_sig else None) for e in excerpts]
    labels = [str(e["label"]) for e in excerpts]
    groups = [e["file"] for e in excerpts] if grouping == "part" else [project_of(str(e["source"])) for e in excerpts]
    extra = [(text_tokens(t, kinds_of(t) if use_sig else None), c) for c, t in kb_texts()] if use_kb else []
    if len(set(groups)) < 2:
        raise InputError(f"cross-validation grouped by {grouping} needs at least two groups")
    cv = LeaveOneGroupOut() if grouping == "part" else GroupKFold(min(FOLDS_BY_PROJECT, len(set(groups))))
    out: list[tuple[str, float]] = [("", 0.0)] * len(excerpts)
    for tr, te in cv.split(docs, labels, groups):
        vec, clf = fit([docs[i] for i in tr] + [d for d, _ in extra], [labels[i] for i in tr] + [c for _, c in extra],
                       [1.0] * len(tr) + [KB_WEIGHT] * len(extra), strength, balanced=True)
        for i, p in zip(te, clf.predict_proba(vec.transform([docs[i] for i in te])), strict=True):
            j = max(range(len(p)), key=lambda k: p[k])
            out[i] = (str(clf.classes_[j]), float(p[j]))
    return out


def tau_rows(excerpts: list[dict[str, Any]], oof: list[tuple[str, float]],
             engine: dict[str, tuple[str, float]]) -> list[dict[str, Any]]:
    """Per tau: coverage/precision overall, on firm/likely, on the engine's abstentions; combined agreement; veto."""
    firm = [e["confidence"] in ("firm", "likely") for e in excerpts]
    abst = [engine[e["id"]][0] == "unknown" for e in excerpts]
    right = [p == e["label"] for (p, _), e in zip(oof, excerpts, strict=True)]
    rows = []
    for tau in TAUS:
        ans = [p != "other" and q >= tau for p, q in oof]

        def cp(mask: list[bool], ans: list[bool] = ans) -> dict[str, Any]:
            a = [i for i, m in enumerate(mask) if m and ans[i]]
            return {"n": sum(mask), "answered": len(a), "coverage": _r(len(a), sum(mask)),
                    "precision": _r(sum(right[i] for i in a), len(a))}

        combined = []
        for i, e in enumerate(excerpts):
            pred = engine[e["id"]][0]
            combined.append(oof[i][0] if pred == "unknown" and ans[i] else pred)
        fl = [i for i in range(len(excerpts)) if firm[i]]
        lab = [i for i in fl if excerpts[i]["label"] != "other"]
        answered = [i for i in fl if combined[i] != "unknown"]
        veto = [i for i, e in enumerate(excerpts) if not abst[i] and oof[i][1] >= tau
                and oof[i][0] != engine[e["id"]][0]]
        rows.append({"tau": tau, "all": cp([True] * len(excerpts)), "firm_or_likely": cp(firm),
                     "engine_abstains": cp(abst),
                     "combined_firm_or_likely": {
                         "agreement": _r(sum(combined[i] == excerpts[i]["label"] for i in lab), len(lab)),
                         "abstention": _r(len(fl) - len(answered), len(fl)),
                         "answered_precision": _r(sum(combined[i] == excerpts[i]["label"] for i in answered),
                                                  len(answered))},
                     "veto": {"engine_answers_overruled": len(veto),
                              "of_them_engine_wrong": sum(engine[excerpts[i]["id"]][0] != excerpts[i]["label"]
                                                          for i in veto)}})
    return rows


def _r(a: float, b: float) -> float | None:
    return round(a / b, 3) if b else None


def text_cv(corpus: Path, engine: Any, matcher: Any, variants: Sequence[str] = tuple(VARIANTS),
            strength: float = STRENGTH) -> dict[str, Any]:
    """The whole report: dev excerpts, the engine's dev answers, and per variant and grouping the tau table."""
    from opsbrain.kb.realeval import evaluate_real, load_corpus

    excerpts = dev_only([e for e in load_corpus(corpus) if e["split"] == "dev"])
    rows = evaluate_real(engine, matcher, corpus, split="dev")["rows"]
    eng = {r["id"]: (r["predicted"], r["confidence"]) for r in rows}
    out: dict[str, Any] = {"corpus": str(corpus), "split": "dev", "n": len(excerpts), "strength": strength,
                           "parts": len({e["file"] for e in excerpts}),
                           "projects": len({project_of(str(e["source"])) for e in excerpts}),
                           "engine_abstains": sum(p == "unknown" for p, _ in eng.values()), "variants": {}}
    for v in variants:
        out["variants"][v] = {g: tau_rows(excerpts, out_of_fold(excerpts, g, v, strength), eng) for g in GROUPINGS}
    return out
